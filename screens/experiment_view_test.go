package screens

import (
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
			{Variant: experiment.Variant{Name: "Control"}, Counts: experiment.Counts{Exposures: 10, Saves: 3},
				SaveRate: experiment.Interval{Estimate: 0.3, Low: 0, High: 0.6}, SaveRateAlways: experiment.Interval{Estimate: 0.3, Low: 0, High: 1}},
			{Variant: experiment.Variant{Name: "B"}, Diff: experiment.Interval{Estimate: 0.05, Low: -0.1, High: 0.2}},
		},
		Days: []experiment.Day{
			{Day: "2026-11-24", Cumulative: []experiment.Counts{{Exposures: 4, Saves: 2}, {}}},
			{Day: "2026-11-25", Cumulative: []experiment.Counts{{Exposures: 10, Saves: 3}, {}}},
		}}
	want := StudioExperimentResults{ID: "x1", Name: "N", Key: "k", Status: "running", Phase: 1, Phases: 2, SRMP: "< 0.0001", Mismatch: true,
		Variants: []StudioExperimentResult{
			{Name: "Control", Exposures: 10, Saves: 3, Control: true, SaveRate: "30.0% [0.0%, 60.0%]", SaveRateAlways: "30.0% [0.0%, 100.0%]",
				Over: []ui.ChartPoint{{X: "Nov 24", Y: 50, YLabel: "50.0%"}, {X: "Nov 25", Y: 30, YLabel: "30.0%"}}},
			// No exposures: dashes, not a rate of nothing, and no line.
			{Name: "B", SaveRate: "–", SaveRateAlways: "–", Diff: "–", DiffAlways: "–"},
		},
		Verdict: StudioExperimentVerdict{Kind: VerdictMismatch}}
	if diff := cmp.Diff(want, StudioExperimentResultsOf(res)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := formatP(0.41421); got != "0.4142" {
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
	reg, _ := brands(t)
	b := reg.Get(brand.DefaultKey)
	c := Context{Brand: b, Copy: reg.Copy(b)}
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
