package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/library"
	"glimpse/engine/metrics"
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
// with r.member set when a member holding role (staff.Member.Can) is signed
// in, and otherwise returns what the studio shows (sign in first, or read
// only).
func (s *Server) admitStaff(r *request, role string) error {
	if s.Staff == nil {
		return engine.Errorf(engine.CodeUnauthenticated, "%s", r.copy.T("studio.signInFirst"))
	}
	m, err := s.Staff.Admit(r.fiber.Context(), r.fiber.Cookies(s.staffCookie()), role)
	switch {
	case errors.Is(err, staff.ErrNoSession):
		return engine.Errorf(engine.CodeUnauthenticated, "%s", r.copy.T("studio.signInFirst"))
	case errors.Is(err, staff.ErrForbidden) && role == staff.RoleExperimenter:
		return engine.Errorf(engine.CodeForbidden, "%s", r.copy.T("studio.experiments.testersOnly"))
	case errors.Is(err, staff.ErrForbidden) && role == staff.RoleSupport:
		return engine.Errorf(engine.CodeForbidden, "%s", r.copy.T("support.supportOnly"))
	case errors.Is(err, staff.ErrForbidden):
		return engine.Errorf(engine.CodeForbidden, "%s", r.copy.T("studio.readOnly"))
	case err != nil:
		return fmt.Errorf("studio member: %w", err)
	}
	r.member = m
	return nil
}

func (s *Server) studioHome(r *request) (screens.Page, error) {
	var docs []library.Doc
	for _, kind := range screens.StudioKinds() {
		d, err := s.Content.List(r.fiber.Context(), kind)
		if err != nil {
			return screens.Page{}, err
		}
		docs = append(docs, d...)
	}
	extra, err := s.studioScheduledNodes(r, docs)
	if err != nil {
		return screens.Page{}, err
	}
	if r.member.CanExperiment() && s.Experiments != nil {
		extra = append(extra, screens.StudioExperimentsLink(r.copy))
	}
	if r.member.CanSupport() && s.Support != nil {
		extra = append(extra, screens.StudioSupportLink(r.copy))
	}
	q := screens.StudioHomeQuery{Q: r.query.Get(screens.StudioQueryParam), Sort: r.query.Get(screens.StudioSortParam)}
	page := screens.StudioHomeView(r.copy, r.member.Email+" ("+r.member.Role+")", screens.StudioItemsOf(docs), q, extra...)
	if r.query.Get(screens.StudioFromParam) == screens.StudioFromExperiments {
		// Sent here from an experiment screen this member may not open.
		page = screens.StudioTurnedAway(r.copy, page, s.Experiments != nil)
	}
	return page, nil
}

func (s *Server) studioEdit(r *request) (screens.Page, error) {
	pictures, err := library.Pictures(s.Static)
	if err != nil {
		return screens.Page{}, err
	}
	if kind, ok := strings.CutPrefix(r.path, screens.PathStudioNew); ok {
		switch kind {
		case library.KindNews, library.KindArticle, library.KindTopic:
			return screens.StudioNewItem(r.copy, kind, r.member.CanEdit(), pictures), nil
		}
		return screens.Page{}, redirect(screens.PathStudio)
	}
	kind, slug, _ := strings.Cut(strings.TrimPrefix(r.path, screens.PathStudioEdit), "/")
	if kind == library.KindCopy {
		return s.studioEditCopy(r, slug, pictures)
	}
	d, err := s.Content.Get(r.fiber.Context(), kind, slug)
	if engine.IsNotFound(err) {
		return screens.Page{}, redirect(screens.PathStudio)
	}
	if err != nil {
		return screens.Page{}, err
	}
	preview, err := s.draftPreview(r, d.Kind, d.Slug, d.Draft)
	if err != nil {
		return screens.Page{}, err
	}
	return s.studioItemPage(r, d, pictures, preview)
}

// studioEditCopy is the editor of one brand's copy key (slug is
// "<brand>/<key>"): the stored item, or for a key not edited yet the text the
// brand shows now, beside the key's screen drawn with the text. A brand or a
// key that does not exist gets the studio's own not-found screen.
func (s *Server) studioEditCopy(r *request, slug string, pictures []string) (screens.Page, error) {
	brandKey, key, _ := strings.Cut(slug, "/")
	b := s.Brands.Get(brandKey)
	// The default brand ships every key (shellCopyMeta).
	if _, known := s.Brands.Get(brand.DefaultKey).Copy[key]; b.Key != brandKey || !known {
		return screens.StudioCopyMissing(r.copy, brandKey, key), nil
	}
	target := screens.StudioCopyTarget{BrandKey: b.Key, BrandName: s.brandLabel(r, b)}
	d, err := s.Content.Get(r.fiber.Context(), library.KindCopy, slug)
	if engine.IsNotFound(err) {
		// Copy not edited yet: start from the text the brand shows now.
		current := s.Brands.Copy(b).T(key)
		return s.withSchedules(r, screens.StudioNewCopyState(r.copy, slug, current, r.member.CanEdit(), target,
			s.copyPreview(slug, current)))
	}
	if err != nil {
		return screens.Page{}, err
	}
	return s.withSchedules(r, screens.StudioCopyState(r.copy, d, r.member.CanEdit(), pictures, target,
		s.copyPreview(slug, d.Draft["body"])))
}

// brandLabel is how the studio names a brand: the default one as such.
func (s *Server) brandLabel(r *request, b brand.Brand) string {
	if b.Key == brand.DefaultKey {
		return strings.ReplaceAll(r.copy.T("studio.brandDefault"), "{name}", b.Name)
	}
	return b.Name
}

// copyPreview draws a copy key's text in place on the screen that shows it,
// in the edited brand's words (screens.CopyPreview).
func (s *Server) copyPreview(slug, text string) *ui.Node {
	brandKey, key, _ := strings.Cut(slug, "/")
	b := s.Brands.Get(brandKey)
	// A subscriber of the brand whose period ends in a week: the flow's
	// steps then read with the brand's offer and real dates.
	// Its mails are signed and linked as the outbox signs and links them.
	sample := screens.CopySample{PeriodEnd: s.Clock.Now().AddDate(0, 0, 7), Operator: s.Config.OperatorName,
		Support: s.Config.SupportEmail, Origin: cmp.Or(s.Config.BrandOrigin(b.Key), s.Config.BaseURL)}
	if s.Billing != nil {
		if sale, err := s.Billing.Catalogue().SaleOf(b.Key, billing.FamilyPremiumOneMonth); err == nil {
			sample.Sale = sale
		}
	}
	return screens.CopyPreview(screens.Context{Brand: b, Copy: s.Brands.Copy(b)}, key, text, sample)
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
	token, err := s.Staff.SignInReplacing(r.fiber.Context(), req.Email, req.Password, r.fiber.IP(), r.fiber.Cookies(s.staffCookie()))
	switch {
	case errors.Is(err, staff.ErrInvalidCredential):
		return nil, engine.Errorf(engine.CodeUnauthenticated, "%s", r.copy.T("studio.invalidCredential"))
	case errors.Is(err, staff.ErrTooManyRequests):
		s.Business.LimitHit(metrics.LimitStudioSignIn)
		return nil, engine.Errorf(engine.CodeRateLimited, "%s", r.copy.T("auth.tooManyRequests"))
	case err != nil:
		return nil, err
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

// studioSave stores the form's fields as the item's draft (a save that
// changes nothing adds no revision) and shows the item.
func (s *Server) studioSave(r *request, in any) (*ui.Result, error) {
	req := in.(*studioItemRequest)
	slug := req.itemSlug()
	fields, err := req.fields(r.copy, req.Kind, slug)
	if err != nil {
		return nil, err
	}
	if _, err := s.Content.Edit(r.fiber.Context(), req.Kind, slug, fields, r.member.Email, req.Slug == ""); err != nil {
		return nil, studioProblems(r, err)
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

// studioProblems words what the content package or the experiments found
// wrong with a form (their InvalidError, by input id) as field errors in the
// request's brand's copy; any other error is returned as it is.
func studioProblems(r *request, err error) error {
	var invalid *engine.InvalidError
	if !errors.As(err, &invalid) {
		return err
	}
	fields := map[string]string{}
	for id, p := range invalid.Problems {
		fields[id] = words(r, p.Code, p.Args)
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

// studioPublish publishes what the editor sees (library.Repo.PublishEdit):
// the edit screen's Publish sends the form's values too.
func (s *Server) studioPublish(r *request, in any) (*ui.Result, error) {
	return s.studioChange(r, in, func(req *studioItemRequest, by string) error {
		fields, err := req.fields(r.copy, req.Kind, req.Slug)
		if err != nil {
			return err
		}
		_, err = s.Content.PublishEdit(r.fiber.Context(), req.Kind, req.Slug, fields, by)
		return studioProblems(r, err)
	})
}

func (s *Server) studioUnpublish(r *request, in any) (*ui.Result, error) {
	return s.studioChange(r, in, func(req *studioItemRequest, by string) error {
		_, err := s.Content.Unpublish(r.fiber.Context(), req.Kind, req.Slug, by)
		return err
	})
}

// studioRestore makes a revision the draft and shows the item's edit
// screen (from a revision's own page too), where the draft can be
// previewed and published.
func (s *Server) studioRestore(r *request, in any) (*ui.Result, error) {
	req := in.(*studioItemRequest)
	if _, err := s.Content.Restore(r.fiber.Context(), req.Kind, req.Slug, req.Restore, r.member.Email); err != nil {
		return nil, err
	}
	return ui.Effects(ui.Replace(screens.PathStudioEdit + req.Kind + "/" + req.Slug)), nil
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
	items := screens.StudioCopyItems(s.Brands.Copy(b), brandKey,
		slices.Collect(maps.Keys(s.Brands.Get(brand.DefaultKey).Copy)))
	var brands []screens.StudioBrand
	for _, key := range s.Brands.Keys() {
		brands = append(brands, screens.StudioBrand{Key: key, Name: s.Brands.Get(key).Name})
	}
	return screens.StudioCopy(r.copy, brandKey, brands, items, r.query.Get(screens.StudioQueryParam)), nil
}

// studioFindRequest is what a studio list's search box sends: the words
// typed and the list's context (the home's sort, or the copy list's brand).
type studioFindRequest struct {
	Q    string `json:"/form/q" validate:"max=200"`
	Find struct {
		Sort  string `json:"sort" validate:"max=20"`
		Brand string `json:"brand" validate:"max=64"`
	} `json:"/find"`
}

// studioFind opens the searched list's address, so the view reloads and can
// be shared: the copy list of the brand it was typed on, else the home.
func (s *Server) studioFind(r *request, in any) (*ui.Result, error) {
	req := in.(*studioFindRequest)
	if b := req.Find.Brand; b != "" {
		if s.Brands.Get(b).Key != b {
			b = brand.DefaultKey
		}
		return ui.Effects(ui.Replace(screens.StudioCopyURL(b, req.Q))), nil
	}
	return ui.Effects(ui.Replace(screens.StudioHomeURL(screens.StudioHomeQuery{Q: req.Q, Sort: req.Find.Sort}))), nil
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
	return screens.StudioPreview(r.copy, page, d.Kind, d.Slug), nil
}

// subscriberPage composes the screen subscribers would see for an item with
// these fields once published (library.Library.WithDraft); ok is false for
// an item no reading screen shows (copy, or a part whose topic does not
// exist).
func (s *Server) subscriberPage(r *request, kind, slug string, fields map[string]string) (screens.Page, bool, error) {
	lib, err := s.library().WithDraft(kind, slug, fields)
	if err != nil {
		return screens.Page{}, false, err
	}
	page, ok := screens.ReadingPage(r.copy, lib, kind, slug, s.operator())
	return page, ok, nil
}

// draftPreview is the body of the subscriber screen for an item with these
// fields, as the edit screen's live preview shows it (fields that break
// their rules left out, library.PreviewFields), or nil when no reading
// screen shows the item.
func (s *Server) draftPreview(r *request, kind, slug string, fields map[string]string) (*ui.Node, error) {
	if kind == library.KindCopy {
		return s.copyPreview(slug, fields["body"]), nil
	}
	page, ok, err := s.subscriberPage(r, kind, slug, library.PreviewFields(kind, slug, fields, s.Clock.Now()))
	if err != nil || !ok {
		return nil, err
	}
	return screens.StudioPreviewBody(page), nil
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
	slug, fields := library.FormDraft(req.Kind, req.Slug, req.Form)
	tree, err := s.draftPreview(r, req.Kind, slug, fields)
	if err != nil {
		return nil, err
	}
	if tree == nil {
		return ui.Effects(), nil
	}
	return ui.Effects(ui.SetState(screens.StudioPreviewState, tree)), nil
}
