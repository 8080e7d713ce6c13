package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"glimpse/engine/staff"
)

// A studio address whose last segment has a dot (a copy key) is a page of
// the app, not a missing file: reloading it gets the app's HTML. A browser
// navigation to any address gets HTML, never a raw JSON 404; a script's or
// an image's request for a missing file still gets its 404.
func TestDottedStudioAddressesAreApp(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	navigate := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	for _, tc := range []struct {
		path, accept string
		status       int
		ctype        string
	}{
		{"/studio/edit/copy/default/unsubscribe.step0.title", "", 200, "text/html"},
		{"/studio/edit/copy/_x_/signIn.title", "*/*", 200, "text/html"},
		{"/studio/copy/default", "", 200, "text/html"},
		{"/studio/edit/copy/default/no.such.key", navigate, 200, "text/html"},
		{"/missing.js", "*/*", 404, "application/json"},
		{"/assets/missing.js", "", 404, "application/json"},
		{"/missing.js", navigate, 200, "text/html"},
	} {
		req := httptest.NewRequest(http.MethodGet, tc.path, nil)
		if tc.accept != "" {
			req.Header.Set("Accept", tc.accept)
		}
		res := h.do(req)
		if res.status != tc.status || !strings.HasPrefix(res.header.Get("Content-Type"), tc.ctype) {
			t.Errorf("GET %s (Accept %q) = %d %s, want %d %s", tc.path, tc.accept, res.status,
				res.header.Get("Content-Type"), tc.status, tc.ctype)
		}
	}
}

// A copy key or a brand that does not exist has the studio's own screen; a
// key that does exists opens its editor, which names the brand and draws the
// key's screen.
func TestStudioCopyKeyScreens(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleEditor)
	for _, path := range []string{"/studio/edit/copy/default/no.such.key", "/studio/edit/copy/nobrand/signIn.title"} {
		if id := screenID(h.screen(path)); id != "studio-copy-missing" {
			t.Errorf("%s shows %q, want studio-copy-missing", path, id)
		}
	}
	edit := h.screen("/studio/edit/copy/_x_/signIn.title")
	if screenID(edit) != "studio-edit" {
		t.Fatalf("copy edit: %.300s", edit.raw)
	}
	for _, want := range []string{"Brand: Profilio", "On screen: Sign in"} {
		if !strings.Contains(string(edit.raw), want) {
			t.Errorf("copy edit lacks %q", want)
		}
	}
	// The live preview redraws the screen with the text typed.
	res := h.actionAt("/studio/edit/copy/_x_/signIn.title", "studio.preview",
		map[string]any{"/doc/kind": "copy", "/doc/slug": "_x_/signIn.headline", "/form": map[string]any{"body": "Typed just now"}})
	if res.status != http.StatusOK || !strings.Contains(string(res.raw), "Typed just now") || !strings.Contains(string(res.raw), "On screen: Sign in") {
		t.Fatalf("live preview: %d %.400s", res.status, res.raw)
	}
}

// studio.find opens the searched list's address: the home's with its sort,
// or the copy list of the brand it was typed on (an unknown brand is the
// default one).
func TestStudioFindOpensTheListsAddress(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleEditor)
	for _, tc := range []struct {
		values map[string]any
		to     string
	}{
		{map[string]any{"/form/q": "free month", "/find": map[string]any{"sort": "date", "brand": ""}}, "/studio?q=free+month&sort=date"},
		{map[string]any{"/form/q": "", "/find": map[string]any{"sort": "kind"}}, "/studio"},
		{map[string]any{"/form/q": "free month", "/find": map[string]any{"brand": "_x_"}}, "/studio/copy/_x_?q=free+month"},
		{map[string]any{"/form/q": "x", "/find": map[string]any{"brand": "../../etc"}}, "/studio/copy/default?q=x"},
	} {
		res := h.action("studio.find", tc.values)
		if got := effects(res); res.status != http.StatusOK || len(got) != 1 || got[0]["to"] != tc.to {
			t.Errorf("studio.find %v: %d %s, want to %s", tc.values, res.status, res.raw, tc.to)
		}
	}
	if res := h.action("studio.find", map[string]any{"/form/q": strings.Repeat("q", 201)}); res.status != http.StatusUnprocessableEntity {
		t.Errorf("a 201-character search: %d, want 422", res.status)
	}
	home := h.screen("/studio?sort=editor&q=carousels")
	if screenID(home) != "studio" || !strings.Contains(string(home.raw), "By editor (shown)") {
		t.Fatalf("sorted home: %.300s", home.raw)
	}
}
