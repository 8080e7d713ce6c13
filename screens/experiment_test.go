package screens

import (
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/experiment"
	"glimpse/engine/ui"
)

// goldenSample is the previews' subscriber on a fixed day.
var goldenSample = ExperimentSampleOf(time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC), billing.DefaultCatalogue(), "default")

// experimentGoldenCases are the studio's experiment screens.
func experimentGoldenCases() []goldenCase {
	variants := []StudioExperimentVariant{
		{Name: "Control", Weight: "50"},
		{Name: "Warmer", Value: "Before you go, look at what you keep", Weight: "50"},
	}
	preview := func(c Context) *ui.Node {
		return StudioExperimentPreview(c, experiment.Experiment{Kind: "copy", Key: "unsubscribe.step0.title", Variants: []experiment.Variant{
			{Name: "Control", Weight: 50}, {Name: "Warmer", Value: "Before you go, look at what you keep", Weight: 50}}}, goldenSample)
	}
	return []goldenCase{
		{"studio-experiments", func(c Context) Page {
			return StudioExperiments(c, []StudioExperimentItem{
				{ID: "x1", Name: "Step 0 headline", Kind: "copy", Key: "unsubscribe.step0.title", Status: "running", Phase: 2},
				{ID: "x2", Name: "Offer for price", Kind: "offer", Key: "offer.reason.cutting_expenses", Status: "draft", Phase: 1},
			})
		}},
		{"studio-experiments__empty", func(c Context) Page { return StudioExperiments(c, nil) }},
		{"studio-experiment-new", func(c Context) Page {
			return StudioExperimentEdit(c, StudioExperimentState{New: true, Kind: "copy",
				Keys: ExperimentKeyOptions(c, []string{"unsubscribe.step5.title", "unsubscribe.step0.title", "unsubscribe.reason.3",
					"offer.step3", "offer.reason.cutting_expenses"}),
				Variants: []StudioExperimentVariant{{Name: "Control", Weight: "50"}, {Name: "Variant B", Weight: "50"}}})
		}},
		{"studio-experiment-edit", func(c Context) Page {
			return StudioExperimentEdit(c, StudioExperimentState{ID: "x1", Name: "Step 0 headline", Kind: "copy",
				Key: "unsubscribe.step0.title", Status: "running", Phase: 2, Variants: variants, Preview: preview(c),
				Hypothesis: "A warmer headline keeps more people", Metric: experiment.MetricSaveRate,
				Arms: []StudioExperimentArm{{Name: "Control", Share: 50}, {Name: "Warmer", Share: 50}}})
		}},
		{"studio-experiment-edit__offer-holdout", func(c Context) Page {
			e := experiment.Experiment{ID: "x2", Name: "Step 7 offer", Kind: "offer", Key: "offer.step7", Status: "draft", Phase: 1,
				Hypothesis: "The plan change keeps more revenue than the free month", Metric: experiment.MetricRevenuePerAttempt,
				Holdout: 10, Variants: []experiment.Variant{{ID: "a", Name: "Control", Weight: 50},
					{ID: "b", Name: "Plan change", Value: "plan_change", Weight: 50}}}
			return StudioExperimentOf(c, e, goldenSample)
		}},
		{"studio-experiment-edit__stopped", func(c Context) Page {
			return StudioExperimentEdit(c, StudioExperimentState{ID: "x1", Name: "Step 0 headline", Kind: "copy",
				Key: "unsubscribe.step0.title", Status: "stopped", Phase: 2, Stopped: true, Variants: variants, Preview: preview(c)})
		}},
		{"studio-experiment-results", func(c Context) Page {
			return StudioExperimentResultsPage(c, StudioExperimentResults{ID: "x1", Name: "Step 0 headline", Key: "unsubscribe.step0.title",
				Status: "running", Phase: 2, Phases: 2, SRMP: "p = 0.4142", Split: "1,000 / 1,000", Planned: "50/50", Baseline: "Control",
				Variants: []StudioExperimentResult{
					{Name: "Control", Attempts: 1210, Exposures: 1000, Saves: 310, Unsaved: 10, Cancels: 690, Control: true,
						SaveRate: "30.0% [27.2%, 32.8%]", Revenue: "$4.12 [$3.71, $4.53]"},
					{Name: "Warmer", Attempts: 1190, Exposures: 1000, Saves: 365, Unsaved: 5, Cancels: 640, Significant: false,
						SaveRate: "36.0% [33.0%, 39.0%]", Revenue: "$4.51 [$4.08, $4.94]",
						Diff: "+6.0 pts [+1.9, +10.1]", DiffAlways: "+6.0 pts [-0.6, +12.6]", RevenueDiff: "+$0.39 [-$0.41, +$1.19]",
						Chance: "99.8%",
						Over:   []ui.ChartPoint{{X: "Nov 24", Y: 34.2, YLabel: "34.2%"}, {X: "Nov 25", Y: 36, YLabel: "36.0%"}}},
				}, Verdict: StudioExperimentVerdict{Kind: VerdictWait, Variant: "Warmer", Diff: "+6.0", More: 1240}})
		}},
		{"studio-experiment-results__srm", func(c Context) Page {
			return StudioExperimentResultsPage(c, StudioExperimentResults{ID: "x1", Name: "Step 0 headline", Key: "unsubscribe.step0.title",
				Status: "running", Phase: 1, Phases: 1, SRMP: "p < 0.0001", Mismatch: true, Split: "5,200 / 4,800", Planned: "50/50",
				Baseline: "Control", Variants: []StudioExperimentResult{
					{Name: "Control", Attempts: 6000, Exposures: 5200, Saves: 1560, Cancels: 3640, Control: true,
						SaveRate: "30.0% [28.8%, 31.2%]", Revenue: "$4.20 [$4.03, $4.37]"},
					{Name: "Warmer", Attempts: 5000, Exposures: 4800, Saves: 1728, Cancels: 3072, Significant: true,
						SaveRate: "36.0% [34.6%, 37.4%]", Revenue: "$5.04 [$4.85, $5.23]",
						Diff: "+6.0 pts [+4.2, +7.8]", DiffAlways: "+6.0 pts [+3.0, +9.0]", RevenueDiff: "+$0.84 [+$0.52, +$1.16]",
						Chance: "> 99.9%", RevenueSignificant: true},
				}, Verdict: StudioExperimentVerdict{Kind: VerdictMismatch}})
		}},
	}
}
