package screens

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/brand"
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
// variant B at even weights, and the no-offer holdout an offer experiment
// starts with (the form shows it once the kind is offer).
func StudioNewExperiment(c Context, copyKeys []string) Page {
	return StudioExperimentEdit(c, StudioExperimentState{New: true, Kind: experiment.KindCopy,
		Holdout: strconv.Itoa(experiment.DefaultHoldout),
		Keys:    ExperimentKeyOptions(c, retention.ExperimentKeys(copyKeys)), Variants: []StudioExperimentVariant{
			{Name: "Control", Weight: "50"}, {Name: "Variant B", Weight: "50"}}})
}

// ExperimentKeyOptions are the key picker's options: each copy key with
// the text it shows now, under the step that shows it (steps in the flow's
// order), then the flow's other texts, then the offer slots.
func ExperimentKeyOptions(c Context, keys []string) []ui.Option {
	type placed struct {
		rank int
		opt  ui.Option
	}
	var all []placed
	for _, k := range keys {
		p := placed{opt: ui.Option{Value: k, Label: k}}
		switch step, ok := retention.StepOfCopyKey(k); {
		case strings.HasPrefix(k, experiment.OfferPrefix):
			p.rank = 1000
			p.opt.Group = c.T("studio.experiments.group.offers")
			p.opt.Description = c.T("studio.experiments.slot." + slotKind(k))
		case ok:
			p.rank = int(step)
			p.opt.Group = strings.NewReplacer("{n}", strconv.Itoa(int(step)),
				"{title}", c.T("unsubscribe.step"+strconv.Itoa(int(step))+".title")).Replace(c.T("studio.experiments.group.step"))
			p.opt.Description = c.T(k)
		default:
			p.rank = 999
			p.opt.Group = c.T("studio.experiments.group.other")
			p.opt.Description = c.T(k)
		}
		all = append(all, p)
	}
	slices.SortStableFunc(all, func(a, b placed) int { return a.rank - b.rank })
	out := make([]ui.Option, len(all))
	for i, p := range all {
		out[i] = p.opt
	}
	return out
}

// slotKind is how the picker describes an offer slot: a step's or a
// reason's.
func slotKind(slot string) string {
	if strings.HasPrefix(slot, "offer.reason.") {
		return "reason"
	}
	return "step"
}

// ExperimentSample is the subscriber the previews show each step to, so
// that every date and price in it is filled in as a real subscriber's
// would be: a plan bought at Now (the tester's clock), renewing one period
// later, and the brand's plan change offer.
type ExperimentSample struct {
	Now  time.Time
	Plan billing.PlanSpec
	Sale billing.PlanSpec
}

// ExperimentSampleOf is the previews' subscriber on a brand: its first main
// plan (the weekly one, which every offer of the flow may be made to) and
// its premium sale plan, from the catalogue (the spec's when cat is nil).
func ExperimentSampleOf(now time.Time, cat *billing.Catalogue, brandKey string) ExperimentSample {
	if cat == nil {
		cat = billing.DefaultCatalogue()
	}
	s := ExperimentSample{Now: now}
	if plans := cat.ForBrand(brandKey, billing.KindMain); len(plans) > 0 {
		s.Plan = plans[0]
	}
	s.Sale, _ = cat.SaleOf(brandKey, billing.FamilyPremiumOneMonth) // zero: the brand has no plan change
	return s
}

// state is the sample subscriber's page of the flow at step, in situation.
func (s ExperimentSample) state(step retention.Step, sit retention.Situation) UnsubscribeState {
	period := s.Plan.Period
	if period.Count == 0 {
		period = billing.Interval{Unit: "month", Count: 1}
	}
	end := period.After(s.Now)
	sit.Family = billing.FamilyOf(s.Plan.Code)
	return UnsubscribeState{Attempt: "preview", Step: step, Situation: sit, Return: PathStudioExperiments,
		Email: "subscriber@example.com", Plan: billing.Describe(s.Plan.Code), Sale: s.Sale,
		PeriodEnd: brand.Date(end), GiftEnd: brand.Date(end.AddDate(0, 1, 0))}
}

// StudioExperimentOf is the form of a stored experiment beside the preview
// of its variants, shown to sample.
func StudioExperimentOf(c Context, e experiment.Experiment, sample ExperimentSample) Page {
	st := StudioExperimentState{ID: e.ID, Name: e.Name, Kind: e.Kind, Key: e.Key, Status: e.Status, Phase: e.Phase,
		Stopped: e.Status == experiment.StatusStopped, Preview: StudioExperimentPreview(c, e, sample),
		Hypothesis: e.Hypothesis, Metric: e.Metric, Holdout: strconv.Itoa(e.Holdout), Arms: ExperimentArms(e)}
	for _, v := range e.Variants {
		st.Variants = append(st.Variants, StudioExperimentVariant{Name: v.Name, Value: v.Value, Weight: strconv.Itoa(v.Weight)})
	}
	return StudioExperimentEdit(c, st)
}

// ExperimentArms are the arms subscribers are split between (the holdout
// last) with their shares of all attempts, in percent.
func ExperimentArms(e experiment.Experiment) []StudioExperimentArm {
	arms := e.Arms()
	total := 0
	for _, a := range arms {
		total += max(a.Weight, 0)
	}
	out := make([]StudioExperimentArm, 0, len(arms))
	for _, a := range arms {
		sh := 0.0
		if total > 0 {
			sh = math.Round(1000*float64(max(a.Weight, 0))/float64(total)) / 10
		}
		out = append(out, StudioExperimentArm{Name: a.Name, Share: sh})
	}
	return out
}

// StudioExperimentPreview is the live preview of an experiment as its form
// holds it: each arm, named, in the step it changes (ExperimentPreview)
// as sample would see it, or its text alone when no step shows the key.
func StudioExperimentPreview(c Context, e experiment.Experiment, sample ExperimentSample) *ui.Node {
	if strings.TrimSpace(e.Key) == "" {
		return ui.Text("caption", c.T("studio.experiments.previewEmpty"))
	}
	arms := e.Arms()
	cards := make([]*ui.Node, 0, len(arms))
	for i, v := range arms {
		label := string(rune('A' + i))
		switch {
		case v.ID == experiment.HoldoutID:
			label = v.Name
		case v.Name != "":
			label += " · " + v.Name
		}
		card := []*ui.Node{ui.Badge(label, "brand")}
		switch step := ExperimentPreview(c, e, v, i, sample); {
		case step != nil:
			card = append(card, step)
		case v.Value == "":
			card = append(card, ui.Text("caption", c.T("studio.experiments.controlPreview")))
		default:
			card = append(card, ui.Text("body", v.Value))
		}
		cards = append(cards, ui.Card(nil, card...))
	}
	return ui.Stack("md", cards...)
}

// ExperimentPreview composes the flow's step an arm changes, as the step
// draws it for sample (its dates and prices filled in; its buttons and
// links too, which the preview's frame keeps from acting): for a copy key,
// the step that shows it with the variant's text (a control without text
// shows the brand's own); for an offer slot, the step the arm's offer puts
// there, or the one the subscriber goes on to when it shows none (the
// holdout's). It returns nil for a key no step shows. n numbers the arm,
// so two previews of one step on a page keep their inputs apart.
func ExperimentPreview(c Context, e experiment.Experiment, v experiment.Variant, n int, sample ExperimentSample) *ui.Node {
	var st UnsubscribeState
	switch e.Kind {
	case experiment.KindCopy:
		step, ok := retention.StepOfCopyKey(e.Key)
		if !ok {
			return nil
		}
		over := map[string]string{}
		if v.Value != "" {
			over[e.Key] = v.Value
		}
		c = Context{Brand: c.Brand, Copy: c.Copy.Layered(over, nil)}
		st = sample.state(step, retention.Situation{})
	case experiment.KindOffer:
		step, sit, ok := offerPreviewStep(e.Key, v)
		if !ok {
			return nil
		}
		st = sample.state(step, sit)
	default:
		return nil
	}
	page := UnsubscribeStep(c, st)
	d := page.Overlays[UnsubscribeOverlay]
	if d == nil {
		return nil
	}
	preview := ui.Stack("sm", ui.Text("heading", d.Title))
	preview.Children = append(preview.Children, previewTree(d.Children, "pv"+strconv.Itoa(n))...)
	return preview
}

// offerPreviewStep is the step an offer slot's arm shows and the situation
// it is shown in: a step slot's own step with the arm's offer, or the step
// after it when the arm shows none there; for a reason's slot, the step
// the review leads to with that reason.
func offerPreviewStep(slot string, v experiment.Variant) (retention.Step, retention.Situation, bool) {
	var sit retention.Situation
	switch {
	case v.ID == experiment.HoldoutID:
		sit.Holdout = true
	case v.Value != "":
		sit.Offers = map[string]string{slot: v.Value}
	}
	if reason, ok := strings.CutPrefix(slot, "offer.reason."); ok {
		if !retention.ValidReason(reason) {
			return 0, sit, false
		}
		sit.Reason = reason
		step := retention.Next(retention.StepReview, retention.MoveForward, sit)
		return step, sit, step.Valid()
	}
	n, err := strconv.Atoi(strings.TrimPrefix(slot, "offer.step"))
	step := retention.Step(n)
	if err != nil || (step != retention.StepPlanChange && step != retention.StepGiftMonth) {
		return 0, sit, false
	}
	if !sit.Shows(step) {
		step = retention.Next(step, retention.MoveForward, sit)
	}
	return step, sit, step.Valid()
}

// previewTree copies a step's tree for a preview: nothing runs by itself
// (no onLoad timers), and every id and form binding is renamed under
// prefix, so the preview's inputs clash neither with the page's form nor
// with another variant's preview.
func previewTree(nodes []*ui.Node, prefix string) []*ui.Node {
	out := make([]*ui.Node, 0, len(nodes))
	for _, n := range nodes {
		if n == nil {
			continue
		}
		c := *n
		c.OnLoad = nil
		if c.ID != "" {
			c.ID = prefix + "-" + c.ID
		}
		if rest, ok := strings.CutPrefix(c.Bind, "/form/"); ok {
			c.Bind = "/" + prefix + "/" + rest
		}
		if len(c.Children) > 0 {
			c.Children = previewTree(c.Children, prefix)
		}
		out = append(out, &c)
	}
	return out
}

// StudioExperimentResultsOf formats an experiment's results for the screen:
// every difference is from res.Baseline (the control unless a holdout was
// named).
func StudioExperimentResultsOf(res experiment.Results) StudioExperimentResults {
	e := res.Experiment
	v := StudioExperimentResults{ID: e.ID, Name: e.Name, Key: e.Key, Status: e.Status, Phase: res.Phase, Phases: e.Phase,
		SRMP: formatP(res.SRMP), Mismatch: res.Mismatch, TooFew: !res.SRMReadable, Hypothesis: e.Hypothesis, Metric: e.Metric}
	var split, planned []string
	wsum := 0
	for _, vr := range res.Variants {
		wsum += vr.Weight
	}
	for _, vr := range res.Variants {
		split = append(split, Thousands(int(vr.Exposures)))
		planned = append(planned, weightShare(vr.Weight, wsum))
	}
	v.Split, v.Planned = strings.Join(split, " / "), strings.Join(planned, "/")
	var base experiment.VariantResult
	if len(res.Variants) > 0 {
		base = res.Variants[res.Baseline]
		v.Baseline = base.Name
	}
	// With a no-offer holdout, the results may be read against it or
	// against the control.
	if slices.ContainsFunc(res.Variants, func(vr experiment.VariantResult) bool { return vr.ID == experiment.HoldoutID }) {
		for i, vr := range res.Variants {
			if i != res.Baseline && (i == 0 || vr.ID == experiment.HoldoutID) {
				v.Against = append(v.Against, StudioExperimentArm{ID: vr.ID, Name: vr.Name})
			}
		}
	}
	for i, vr := range res.Variants {
		line := StudioExperimentResult{Name: vr.Name, Attempts: vr.Attempts, Exposures: vr.Exposures, Saves: vr.Saves,
			Unsaved: vr.Unsaved, Cancels: vr.Cancels, Control: i == res.Baseline, Significant: vr.Significant,
			RevenueSignificant: vr.RevenueSignificant,
			SaveRate:           pct(vr.SaveRate, vr.Exposures > 0), Revenue: money(vr.Revenue, vr.Exposures > 0, false)}
		if i != res.Baseline {
			ok := vr.Exposures > 0 && base.Exposures > 0
			line.Diff, line.DiffAlways = pts(vr.Diff, ok), pts(vr.DiffAlways, ok)
			line.RevenueDiff = money(vr.RevenueDiffAlways, ok, true)
			line.Chance = chance(vr.ChanceToBeat, ok)
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
	v.Verdict = StudioExperimentVerdict{Kind: verdict.Kind, More: verdict.More, Planned: verdict.Planned,
		PlannedN: int64(res.PlannedN), ByRevenue: verdict.Revenue}
	switch {
	case verdict.Revenue && verdict.Kind == experiment.VerdictWait && !verdict.Planned:
		vr := res.Variants[verdict.Variant]
		v.Verdict.Variant, v.Verdict.Diff = vr.Name, money(vr.RevenueDiffAlways, true, true)
	case verdict.Revenue && (verdict.Kind == experiment.VerdictBetter || verdict.Kind == experiment.VerdictWorse):
		vr := res.Variants[verdict.Variant]
		v.Verdict.Variant = vr.Name
		v.Verdict.Diff = money(vr.RevenueDiffAlways, true, true)
		v.Verdict.Saves, v.Verdict.SavesDiff = "unsettled", fmt.Sprintf("%+.1f", 100*vr.Diff.Estimate)
		switch {
		case vr.Significant && vr.Diff.Estimate > 0:
			v.Verdict.Saves = "more"
		case vr.Significant:
			v.Verdict.Saves = "fewer"
		}
	case verdict.Kind == experiment.VerdictBetter || verdict.Kind == experiment.VerdictWorse,
		verdict.Kind == experiment.VerdictWait && !verdict.Planned:
		vr := res.Variants[verdict.Variant]
		v.Verdict.Variant = vr.Name
		v.Verdict.Diff = fmt.Sprintf("%+.1f", 100*vr.Diff.Estimate)
		if verdict.Kind != experiment.VerdictWait {
			v.Verdict.Revenue, v.Verdict.RevenueDiff = "unsettled", money(vr.RevenueDiffAlways, true, true)
			switch {
			case vr.RevenueSignificant && vr.RevenueDiff.Estimate > 0:
				v.Verdict.Revenue = "more"
			case vr.RevenueSignificant:
				v.Verdict.Revenue = "less"
			}
		}
	}
	return v
}

// weightShare is a weight as a percentage of all of them: "50", or "33.3"
// when it is not whole.
func weightShare(w, total int) string {
	if total <= 0 {
		return "0"
	}
	return share(100 * float64(w) / float64(total))
}

// money is an amount in cents with its interval, in dollars (the
// catalogue's currency): "$4.12 [$3.10, $5.20]", signed for a difference;
// a dash without data.
func money(i experiment.Interval, ok, signed bool) string {
	if !ok || math.IsInf(i.Low, 0) || math.IsInf(i.High, 0) {
		return "–"
	}
	return dollars(i.Estimate, signed) + " [" + dollars(i.Low, signed) + ", " + dollars(i.High, signed) + "]"
}

func dollars(cents float64, signed bool) string {
	sign := ""
	switch {
	case cents < 0 && math.Round(cents) != 0:
		sign = "-"
	case signed:
		sign = "+"
	}
	return sign + "$" + strconv.FormatFloat(math.Abs(cents)/100, 'f', 2, 64)
}

// chance is a probability to beat the baseline, to one decimal, never
// rounded to a certainty it is not.
func chance(p float64, ok bool) string {
	switch {
	case !ok:
		return "–"
	case p > 0.999:
		return "> 99.9%"
	case p < 0.001:
		return "< 0.1%"
	}
	return fmt.Sprintf("%.1f%%", 100*p)
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

// formatP is a p-value as a sentence reads it: "p = 0.0455" to four
// places, or "p < 0.0001" below them.
func formatP(p float64) string {
	if p < 0.0001 {
		return "p < 0.0001"
	}
	return "p = " + strconv.FormatFloat(p, 'f', 4, 64)
}
