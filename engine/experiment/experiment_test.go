package experiment

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Validate answers codes by form input, for the studio to word.
func TestValidateAnswersCodes(t *testing.T) {
	t.Parallel()
	two := []Variant{{Weight: 50}, {Value: "B", Weight: 50}}
	offers := []Variant{{Weight: 50}, {Value: "gift_month", Weight: 50}}
	tests := []struct {
		name string
		e    Experiment
		want Problems
	}{
		{"valid", Experiment{Name: "N", Kind: KindCopy, Key: "unsubscribe.step0.title", Variants: two}, Problems{}},
		{"no name", Experiment{Name: " ", Kind: KindCopy, Key: "unsubscribe.step0.title", Variants: two},
			Problems{"name": {Code: ProblemRequired}}},
		{"a long name", Experiment{Name: strings.Repeat("n", maxName+1), Kind: KindCopy, Key: "unsubscribe.step0.title", Variants: two},
			Problems{"name": {Code: ProblemTooLong, Args: map[string]string{ArgUnder: "121"}}}},
		{"a key outside the flow", Experiment{Name: "N", Kind: KindCopy, Key: "signIn.title", Variants: two},
			Problems{"key": {Code: ProblemCopyKey}}},
		{"an offer key that is no slot", Experiment{Name: "N", Kind: KindOffer, Key: "unsubscribe.step0.title",
			Variants: []Variant{{Weight: 1}, {Value: "gift month", Weight: 1}}},
			Problems{"key": {Code: ProblemOfferSlot}, "v1value": {Code: ProblemOfferID}}},
		{"an unknown kind", Experiment{Name: "N", Kind: "x", Key: "offer.step3", Variants: two}, Problems{"kind": {Code: ProblemKind}}},
		{"one variant", Experiment{Name: "N", Kind: KindCopy, Key: "unsubscribe.step0.title", Variants: two[:1]},
			Problems{"variants": {Code: ProblemVariants, Args: map[string]string{ArgMin: "2", ArgMax: "4"}}}},
		{"a variant without text, weights out of range", Experiment{Name: "N", Kind: KindCopy, Key: "unsubscribe.step0.title",
			Variants: []Variant{{Weight: -1}, {Weight: maxWeight + 1}}},
			Problems{"v1value": {Code: ProblemValue}, "v0weight": {Code: ProblemWeightRange, Args: map[string]string{ArgMax: "10000"}},
				"v1weight": {Code: ProblemWeightRange, Args: map[string]string{ArgMax: "10000"}}}},
		{"no weight", Experiment{Name: "N", Kind: KindCopy, Key: "unsubscribe.step0.title",
			Variants: []Variant{{}, {Value: "B"}}}, Problems{"v0weight": {Code: ProblemNoWeight}}},
		// The questions asked at creation (issue #34) and the holdout.
		{"no hypothesis, an unknown metric", Experiment{Name: "N", Kind: KindCopy, Key: "unsubscribe.step0.title", Variants: two,
			Hypothesis: " ", Metric: "clicks"}, Problems{"hypothesis": {Code: ProblemHypothesis}, "metric": {Code: ProblemMetric}}},
		{"a long hypothesis, no metric", Experiment{Name: "N", Kind: KindCopy, Key: "unsubscribe.step0.title", Variants: two,
			Hypothesis: strings.Repeat("h", maxHypo+1)},
			Problems{"hypothesis": {Code: ProblemTooLong, Args: map[string]string{ArgUnder: "1001"}}, "metric": {Code: ProblemMetric}}},
		{"an offer experiment's holdout of 20%", Experiment{Name: "N", Kind: KindOffer, Key: "offer.step3", Variants: offers,
			Hypothesis: "H", Metric: MetricRevenuePerAttempt, Holdout: MaxHoldout}, Problems{}},
		{"a holdout above 20%", Experiment{Name: "N", Kind: KindOffer, Key: "offer.step3", Variants: offers,
			Hypothesis: "H", Metric: MetricSaveRate, Holdout: 21},
			Problems{"holdout": {Code: ProblemHoldoutRange, Args: map[string]string{ArgMax: "20"}}}},
		{"a negative holdout", Experiment{Name: "N", Kind: KindOffer, Key: "offer.step3", Variants: offers,
			Hypothesis: "H", Metric: MetricSaveRate, Holdout: -1},
			Problems{"holdout": {Code: ProblemHoldoutRange, Args: map[string]string{ArgMax: "20"}}}},
		{"a copy experiment's holdout", Experiment{Name: "N", Kind: KindCopy, Key: "unsubscribe.step0.title", Variants: two,
			Hypothesis: "H", Metric: MetricSaveRate, Holdout: 10}, Problems{"holdout": {Code: ProblemHoldoutOffer}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := tc.e
			if e.Hypothesis == "" && e.Metric == "" { // the cases before the questions
				e.Hypothesis, e.Metric = "A warmer headline keeps more people", MetricSaveRate
			}
			if diff := cmp.Diff(tc.want, Validate(e)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
