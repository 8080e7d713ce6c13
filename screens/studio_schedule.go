package screens

import (
	"strings"
	"time"

	"glimpse/engine/library"
	"glimpse/engine/ui"
)

// The edit screen's schedule form and where its input and the schedule to
// cancel are kept in the screen's state.
const (
	StudioScheduleForm       = "studio-schedule"
	StudioScheduleAtState    = "/schedule/publishAt"
	StudioScheduleCancelPath = "/schedule/cancel"
)

// StudioSchedule is one publish set for a time, as the studio lists it.
type StudioSchedule struct {
	ID, Kind, Slug, Title string
	At                    time.Time
	By                    string
}

// StudioSchedules are the studio's lines of pending schedules; titles
// names each item (by its id, library.DocID) where known.
func StudioSchedules(pending []library.Schedule, titles map[string]string) []StudioSchedule {
	out := make([]StudioSchedule, 0, len(pending))
	for _, sc := range pending {
		title := titles[library.DocID(sc.Kind, sc.Slug)]
		if title == "" {
			title = sc.Slug
		}
		out = append(out, StudioSchedule{ID: sc.ID, Kind: sc.Kind, Slug: sc.Slug, Title: title, At: sc.At, By: sc.By})
	}
	return out
}

// studioScheduledLine is "Scheduled for Dec 1, 2026 09:00 UTC by who".
func studioScheduledLine(c Context, s StudioSchedule) string {
	return strings.NewReplacer("{at}", s.At.UTC().Format(studioTimeLayout), "{by}", s.By).Replace(c.T("studio.schedule.line"))
}

// studioCancelButton cancels one schedule (in the list item that names
// it).
func studioCancelButton(c Context, s StudioSchedule) *ui.Node {
	return ui.Button(c.T("studio.schedule.cancel"), "tertiary",
		ui.Sequence(ui.SetState(StudioScheduleCancelPath, s.ID), ui.Call("studio.cancel_schedule", StudioScheduleCancelPath)))
}

// StudioScheduledList is the studio home's list of every pending publish,
// soonest first, each opening its item and cancellable; nil when none.
func StudioScheduledList(c Context, items []StudioSchedule) []*ui.Node {
	if len(items) == 0 {
		return nil
	}
	rows := make([]*ui.Node, 0, len(items))
	for _, s := range items {
		title := &ui.Node{Type: "list_item", Title: s.Title, Subtitle: studioScheduledLine(c, s),
			Trailing: ui.Row("sm", ui.Link(c.T("studio.schedule.open"), ui.Navigate(PathStudioEdit+s.Kind+"/"+s.Slug)), studioCancelButton(c, s))}
		rows = append(rows, title)
	}
	list := ui.List(true, rows...)
	list.Label = c.T("studio.schedule.heading")
	return []*ui.Node{ui.Text("heading", c.T("studio.schedule.heading")), list}
}

// studioScheduleNodes are the edit screen's scheduled publishing: the
// item's pending publishes, each cancellable, and a form setting a new one
// (a date and time in UTC; the editor's form is saved first, as Publish
// does, so what is scheduled is what the editor sees).
func studioScheduleNodes(c Context, s StudioEditState) []*ui.Node {
	nodes := []*ui.Node{ui.Text("heading", c.T("studio.schedule.heading"))}
	if len(s.Schedules) > 0 {
		rows := make([]*ui.Node, 0, len(s.Schedules))
		for _, sc := range s.Schedules {
			rows = append(rows, &ui.Node{Type: "list_item", Title: studioScheduledLine(c, sc), Trailing: studioCancelButton(c, sc)})
		}
		list := ui.List(true, rows...)
		list.Label = c.T("studio.schedule.itemList")
		nodes = append(nodes, list)
	}
	if !s.CanEdit {
		return nodes
	}
	submit := &ui.Action{Type: "submit", Name: "studio.schedule", Form: StudioScheduleForm,
		Include: []string{"/doc/kind", "/doc/slug", "/form"}}
	at := &ui.Node{Type: ui.NodeTypeTextInput, ID: "publishAt", Bind: StudioScheduleAtState, Kind: "datetime-local",
		Label: c.T("studio.schedule.atLabel"), Rules: []ui.Rule{ui.Required(c.T(library.ProblemRequired))}}
	hint := strings.ReplaceAll(c.T("studio.schedule.hint"), "{now}", s.Now.UTC().Format(studioTimeLayout))
	nodes = append(nodes, ui.Form(StudioScheduleForm, submit, at, ui.Text("caption", hint), ui.FormError(StudioScheduleForm)),
		ui.Button(c.T("studio.schedule.submit"), "secondary", submit))
	return nodes
}
