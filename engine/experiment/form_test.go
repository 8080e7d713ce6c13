package experiment

import (
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
			e, err := FromForm(" Headline ", KindCopy, " unsubscribe.step1.title ",
				FormQuestions{Hypothesis: "A warmer headline keeps more people", Metric: MetricSaveRate}, tc.rows)
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

// FuzzFromForm reads any form: it never panics, keeps at most the form's
// rows, reads a holdout only for an offer experiment, and an error is
// always the form's problems.
func FuzzFromForm(f *testing.F) {
	f.Add("Headline", KindCopy, "unsubscribe.step1.title", "H", MetricSaveRate, "", "", "50", "B", "50")
	f.Add("Offer", KindOffer, "offer.step3", "H", MetricRevenuePerAttempt, "10", "", "1", "gift_month", "1")
	f.Add("Offer", KindOffer, "offer.step3", "", "x", "10%", "", "", "none", "-3")
	f.Add("Offer", KindOffer, "offer.step7", "H", "", "99999999999999999999", "a", "x", "", "")
	f.Fuzz(func(t *testing.T, name, kind, key, hypothesis, metric, holdout, v0, w0, v1, w1 string) {
		e, err := FromForm(name, kind, key, FormQuestions{Hypothesis: hypothesis, Metric: metric, Holdout: holdout},
			[]FormVariant{{Value: v0, Weight: w0}, {Value: v1, Weight: w1}, {}, {}})
		if len(e.Variants) > 4 {
			t.Fatalf("%d variants from 4 rows", len(e.Variants))
		}
		if kind != KindOffer && e.Holdout != 0 {
			t.Fatalf("a %q experiment read a holdout of %d", kind, e.Holdout)
		}
		var invalid *InvalidError
		if err != nil && (!errors.As(err, &invalid) || len(invalid.Problems) == 0) {
			t.Fatalf("FromForm: %v, want problems", err)
		}
	})
}

// The holdout as typed: a whole percent ("10" or "10%") on an offer
// experiment, nothing on a copy one, and anything else a problem reported
// with the form's others.
func TestFromFormHoldout(t *testing.T) {
	t.Parallel()
	rows := []FormVariant{{"Control", "", "50"}, {"B", "gift_month", "50"}}
	q := FormQuestions{Hypothesis: "H", Metric: MetricSaveRate}
	for _, tc := range []struct {
		kind, typed string
		want        int
		problem     bool
	}{{KindOffer, "10", 10, false}, {KindOffer, " 15% ", 15, false}, {KindOffer, "", 0, false},
		{KindCopy, "10", 0, false}, {KindOffer, "ten", 0, true}} {
		q.Holdout = tc.typed
		e, err := FromForm("N", tc.kind, "offer.step3", q, rows)
		var invalid *InvalidError
		switch {
		case tc.problem && (!errors.As(err, &invalid) || invalid.Problems["holdout"].Code != ProblemHoldout):
			t.Errorf("%s %q: %v, want the holdout's problem", tc.kind, tc.typed, err)
		case !tc.problem && (err != nil || e.Holdout != tc.want):
			t.Errorf("%s %q: holdout %d, %v; want %d", tc.kind, tc.typed, e.Holdout, err, tc.want)
		}
	}
}
