package server

import (
	"errors"
	"strings"

	"glimpse/engine"
	"glimpse/engine/library"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// studioItemPage is the edit screen of a stored item with its scheduled
// publishes.
func (s *Server) studioItemPage(r *request, d library.Doc, pictures []string, preview *ui.Node) (screens.Page, error) {
	return s.withSchedules(r, screens.StudioItemState(r.copy, d, r.member.CanEdit(), pictures, preview))
}

// withSchedules composes an edit screen with the item's pending publishes
// and the form setting one (when the server schedules): a stored item's, or
// a copy key's not edited yet (the schedule saves it first).
func (s *Server) withSchedules(r *request, st screens.StudioEditState) (screens.Page, error) {
	if s.Schedules != nil {
		pending, err := s.Schedules.Pending(r.fiber.Context(), st.Kind, st.Slug)
		if err != nil {
			return screens.Page{}, err
		}
		st.CanSchedule, st.Now = true, s.Clock.Now()
		st.Schedules = screens.StudioSchedules(pending, map[string]string{library.DocID(st.Kind, st.Slug): st.Title})
	}
	return screens.StudioEdit(r.copy, st), nil
}

// studioScheduledNodes are the studio home's list of pending publishes,
// titled from the listed items (docs).
func (s *Server) studioScheduledNodes(r *request, docs []library.Doc) ([]*ui.Node, error) {
	if s.Schedules == nil {
		return nil, nil
	}
	pending, err := s.Schedules.Pending(r.fiber.Context(), "", "")
	if err != nil {
		return nil, err
	}
	titles := make(map[string]string, len(docs))
	for _, d := range docs {
		titles[d.ID] = d.Draft["title"]
	}
	for _, sc := range pending {
		if sc.Kind == library.KindCopy {
			_, key, _ := strings.Cut(sc.Slug, "/")
			titles[library.DocID(sc.Kind, sc.Slug)] = key
		}
	}
	return screens.StudioScheduledList(r.copy, screens.StudioSchedules(pending, titles)), nil
}

// studioScheduleRequest is the schedule form's time, the item's identity
// and the edit form's values (saved first, as Publish saves them).
type studioScheduleRequest struct {
	Kind string            `json:"/doc/kind" validate:"required,max=20"`
	Slug string            `json:"/doc/slug" validate:"required,max=200"`
	At   string            `json:"publishAt" validate:"max=40"`
	Form map[string]string `json:"/form" validate:"max=20"`
}

// studioSchedule saves the editor's form, then sets the item to be
// published at the time chosen.
func (s *Server) studioSchedule(r *request, in any) (*ui.Result, error) {
	req := in.(*studioScheduleRequest)
	if s.Schedules == nil {
		return nil, engine.Errorf(engine.CodeNotFound, "Scheduling is not available.")
	}
	fields := map[string]string{}
	for _, f := range library.Fields(req.Kind, req.Slug) {
		if v, ok := req.Form[f.Name]; ok {
			fields[f.Name] = v
		}
	}
	if _, err := s.Schedules.ScheduleEdit(r.fiber.Context(), req.Kind, req.Slug, fields, req.At, r.member.Email); err != nil {
		return nil, studioScheduleProblems(r, err)
	}
	return ui.Effects(ui.Refresh()), nil
}

// studioScheduleProblems words the scheduler's problem with the time under
// the schedule form's input (publishAt).
func studioScheduleProblems(r *request, err error) error {
	err = studioProblems(r, err)
	var e *engine.Error
	if errors.As(err, &e) && e.Fields != nil {
		if msg, found := e.Fields["at"]; found {
			e.Fields = map[string]string{"publishAt": msg}
		}
	}
	return err
}

// studioCancelScheduleRequest names the schedule to cancel.
type studioCancelScheduleRequest struct {
	ID string `json:"/schedule/cancel" validate:"required,max=64"`
}

// studioCancelSchedule cancels a publish still scheduled; one an instance
// has begun publishing is a conflict (the publish won).
func (s *Server) studioCancelSchedule(r *request, in any) (*ui.Result, error) {
	req := in.(*studioCancelScheduleRequest)
	if s.Schedules == nil {
		return nil, engine.Errorf(engine.CodeNotFound, "Scheduling is not available.")
	}
	if _, err := s.Schedules.Cancel(r.fiber.Context(), req.ID, r.member.Email); err != nil {
		return nil, err
	}
	return ui.Effects(ui.Refresh()), nil
}

// studioRevision shows one revision whole, with what it changed marked.
func (s *Server) studioRevision(r *request) (screens.Page, error) {
	n, kind, slug, ok := screens.ParseStudioRevisionPath(r.path)
	if !ok {
		return screens.Page{}, redirect(screens.PathStudio)
	}
	d, err := s.Content.Get(r.fiber.Context(), kind, slug)
	if engine.IsNotFound(err) {
		return screens.Page{}, redirect(screens.PathStudio)
	}
	if err != nil {
		return screens.Page{}, err
	}
	page, ok := screens.StudioRevisionView(r.copy, d, n, r.query.Get(screens.StudioAgainstParam) == screens.StudioAgainstDraft, r.member.CanEdit())
	if !ok {
		return screens.Page{}, redirect(screens.PathStudioEdit + kind + "/" + slug)
	}
	return page, nil
}
