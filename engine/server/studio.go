package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/brand"
	"glimpse/engine/experiment"
	"glimpse/engine/library"
	"glimpse/engine/staff"
	"glimpse/engine/ui"
	"glimpse/screens"
)

func (s *Server) staffCookie() string {
	if s.Config.SecureCookies() {
		return "__Host-glimpse_staff"
	}
	return "glimpse_staff"
}

// studioMember returns the signed-in staff member, or staff.ErrNoSession
// when the browser has no live staff session (or the server runs without a
// studio).
func (s *Server) studioMember(c fiber.Ctx) (staff.Member, error) {
	if s.Staff == nil {
		return staff.Member{}, staff.ErrNoSession
	}
	m, err := s.Staff.Authenticate(c.Context(), c.Cookies(s.staffCookie()))
	if err != nil {
		return staff.Member{}, fmt.Errorf("studio member: %w", err)
	}
	return m, nil
}

// admitStaff is the action table's staff guard: it lets the request through
// with r.member set when a member holding role is signed in, and otherwise
// returns what the studio shows (sign in first, or read only).
func (s *Server) admitStaff(r *request, role string) error {
	m, err := s.studioMember(r.fiber)
	if errors.Is(err, staff.ErrNoSession) {
		return engine.Errorf(engine.CodeUnauthenticated, "%s", r.copy.T("studio.signInFirst"))
	}
	if err != nil {
		return err
	}
	if !roleAllows(m, role) {
		refusal := "studio.readOnly"
		if role == roleExperimenter {
			refusal = "studio.experiments.testersOnly"
		}
		return engine.Errorf(engine.CodeForbidden, "%s", r.copy.T(refusal))
	}
	r.member = m
	return nil
}

// roleExperimenter is the role the experiment actions need: testers and
// admins run experiments (staff.Member.CanExperiment), editors may not.
const roleExperimenter = "experimenter"

// roleAllows reports whether m holds the role an action needs. An editor's
// role is held by admins too; a role this does not know admits no one, so a
// typo in the action table fails closed.
func roleAllows(m staff.Member, role string) bool {
	switch role {
	case staff.RoleTester:
		return true
	case staff.RoleEditor:
		return m.CanEdit()
	case roleExperimenter:
		return m.CanExperiment()
	case staff.RoleAdmin:
		return m.Role == staff.RoleAdmin
	}
	return false
}

// studioFields are the inputs of an item, in form order: the content
// package's fields for its kind, labelled in the brand's copy.
func studioFields(c screens.Context, kind, slug string) []screens.StudioField {
	var out []screens.StudioField
	for _, f := range library.Fields(kind, slug) {
		label := c.T("studio.field." + f.Name)
		if kind == library.KindCopy {
			label = c.T("studio.field.copy")
		}
		// A topic's background is a picture too, though the content package
		// checks it only as text.
		picture := f.Format == library.FormatImage || f.Name == "background"
		out = append(out, screens.StudioField{Name: f.Name, Label: label, Multiline: f.Multiline, Picture: picture,
			Required: f.Required, Max: f.Max})
	}
	return out
}

// studioPictures are the images an editor may pick for a picture field: the
// content's own, as /static/ paths in name order. Brand logos and breached
// services' logos are the app's furniture, not reading pictures, so they
// are left out.
func (s *Server) studioPictures() ([]ui.Option, error) {
	if s.Static == nil {
		return nil, nil
	}
	var out []ui.Option
	err := fs.WalkDir(s.Static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (p == "static/brands" || p == "static/breaches") {
			return fs.SkipDir
		}
		switch path.Ext(p) {
		case ".svg", ".png", ".jpg", ".webp":
		default:
			return nil
		}
		if d.IsDir() {
			return nil
		}
		src := "/" + p
		out = append(out, ui.Option{Value: src, Label: src, Image: &ui.ImageRef{Src: src, Alt: ""}})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("studio pictures: %w", err)
	}
	return out, nil
}

func (s *Server) studioHome(r *request) (screens.Page, error) {
	groups := map[string][]screens.StudioItem{}
	for _, kind := range []string{library.KindNews, library.KindTopic, library.KindArticle, library.KindPage} {
		docs, err := s.Content.List(r.fiber.Context(), kind)
		if err != nil {
			return screens.Page{}, err
		}
		for _, d := range docs {
			groups[kind] = append(groups[kind], screens.StudioItem{Kind: d.Kind, Slug: d.Slug, Title: d.Draft["title"],
				Status: d.Status, Pending: d.HasUnpublishedChanges()})
		}
	}
	var extra []*ui.Node
	if r.member.CanExperiment() && s.Experiments != nil {
		extra = append(extra, screens.StudioExperimentsLink(r.copy))
	}
	return screens.StudioHome(r.copy, r.member.Email+" ("+r.member.Role+")", groups, extra...), nil
}

func (s *Server) studioEdit(r *request) (screens.Page, error) {
	if kind, ok := strings.CutPrefix(r.path, screens.PathStudioNew); ok {
		switch kind {
		case library.KindNews, library.KindArticle, library.KindTopic:
		default:
			return screens.Page{}, redirect(screens.PathStudio)
		}
		pictures, err := s.studioPictures()
		if err != nil {
			return screens.Page{}, err
		}
		// A new item's preview starts empty and fills in as the editor types.
		return screens.StudioEdit(r.copy, screens.StudioEditState{Kind: kind, New: true, CanEdit: r.member.CanEdit(),
			Fields: studioFields(r.copy, kind, ""), Values: map[string]string{}, Pictures: pictures,
			Preview: &ui.Node{Type: "stack", Gap: "md", Children: []*ui.Node{}}}), nil
	}
	kind, slug, _ := strings.Cut(strings.TrimPrefix(r.path, screens.PathStudioEdit), "/")
	d, err := s.Content.Get(r.fiber.Context(), kind, slug)
	if engine.IsNotFound(err) && kind == library.KindCopy {
		// Copy not edited yet: start from the text the brand shows now.
		brandKey, key, _ := strings.Cut(slug, "/")
		current := s.Brands.Copy(s.Brands.Get(brandKey)).T(key)
		return screens.StudioEdit(r.copy, screens.StudioEditState{Kind: kind, Slug: slug, Title: key, Status: library.StatusDraft,
			CanEdit: r.member.CanEdit(), Fields: studioFields(r.copy, kind, slug), Values: map[string]string{"body": current}}), nil
	}
	if engine.IsNotFound(err) {
		return screens.Page{}, redirect(screens.PathStudio)
	}
	if err != nil {
		return screens.Page{}, err
	}
	pictures, err := s.studioPictures()
	if err != nil {
		return screens.Page{}, err
	}
	preview, err := s.draftPreview(r, d.Kind, d.Slug, d.Draft)
	if err != nil {
		return screens.Page{}, err
	}
	revs := make([]screens.StudioRevision, 0, len(d.Revisions))
	for i := len(d.Revisions) - 1; i >= 0; i-- {
		rv := d.Revisions[i]
		revs = append(revs, screens.StudioRevision{N: rv.N, Action: rv.Action, By: rv.By,
			At: rv.At.UTC().Format("Jan 2, 2006 15:04 UTC"), Changed: rv.Changed})
	}
	return screens.StudioEdit(r.copy, screens.StudioEditState{Kind: d.Kind, Slug: d.Slug, Title: studioTitle(d),
		Status: d.Status, Pending: d.HasUnpublishedChanges(), CanEdit: r.member.CanEdit(),
		Fields: studioFields(r.copy, d.Kind, d.Slug), Values: d.Draft, Revisions: revs, Pictures: pictures,
		Preview: preview}), nil
}

// studioSignInRequest is the studio sign-in form's values; as with
// signInRequest, the screen's rules say what is valid and the tags bound.
type studioSignInRequest struct {
	Email    string `json:"email" validate:"max=254"`
	Password string `json:"password" validate:"max=1024"`
}

// studioItemRequest carries an item's identity (from the screen's state)
// and, in Fields, every other value the form sent. The fields' rules are the
// content package's (library.Fields, checked by Save); here only the 1 MiB
// bound of an action body limits them.
type studioItemRequest struct {
	Kind    string `json:"/doc/kind" validate:"required,max=20"`
	Slug    string `json:"/doc/slug" validate:"max=200"`
	NewSlug string `json:"slug" validate:"max=200"`
	Restore int    `json:"/restore" validate:"min=0"`
	// Fields holds the values by input id, undecoded: which of them are
	// the item's fields depends on its kind (see fields).
	Fields map[string]json.RawMessage `json:"-"`
}

// UnmarshalJSON reads the identity into the struct's fields and keeps the
// rest of the values for fields.
func (q *studioItemRequest) UnmarshalJSON(b []byte) error {
	type identity studioItemRequest // without this method
	var id identity
	if err := json.Unmarshal(b, &id); err != nil {
		return fmt.Errorf("studio item: %w", err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return fmt.Errorf("studio item: %w", err)
	}
	for _, k := range []string{"/doc/kind", "/doc/slug", "slug", "/restore"} {
		delete(all, k)
	}
	*q = studioItemRequest(id)
	q.Fields = all
	return nil
}

// fields returns the values of the item's fields for the repository to
// check; an input the kind does not have is left out, as the form never
// shows it. A value that is not text is a field error of its own.
func (q studioItemRequest) fields(c screens.Context, kind, slug string) (map[string]string, error) {
	out := map[string]string{}
	problems := map[string]string{}
	for _, f := range library.Fields(kind, slug) {
		raw, ok := q.Fields[f.Name]
		if !ok || string(raw) == "null" {
			continue
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			problems[f.Name] = c.T("error.invalidValue")
			continue
		}
		out[f.Name] = v
	}
	if len(problems) > 0 {
		return nil, engine.FieldErrors(problems)
	}
	return out, nil
}

func (s *Server) studioSignIn(r *request, in any) (*ui.Result, error) {
	req := in.(*studioSignInRequest)
	token, err := s.Staff.SignIn(r.fiber.Context(), req.Email, req.Password, r.fiber.IP())
	switch {
	case errors.Is(err, staff.ErrInvalidCredential):
		return nil, engine.Errorf(engine.CodeUnauthenticated, "%s", r.copy.T("studio.invalidCredential"))
	case errors.Is(err, staff.ErrTooManyRequests):
		return nil, engine.Errorf(engine.CodeRateLimited, "%s", r.copy.T("auth.tooManyRequests"))
	case err != nil:
		return nil, err
	}
	// The browser's previous session ends, as at subscriber sign-in: a
	// sign-in always gets a fresh token, and the old one is not left valid.
	if old := r.fiber.Cookies(s.staffCookie()); old != "" {
		if err := s.Staff.SignOut(r.fiber.Context(), old); err != nil {
			return nil, err
		}
	}
	r.fiber.Cookie(&fiber.Cookie{Name: s.staffCookie(), Value: token, Path: "/", HTTPOnly: true,
		Secure: s.Config.SecureCookies(), SameSite: fiber.CookieSameSiteStrictMode,
		MaxAge: int(staff.SessionLifetime / time.Second)})
	// A token seen before the sign-in (planted, or read off a shared
	// screen) must not carry over to an editor's session.
	s.rotateCSRF(r.fiber)
	return ui.Effects(ui.Replace(screens.PathStudio)), nil
}

func (s *Server) studioSignOut(r *request, _ any) (*ui.Result, error) {
	if token := r.fiber.Cookies(s.staffCookie()); token != "" {
		if err := s.Staff.SignOut(r.fiber.Context(), token); err != nil {
			return nil, err
		}
	}
	r.fiber.Cookie(&fiber.Cookie{Name: s.staffCookie(), Value: "", Path: "/", HTTPOnly: true,
		Secure: s.Config.SecureCookies(), MaxAge: -1, Expires: time.Unix(0, 0)})
	return ui.Effects(ui.Replace(screens.PathStudio)), nil
}

func (s *Server) studioSave(r *request, in any) (*ui.Result, error) {
	req := in.(*studioItemRequest)
	fields, err := req.fields(r.copy, req.Kind, req.itemSlug())
	if err != nil {
		return nil, err
	}
	slug, err := s.saveItem(r, req, fields)
	if err != nil {
		return nil, err
	}
	return ui.Effects(ui.Replace(screens.PathStudioEdit + req.Kind + "/" + slug)), nil
}

// itemSlug is the item's slug: the stored one, or for a new item the one
// typed into the form.
func (q studioItemRequest) itemSlug() string {
	if q.Slug == "" {
		return strings.TrimSpace(q.NewSlug)
	}
	return q.Slug
}

// saveItem stores the form's fields as the item's draft (a save that changes
// nothing adds no revision) and returns its slug.
func (s *Server) saveItem(r *request, req *studioItemRequest, fields map[string]string) (string, error) {
	slug, isNew := req.itemSlug(), req.Slug == ""
	if req.Kind == library.KindCopy {
		// Copy items come into being on their first save.
		_, err := s.Content.Get(r.fiber.Context(), req.Kind, slug)
		isNew = engine.IsNotFound(err)
	}
	if _, err := s.Content.Save(r.fiber.Context(), req.Kind, slug, fields, r.member.Email, isNew); err != nil {
		return "", studioProblems(r, err)
	}
	return slug, nil
}

// studioProblems words what the content package or the experiments found
// wrong with a form (their InvalidError, by input id) as field errors in the
// request's brand's copy; any other error is returned as it is.
func studioProblems(r *request, err error) error {
	fields := map[string]string{}
	var content *library.InvalidError
	var exp *experiment.InvalidError
	switch {
	case errors.As(err, &content):
		for id, p := range content.Problems {
			fields[id] = words(r, p.Code, p.Args)
		}
	case errors.As(err, &exp):
		for id, p := range exp.Problems {
			fields[id] = words(r, p.Code, p.Args)
		}
	default:
		return err
	}
	return &engine.Error{Code: engine.CodeInvalid, Fields: fields, Err: err}
}

// words is the copy of a problem's code with its {placeholders} filled.
func words(r *request, code string, args map[string]string) string {
	text := r.copy.T(code)
	for name, v := range args {
		text = strings.ReplaceAll(text, "{"+name+"}", v)
	}
	return text
}

// studioPublish publishes what the editor sees: when the request carries the
// form's values (the edit screen's Publish does), they are saved first, so an
// edit not yet saved is published rather than silently dropped. Values that
// do not pass the field rules publish nothing and come back as field errors.
func (s *Server) studioPublish(r *request, in any) (*ui.Result, error) {
	return s.studioChange(r, in, func(req *studioItemRequest, by string) error {
		fields, err := req.fields(r.copy, req.Kind, req.Slug)
		if err != nil {
			return err
		}
		if len(fields) > 0 {
			if _, err := s.saveItem(r, req, fields); err != nil {
				return err
			}
		}
		_, err = s.Content.Publish(r.fiber.Context(), req.Kind, req.Slug, by)
		return err
	})
}

func (s *Server) studioUnpublish(r *request, in any) (*ui.Result, error) {
	return s.studioChange(r, in, func(req *studioItemRequest, by string) error {
		_, err := s.Content.Unpublish(r.fiber.Context(), req.Kind, req.Slug, by)
		return err
	})
}

func (s *Server) studioRestore(r *request, in any) (*ui.Result, error) {
	return s.studioChange(r, in, func(req *studioItemRequest, by string) error {
		_, err := s.Content.Restore(r.fiber.Context(), req.Kind, req.Slug, req.Restore, by)
		return err
	})
}

// studioChange runs a change to a stored item, reloads what subscribers read
// on this instance at once (others follow through the content watch) and
// shows the item again.
func (s *Server) studioChange(r *request, in any, change func(*studioItemRequest, string) error) (*ui.Result, error) {
	req := in.(*studioItemRequest)
	if err := change(req, r.member.Email); err != nil {
		return nil, err
	}
	if err := s.ReloadContent(r.fiber.Context()); err != nil {
		return nil, err
	}
	return ui.Effects(ui.Refresh()), nil
}

// ReloadContent reads what is published (reading content and copy edits)
// and swaps it in; the content watch calls it when another instance
// publishes.
func (s *Server) ReloadContent(ctx context.Context) error {
	lib, err := library.LoadPublished(ctx, s.Content)
	if err != nil {
		return err
	}
	overrides, err := library.LoadCopyOverrides(ctx, s.Content)
	if err != nil {
		return err
	}
	s.SetLibrary(lib)
	s.Brands.SetOverrides(overrides)
	return nil
}

// studioCopy lists a brand's copy keys with their current text; each opens
// its editor.
func (s *Server) studioCopy(r *request) (screens.Page, error) {
	brandKey := strings.Trim(strings.TrimPrefix(r.path, screens.PathStudioCopy), "/")
	if brandKey == "" {
		brandKey = brand.DefaultKey
	}
	b := s.Brands.Get(brandKey)
	if b.Key != brandKey {
		return screens.Page{}, redirect(screens.PathStudioCopy + brand.DefaultKey)
	}
	copyOf := s.Brands.Copy(b)
	keys := make([]string, 0, len(s.Brands.Get(brand.DefaultKey).Copy))
	for k := range s.Brands.Get(brand.DefaultKey).Copy {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	items := make([]screens.StudioItem, 0, len(keys))
	for _, k := range keys {
		items = append(items, screens.StudioItem{Kind: library.KindCopy, Slug: brandKey + "/" + k, Title: copyOf.T(k)})
	}
	return screens.StudioCopy(r.copy, brandKey, s.Brands.Keys(), items), nil
}

// studioPreview shows a draft as subscribers would see it once published.
func (s *Server) studioPreview(r *request) (screens.Page, error) {
	kind, slug, _ := strings.Cut(strings.TrimPrefix(r.path, screens.PathStudioPreview), "/")
	d, err := s.Content.Get(r.fiber.Context(), kind, slug)
	if engine.IsNotFound(err) {
		return screens.Page{}, redirect(screens.PathStudio)
	}
	if err != nil {
		return screens.Page{}, err
	}
	page, ok, err := s.subscriberPage(r, d.Kind, d.Slug, d.Draft)
	if err != nil {
		return screens.Page{}, err
	}
	if !ok {
		return screens.Page{}, redirect(screens.PathStudio)
	}
	// The preview keeps the studio's way back.
	page.Screen.Header = &ui.Node{Type: "header", Title: r.copy.T("studio.preview"),
		Back: ui.Navigate(screens.PathStudioEdit + d.Kind + "/" + d.Slug), BackLabel: r.copy.T("subpage.back")}
	return page, nil
}

// readingScreen composes, from a library, the subscriber screen that shows
// the item slug; ok is false when the library does not hold it.
type readingScreen func(s *Server, r *request, lib *library.Library, slug string) (page screens.Page, ok bool, err error)

// readingScreens are the subscriber screens that show editable items: one
// per kind, a page's by its slug (library.KindPage + "/" + slug). Each
// composes from the library it is given, the published one or, for the
// studio's previews, one holding a draft. A kind not here (copy) shows on
// no reading screen of its own.
var readingScreens = map[string]readingScreen{
	library.KindNews: func(_ *Server, r *request, lib *library.Library, slug string) (screens.Page, bool, error) {
		n, ok := lib.NewsItem(slug)
		if !ok {
			return screens.Page{}, false, nil
		}
		return screens.NewsPost(r.copy, &n), true, nil
	},
	library.KindTopic: func(_ *Server, r *request, lib *library.Library, slug string) (screens.Page, bool, error) {
		t, ok := lib.Topics[slug]
		if !ok {
			return screens.Page{}, false, nil
		}
		return screens.TopicPage(r.copy, t), true, nil
	},
	library.KindArticle: func(_ *Server, r *request, lib *library.Library, slug string) (screens.Page, bool, error) {
		topicSlug, partSlug, _ := strings.Cut(slug, "/")
		topic := lib.Topics[topicSlug]
		part, ok := topic.Part(partSlug)
		if !ok {
			return screens.Page{}, false, nil
		}
		return screens.TopicArticle(r.copy, topic, part), true, nil
	},
	library.KindPage + "/insights": func(_ *Server, r *request, lib *library.Library, _ string) (screens.Page, bool, error) {
		var latest *library.NewsItem
		if len(lib.News) > 0 {
			latest = &lib.News[0]
		}
		return screens.Insights(r.copy, lib.Insights, latest), true, nil
	},
	library.KindPage + "/top-trends": func(_ *Server, r *request, lib *library.Library, _ string) (screens.Page, bool, error) {
		return screens.ReadingArticle(r.copy, "top-trends", lib.Trends), true, nil
	},
	library.KindPage + "/top-hacks": func(_ *Server, r *request, lib *library.Library, _ string) (screens.Page, bool, error) {
		return screens.ReadingArticle(r.copy, "top-hacks", lib.Hacks), true, nil
	},
	library.KindPage + "/privacy": func(s *Server, r *request, lib *library.Library, _ string) (screens.Page, bool, error) {
		page, err := s.legalScreen("privacy", func() library.Legal { return lib.Privacy })(r)
		return page, err == nil, err
	},
	library.KindPage + "/terms": func(s *Server, r *request, lib *library.Library, _ string) (screens.Page, bool, error) {
		page, err := s.legalScreen("terms", func() library.Legal { return lib.Terms })(r)
		return page, err == nil, err
	},
}

// readingScreenOf is the reading screen that shows an item, if any.
func readingScreenOf(kind, slug string) (readingScreen, bool) {
	if kind == library.KindPage {
		kind += "/" + slug
	}
	compose, ok := readingScreens[kind]
	return compose, ok
}

// subscriberPage composes the screen subscribers would see for an item with
// these fields once published; ok is false for an item no reading screen
// shows (copy, or a part whose topic does not exist). The item is shown
// among what is published: a topic with its published parts, a part inside
// its published topic.
func (s *Server) subscriberPage(r *request, kind, slug string, fields map[string]string) (screens.Page, bool, error) {
	compose, ok := readingScreenOf(kind, slug)
	if !ok {
		return screens.Page{}, false, nil
	}
	docs := []library.SeedDoc{{Kind: kind, Slug: slug, Fields: fields}}
	if kind == library.KindArticle {
		topicSlug, _, _ := strings.Cut(slug, "/")
		topic := s.library().Topics[topicSlug]
		docs = append(docs, library.SeedDoc{Kind: library.KindTopic, Slug: topicSlug,
			Fields: map[string]string{"title": topic.Title, "description": topic.Description}})
	}
	lib, err := library.FromDocs(docs)
	if err != nil {
		return screens.Page{}, false, err
	}
	if t, ok := lib.Topics[slug]; ok && kind == library.KindTopic {
		t.Parts = s.library().Topics[slug].Parts
		lib.Topics[slug] = t
	}
	return compose(s, r, lib, slug)
}

// draftPreview is the body of the subscriber screen for an item with these
// fields, as the edit screen's live preview shows it, or nil when no reading
// screen shows the item. A field that breaks its rule is left out, as it
// could never be published.
func (s *Server) draftPreview(r *request, kind, slug string, fields map[string]string) (*ui.Node, error) {
	if _, problems := library.Validate(kind, slug, fields); len(problems) > 0 {
		kept := make(map[string]string, len(fields))
		for k, v := range fields {
			if _, bad := problems[k]; !bad {
				kept[k] = v
			}
		}
		fields = kept
	}
	if kind == library.KindNews && fields["date"] == "" {
		// A news item is dated when it is written: until the editor types a
		// valid date, the preview shows today's rather than year 1.
		fields = maps.Clone(fields)
		fields["date"] = s.Clock.Now().UTC().Format(time.DateOnly)
	}
	page, ok, err := s.subscriberPage(r, kind, slug, fields)
	if err != nil || !ok {
		return nil, err
	}
	return &ui.Node{Type: "stack", Gap: "md", Children: page.Screen.Children}, nil
}

// studioPreviewRequest is what the edit screen's live preview sends: the
// item's identity and every value of its form as the editor has it now.
type studioPreviewRequest struct {
	Kind string            `json:"/doc/kind" validate:"required,max=20"`
	Slug string            `json:"/doc/slug" validate:"max=200"`
	Form map[string]string `json:"/form" validate:"max=20"`
}

// studioLivePreview composes the live preview of the values an editor is
// typing, unsaved, and sets it as the preview's tree. A new item's slug is
// the one typed so far, or a stand-in until it is a valid one.
func (s *Server) studioLivePreview(r *request, in any) (*ui.Result, error) {
	req := in.(*studioPreviewRequest)
	slug := req.Slug
	if slug == "" {
		slug = strings.TrimSpace(req.Form["slug"])
	}
	if slug == "" && (req.Kind == library.KindNews || req.Kind == library.KindTopic) {
		slug = "preview"
	}
	fields := map[string]string{}
	for _, f := range library.Fields(req.Kind, slug) {
		if v, ok := req.Form[f.Name]; ok {
			fields[f.Name] = v
		}
	}
	tree, err := s.draftPreview(r, req.Kind, slug, fields)
	if err != nil {
		return nil, err
	}
	if tree == nil {
		return ui.Effects(), nil
	}
	return ui.Effects(ui.SetState(screens.StudioPreviewState, tree)), nil
}

// studioTitle names an item in the studio: its title, or a copy item's key.
func studioTitle(d library.Doc) string {
	if d.Kind == library.KindCopy {
		_, key, _ := strings.Cut(d.Slug, "/")
		return key
	}
	return d.Draft["title"]
}
