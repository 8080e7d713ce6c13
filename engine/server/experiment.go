package server

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"glimpse/engine"
	"glimpse/engine/brand"
	"glimpse/engine/experiment"
	"glimpse/engine/retention"
	"glimpse/engine/ui"
	"glimpse/screens"
)

type experimentIDRequest struct {
	ID string `json:"/exp/id" validate:"required,max=40"`
}

// experimentRequest is the experiment form's values: its rules (the name
// required, weights digits) are checked first (form: true), then Validate in
// the experiment package checks the rest.
type experimentRequest struct {
	ID      string `json:"/exp/id" validate:"max=40"`
	Name    string `json:"name" validate:"max=200"`
	Kind    string `json:"kind" validate:"max=10"`
	Key     string `json:"key" validate:"max=200"`
	V0Name  string `json:"v0name" validate:"max=200"`
	V0Value string `json:"v0value" validate:"max=4000"`
	V0W     string `json:"v0weight" validate:"max=10"`
	V1Name  string `json:"v1name" validate:"max=200"`
	V1Value string `json:"v1value" validate:"max=4000"`
	V1W     string `json:"v1weight" validate:"max=10"`
	V2Name  string `json:"v2name" validate:"max=200"`
	V2Value string `json:"v2value" validate:"max=4000"`
	V2W     string `json:"v2weight" validate:"max=10"`
	V3Name  string `json:"v3name" validate:"max=200"`
	V3Value string `json:"v3value" validate:"max=4000"`
	V3W     string `json:"v3weight" validate:"max=10"`
}

// problemWeight is the words of a weight that is not a whole number, the
// form's own rule's: reading the form finds it, not the experiment package.
const problemWeight = "studio.experiments.problem.weight"

// experiment reads the form: the first two variants always, a third or
// fourth when it has a text or a weight. A weight that is not a whole
// number (an empty one of the first two) is reported with every other
// problem of the form, not alone.
func (q experimentRequest) experiment() (experiment.Experiment, error) {
	e := experiment.Experiment{Name: strings.TrimSpace(q.Name), Kind: q.Kind, Key: strings.TrimSpace(q.Key)}
	rows := [][3]string{{q.V0Name, q.V0Value, q.V0W}, {q.V1Name, q.V1Value, q.V1W}, {q.V2Name, q.V2Value, q.V2W}, {q.V3Name, q.V3Value, q.V3W}}
	problems := experiment.Problems{}
	for i, r := range rows {
		name, value, weight := strings.TrimSpace(r[0]), strings.TrimSpace(r[1]), strings.TrimSpace(r[2])
		if i >= 2 && value == "" && weight == "" && name == "" {
			continue
		}
		w, err := strconv.Atoi(weight)
		if err != nil {
			problems["v"+strconv.Itoa(i)+"weight"] = experiment.Problem{Code: problemWeight}
		}
		e.Variants = append(e.Variants, experiment.Variant{Name: name, Value: value, Weight: w})
	}
	if len(problems) == 0 {
		return e, nil
	}
	for k, v := range experiment.Validate(e) {
		if _, ok := problems[k]; !ok {
			problems[k] = v
		}
	}
	return e, &experiment.InvalidError{Problems: problems}
}

// experimentsOn refuses the experiment actions on a server without
// experiments.
func (s *Server) experimentsOn(h func(*request, any) (*ui.Result, error)) func(*request, any) (*ui.Result, error) {
	return func(r *request, in any) (*ui.Result, error) {
		if s.Experiments == nil {
			return nil, engine.Errorf(engine.CodeUnavailable, "%s", r.copy.T("studio.experiments.unavailable"))
		}
		return h(r, in)
	}
}

// experimentScreen admits testers and admins to an experiment screen and
// sends anyone else (editors) back to the studio.
func (s *Server) experimentScreen(r *request) error {
	if !r.member.CanExperiment() || s.Experiments == nil {
		return redirect(screens.PathStudio)
	}
	return nil
}

func (s *Server) experimentSave(r *request, in any) (*ui.Result, error) {
	req := in.(*experimentRequest)
	e, err := req.experiment()
	if err != nil {
		return nil, studioProblems(r, err)
	}
	ctx := r.fiber.Context()
	if req.ID == "" {
		e, err = s.Experiments.Create(ctx, e, r.member.Email)
	} else {
		old, gerr := s.Experiments.Get(ctx, req.ID)
		if gerr != nil {
			return nil, gerr
		}
		e.Kind, e.Key = old.Kind, old.Key // the form shows them read-only
		e, err = s.Experiments.Update(ctx, req.ID, e, r.member.Email)
	}
	if err != nil {
		return nil, studioProblems(r, err)
	}
	return ui.Effects(ui.Replace(screens.PathStudioExperimentEdit + e.ID)), nil
}

func (s *Server) experimentStatus(action string) func(*request, any) (*ui.Result, error) {
	return func(r *request, in any) (*ui.Result, error) {
		req := in.(*experimentIDRequest)
		if _, err := s.Experiments.SetStatus(r.fiber.Context(), req.ID, action, r.member.Email); err != nil {
			return nil, err
		}
		return ui.Effects(ui.Refresh()), nil
	}
}

func (s *Server) studioExperiments(r *request) (screens.Page, error) {
	if err := s.experimentScreen(r); err != nil {
		return screens.Page{}, err
	}
	var items []screens.StudioExperimentItem
	for _, e := range s.Experiments.List() {
		items = append(items, screens.StudioExperimentItem{ID: e.ID, Name: e.Name, Kind: e.Kind, Key: e.Key, Status: e.Status, Phase: e.Phase})
	}
	return screens.StudioExperiments(r.copy, items), nil
}

func (s *Server) studioExperimentEdit(r *request) (screens.Page, error) {
	if err := s.experimentScreen(r); err != nil {
		return screens.Page{}, err
	}
	if r.path == screens.PathStudioExperimentNew {
		return screens.StudioExperimentEdit(r.copy, screens.StudioExperimentState{New: true, Kind: experiment.KindCopy,
			Keys: retention.ExperimentKeys(slices.Collect(maps.Keys(s.Brands.Get(brand.DefaultKey).Copy))), Variants: []screens.StudioExperimentVariant{
				{Name: "Control", Weight: "50"}, {Name: "Variant B", Weight: "50"}}}), nil
	}
	id := strings.Trim(strings.TrimPrefix(r.path, screens.PathStudioExperimentEdit), "/")
	e, err := s.Experiments.Get(r.fiber.Context(), id)
	if engine.IsNotFound(err) {
		return screens.Page{}, redirect(screens.PathStudioExperiments)
	}
	if err != nil {
		return screens.Page{}, err
	}
	st := screens.StudioExperimentState{ID: e.ID, Name: e.Name, Kind: e.Kind, Key: e.Key, Status: e.Status, Phase: e.Phase,
		Stopped: e.Status == experiment.StatusStopped}
	for _, v := range e.Variants {
		st.Variants = append(st.Variants, screens.StudioExperimentVariant{Name: v.Name, Value: v.Value,
			Weight: strconv.Itoa(v.Weight), Preview: s.experimentPreview(r, e, v)})
	}
	return screens.StudioExperimentEdit(r.copy, st), nil
}

// experimentPreview composes the flow's step that shows a copy key, with the
// variant's text in it (a control without text shows the brand's own). It
// returns nil for an offer, or a key no step shows: the screen then shows
// the text alone.
func (s *Server) experimentPreview(r *request, e experiment.Experiment, v experiment.Variant) *ui.Node {
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
	c := screens.Context{Brand: r.copy.Brand, Copy: r.copy.Copy.Layered(over, nil)}
	page := screens.UnsubscribeStep(c, screens.UnsubscribeState{Attempt: "preview", Step: step, Return: screens.PathStudioExperimentEdit + e.ID})
	d := page.Overlays[screens.UnsubscribeOverlay]
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

func (s *Server) studioExperimentResults(r *request) (screens.Page, error) {
	if err := s.experimentScreen(r); err != nil {
		return screens.Page{}, err
	}
	ctx := r.fiber.Context()
	id := strings.Trim(strings.TrimPrefix(r.path, screens.PathStudioExperimentResults), "/")
	e, err := s.Experiments.Get(ctx, id)
	if engine.IsNotFound(err) {
		return screens.Page{}, redirect(screens.PathStudioExperiments)
	}
	if err != nil {
		return screens.Page{}, err
	}
	phase, _ := strconv.Atoi(r.query.Get("phase"))
	// This instance's counts first, so a tester sees what just happened here.
	if err := s.Experiments.Flush(ctx); err != nil {
		return screens.Page{}, err
	}
	res, err := s.Experiments.Results(ctx, e, phase)
	if err != nil {
		return screens.Page{}, redirect(screens.PathStudioExperimentResults + e.ID)
	}
	return screens.StudioExperimentResultsPage(r.copy, resultsView(res)), nil
}

// resultsView formats results for the screen.
func resultsView(res experiment.Results) screens.StudioExperimentResults {
	e := res.Experiment
	v := screens.StudioExperimentResults{ID: e.ID, Name: e.Name, Key: e.Key, Status: e.Status, Phase: res.Phase, Phases: e.Phase,
		SRMP: formatP(res.SRMP), Mismatch: res.Mismatch}
	for i, vr := range res.Variants {
		line := screens.StudioExperimentResult{Name: vr.Name, Attempts: vr.Attempts, Exposures: vr.Exposures, Saves: vr.Saves,
			Unsaved: vr.Unsaved, Cancels: vr.Cancels, Control: i == 0, Significant: vr.Significant,
			SaveRate: pct(vr.SaveRate, vr.Exposures > 0), SaveRateAlways: pct(vr.SaveRateAlways, vr.Exposures > 0)}
		if i > 0 {
			ok := vr.Exposures > 0 && res.Variants[0].Exposures > 0
			line.Diff, line.DiffAlways = pts(vr.Diff, ok), pts(vr.DiffAlways, ok)
		}
		v.Variants = append(v.Variants, line)
	}
	return v
}

func pct(i experiment.Interval, ok bool) string {
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.1f%% [%.1f%%, %.1f%%]", 100*i.Estimate, 100*math.Max(i.Low, 0), 100*math.Min(i.High, 1))
}

func pts(i experiment.Interval, ok bool) string {
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%+.1f pts [%+.1f, %+.1f]", 100*i.Estimate, 100*i.Low, 100*i.High)
}

func formatP(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}

// experimentContext is the screens.Context the unsubscribe flow's steps are
// composed with for the signed-in subscriber: the brand's copy with the
// texts of the running copy experiments layered over it, the assignments
// for meta.experiments, and expose, to call once the step is composed: it
// records an exposure for each experiment whose key the step read (a
// subscriber shown the control counts too).
func (s *Server) experimentContext(r *request) (screens.Context, []ui.Experiment, func(context.Context) error) {
	none := func(context.Context) error { return nil }
	if s.Experiments == nil || !r.signedIn {
		return r.copy, nil, none
	}
	userID := r.principal.User.ID
	over, byKey := s.Experiments.CopyOverrides(userID)
	if len(byKey) == 0 {
		return r.copy, nil, none
	}
	assigned := make([]ui.Experiment, 0, len(byKey))
	for _, a := range byKey {
		assigned = append(assigned, ui.Experiment{Key: a.Experiment, Variant: a.Variant})
	}
	sort.Slice(assigned, func(i, j int) bool { return assigned[i].Key < assigned[j].Key })
	seen := map[string]bool{}
	c := r.copy
	c.Copy = r.copy.Copy.Layered(over, func(key string) {
		if _, ok := byKey[key]; ok {
			seen[key] = true
		}
	})
	expose := func(ctx context.Context) error {
		for key := range seen {
			if err := s.Experiments.Expose(ctx, userID, byKey[key]); err != nil {
				return err
			}
		}
		return nil
	}
	return c, assigned, expose
}
