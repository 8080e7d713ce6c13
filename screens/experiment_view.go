package screens

import (
	"fmt"
	"strconv"
	"time"

	"glimpse/engine/experiment"
	"glimpse/engine/retention"
	"glimpse/engine/ui"
)

// StudioExperimentItems lists experiments for the experiments screen.
func StudioExperimentItems(es []experiment.Experiment) []StudioExperimentItem {
	var items []StudioExperimentItem
	for _, e := range es {
		items = append(items, StudioExperimentItem{ID: e.ID, Name: e.Name, Kind: e.Kind, Key: e.Key, Status: e.Status, Phase: e.Phase})
	}
	return items
}

// StudioNewExperiment is the form of a new copy experiment on one of the
// flow's keys (retention.ExperimentKeys of copyKeys), with a control and a
// variant B at even weights.
func StudioNewExperiment(c Context, copyKeys []string) Page {
	return StudioExperimentEdit(c, StudioExperimentState{New: true, Kind: experiment.KindCopy,
		Keys: retention.ExperimentKeys(copyKeys), Variants: []StudioExperimentVariant{
			{Name: "Control", Weight: "50"}, {Name: "Variant B", Weight: "50"}}})
}

// StudioExperimentOf is the form of a stored experiment, each variant with
// its preview (ExperimentPreview).
func StudioExperimentOf(c Context, e experiment.Experiment) Page {
	st := StudioExperimentState{ID: e.ID, Name: e.Name, Kind: e.Kind, Key: e.Key, Status: e.Status, Phase: e.Phase,
		Stopped: e.Status == experiment.StatusStopped}
	for _, v := range e.Variants {
		st.Variants = append(st.Variants, StudioExperimentVariant{Name: v.Name, Value: v.Value,
			Weight: strconv.Itoa(v.Weight), Preview: ExperimentPreview(c, e, v)})
	}
	return StudioExperimentEdit(c, st)
}

// ExperimentPreview composes the flow's step that shows a copy key, with the
// variant's text in it (a control without text shows the brand's own). It
// returns nil for an offer, or a key no step shows: the screen then shows
// the text alone.
func ExperimentPreview(c Context, e experiment.Experiment, v experiment.Variant) *ui.Node {
	if e.Kind != experiment.KindCopy {
		return nil
	}
	step, ok := retention.StepOfCopyKey(e.Key)
	if !ok {
		return nil
	}
	over := map[string]string{}
	if v.Value != "" {
		over[e.Key] = v.Value
	}
	c = Context{Brand: c.Brand, Copy: c.Copy.Layered(over, nil)}
	page := UnsubscribeStep(c, UnsubscribeState{Attempt: "preview", Step: step, Return: PathStudioExperimentEdit + e.ID})
	d := page.Overlays[UnsubscribeOverlay]
	if d == nil {
		return nil
	}
	// The dialog's content, without its actions: a preview is not the flow.
	preview := ui.Stack("sm", ui.Text("heading", d.Title))
	preview.Children = append(preview.Children, stripActions(d.Children)...)
	return preview
}

// stripActions copies a tree without what would act (links, buttons, forms
// post nothing from a preview).
func stripActions(nodes []*ui.Node) []*ui.Node {
	out := make([]*ui.Node, 0, len(nodes))
	for _, n := range nodes {
		if n == nil {
			continue
		}
		c := *n
		c.Action, c.OnLoad = nil, nil
		if c.Type == "link" || c.Type == "button" {
			// A label, as it reads, without the action.
			out = append(out, ui.Text("label", c.Label))
			continue
		}
		if c.Type == "form" {
			c.Submit = nil
		}
		if len(c.Children) > 0 {
			c.Children = stripActions(c.Children)
		}
		out = append(out, &c)
	}
	return out
}

// StudioExperimentResultsOf formats an experiment's results for the screen.
func StudioExperimentResultsOf(res experiment.Results) StudioExperimentResults {
	e := res.Experiment
	v := StudioExperimentResults{ID: e.ID, Name: e.Name, Key: e.Key, Status: e.Status, Phase: res.Phase, Phases: e.Phase,
		SRMP: formatP(res.SRMP), Mismatch: res.Mismatch}
	for i, vr := range res.Variants {
		line := StudioExperimentResult{Name: vr.Name, Attempts: vr.Attempts, Exposures: vr.Exposures, Saves: vr.Saves,
			Unsaved: vr.Unsaved, Cancels: vr.Cancels, Control: i == 0, Significant: vr.Significant,
			SaveRate: pct(vr.SaveRate, vr.Exposures > 0), SaveRateAlways: pct(vr.SaveRateAlways, vr.Exposures > 0)}
		if i > 0 {
			ok := vr.Exposures > 0 && res.Variants[0].Exposures > 0
			line.Diff, line.DiffAlways = pts(vr.Diff, ok), pts(vr.DiffAlways, ok)
		}
		for _, d := range res.Days {
			c := d.Cumulative[i]
			if c.Exposures == 0 {
				continue
			}
			rate := float64(c.Held()) / float64(c.Exposures)
			line.Over = append(line.Over, ui.ChartPoint{X: dayLabel(d.Day), Y: 100 * rate, YLabel: fmt.Sprintf("%.1f%%", 100*rate)})
		}
		v.Variants = append(v.Variants, line)
	}
	verdict := res.Verdict()
	v.Verdict = StudioExperimentVerdict{Kind: verdict.Kind, More: verdict.More}
	if verdict.Variant > 0 {
		vr := res.Variants[verdict.Variant]
		v.Verdict.Variant = vr.Name
		v.Verdict.Diff = fmt.Sprintf("%+.1f", 100*vr.Diff.Estimate)
	}
	return v
}

// dayLabel writes a results day (experiment.DayLayout) as a chart's axis
// does: "Nov 25".
func dayLabel(day string) string {
	t, err := time.Parse(experiment.DayLayout, day)
	if err != nil {
		return day
	}
	return t.Format("Jan 2")
}

// pct is a rate with its interval (experiment keeps it within [0, 1]); a
// dash without data.
func pct(i experiment.Interval, ok bool) string {
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.1f%% [%.1f%%, %.1f%%]", 100*i.Estimate, 100*i.Low, 100*i.High)
}

// pts is a difference of rates in percentage points with its interval; a
// dash without data.
func pts(i experiment.Interval, ok bool) string {
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%+.1f pts [%+.1f, %+.1f]", 100*i.Estimate, 100*i.Low, 100*i.High)
}

// formatP is a p-value to four places, or a bound below them.
func formatP(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}
