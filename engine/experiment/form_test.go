package experiment

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFromForm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rows []FormVariant
		want Problems // nil: no error
	}{
		{"two variants, blank rows left out", []FormVariant{{"Control", "", "50"}, {"B", "New headline", " 50 "}, {}, {}}, nil},
		{"a weight that is not a number, with the form's other problems",
			[]FormVariant{{"Control", "", "50"}, {"B", "", "x"}, {}, {}},
			Problems{"v1weight": {Code: ProblemWeight}, "v1value": {Code: ProblemValue}}},
		{"an empty weight of the first two", []FormVariant{{"Control", "", ""}, {"B", "Text", "50"}},
			Problems{"v0weight": {Code: ProblemWeight}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := FromForm(" Headline ", KindCopy, " unsubscribe.step1.title ", tc.rows)
			if tc.want == nil {
				if err != nil || e.Name != "Headline" || e.Key != "unsubscribe.step1.title" || len(e.Variants) != 2 {
					t.Fatalf("FromForm: %+v %v", e, err)
				}
				return
			}
			var invalid *InvalidError
			if !errors.As(err, &invalid) {
				t.Fatalf("FromForm: %v, want problems", err)
			}
			if diff := cmp.Diff(tc.want, invalid.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSaveKeepsKindAndKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newService(t)
	e, err := s.Save(ctx, "", copyExperiment(50, 50), "t@x")
	if err != nil {
		t.Fatal(err)
	}
	in := copyExperiment(50, 50)
	in.Name, in.Key = "Renamed", "unsubscribe.step2.title"
	got, err := s.Save(ctx, e.ID, in, "t@x")
	if err != nil || got.Name != "Renamed" || got.Key != e.Key || got.Kind != e.Kind {
		t.Fatalf("save: %+v %v", got, err)
	}
}

func TestCopyPageExposesTheKeysRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newService(t)
	e, _ := s.Create(ctx, copyExperiment(50, 50), "t@x")
	e, _ = s.SetStatus(ctx, e.ID, ActionStart, "t@x")
	exposures := func() int64 {
		t.Helper()
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		res, err := s.Results(ctx, e, e.Phase)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, v := range res.Variants {
			n += v.Exposures
		}
		return n
	}
	page := s.CopyPage("u1")
	if len(page.Assigned) != 1 || page.Assigned[0].Experiment != e.ID {
		t.Fatalf("assigned: %+v", page.Assigned)
	}
	page.Read("signIn.title") // no experiment's key
	if err := page.Expose(ctx); err != nil || exposures() != 0 {
		t.Fatalf("a page that did not read the key exposed: %v", err)
	}
	page.Read(e.Key)
	if err := page.Expose(ctx); err != nil || exposures() != 1 {
		t.Fatalf("a page that read the key: %v", err)
	}
	if got := s.CopyPage(""); len(got.Assigned) != 0 {
		t.Errorf("nobody is assigned: %+v", got.Assigned)
	}
}
