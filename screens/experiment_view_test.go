package screens

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/experiment"
	"glimpse/engine/retention"
	"glimpse/engine/ui"
)

func TestStudioExperimentResultsOf(t *testing.T) {
	t.Parallel()
	res := experiment.Results{Experiment: experiment.Experiment{ID: "x1", Name: "N", Key: "k", Status: "running", Phase: 2},
		Phase: 1, SRMP: 0.00001, Mismatch: true, SRMReadable: true, Variants: []experiment.VariantResult{
			{Variant: experiment.Variant{Name: "Control", Weight: 1}, Counts: experiment.Counts{Exposures: 10, Saves: 3},
				SaveRate: experiment.Interval{Estimate: 0.3, Low: 0, High: 0.6}, SaveRateAlways: experiment.Interval{Estimate: 0.3, Low: 0, High: 1},
				Revenue: experiment.Interval{Estimate: 419.7, Low: 100, High: 739.4}},
			{Variant: experiment.Variant{Name: "B", Weight: 3}, Diff: experiment.Interval{Estimate: 0.05, Low: -0.1, High: 0.2}},
		},
		Days: []experiment.Day{
			{Day: "2026-11-24", Cumulative: []experiment.Counts{{Exposures: 4, Saves: 2}, {}}},
			{Day: "2026-11-25", Cumulative: []experiment.Counts{{Exposures: 10, Saves: 3}, {}}},
		}}
	want := StudioExperimentResults{ID: "x1", Name: "N", Key: "k", Status: "running", Phase: 1, Phases: 2, SRMP: "p < 0.0001", Mismatch: true,
		Split: "10 / 0", Planned: "25/75", Baseline: "Control",
		Variants: []StudioExperimentResult{
			{Name: "Control", Exposures: 10, Saves: 3, Control: true, SaveRate: "30.0% [0.0%, 60.0%]", Revenue: "$4.20 [$1.00, $7.39]",
				Over: []ui.ChartPoint{{X: "Nov 24", Y: 50, YLabel: "50.0%"}, {X: "Nov 25", Y: 30, YLabel: "30.0%"}}},
			// No exposures: dashes, not a rate of nothing, and no line.
			{Name: "B", SaveRate: "–", Revenue: "–", Diff: "–", DiffAlways: "–", RevenueDiff: "–", Chance: "–"},
		},
		Verdict: StudioExperimentVerdict{Kind: VerdictMismatch}}
	if diff := cmp.Diff(want, StudioExperimentResultsOf(res)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, c := range []struct{ got, want string }{
		{money(experiment.Interval{Estimate: 412.4, Low: 310, High: 520}, true, false), "$4.12 [$3.10, $5.20]"},
		{money(experiment.Interval{Estimate: 39, Low: -41.2, High: 119}, true, true), "+$0.39 [-$0.41, +$1.19]"},
		{money(experiment.Interval{Estimate: 0.2, Low: -0.3, High: 1}, true, true), "+$0.00 [+$0.00, +$0.01]"},
		{money(experiment.Interval{Low: -1, High: 1}, false, true), "–"},
		{chance(0.92345, true), "92.3%"}, {chance(0.99995, true), "> 99.9%"}, {chance(0.00001, true), "< 0.1%"},
		{weightShare(1, 3), "33.3"}, {weightShare(50, 100), "50"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if got := formatP(0.41421); got != "p = 0.4142" {
		t.Errorf("formatP: %q", got)
	}
	if got := pts(experiment.Interval{Estimate: 0.05, Low: -0.1, High: 0.2}, true); got != "+5.0 pts [-10.0, +20.0]" {
		t.Errorf("pts: %q", got)
	}
}

// The results the issue found ('+33.3 pts [-805.8, +872.5]') now read as a
// difference can: 2 of 3 saved against 1 of 3 is +33.3 pts in the whole
// [-100, +100], and the verdict says more attempts are needed.
func TestStudioExperimentResultsAtSmallCounts(t *testing.T) {
	t.Parallel()
	e := experiment.Experiment{ID: "x1", Name: "N", Key: "k", Status: "running", Phase: 1,
		Variants: []experiment.Variant{{ID: "a", Name: "Control", Weight: 1}, {ID: "b", Name: "Warmer", Weight: 1}}}
	res := experiment.Compute(e, 1, map[string]experiment.Counts{"a": {Exposures: 3, Saves: 1}, "b": {Exposures: 3, Saves: 2}},
		experiment.DefaultPlannedN)
	got := StudioExperimentResultsOf(res)
	if d := got.Variants[1].DiffAlways; d != "+33.3 pts [-100.0, +100.0]" {
		t.Errorf("always-valid difference %q", d)
	}
	if v := got.Verdict; v.Kind != VerdictWait || v.Variant != "Warmer" || v.Diff != "+33.3" || v.More < 10 {
		t.Errorf("verdict %+v", v)
	}
}

// A step in a preview keeps its buttons and links as the step draws them,
// runs nothing by itself, and keeps its ids and inputs apart from the
// page's form and from the other variants' previews.
func TestPreviewTree(t *testing.T) {
	t.Parallel()
	field := &ui.Node{Type: "choice_list", ID: "reason", Bind: "/form/reason", Label: "Why?"}
	form := ui.Form("f", ui.Call("x"), field, ui.Button("Go", "primary", ui.Call("x")))
	timed := ui.Stack("sm")
	timed.OnLoad = ui.After(10, ui.Navigate("/"))
	in := []*ui.Node{nil, ui.Text("body", "Hi"), form, ui.Link("More", ui.Navigate("/")), timed}
	got := previewTree(in, "pv1")
	want := []*ui.Node{ui.Text("body", "Hi"),
		{Type: "form", ID: "pv1-f", Submit: ui.Call("x"), Children: []*ui.Node{
			{Type: "choice_list", ID: "pv1-reason", Bind: "/pv1/reason", Label: "Why?"}, ui.Button("Go", "primary", ui.Call("x"))}},
		ui.Link("More", ui.Navigate("/")), ui.Stack("sm")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if form.ID != "f" || field.Bind != "/form/reason" || timed.OnLoad == nil {
		t.Error("the tree given was changed")
	}
}

// placeholderLeft finds, in a composed text, a placeholder left unfilled
// ("{date}") or one filled with nothing: "moves to . Nothing to pay",
// "renews on ,", a doubled space, a price of nothing ("$ ", "$0").
var placeholderLeft = regexp.MustCompile(`\{[a-zA-Z]+\}| [.,;:]|  |\$(\s|$|0\b)|\bon\s*$`)

// Every preview of every key an experiment may target (each copy key of
// the flow, each offer slot with each offer and the holdout) is drawn for a
// sample subscriber with every date and price filled in: no text of it has
// an empty placeholder (issue #34: "your next payment moves to . Nothing to
// pay").
func TestPreviewsFillEveryPlaceholder(t *testing.T) {
	t.Parallel()
	c := shippedContext(t)
	b := c.Brand
	sample := ExperimentSampleOf(time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC), billing.DefaultCatalogue(), brand.DefaultKey)
	keys := retention.ExperimentKeys(slices.Collect(maps.Keys(b.Copy)))
	drawn := 0
	for _, key := range keys {
		e := experiment.Experiment{Kind: experiment.KindCopy, Key: key, Variants: []experiment.Variant{{ID: "a", Weight: 1}}}
		if strings.HasPrefix(key, experiment.OfferPrefix) {
			e.Kind, e.Holdout = experiment.KindOffer, 10
			for _, o := range []string{retention.OfferPlanChange, retention.OfferGiftMonth, retention.OfferSkip} {
				e.Variants = append(e.Variants, experiment.Variant{ID: string(rune('b' + len(e.Variants) - 1)), Value: o, Weight: 1})
			}
		}
		for i, v := range e.Arms() {
			n := ExperimentPreview(c, e, v, i, sample)
			if n == nil {
				continue
			}
			drawn++
			walk(n, func(x *ui.Node) {
				for _, text := range []string{x.Text, x.Label, x.Title} {
					if placeholderLeft.MatchString(text) {
						t.Errorf("%s, arm %s: %q has an empty placeholder", key, v.ID, text)
					}
				}
			})
		}
	}
	if drawn < len(keys) {
		t.Errorf("%d previews drawn for %d keys", drawn, len(keys))
	}
	// The free month's words name the day the next payment moves to: a
	// period after the sample's plan starts (a week), then a month.
	gift := ExperimentPreview(c, experiment.Experiment{Kind: experiment.KindOffer, Key: "offer.step7"},
		experiment.Variant{ID: "a"}, 0, sample)
	found := false
	walk(gift, func(x *ui.Node) { found = found || strings.Contains(x.Text, "Jan 6, 2027") })
	if !found {
		t.Error("the free month's preview does not name Jan 6, 2027")
	}
}

// walk calls f on n and every node under it.
func walk(n *ui.Node, f func(*ui.Node)) {
	if n == nil {
		return
	}
	f(n)
	for _, c := range n.Children {
		walk(c, f)
	}
}

// With a no-offer holdout the results link to themselves against the
// holdout and against the control, whichever is not the baseline now.
func TestStudioExperimentResultsAgainstAHoldout(t *testing.T) {
	t.Parallel()
	e := experiment.Experiment{ID: "x1", Name: "N", Key: "offer.step3", Kind: experiment.KindOffer, Status: "running", Phase: 1,
		Variants: []experiment.Variant{{ID: "a", Name: "Control", Weight: 45}, {ID: "b", Name: "Free month", Weight: 45},
			{ID: "holdout", Name: "No offer", Weight: 10}}}
	counts := map[string]experiment.Counts{"a": {Exposures: 100, Saves: 30}, "b": {Exposures: 100, Saves: 40}, "holdout": {Exposures: 20, Saves: 2}}
	got := StudioExperimentResultsOf(experiment.CompareTo(e, 1, counts, experiment.DefaultPlannedN, ""))
	if want := []StudioExperimentArm{{ID: "holdout", Name: "No offer"}}; !slices.Equal(got.Against, want) || got.Baseline != "Control" {
		t.Errorf("against the control: %+v, baseline %q", got.Against, got.Baseline)
	}
	got = StudioExperimentResultsOf(experiment.CompareTo(e, 1, counts, experiment.DefaultPlannedN, "holdout"))
	if want := []StudioExperimentArm{{ID: "a", Name: "Control"}}; !slices.Equal(got.Against, want) || got.Baseline != "No offer" {
		t.Errorf("against the holdout: %+v, baseline %q", got.Against, got.Baseline)
	}
	if !got.Variants[2].Control || got.Variants[0].Control || got.Variants[0].DiffAlways == "–" || got.Variants[0].Chance == "" {
		t.Errorf("the holdout is the baseline: %+v", got.Variants)
	}
	raw, err := json.Marshal(StudioExperimentResultsPage(Context{}, got).Screen)
	if err != nil || !strings.Contains(string(raw), `/studio/experiments/results/x1?phase=1\u0026against=a`) {
		t.Errorf("no link to the results against the control: %s %v", raw, err)
	}
	if got := StudioExperimentResultsOf(experiment.Compute(experiment.Experiment{Variants: e.Variants[:2]}, 1, counts, 5000)); got.Against != nil {
		t.Errorf("no holdout, no links: %+v", got.Against)
	}
}

// A variant that saves more people by giving a free month away is better
// on saves and worse on revenue, and the verdict says both.
func TestStudioExperimentVerdictSaysWhatRevenueDoes(t *testing.T) {
	t.Parallel()
	e := experiment.Experiment{ID: "x1", Name: "N", Key: "offer.step3", Kind: experiment.KindOffer, Status: "running", Phase: 1,
		Variants: []experiment.Variant{{ID: "a", Name: "Control", Weight: 1}, {ID: "b", Name: "Free month", Weight: 1}}}
	counts := map[string]experiment.Counts{
		"a": {Exposures: 5000, Saves: 1500, Revenue: 1500 * 1399, RevenueSq: 1500 * 1399 * 1399, RevenueMax: 1399},
		"b": {Exposures: 5000, Saves: 2000}, // every save a free month: nothing over the window
	}
	got := StudioExperimentResultsOf(experiment.Compute(e, 1, counts, experiment.DefaultPlannedN))
	if v := got.Verdict; v.Kind != VerdictBetter || v.Revenue != "less" || !strings.HasPrefix(v.RevenueDiff, "-$4.20 [") {
		t.Fatalf("verdict %+v", v)
	}
	c := shippedContext(t)
	raw, _ := json.Marshal(StudioExperimentResultsPage(c, got).Screen)
	if !strings.Contains(string(raw), "But it keeps less revenue: -$4.20 [") {
		t.Errorf("the verdict does not say the revenue falls: %s", raw)
	}
}

// The sample-ratio check reads as a sentence: the split, the planned
// shares and whether that is as expected (5,100 / 4,900 of 50/50:
// χ² = 4, p = 0.0455) or not (5,200 / 4,800: χ² = 16, p < 0.0001).
func TestStudioExperimentSampleRatioInWords(t *testing.T) {
	t.Parallel()
	ctx := shippedContext(t)
	e := experiment.Experiment{ID: "x1", Name: "N", Key: "k", Status: "running", Phase: 1,
		Variants: []experiment.Variant{{ID: "a", Name: "Control", Weight: 50}, {ID: "b", Name: "B", Weight: 50}}}
	for _, c := range []struct {
		a, b int64
		want string
	}{
		{5100, 4900, "Exposures split 5,100 / 4,900 against the planned 50/50: that is as expected (p = 0.0455)."},
		{5200, 4800, "Exposures split 5,200 / 4,800 against the planned 50/50: that is not what the weights give (p < 0.0001), so assignment or logging is broken."},
	} {
		res := experiment.Compute(e, 1, map[string]experiment.Counts{"a": {Exposures: c.a}, "b": {Exposures: c.b}}, experiment.DefaultPlannedN)
		raw, _ := json.Marshal(StudioExperimentResultsPage(ctx, StudioExperimentResultsOf(res)).Screen)
		if text := strings.ReplaceAll(string(raw), `\u003c`, "<"); !strings.Contains(text, c.want) {
			t.Errorf("%d / %d: no %q in %s", c.a, c.b, c.want, text)
		}
	}
}

// With retained revenue per attempt as the primary metric the verdict is
// about revenue: the free month that saves more people (2,000 of 5,000
// against 1,500) but keeps $4.20 less per attempt is the worse variant, and
// the save rate's gain is the second sentence; with nothing settled it
// waits for the planned size instead of counting to a save-rate difference.
func TestStudioExperimentVerdictFollowsThePrimaryMetric(t *testing.T) {
	t.Parallel()
	e := experiment.Experiment{ID: "x1", Name: "N", Key: "offer.step3", Kind: experiment.KindOffer, Status: "running", Phase: 1,
		Metric:   experiment.MetricRevenuePerAttempt,
		Variants: []experiment.Variant{{ID: "a", Name: "Control", Weight: 1}, {ID: "b", Name: "Free month", Weight: 1}}}
	counts := map[string]experiment.Counts{
		"a": {Exposures: 5000, Saves: 1500, Revenue: 1500 * 1399, RevenueSq: 1500 * 1399 * 1399, RevenueMax: 1399},
		"b": {Exposures: 5000, Saves: 2000},
	}
	got := StudioExperimentResultsOf(experiment.Compute(e, 1, counts, experiment.DefaultPlannedN))
	if v := got.Verdict; v.Kind != VerdictWorse || !v.ByRevenue || v.Saves != "more" || v.Revenue != "" || !strings.HasPrefix(v.Diff, "-$4.20 [") {
		t.Fatalf("verdict %+v", v)
	}
	c := shippedContext(t)
	raw, _ := json.Marshal(StudioExperimentResultsPage(c, got).Screen)
	for _, want := range []string{"Free month keeps less revenue than Control: -$4.20 [", "It also saves more people: +10.0 pts."} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the page does not say %q: %s", want, raw)
		}
	}
	// A few people: nothing settled yet; the wait counts the attempts the
	// revenue difference needs, and the page words it in money.
	few := map[string]experiment.Counts{"a": {Exposures: 20, Saves: 5, Revenue: 5 * 1399, RevenueSq: 5 * 1399 * 1399, RevenueMax: 1399},
		"b": {Exposures: 20, Saves: 12}}
	res := experiment.Compute(e, 1, few, experiment.DefaultPlannedN)
	v := res.Verdict()
	if v.Kind != experiment.VerdictWait || v.Planned || !v.Revenue || v.More != res.Variants[1].RevenueMoreNeeded || v.More <= 0 {
		t.Fatalf("few people: %+v, want a wait for the revenue difference's attempts", v)
	}
	raw, _ = json.Marshal(StudioExperimentResultsPage(c, StudioExperimentResultsOf(res)).Screen)
	if want := "would tell Free month (-$3.50 ["; !strings.Contains(string(raw), want) {
		t.Errorf("the wait does not name the revenue difference %q: %s", want, raw)
	}
}
