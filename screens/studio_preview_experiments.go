package screens

import (
	"time"

	"glimpse/engine/experiment"
)

// The studio's experiments as the copy editor draws their texts: a list
// with one of each status, an offer test's form while running and once
// stopped, and its results for each verdict (better, worse, too early, no
// data, a sample ratio mismatch), from made-up counts computed as the
// results page computes real ones (experiment.Compute).

// copySampleExperiment is an offer test of the step-3 offer against a
// free month.
func copySampleExperiment(status string) experiment.Experiment {
	return experiment.Experiment{ID: "x1", Name: "Free month at step 3", Key: "offer.step3", Kind: experiment.KindOffer,
		Status: status, Phase: 1, Started: status != experiment.StatusDraft,
		Variants: []experiment.Variant{{ID: "a", Name: "Control", Weight: 1}, {ID: "b", Name: "Free month", Weight: 1}}}
}

// copySampleCounts are the arms' counts for each verdict.
var copySampleCounts = []map[string]experiment.Counts{
	{"a": {Exposures: 5000, Saves: 1500, Revenue: 1500 * 1399, RevenueSq: 1500 * 1399 * 1399, RevenueMax: 1399},
		"b": {Exposures: 5000, Saves: 2000}},
	{"a": {Exposures: 5000, Saves: 2000}, "b": {Exposures: 5000, Saves: 1500}},
	{"a": {Exposures: 3, Saves: 1, Cancels: 2}, "b": {Exposures: 3, Saves: 2, Cancels: 1}},
	{"a": {Exposures: 5000, Saves: 1500}, "b": {Exposures: 5000, Saves: 1510}},
	{"a": {Exposures: 5200, Saves: 1500}, "b": {Exposures: 4000, Saves: 1200}},
	{},
}

func copySampleExperiments() []func(Context) Page {
	now := time.Date(2026, 11, 30, 9, 12, 0, 0, time.UTC)
	sample := ExperimentSampleOf(now, nil, "")
	out := []func(Context) Page{
		func(c Context) Page {
			var items []StudioExperimentItem
			for _, st := range []string{experiment.StatusDraft, experiment.StatusRunning, experiment.StatusPaused, experiment.StatusStopped} {
				e := copySampleExperiment(st)
				items = append(items, StudioExperimentItems([]experiment.Experiment{e})...)
			}
			return StudioExperiments(c, items)
		},
	}
	for _, st := range []string{experiment.StatusRunning, experiment.StatusPaused, experiment.StatusStopped, experiment.StatusDraft} {
		out = append(out, func(c Context) Page { return StudioExperimentOf(c, copySampleExperiment(st), sample) })
	}
	for _, counts := range copySampleCounts {
		out = append(out, func(c Context) Page {
			e := copySampleExperiment(experiment.StatusRunning)
			return StudioExperimentResultsPage(c, StudioExperimentResultsOf(experiment.Compute(e, 1, counts, experiment.DefaultPlannedN)))
		})
	}
	return out
}
