package screens

import (
	"strconv"
	"strings"
	"time"

	"glimpse/engine/library"
	"glimpse/engine/ui"
)

// Studio paths and forms.
const (
	PathStudio        = "/studio"
	PathStudioEdit    = "/studio/edit/"
	PathStudioNew     = "/studio/new/"
	PathStudioPreview = "/studio/preview/"
	PathStudioCopy    = "/studio/copy/"
	StudioSignInForm  = "studio-sign-in"
	StudioEditForm    = "studio-edit"
	// StudioPreviewState is where the edit screen's live preview keeps the
	// tree the server composed last.
	StudioPreviewState = "/preview"
)

// StudioItem is one content item in the studio's lists.
type StudioItem struct {
	Kind, Slug, Title, Status string
	Pending                   bool // published, with unpublished changes
	// UpdatedAt and By are the item's last edit, for the home's sorts.
	UpdatedAt time.Time
	By        string
}

// StudioRevision is one line of an item's history.
type StudioRevision struct {
	N              int
	Action, By, At string
	Changed        []string
}

// StudioField is one input of the edit form, with the rules of the content
// package a person can see broken while typing (the rest, formats and
// slugs, the server checks and words in the same copy).
type StudioField struct {
	Name, Label string
	Multiline   bool
	Picture     bool // a /static/ image path, chosen from the pictures
	Required    bool
	Max         int // characters; 0 for no bound
}

// rules are the field's rules, worded as the server words the same
// problems (library.ProblemRequired, library.ProblemTooLong).
func (f StudioField) rules(c Context) []ui.Rule {
	var rules []ui.Rule
	if f.Required {
		rules = append(rules, ui.Required(c.T(library.ProblemRequired)))
	}
	if f.Max > 0 {
		under := strings.ReplaceAll(c.T(library.ProblemTooLong), "{"+library.ArgUnder+"}", strconv.Itoa(f.Max+1))
		rules = append(rules, ui.MaxLength(f.Max, under))
	}
	return rules
}

// StudioEditState is the edit screen of one item (or a new news item).
type StudioEditState struct {
	Kind, Slug, Title, Status string
	New, Pending, CanEdit     bool
	Fields                    []StudioField
	Values                    map[string]string
	Revisions                 []StudioRevision // newest first
	// Pictures are the images a picture field offers.
	Pictures []ui.Option
	// Preview is the body of the subscriber screen for the draft (for copy,
	// the key's screen drawn with its text, CopyPreview); nil for an item no
	// screen shows.
	Preview *ui.Node
	// CanSchedule offers scheduled publishing (a stored item, or copy);
	// Schedules are the item's pending publishes, Now the time they are set
	// against (studio_schedule.go).
	CanSchedule bool
	Schedules   []StudioSchedule
	Now         time.Time
	// Brand names the brand whose copy is edited; empty for other kinds.
	Brand string
}

// StudioSignIn is the staff sign-in screen.
func StudioSignIn(c Context) Page {
	form := ui.Form(StudioSignInForm, ui.Submit("studio.sign_in", StudioSignInForm),
		ui.TextInput("email", "email", c.T("signIn.emailLabel"), c.T("signIn.emailPlaceholder"), ui.Email(c.T("signIn.wrongEmail"))),
		ui.TextInput("password", "password", c.T("signIn.passwordLabel"), c.T("signIn.passwordPlaceholder"),
			ui.Required(c.T("studio.passwordRequired"))),
		ui.FormError(StudioSignInForm),
		ui.Button(c.T("signIn.submit"), "primary", ui.Submit("studio.sign_in", StudioSignInForm)),
	)
	s := ui.Screen("studio-sign-in", c.T("studio.title"), ui.Stack("lg", ui.Text("title", c.T("studio.title")),
		ui.Text("body", c.T("studio.signInText")), form))
	s.Layout = "centered"
	return Page{Screen: s, State: map[string]any{"form": map[string]any{"email": "", "password": ""}}}
}

// StudioHome lists every editable item by kind; extra nodes (the link to
// the experiments, for testers and admins) go above the copy button.
func StudioHome(c Context, staff string, groups map[string][]StudioItem, extra ...*ui.Node) Page {
	newRow := ui.Row("sm",
		ui.Button(c.T("studio.new.news"), "primary", ui.Navigate(PathStudioNew+"news")),
		ui.Button(c.T("studio.new.article"), "secondary", ui.Navigate(PathStudioNew+"article")),
		ui.Button(c.T("studio.new.topic"), "secondary", ui.Navigate(PathStudioNew+"topic")))
	newRow.Wrap = true
	children := []*ui.Node{ui.Text("caption", strings.ReplaceAll(c.T("studio.signedInAs"), "{who}", staff)), newRow}
	for _, kind := range []string{"news", "topic", "article", "page"} {
		items := groups[kind]
		rows := make([]*ui.Node, 0, len(items))
		for _, it := range items {
			status := c.T("studio.status." + it.Status)
			if it.Pending {
				status = c.T("studio.pending")
			}
			rows = append(rows, &ui.Node{Type: "list_item", Title: it.Title, Subtitle: it.Slug + " · " + status,
				Action: ui.Navigate(PathStudioEdit + it.Kind + "/" + it.Slug)})
		}
		list := ui.List(true, rows...)
		list.Label = c.T("studio.kind." + kind)
		children = append(children, ui.Text("heading", c.T("studio.kind."+kind)), list)
	}
	children = append(children, extra...)
	children = append(children, ui.Button(c.T("studio.editCopy"), "secondary", ui.Navigate(PathStudioCopy+"default")),
		ui.Button(c.T("studio.signOut"), "secondary", ui.Call("studio.sign_out")))
	s := ui.Screen("studio", c.T("studio.title"), ui.Stack("md", children...))
	s.Header = &ui.Node{Type: "header", Title: c.T("studio.title")}
	s.Width = "wide"
	return Page{Screen: s}
}

// Where the studio's home was reached from, when a member was sent there
// from a screen they may not open (?from=experiments).
const (
	StudioFromParam           = "from"
	StudioFromExperiments     = "experiments"
	PathStudioFromExperiments = PathStudio + "?" + StudioFromParam + "=" + StudioFromExperiments
)

// StudioTurnedAway puts, above the studio's home, why its member was sent
// there from the experiments: only testers and admins run them (or, with
// configured false, this server runs none).
func StudioTurnedAway(c Context, home Page, configured bool) Page {
	text := c.T("studio.experiments.turnedAway")
	if !configured {
		text = c.T("studio.experiments.unavailable")
	}
	notice := &ui.Node{Type: "banner", ID: "studio-turned-away", Tone: "info", Title: c.T("studio.experiments.turnedAwayTitle"), Text: text}
	if body := home.Screen.Children; len(body) == 1 && body[0].Type == ui.NodeTypeStack {
		stack := *body[0]
		stack.Children = append([]*ui.Node{notice}, stack.Children...)
		home.Screen.Children = []*ui.Node{&stack}
	}
	return home
}

// StudioEdit edits one item: its fields, save, publish or unpublish, a
// preview link, and its revisions with restore.
func StudioEdit(c Context, s StudioEditState) Page {
	state := map[string]any{"doc": map[string]any{"kind": s.Kind, "slug": s.Slug}, "restore": 0,
		"schedule": map[string]any{"publishAt": "", "cancel": ""}}
	form := map[string]any{}
	inputs := []*ui.Node{}
	if s.New {
		in := ui.TextInput("slug", "text", c.T("studio.slug."+s.Kind), "",
			ui.Required(c.T(library.ProblemRequired)))
		inputs = append(inputs, in)
		form["slug"] = ""
	}
	for _, f := range s.Fields {
		form[f.Name] = s.Values[f.Name]
		if f.Multiline && !s.CanEdit {
			// Read-only: the text itself, as a textarea cannot be disabled.
			inputs = append(inputs, ui.Text("label", f.Label), ui.If(s.Values[f.Name] != "", ui.Text("body", s.Values[f.Name])))
			continue
		}
		if f.Multiline {
			inputs = append(inputs, &ui.Node{Type: "textarea", ID: f.Name, Bind: "/form/" + f.Name, Label: f.Label, Rows: 16,
				Rules: f.rules(c)})
			continue
		}
		in := ui.TextInput(f.Name, "text", f.Label, "", f.rules(c)...)
		in.Disabled = !s.CanEdit
		inputs = append(inputs, in)
		if f.Picture && s.CanEdit && len(s.Pictures) > 0 {
			// The path stays editable above (and can be cleared); the
			// thumbnails choose it without typing.
			inputs = append(inputs, ui.ImageChoice(f.Name+"-picker", f.Name, c.T("studio.picture.legend"), s.Pictures...))
		}
	}
	state["form"] = form
	include := []string{"/doc/kind", "/doc/slug"}
	overlays := map[string]*ui.Node{}
	save := &ui.Action{Type: "submit", Name: "studio.save", Form: StudioEditForm, Include: include}
	children := []*ui.Node{}
	status := c.T("studio.status." + s.Status)
	if s.Pending {
		status = c.T("studio.pending")
	}
	if !s.New {
		children = append(children, ui.Badge(status, "brand"))
	}
	if s.Brand != "" {
		children = append(children, ui.Badge(strings.ReplaceAll(c.T("studio.brandEdited"), "{name}", s.Brand), "info"))
	}
	if !s.CanEdit {
		children = append(children, errorLine(c.T("studio.readOnly")))
	}
	formNode := ui.Form(StudioEditForm, save, append(inputs, ui.FormError(StudioEditForm))...)
	children = append(children, formNode)
	if s.CanEdit {
		children = append(children, ui.Button(c.T("studio.save"), "primary", save))
		if !s.New {
			// Publish sends the form too: the server saves an edit not yet
			// saved before publishing, so Publish never drops it.
			publish := &ui.Action{Type: "submit", Name: "studio.publish", Form: StudioEditForm, Include: include}
			overlays[StudioConfirmPublish] = studioConfirm(c, StudioConfirmPublish, c.T("studio.confirmPublishTitle"),
				c.T("studio.confirmPublishText"), c.T("studio.publish"), publish)
			children = append(children,
				ui.If(s.Preview != nil && s.Kind != library.KindCopy, ui.Link(c.T("studio.previewLink"), ui.Navigate(PathStudioPreview+s.Kind+"/"+s.Slug))),
				ui.Button(c.T("studio.publish"), "primary", ui.OpenOverlay(StudioConfirmPublish)),
				ui.Button(c.T("studio.unpublish"), "secondary", ui.Call("studio.unpublish", include...)))
		}
	}
	if s.CanSchedule {
		children = append(children, studioScheduleNodes(c, s)...)
	}
	if len(s.Revisions) > 0 {
		rows := make([]*ui.Node, 0, len(s.Revisions))
		for _, r := range s.Revisions {
			line := strings.NewReplacer("{n}", strconv.Itoa(r.N), "{action}", r.Action, "{by}", r.By, "{at}", r.At).Replace(c.T("studio.revision"))
			item := &ui.Node{Type: "list_item", Title: line, Subtitle: strings.Join(r.Changed, ", ")}
			// The revision whole, with what it changed marked, before any restore.
			view := ui.Link(c.T("studio.revisionView.open"), ui.Navigate(StudioRevisionPath(s.Kind, s.Slug, r.N)))
			item.Trailing = view
			if s.CanEdit {
				item.Trailing = ui.Row("sm", view, ui.Button(c.T("studio.restore"), "tertiary",
					ui.Sequence(ui.SetState("/restore", r.N), ui.OpenOverlay(StudioConfirmRestore))))
			}
			rows = append(rows, item)
		}
		list := ui.List(true, rows...)
		list.Label = c.T("studio.revisions")
		children = append(children, ui.Text("heading", c.T("studio.revisions")), list)
		if s.CanEdit {
			overlays[StudioConfirmRestore] = studioConfirm(c, StudioConfirmRestore, c.T("studio.confirmRestoreTitle"),
				c.T("studio.confirmRestoreText"), c.T("studio.restore"), ui.Call("studio.restore", append(include, "/restore")...))
		}
	}
	title := s.Title
	if title == "" {
		title = c.T("studio.new." + s.Kind)
	}
	body := ui.Stack("md", children...)
	if s.Preview != nil {
		// The preview follows the form as the editor types: every value of
		// the form (a new item's typed slug too) and the item's identity.
		refresh := ui.Call("studio.preview", "/form", "/doc/kind", "/doc/slug")
		body = ui.Split("xl", body, ui.Preview(c.T("studio.preview"), StudioPreviewState, "/form", refresh, s.Preview))
	}
	scr := SubPage(c, "studio-edit", title, ui.Navigate(PathStudio), body)
	scr.Width = "wide"
	page := Page{Screen: scr, State: state}
	if len(overlays) > 0 {
		page.Overlays = overlays
	}
	return page
}

// The studio's confirmations: publishing puts a draft before every
// subscriber, and restoring replaces the draft's fields, so each asks first.
const (
	StudioConfirmPublish = "studio-confirm-publish"
	StudioConfirmRestore = "studio-confirm-restore"
)

// studioConfirm is a dialog that asks before an action: its text, the
// action's button (which closes the dialog and acts) and a way back that
// does nothing (as do Escape and the close button).
func studioConfirm(c Context, id, title, text, act string, action *ui.Action) *ui.Node {
	d := ui.Dialog(id, "modal", title, ui.Text("body", text),
		ui.Button(act, "primary", ui.Sequence(ui.CloseOverlay(id), action)),
		ui.Button(c.T("studio.confirmCancel"), "secondary", ui.CloseOverlay(id)))
	d.CloseLabel = c.T("dialog.close")
	return d
}

// StudioBrand is one brand of the copy page's switcher: its key (in the
// address) and the name people know it by.
type StudioBrand struct{ Key, Name string }
