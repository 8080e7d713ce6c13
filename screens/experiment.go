package screens

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"glimpse/engine/experiment"
	"glimpse/engine/ui"
)

// The studio's experiment screens (testers and admins).
const (
	PathStudioExperiments       = "/studio/experiments"
	PathStudioExperimentNew     = "/studio/experiments/new"
	PathStudioExperimentEdit    = "/studio/experiments/edit/"
	PathStudioExperimentResults = "/studio/experiments/results/"
	StudioExperimentForm        = "studio-experiment"
	// StudioExperimentPreviewState is where the form's live preview keeps
	// the tree the server composed last.
	StudioExperimentPreviewState = "/preview"
	// StudioExperimentVariants is how many variant rows the form offers.
	StudioExperimentVariants = 4
)

// StudioExperimentItem is one experiment in the list.
type StudioExperimentItem struct {
	ID, Name, Kind, Key, Status string
	Phase                       int
}

// StudioExperimentVariant is one variant row of the form.
type StudioExperimentVariant struct {
	Name, Value, Weight string
}

// StudioExperimentState is the form of a new or existing experiment.
type StudioExperimentState struct {
	ID, Name, Kind, Key, Status string
	Phase                       int
	New, Stopped                bool
	// The questions asked at creation: the hypothesis, the primary metric
	// (an experiment.Metric… id) and the holdout's percent as typed.
	Hypothesis, Metric, Holdout string
	// Arms are the arms subscribers are split between, with their shares
	// of all attempts, for a stored experiment (the Start dialog and the
	// arms line say them).
	Arms []StudioExperimentArm
	// Keys are the flow's copy keys and offer slots to choose from, each
	// with its current text and under its step (ExperimentKeyOptions);
	// empty shows a text input.
	Keys     []ui.Option
	Variants []StudioExperimentVariant
	// Preview is what the live preview beside the form shows first
	// (StudioExperimentPreview): each variant in the step it changes.
	Preview *ui.Node
}

// StudioExperimentArm is one arm of an experiment: its variant id, name and
// share of the attempts, in percent.
type StudioExperimentArm struct {
	ID, Name string
	Share    float64
}

// StudioExperimentConfirmStart is the dialog that asks before a start.
const StudioExperimentConfirmStart = "studio-experiment-confirm-start"

// StudioExperimentResult is one variant's line of the results.
type StudioExperimentResult struct {
	Name                                         string
	Attempts, Exposures, Saves, Unsaved, Cancels int64
	// Already formatted: the save rate with Wilson's interval ("31.2%
	// [28.4%, 34.0%]"), the difference from the baseline with its
	// always-valid interval ("+6.0 pts [-0.6, +12.6]"), and the
	// fixed-sample one (Diff) kept for the record, not shown.
	SaveRate, Diff, DiffAlways string
	// Control: this is the arm the others are compared against (the
	// control, or a holdout).
	Control, Significant bool
	// Revenue is retained revenue per attempt over 30 days with its 95%
	// interval ("$4.12 [$3.10, $5.20]"); RevenueDiff its difference from
	// the baseline with the always-valid interval.
	Revenue, RevenueDiff string
	RevenueSignificant   bool
	// Chance is the probability of beating the baseline's save rate
	// ("92.3%").
	Chance string
	// Over is the save rate at the end of each day, running totals.
	Over []ui.ChartPoint
}

// Verdicts the results screen words (experiment.Verdict's kinds).
const (
	VerdictMismatch = "mismatch"
	VerdictNoData   = "noData"
	VerdictBetter   = "better"
	VerdictWorse    = "worse"
	VerdictWait     = "wait"
	VerdictSame     = "same"
)

// StudioExperimentVerdict is the results in one line: its kind, the
// variant it is about, that variant's difference and how many more
// attempts would settle it.
type StudioExperimentVerdict struct {
	Kind, Variant, Diff string
	More                int64
	// Planned: More counts to the planned size (PlannedN), as no
	// difference shows yet.
	Planned  bool
	PlannedN int64
	// Revenue, for a better or worse verdict, is what the variant does to
	// retained revenue per attempt ("more", "less" when its always-valid
	// interval excludes 0, else "unsettled"), and RevenueDiff that
	// difference with its interval: a variant that saves more people by
	// giving money away says so.
	Revenue, RevenueDiff string
	// ByRevenue: the primary metric is retained revenue per attempt, so
	// the verdict is about revenue (Diff is then money) and Saves says
	// what the variant does to the save rate ("more", "fewer",
	// "unsettled"), with SavesDiff in points.
	ByRevenue        bool
	Saves, SavesDiff string
}

// StudioExperimentResults is the results screen of one phase.
type StudioExperimentResults struct {
	ID, Name, Key, Status string
	Phase, Phases         int
	Variants              []StudioExperimentResult
	SRMP                  string
	Mismatch, TooFew      bool
	Verdict               StudioExperimentVerdict
	// Hypothesis and Metric head the results (issue #34, the form's
	// questions; expform).
	Hypothesis, Metric string
	// Split is the exposures per arm ("5,100 / 4,900") and Planned the
	// shares the weights give ("50/50"), for the sample-ratio sentence.
	Split, Planned string
	// Baseline names the arm the differences are taken from.
	Baseline string
	// Against are the other arms the results may be compared with (a
	// no-offer holdout and the control, when the experiment has a
	// holdout): each a link to the results against it.
	Against []StudioExperimentArm
}

// StudioExperimentsLink opens the experiments from the studio's home.
func StudioExperimentsLink(c Context) *ui.Node {
	return ui.Button(c.T("studio.experiments.link"), "secondary", ui.Navigate(PathStudioExperiments))
}

// StudioExperiments lists the experiments, newest first.
func StudioExperiments(c Context, items []StudioExperimentItem) Page {
	rows := make([]*ui.Node, 0, len(items))
	for _, it := range items {
		sub := strings.NewReplacer("{kind}", c.T("studio.experiments.kind."+it.Kind), "{key}", it.Key,
			"{status}", c.T("studio.experiments.status."+it.Status), "{phase}", strconv.Itoa(it.Phase)).
			Replace(c.T("studio.experiments.line"))
		rows = append(rows, &ui.Node{Type: "list_item", Title: it.Name, Subtitle: sub,
			Action: ui.Navigate(PathStudioExperimentEdit + it.ID)})
	}
	children := []*ui.Node{ui.Text("body", c.T("studio.experiments.intro")),
		ui.Button(c.T("studio.experiments.new"), "primary", ui.Navigate(PathStudioExperimentNew))}
	if len(rows) == 0 {
		children = append(children, ui.Text("caption", c.T("studio.experiments.none")))
	} else {
		list := ui.List(true, rows...)
		list.Label = c.T("studio.experiments.title")
		children = append(children, list)
	}
	scr := SubPage(c, "studio-experiments", c.T("studio.experiments.title"), ui.Navigate(PathStudio), ui.Stack("md", children...))
	scr.Width = "wide"
	return Page{Screen: scr}
}

// StudioExperimentEdit is the form of a new or existing experiment and its
// start, pause and stop, beside a live preview of each variant in the step
// it changes (the studio's wide layout; one column on a phone).
func StudioExperimentEdit(c Context, s StudioExperimentState) Page {
	form := map[string]any{"name": s.Name, "kind": s.Kind, "key": s.Key}
	if s.Kind == "" {
		form["kind"] = "copy"
	}
	form["hypothesis"], form["metric"], form["holdout"] = s.Hypothesis, s.Metric, s.Holdout
	metrics := make([]ui.Option, 0, len(experiment.Metrics))
	for _, m := range experiment.Metrics {
		metrics = append(metrics, ui.Option{Value: m, Label: c.T("studio.experiments.metric." + m),
			Description: c.T("studio.experiments.metricHelp." + m)})
	}
	inputs := []*ui.Node{ui.TextInput("name", "text", c.T("studio.experiments.name"), "",
		ui.Required(c.T("studio.required")))}
	if s.New {
		inputs = append(inputs, &ui.Node{Type: "choice_list", ID: "kind", Bind: "/form/kind", Label: c.T("studio.experiments.kindLabel"),
			Options: []ui.Option{
				{Value: "copy", Label: c.T("studio.experiments.kind.copy"), Description: c.T("studio.experiments.kindCopyHelp")},
				{Value: "offer", Label: c.T("studio.experiments.kind.offer"), Description: c.T("studio.experiments.kindOfferHelp")}}})
		if len(s.Keys) > 0 {
			inputs = append(inputs, &ui.Node{Type: "choice_list", ID: "key", Bind: "/form/key",
				Label: c.T("studio.experiments.keyLabel"), Options: s.Keys, Search: c.T("studio.experiments.keySearch"),
				Placeholder: c.T("studio.experiments.keySearchPlaceholder"), Empty: c.T("studio.experiments.keyNone")})
		} else {
			inputs = append(inputs, ui.TextInput("key", "text", c.T("studio.experiments.keyLabel"), "unsubscribe.step0.title"))
		}
	} else {
		inputs = append(inputs, ui.Text("label", c.T("studio.experiments.kind."+s.Kind)+" · "+s.Key))
	}
	// What the tester expects and which number decides, asked before
	// anything runs (a result read without them invites a story told after
	// the fact), once they have said what they vary.
	inputs = append(inputs, &ui.Node{Type: "textarea", ID: "hypothesis", Bind: "/form/hypothesis", Label: c.T("studio.experiments.hypothesis"),
		Placeholder: c.T("studio.experiments.hypothesisPlaceholder"), Rows: 2,
		Rules: []ui.Rule{ui.Required(c.T("studio.experiments.problem.hypothesis"))}},
		&ui.Node{Type: "choice_list", ID: "metric", Bind: "/form/metric", Label: c.T("studio.experiments.metricLabel"), Options: metrics,
			Rules: []ui.Rule{ui.Required(c.T("studio.experiments.problem.metric"))}})
	// The no-offer holdout, for offer experiments only (hidden for copy).
	holdout := ui.TextInput("holdout", "text", c.T("studio.experiments.holdout"), strconv.Itoa(experiment.DefaultHoldout),
		ui.Rule{Kind: ui.RuleKindPattern, Value: `^[0-9]*%?$`, Message: c.T("studio.experiments.problem.holdout")})
	holdoutHelp := ui.Text("caption", strings.ReplaceAll(c.T("studio.experiments.holdoutHelp"), "{max}", strconv.Itoa(experiment.MaxHoldout)))
	isOffer := ui.Compare("eq", ui.PathOperand("/form/kind"), ui.LiteralOperand(experiment.KindOffer))
	holdout.Visible, holdoutHelp.Visible = isOffer, isOffer
	inputs = append(inputs, holdout, holdoutHelp)
	// A weight is digits; an empty one is left to the server, which needs
	// it only for variants A and B (the same words either way).
	weight := ui.Rule{Kind: ui.RuleKindPattern, Value: `^[0-9]*$`, Message: c.T("studio.experiments.problem.weight")}
	for i := range StudioExperimentVariants {
		var v StudioExperimentVariant
		if i < len(s.Variants) {
			v = s.Variants[i]
		}
		n := strconv.Itoa(i)
		form["v"+n+"name"], form["v"+n+"value"], form["v"+n+"weight"] = v.Name, v.Value, v.Weight
		heading := c.T("studio.experiments.variant")
		if i == 0 {
			heading = c.T("studio.experiments.control")
		}
		valueLabel := c.T("studio.experiments.valueLabel")
		if i == 0 {
			valueLabel = c.T("studio.experiments.controlValueLabel")
		}
		// Each input names its variant: a screen reader's list of fields
		// (and a test) tells "Variant B weight" from "Variant C weight".
		letter := strings.NewReplacer("{n}", string(rune('A'+i)))
		// The name and the weight share a line (they wrap on a phone), so
		// four variants and the questions above still fit a desk's page.
		nameWeight := ui.Row("md", ui.TextInput("v"+n+"name", "text", letter.Replace(c.T("studio.experiments.variantName")), ""),
			ui.TextInput("v"+n+"weight", "text", letter.Replace(c.T("studio.experiments.weight")), "50", weight))
		nameWeight.Wrap = true
		nameWeight.Align = "start"
		inputs = append(inputs, ui.Text("heading", letter.Replace(heading)), nameWeight,
			&ui.Node{Type: "textarea", ID: "v" + n + "value", Bind: "/form/v" + n + "value", Label: letter.Replace(valueLabel), Rows: 3})
	}
	state := map[string]any{"form": form, "exp": map[string]any{"id": s.ID}}
	save := &ui.Action{Type: "submit", Name: "experiment.save", Form: StudioExperimentForm, Include: []string{"/exp/id"}}
	children := []*ui.Node{}
	if !s.New {
		children = append(children, ui.Badge(strings.ReplaceAll(c.T("studio.experiments.statusPhase"), "{phase}", strconv.Itoa(s.Phase))+
			" · "+c.T("studio.experiments.status."+s.Status), "brand"))
		children = append(children, experimentQuestions(c, s.Hypothesis, s.Metric)...)
		if len(s.Arms) > 0 {
			children = append(children, ui.Text("body", strings.ReplaceAll(c.T("studio.experiments.armsLine"), "{arms}", armsWithShares(s.Arms))))
		}
	}
	if s.Stopped {
		children = append(children, errorLine(c.T("studio.experiments.stoppedText")))
	} else {
		children = append(children, ui.Text("caption", c.T("studio.experiments.phaseHelp")),
			ui.Form(StudioExperimentForm, save, append(inputs, ui.FormError(StudioExperimentForm))...),
			ui.Button(c.T("studio.experiments.save"), "primary", save))
	}
	overlays := map[string]*ui.Node{}
	if !s.New {
		actions := ui.Row("sm")
		actions.Wrap = true
		id := []string{"/exp/id"}
		switch s.Status {
		case "draft", "paused":
			// A start puts the variants before subscribers and fixes the
			// key and kind: the dialog says so and asks first.
			actions.Children = append(actions.Children, ui.Button(c.T("studio.experiments.start"), "primary",
				ui.OpenOverlay(StudioExperimentConfirmStart)))
			overlays[StudioExperimentConfirmStart] = studioConfirm(c, StudioExperimentConfirmStart,
				strings.ReplaceAll(c.T("studio.experiments.confirmStartTitle"), "{name}", s.Name),
				startSplit(c, s.Arms), c.T("studio.experiments.start"), ui.Call("experiment.start", id...))
		case "running":
			actions.Children = append(actions.Children, ui.Button(c.T("studio.experiments.pause"), "secondary", ui.Call("experiment.pause", id...)))
		}
		if s.Status == "running" || s.Status == "paused" {
			actions.Children = append(actions.Children, ui.Button(c.T("studio.experiments.stop"), "secondary", ui.Call("experiment.stop", id...)))
		}
		actions.Children = append(actions.Children, ui.Button(c.T("studio.experiments.results"), "tertiary",
			ui.Navigate(PathStudioExperimentResults+s.ID)))
		children = append(children, actions)
	}
	title := s.Name
	if s.New {
		title = c.T("studio.experiments.new")
	}
	body := ui.Stack("md", children...)
	preview := s.Preview
	if preview == nil {
		preview = ui.Text("caption", c.T("studio.experiments.previewEmpty"))
	}
	// The preview follows the form as the tester types or picks a key; its
	// frame keeps the steps' buttons from acting.
	refresh := ui.Call("experiment.preview", "/form")
	body = ui.Split("xl", body, ui.Preview(c.T("studio.experiments.preview"), StudioExperimentPreviewState, "/form", refresh, preview))
	scr := SubPage(c, "studio-experiment", title, ui.Navigate(PathStudioExperiments), body)
	scr.Width = "wide"
	page := Page{Screen: scr, State: state}
	if len(overlays) > 0 {
		page.Overlays = overlays
	}
	return page
}

// experimentQuestions are the hypothesis and the primary metric as the
// experiment's page and its results say them (nothing for an experiment
// stored before they were asked).
func experimentQuestions(c Context, hypothesis, metric string) []*ui.Node {
	var out []*ui.Node
	if hypothesis != "" {
		out = append(out, ui.Text("body", strings.ReplaceAll(c.T("studio.experiments.hypothesisLine"), "{hypothesis}", hypothesis)))
	}
	if metric != "" {
		out = append(out, ui.Text("body", strings.ReplaceAll(c.T("studio.experiments.metricLine"), "{metric}",
			c.T("studio.experiments.metric."+metric))))
	}
	return out
}

// share writes an arm's percent: whole when it is, else to one place.
func share(p float64) string {
	if p == float64(int(p)) {
		return strconv.Itoa(int(p))
	}
	return strconv.FormatFloat(p, 'f', 1, 64)
}

// armsWithShares lists the arms with their shares: "Control 45% ·
// Variant B 45% · Holdout (no offer) 10%".
func armsWithShares(arms []StudioExperimentArm) string {
	parts := make([]string, len(arms))
	for i, a := range arms {
		parts[i] = a.Name + " " + share(a.Share) + "%"
	}
	return strings.Join(parts, " · ")
}

// startSplit is what the Start dialog says starts: the split ("50/50")
// between the arms by name.
func startSplit(c Context, arms []StudioExperimentArm) string {
	shares, names := make([]string, len(arms)), make([]string, len(arms))
	for i, a := range arms {
		shares[i], names[i] = share(a.Share), a.Name
	}
	list := strings.Join(names, ", ")
	if len(names) > 1 {
		list = strings.Join(names[:len(names)-1], ", ") + " " + c.T("studio.experiments.and") + " " + names[len(names)-1]
	}
	return strings.NewReplacer("{split}", strings.Join(shares, "/"), "{arms}", list).Replace(c.T("studio.experiments.confirmStartText"))
}

// verdictTones are the banner tones of the verdicts.
var verdictTones = map[string]string{VerdictMismatch: "danger", VerdictBetter: "positive", VerdictWorse: "warning",
	VerdictWait: "info", VerdictSame: "neutral", VerdictNoData: "neutral"}

// StudioExperimentResultsPage shows one phase's verdict in plain words, the
// sample ratio check, each variant's counts, intervals and save rate over
// time, on the studio's wide layout.
func StudioExperimentResultsPage(c Context, r StudioExperimentResults) Page {
	children := []*ui.Node{ui.Text("caption", strings.NewReplacer("{key}", r.Key, "{status}", c.T("studio.experiments.status."+r.Status),
		"{phase}", strconv.Itoa(r.Phase)).Replace(c.T("studio.experiments.resultsLine")))}
	children = append(children, experimentQuestions(c, r.Hypothesis, r.Metric)...)
	v := r.Verdict
	if v.Kind == "" {
		v.Kind = VerdictNoData
	}
	words := strings.NewReplacer("{variant}", v.Variant, "{diff}", v.Diff, "{n}", Thousands(int(v.More)), "{p}", r.SRMP,
		"{planned}", Thousands(int(v.PlannedN)), "{baseline}", r.Baseline, "{revenue}", v.RevenueDiff)
	title, text := "studio.experiments.verdict."+v.Kind, "studio.experiments.verdict."+v.Kind+"Text"
	if v.Planned {
		text = "studio.experiments.verdict.waitPlannedText"
	}
	if v.ByRevenue && v.Kind != VerdictMismatch && v.Kind != VerdictNoData {
		title, text = title+"Revenue", text+"Revenue"
	}
	verdict := &ui.Node{Type: "banner", Tone: verdictTones[v.Kind], Title: words.Replace(c.T(title)),
		Text: words.Replace(c.T(text))}
	if v.Revenue != "" {
		verdict.Text += " " + words.Replace(c.T("studio.experiments.verdict.revenue."+v.Revenue))
	}
	if v.Saves != "" {
		verdict.Text += " " + strings.ReplaceAll(c.T("studio.experiments.verdict.saves."+v.Saves), "{diff}", v.SavesDiff)
	}
	verdict.ID = "experiment-verdict"
	children = append(children, verdict)
	srm := strings.NewReplacer("{split}", r.Split, "{planned}", r.Planned, "{p}", r.SRMP)
	switch {
	case r.TooFew:
		children = append(children, ui.Text("body", srm.Replace(c.T("studio.experiments.srmTooFew"))))
	case r.Mismatch:
		children = append(children, ui.Text("body", srm.Replace(c.T("studio.experiments.srmBad"))))
	default:
		children = append(children, ui.Text("body", srm.Replace(c.T("studio.experiments.srmOK"))))
	}
	baseline := strings.NewReplacer("{baseline}", r.Baseline)
	children = append(children, ui.Text("body", baseline.Replace(c.T("studio.experiments.intervalHelp"))))
	if len(r.Against) > 0 {
		links := ui.Row("sm", ui.Text("body", c.T("studio.experiments.compareWith")))
		links.Wrap = true
		for _, a := range r.Against {
			links.Children = append(links.Children, ui.Link(a.Name,
				ui.Navigate(PathStudioExperimentResults+r.ID+"?phase="+strconv.Itoa(r.Phase)+"&against="+url.QueryEscape(a.ID))))
		}
		children = append(children, links)
	}
	cards := ui.Row("md")
	cards.Wrap = true
	cards.Align = "start"
	for _, v := range r.Variants {
		rows := []*ui.Node{ui.Text("heading", v.Name),
			ui.Text("body", fmt.Sprintf("%s %s · %s %s · %s %s · %s %s", c.T("studio.experiments.attempts"), Thousands(int(v.Attempts)),
				c.T("studio.experiments.exposures"), Thousands(int(v.Exposures)), c.T("studio.experiments.saves"), Thousands(int(v.Saves-v.Unsaved)),
				c.T("studio.experiments.cancels"), Thousands(int(v.Cancels)))),
			ui.Text("body", c.T("studio.experiments.saveRate")+" "+v.SaveRate),
			ui.Text("body", c.T("studio.experiments.revenue")+" "+v.Revenue)}
		if v.Control {
			rows = append(rows, ui.Badge(baseline.Replace(c.T("studio.experiments.baselineBadge")), "neutral"))
		} else {
			tiles := ui.Stack("sm",
				&ui.Node{Type: "stat_tile", Label: baseline.Replace(c.T("studio.experiments.chance")), Value: &ui.NullableString{S: v.Chance, Valid: true}},
				&ui.Node{Type: "stat_tile", Label: baseline.Replace(c.T("studio.experiments.diff")), Value: &ui.NullableString{S: v.DiffAlways, Valid: true},
					Caption: c.T("studio.experiments.always")},
				&ui.Node{Type: "stat_tile", Label: baseline.Replace(c.T("studio.experiments.revenueDiff")), Value: &ui.NullableString{S: v.RevenueDiff, Valid: true},
					Caption: c.T("studio.experiments.always")})
			rows = append(rows, tiles)
			if v.Significant {
				rows = append(rows, ui.Badge(baseline.Replace(c.T("studio.experiments.significant")), "positive"))
			}
			if v.RevenueSignificant {
				rows = append(rows, ui.Badge(baseline.Replace(c.T("studio.experiments.revenueSignificant")), "positive"))
			}
		}
		if len(v.Over) > 0 {
			rows = append(rows, &ui.Node{Type: "chart", Label: strings.ReplaceAll(c.T("studio.experiments.overTime"), "{variant}", v.Name),
				Points: v.Over})
		}
		cards.Children = append(cards.Children, ui.Card(nil, rows...))
	}
	children = append(children, cards)
	if r.Phases > 1 {
		links := ui.Row("sm")
		links.Wrap = true
		for p := 1; p <= r.Phases; p++ {
			links.Children = append(links.Children, ui.Link(strings.ReplaceAll(c.T("studio.experiments.statusPhase"), "{phase}", strconv.Itoa(p)),
				ui.Navigate(PathStudioExperimentResults+r.ID+"?phase="+strconv.Itoa(p))))
		}
		children = append(children, links)
	}
	children = append(children, ui.Stack("sm", ui.Text("heading", c.T("studio.experiments.countingTitle")),
		ui.Text("body", c.T("studio.experiments.counting")), ui.Text("caption", c.T("studio.experiments.resultsHelp"))))
	scr := SubPage(c, "studio-experiment-results", r.Name, ui.Navigate(PathStudioExperimentEdit+r.ID), ui.Stack("md", children...))
	scr.Width = "wide"
	return Page{Screen: scr}
}
