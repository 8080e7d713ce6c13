package server

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/experiment"
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
	ID   string `json:"/exp/id" validate:"max=40"`
	Name string `json:"name" validate:"max=200"`
	Kind string `json:"kind" validate:"max=10"`
	Key  string `json:"key" validate:"max=200"`
	// The questions asked at creation (issue #34).
	Hypothesis string `json:"hypothesis" validate:"max=4000"`
	Metric     string `json:"metric" validate:"max=40"`
	Holdout    string `json:"holdout" validate:"max=10"`
	V0Name     string `json:"v0name" validate:"max=200"`
	V0Value    string `json:"v0value" validate:"max=4000"`
	V0W        string `json:"v0weight" validate:"max=10"`
	V1Name     string `json:"v1name" validate:"max=200"`
	V1Value    string `json:"v1value" validate:"max=4000"`
	V1W        string `json:"v1weight" validate:"max=10"`
	V2Name     string `json:"v2name" validate:"max=200"`
	V2Value    string `json:"v2value" validate:"max=4000"`
	V2W        string `json:"v2weight" validate:"max=10"`
	V3Name     string `json:"v3name" validate:"max=200"`
	V3Value    string `json:"v3value" validate:"max=4000"`
	V3W        string `json:"v3weight" validate:"max=10"`
}

// experiment reads the form (experiment.FromForm).
func (q experimentRequest) experiment() (experiment.Experiment, error) {
	return experiment.FromForm(q.Name, q.Kind, q.Key, experiment.FormQuestions{Hypothesis: q.Hypothesis, Metric: q.Metric, Holdout: q.Holdout},
		[]experiment.FormVariant{{Name: q.V0Name, Value: q.V0Value, Weight: q.V0W},
			{Name: q.V1Name, Value: q.V1Value, Weight: q.V1W}, {Name: q.V2Name, Value: q.V2Value, Weight: q.V2W},
			{Name: q.V3Name, Value: q.V3Value, Weight: q.V3W}})
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
// sends anyone else (editors) back to the studio, which tells them why.
func (s *Server) experimentScreen(r *request) error {
	if !r.member.CanExperiment() || s.Experiments == nil {
		return redirect(screens.PathStudioFromExperiments)
	}
	return nil
}

func (s *Server) experimentSave(r *request, in any) (*ui.Result, error) {
	req := in.(*experimentRequest)
	e, err := req.experiment()
	if err != nil {
		return nil, studioProblems(r, err)
	}
	e, err = s.Experiments.Save(r.fiber.Context(), req.ID, e, r.member.Email)
	if err != nil {
		return nil, studioProblems(r, err)
	}
	return ui.Effects(ui.Replace(screens.PathStudioExperimentEdit + e.ID)), nil
}

// experimentPreviewRequest is what the experiment form's live preview
// sends: every value of the form as the tester has it now.
type experimentPreviewRequest struct {
	Form map[string]string `json:"/form" validate:"max=24"`
}

// experimentLivePreview composes each variant of the form, unsaved, in the
// step its key changes, and sets it as the preview's tree. The form's
// problems do not matter here: the preview shows what it can.
func (s *Server) experimentLivePreview(r *request, in any) (*ui.Result, error) {
	f := in.(*experimentPreviewRequest).Form
	rows := make([]experiment.FormVariant, screens.StudioExperimentVariants)
	for i := range rows {
		n := strconv.Itoa(i)
		rows[i] = experiment.FormVariant{Name: f["v"+n+"name"], Value: f["v"+n+"value"], Weight: f["v"+n+"weight"]}
	}
	e, _ := experiment.FromForm(f["name"], f["kind"], f["key"],
		experiment.FormQuestions{Hypothesis: f["hypothesis"], Metric: f["metric"], Holdout: f["holdout"]}, rows)
	return ui.Effects(ui.SetState(screens.StudioExperimentPreviewState, screens.StudioExperimentPreview(r.copy, e, s.previewSample(r)))), nil
}

// previewSample is the subscriber the experiment previews show the flow to:
// on the request's brand, as of now by the server's clock.
func (s *Server) previewSample(r *request) screens.ExperimentSample {
	var cat *billing.Catalogue
	if s.Billing != nil {
		cat = s.Billing.Catalogue()
	}
	return screens.ExperimentSampleOf(s.Clock.Now(), cat, r.brand.Key)
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
	return screens.StudioExperiments(r.copy, screens.StudioExperimentItems(s.Experiments.List())), nil
}

func (s *Server) studioExperimentEdit(r *request) (screens.Page, error) {
	if err := s.experimentScreen(r); err != nil {
		return screens.Page{}, err
	}
	if r.path == screens.PathStudioExperimentNew {
		return screens.StudioNewExperiment(r.copy, slices.Collect(maps.Keys(s.Brands.Get(brand.DefaultKey).Copy))), nil
	}
	id := strings.Trim(strings.TrimPrefix(r.path, screens.PathStudioExperimentEdit), "/")
	e, err := s.Experiments.Get(r.fiber.Context(), id)
	if engine.IsNotFound(err) {
		return screens.Page{}, redirect(screens.PathStudioExperiments)
	}
	if err != nil {
		return screens.Page{}, err
	}
	return screens.StudioExperimentOf(r.copy, e, s.previewSample(r)), nil
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
	// ?against=<variant id> compares with that arm (a no-offer holdout);
	// an id the experiment lacks compares with the control.
	res, err := s.Experiments.ResultsAgainst(ctx, e, phase, r.query.Get("against"))
	if err != nil {
		return screens.Page{}, redirect(screens.PathStudioExperimentResults + e.ID)
	}
	return screens.StudioExperimentResultsPage(r.copy, screens.StudioExperimentResultsOf(res)), nil
}

// experimentContext is the screens.Context the unsubscribe flow's steps are
// composed with for the signed-in subscriber: the brand's copy with the
// texts of the running copy experiments layered over it, the assignments
// for meta.experiments, and expose, to call once the step is composed: it
// records an exposure for each experiment whose key the step read (a
// subscriber shown the control counts too).
func (s *Server) experimentContext(r *request) (screens.Context, []ui.Experiment, func(context.Context) error) {
	if s.Experiments == nil || !r.signedIn {
		return r.copy, nil, func(context.Context) error { return nil }
	}
	page := s.Experiments.CopyPage(r.principal.User.ID)
	if len(page.Assigned) == 0 {
		return r.copy, nil, func(context.Context) error { return nil }
	}
	assigned := make([]ui.Experiment, 0, len(page.Assigned))
	for _, a := range page.Assigned {
		assigned = append(assigned, ui.Experiment{Key: a.Experiment, Variant: a.Variant})
	}
	c := r.copy
	c.Copy = r.copy.Copy.Layered(page.Overrides, page.Read)
	return c, assigned, page.Expose
}
