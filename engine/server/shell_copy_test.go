package server_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"glimpse/engine/brand"
	"glimpse/engine/library"
)

var shellCopyTag = regexp.MustCompile(`<meta name="glimpse-copy" content="([^"]*)">`)

// shellCopy loads the page shell for host as a browser would and decodes the
// renderer's copy from its meta tag, unescaping the attribute as an HTML
// parser does.
func (h *harness) shellCopy(host string) map[string]string {
	h.t.Helper()
	h.host = host
	res := h.do(httptest.NewRequest(http.MethodGet, "/dashboard", nil))
	if res.status != http.StatusOK {
		h.t.Fatalf("GET /dashboard on %s: status %d", host, res.status)
	}
	m := shellCopyTag.FindSubmatch(res.raw)
	if m == nil {
		h.t.Fatalf("no glimpse-copy meta tag in %s", res.raw)
	}
	var out map[string]string
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &out); err != nil {
		h.t.Fatalf("the copy block is not JSON: %v\n%s", err, m[1])
	}
	return out
}

// publishCopy saves and publishes an editor's copy for brandKey/key through
// the content repository, then installs the published overrides as the
// running app does when it sees a publish.
func (h *harness) publishCopy(brandKey, key, text string) {
	h.t.Helper()
	ctx := context.Background()
	id := brandKey + "/" + key
	if _, err := h.app.Content.Save(ctx, library.KindCopy, id, map[string]string{"body": text}, "editor@example.com", true); err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.app.Content.Publish(ctx, library.KindCopy, id, "editor@example.com"); err != nil {
		h.t.Fatal(err)
	}
	overrides, err := library.LoadCopyOverrides(ctx, h.app.Content)
	if err != nil {
		h.t.Fatal(err)
	}
	h.app.Brands.SetOverrides(overrides)
}

func TestShellCopyCarriesTheRendererKeys(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	got := h.shellCopy("127.0.0.1:8080")

	def := h.app.Brands.Get(brand.DefaultKey).Copy
	want := 0
	for key, text := range def {
		name, ok := strings.CutPrefix(key, "renderer.")
		if !ok {
			continue
		}
		want++
		if got[name] != text {
			t.Errorf("%s = %q in the shell, want the default brand's %q", name, got[name], text)
		}
	}
	if want == 0 || len(got) != want {
		t.Errorf("the shell carries %d keys, want the %d renderer.* keys of the default brand: %v", len(got), want, got)
	}
	// The keys the renderer reads (renderer/src/runtime/copy.ts) must all be there.
	for _, name := range []string{"loading", "tryAgain", "genericError", "showPassword", "calculating", "back", "menu",
		"close", "countdown.label", "countdown.days", "countdown.seconds", "rating.star"} {
		if got[name] == "" {
			t.Errorf("the shell has no %q", name)
		}
	}
	if _, leaked := got["signIn.title"]; leaked {
		t.Error("the shell carries screen copy; only renderer.* keys belong in it")
	}
}

func TestShellCopyFollowsThePartnerBrandAndPublishedEdits(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const partner = "x.glimpse.test"

	// A partner brand that defines no renderer copy falls back to the default's.
	if got := h.shellCopy(partner)["tryAgain"]; got != "Try again" {
		t.Fatalf("partner tryAgain = %q before any edit, want the default's", got)
	}

	// An editor's published override for the partner reaches its shell (the
	// cached block is encoded again for the new copy version), and only its.
	h.publishCopy("_x_", "renderer.tryAgain", "Nochmal versuchen")
	if got := h.shellCopy(partner)["tryAgain"]; got != "Nochmal versuchen" {
		t.Errorf("partner tryAgain = %q after a publish", got)
	}
	if got := h.shellCopy("127.0.0.1:8080")["tryAgain"]; got != "Try again" {
		t.Errorf("default tryAgain = %q: the partner's edit leaked", got)
	}

	// An edit of the default brand reaches partners that do not override the key.
	h.publishCopy(brand.DefaultKey, "renderer.loading", "Wird geladen")
	if got := h.shellCopy(partner)["loading"]; got != "Wird geladen" {
		t.Errorf("partner loading = %q, want the default brand's edit", got)
	}
}

func TestShellCopyIsEscaped(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	hostile := `"><script>alert('x')</script>&amp; <meta name="glimpse-csrf" content="forged">`
	h.publishCopy(brand.DefaultKey, "renderer.genericError", hostile)

	h.host = "127.0.0.1:8080"
	res := h.do(httptest.NewRequest(http.MethodGet, "/", nil))
	page := string(res.raw)
	if strings.Contains(page, "<script>alert") || strings.Count(page, `name="glimpse-csrf"`) != 1 {
		t.Fatalf("the copy broke out of its attribute:\n%s", page)
	}
	if got := h.shellCopy("127.0.0.1:8080")["genericError"]; got != hostile {
		t.Errorf("genericError = %q, want it to round-trip as %q", got, hostile)
	}
}
