package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"glimpse/engine"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// errFormRules is wrapped by the 422 a form's own rules answer.
var errFormRules = errors.New("the form's rules failed")

// checkForm checks a form action's values against the rules of the form
// that posts it, on the screen at body.Path as this request would be shown
// it: the same rules and messages, in the request's brand's copy, that the
// renderer checked. There is one source for both sides, the screen.
//
// A path whose screen has no form posting this action (forged, or a screen
// that no longer has it) is refused with a 422 form error rather than let
// through to the struct tags: those no longer say what a valid value is, so
// falling back on them would skip validation exactly where a client lies.
func (s *Server) checkForm(r *request, action string, body actionBody) error {
	page, ok, err := s.formPage(r, body.Path)
	if err != nil {
		return err
	}
	var inputs []ui.FormInput
	if ok {
		roots := []*ui.Node{page.Screen}
		for _, id := range slices.Sorted(maps.Keys(page.Overlays)) {
			roots = append(roots, page.Overlays[id])
		}
		inputs, ok = ui.FindForm(action, roots...)
	}
	if !ok {
		return engine.Wrap(engine.CodeInvalid, fmt.Errorf("no form posts %s at %q", action, body.Path),
			r.copy.T("error.generic"))
	}
	values := map[string]any{}
	if len(body.Values) > 0 && string(body.Values) != "null" {
		if err := json.Unmarshal(body.Values, &values); err != nil {
			return engine.Wrap(engine.CodeInvalid, err, "The request could not be read.")
		}
	}
	if fields := ui.CheckForm(inputs, values, page.State); len(fields) > 0 {
		return &engine.Error{Code: engine.CodeInvalid, Fields: fields,
			Err: fmt.Errorf("%s at %q: %w", action, body.Path, errFormRules)}
	}
	return nil
}

// formPage composes the page at path for this request, as handleScreen
// would serve it, and whether there is one: an unknown path, or one whose
// guard would send this request elsewhere, has none. The page cache is no
// help here: it keeps encoded pages, and the rules are needed as a tree;
// composing the sign-in screens costs microseconds beside the password hash
// a sign-in then checks.
func (s *Server) formPage(r *request, path string) (screens.Page, bool, error) {
	u, err := url.Parse(path)
	if err != nil || !strings.HasPrefix(u.Path, "/") {
		return screens.Page{}, false, nil
	}
	p := strings.TrimRight(u.Path, "/")
	if p == "" {
		p = "/"
	}
	rt, ok := s.match(p)
	if !ok {
		return screens.Page{}, false, nil
	}
	// A copy, so that composing does not change the action's own request.
	fr := *r
	fr.path, fr.query = p, u.Query()
	switch rt.guard {
	case protected:
		if !fr.authorised {
			return screens.Page{}, false, nil
		}
	case guardStaff, guardSupport:
		// Without an admitted staff member handleScreen shows the studio
		// sign-in at /studio (and sends every other studio path there), so
		// that is the screen a studio sign-in was typed into, whoever posts
		// it: a staff member signing in again included.
		if fr.member.Email == "" {
			if p != screens.PathStudio {
				return screens.Page{}, false, nil
			}
			return screens.StudioSignIn(fr.copy), true, nil
		}
	}
	// guestOnly screens are composed for anyone: a subscriber may still have
	// the sign-in screen open in another tab, and signing in again is
	// allowed (it replaces the session).
	page, err := rt.screen(&fr)
	var to redirect
	var rw redirectWith
	if errors.As(err, &to) || errors.As(err, &rw) {
		return screens.Page{}, false, nil
	}
	if err != nil {
		return screens.Page{}, false, fmt.Errorf("compose %s for a form check: %w", p, err)
	}
	return page, true, nil
}
