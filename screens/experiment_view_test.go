package screens

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine/experiment"
	"glimpse/engine/ui"
)

func TestStudioExperimentResultsOf(t *testing.T) {
	t.Parallel()
	res := experiment.Results{Experiment: experiment.Experiment{ID: "x1", Name: "N", Key: "k", Status: "running", Phase: 2},
		Phase: 1, SRMP: 0.00001, Mismatch: true, Variants: []experiment.VariantResult{
			{Variant: experiment.Variant{Name: "Control"}, Counts: experiment.Counts{Exposures: 10, Saves: 3},
				SaveRate: experiment.Interval{Estimate: 0.3, Low: -0.01, High: 0.6}, SaveRateAlways: experiment.Interval{Estimate: 0.3, Low: 0, High: 1.2}},
			{Variant: experiment.Variant{Name: "B"}, Diff: experiment.Interval{Estimate: 0.05, Low: -0.1, High: 0.2}},
		}}
	want := StudioExperimentResults{ID: "x1", Name: "N", Key: "k", Status: "running", Phase: 1, Phases: 2, SRMP: "< 0.0001", Mismatch: true,
		Variants: []StudioExperimentResult{
			{Name: "Control", Exposures: 10, Saves: 3, Control: true, SaveRate: "30.0% [0.0%, 60.0%]", SaveRateAlways: "30.0% [0.0%, 100.0%]"},
			// No exposures: dashes, not a rate of nothing.
			{Name: "B", SaveRate: "–", SaveRateAlways: "–", Diff: "–", DiffAlways: "–"},
		}}
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

func TestStripActions(t *testing.T) {
	t.Parallel()
	form := ui.Form("f", ui.Call("x"), ui.Button("Go", "primary", ui.Call("x")))
	in := []*ui.Node{nil, ui.Text("body", "Hi"), form, ui.Link("More", ui.Navigate("/"))}
	got := stripActions(in)
	want := []*ui.Node{ui.Text("body", "Hi"), {Type: "form", ID: "f", Children: []*ui.Node{ui.Text("label", "Go")}},
		ui.Text("label", "More")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if form.Submit == nil || form.Children[0].Action == nil {
		t.Error("the tree given was changed")
	}
}
