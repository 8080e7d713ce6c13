package server_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

var firstScreenBlock = regexp.MustCompile(`<script type="application/json" id="glimpse-first">(.*?)</script>`)

type firstScreen struct {
	Date    string                     `json:"date"`
	CSRF    string                     `json:"csrf"`
	Screens map[string]json.RawMessage `json:"screens"`
}

// page loads the app's HTML for target as a browser does and decodes its
// first-screen block; ok is false when the page has none.
func (h *harness) page(target string) (res response, block firstScreen, ok bool) {
	h.t.Helper()
	res = h.do(httptest.NewRequest(http.MethodGet, target, nil))
	if res.status != http.StatusOK {
		h.t.Fatalf("GET %s: status %d", target, res.status)
	}
	m := firstScreenBlock.FindSubmatch(res.raw)
	if m == nil {
		return res, block, false
	}
	if err := json.Unmarshal(m[1], &block); err != nil {
		h.t.Fatalf("the first-screen block of %s is not JSON: %v\n%s", target, err, m[1])
	}
	return res, block, true
}

func TestPageCarriesTheFirstScreenAndTheRedirectsToIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	res, block, ok := h.page("/")
	if !ok {
		t.Fatalf("no first screen in %s", res.raw)
	}
	// "/" sends a signed-out browser to sign-in: the page carries the
	// redirect, as /ui/screen answers it, and the sign-in screen after it.
	if got := string(block.Screens["/"]); got != `{"effects":[{"type":"replace","to":"/sign-in"}]}` {
		t.Errorf(`screens["/"] = %s, want the redirect to /sign-in`, got)
	}
	var signIn struct {
		Screen struct{ ID string } `json:"screen"`
	}
	if err := json.Unmarshal(block.Screens["/sign-in"], &signIn); err != nil || signIn.Screen.ID != "sign-in" {
		t.Errorf(`screens["/sign-in"] is not the sign-in screen (%v): %.200s`, err, block.Screens["/sign-in"])
	}
	if len(block.Screens) != 2 {
		t.Errorf("the page carries %d answers, want 2", len(block.Screens))
	}
	// The screen's first image (the logo) is fetched with the script, not after it runs.
	var screen any
	if err := json.Unmarshal(block.Screens["/sign-in"], &screen); err != nil {
		t.Fatal(err)
	}
	src := firstImageSrc(screen)
	if src == "" {
		t.Fatal("the sign-in screen has no image")
	}
	if want := `<link rel="preload" as="image" href="` + src + `">`; !bytes.Contains(res.raw, []byte(want)) {
		t.Errorf("the page does not preload %s: %s", src, res.raw)
	}
	// The token is the page's own, which the screen's header would carry.
	tag := regexp.MustCompile(`<meta name="glimpse-csrf" content="([^"]+)">`).FindSubmatch(res.raw)
	if tag == nil || block.CSRF != string(tag[1]) {
		t.Errorf("block csrf %q, page meta %q", block.CSRF, tag)
	}
	if want := start.Format("2006-01-02T15:04:05.000Z07:00"); block.Date != want {
		t.Errorf("date = %q, want the server clock's %q", block.Date, want)
	}
	if got := res.header.Get("Cache-Control"); got != "no-cache, private" {
		t.Errorf("Cache-Control = %q", got)
	}
	if got := res.header.Get("Vary"); got != "Cookie" && got != "Cookie, Accept-Encoding" {
		t.Errorf("Vary = %q, want Cookie (the screen depends on the session)", got)
	}
	if got := res.header.Get("Content-Type"); got != "text/html; charset=utf-8" {
		t.Errorf("Content-Type = %q", got)
	}
}

func TestPageCarriesTheSameScreenTheRendererWouldFetch(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("first@example.com", "first-screen-pw")
	h.signIn("first@example.com", "first-screen-pw")
	h.clock.Advance(time.Minute)
	_, block, ok := h.page("/dashboard")
	if !ok {
		t.Fatal("no first screen on /dashboard")
	}
	fetched := h.screen("/dashboard")
	// The dashboard is a kept page: the same bytes, token and time apart.
	if !bytes.Equal(block.Screens["/dashboard"], fetched.raw) {
		t.Errorf("page's /dashboard differs from /ui/screen's:\n%.300s\n%.300s", block.Screens["/dashboard"], fetched.raw)
	}
	if block.CSRF != fetched.header.Get("X-CSRF-Token") {
		t.Errorf("block csrf %q, /ui/screen's header %q", block.CSRF, fetched.header.Get("X-CSRF-Token"))
	}
	if len(block.Screens) != 1 {
		t.Errorf("the page carries %d answers, want only /dashboard's", len(block.Screens))
	}

	// A screen composed per request (not kept) carries its own token and time in meta.
	_, block, ok = h.page("/dashboard/password-safety?from=home")
	if !ok {
		t.Fatal("no first screen on the password-safety page")
	}
	var env struct {
		Screen struct{ ID string } `json:"screen"`
		Meta   struct{ CSRF, ServerNow string }
	}
	if err := json.Unmarshal(block.Screens["/dashboard/password-safety?from=home"], &env); err != nil {
		t.Fatalf("%v: %s", err, block.Screens["/dashboard/password-safety?from=home"])
	}
	if env.Meta.CSRF != block.CSRF || env.Meta.ServerNow == "" {
		t.Errorf("meta = %+v, want the page's token %q and a server time", env.Meta, block.CSRF)
	}

	// Signed in, sign-in redirects to the dashboard, which follows in the page.
	_, block, _ = h.page("/sign-in")
	if got := string(block.Screens["/sign-in"]); got != `{"effects":[{"type":"replace","to":"/dashboard"}]}` {
		t.Errorf(`screens["/sign-in"] = %s`, got)
	}
	if _, ok := block.Screens["/dashboard"]; !ok {
		t.Error("the dashboard does not follow the redirect in the page")
	}
}

func TestPageWithASignInSecretCarriesNoScreen(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, target := range []string{"/?login=abc", "/dashboard?creds=eyJ9&x=1"} {
		if res, _, ok := h.page(target); ok {
			t.Errorf("%s carries a first screen: the renderer signs in first\n%s", target, res.raw)
		}
	}
}

func TestFirstScreenCannotEndItsScriptEarly(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	res, block, ok := h.page("/sign-in?next=</script><script>alert(1)</script>&a=<!--")
	if !ok {
		t.Fatalf("no first screen in %s", res.raw)
	}
	if got := bytes.Count(res.raw, []byte("</script>")); got != 2 {
		t.Errorf("the page has %d </script>, want the app's and the block's own: %s", got, res.raw)
	}
	if bytes.Contains(res.raw, []byte("<!--")) {
		t.Error("the page carries <!-- from the address")
	}
	if _, ok := block.Screens["/sign-in?next=</script><script>alert(1)</script>&a=<!--"]; !ok {
		t.Errorf("the path is not the block's key, unescaped: %v", block.Screens)
	}
}

// firstImageSrc returns the src of the first image node in document order.
func firstImageSrc(v any) string {
	switch v := v.(type) {
	case map[string]any:
		if v["type"] == "image" {
			src, _ := v["src"].(string)
			return src
		}
		// Object keys have no order once decoded; screens hold their nodes in
		// "children" and "header", which are searched in that order.
		for _, key := range []string{"screen", "header", "children"} {
			if src := firstImageSrc(v[key]); src != "" {
				return src
			}
		}
	case []any:
		for _, child := range v {
			if src := firstImageSrc(child); src != "" {
				return src
			}
		}
	}
	return ""
}

var (
	themeBlock = regexp.MustCompile(`<style>(:root\{[^<]*\})</style>`)
	appPreload = `<link rel="modulepreload" crossorigin href="/assets/main-def456.js">`
)

// The sign-in page is drawn by the server (engine/ui/prerender): its markup,
// title and brand colours are in the page, the colours in a block the CSP
// admits by its hash, and the app is not preloaded (it loads after the paint).
func TestPageCarriesTheFirstScreenDrawn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	res, _, _ := h.page("/sign-in")
	page := string(res.raw)
	for _, want := range []string{`<div id="root" data-prerendered=""><div class="app">`, `<title>Sign in · Glimpse</title>`,
		`<input id="g1" name="email" data-bind="/form/email"`, `<form class="form" method="post" novalidate="">`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s:\n%.3000s", want, page)
		}
	}
	m := themeBlock.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no theme block in the page")
	}
	sum := sha256.Sum256([]byte(m[1]))
	hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	if csp := res.header.Get("Content-Security-Policy"); !strings.Contains(csp, "style-src 'self' "+hash+";") {
		t.Errorf("the CSP does not admit the theme block (%s): %s", hash, csp)
	}
	if strings.Contains(page, appPreload) {
		t.Error("a drawn page preloads the app")
	}
}

// A screen the prerenderer does not draw (password recovery shows fields
// under conditions) is served as before, with the app's chunk preloaded and
// the CSP unchanged.
func TestPageNotDrawnPreloadsTheApp(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	res, block, ok := h.page("/password-recovery")
	if !ok || len(block.Screens) == 0 {
		t.Fatalf("no first screen in %s", res.raw)
	}
	page := string(res.raw)
	if strings.Contains(page, "data-prerendered") || strings.Contains(page, "<style>") {
		t.Errorf("the page is drawn: %.2000s", page)
	}
	if !strings.Contains(page, appPreload) {
		t.Errorf("the app is not preloaded: %.2000s", page)
	}
	if csp := res.header.Get("Content-Security-Policy"); !strings.Contains(csp, "style-src 'self';") {
		t.Errorf("the CSP admits more styles than the stylesheet: %s", csp)
	}
}
