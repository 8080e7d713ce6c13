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
