package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/gofiber/fiber/v3"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"glimpse/engine/ui"
)

// rawScreen fetches /ui/screen for path with extra request headers and
// returns the response with its body as sent (not decoded), as a browser's
// network layer sees it.
func (h *harness) rawScreen(path string, headers ...string) (*http.Response, []byte) {
	h.t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/ui/screen?path="+url.QueryEscape(path), nil)
	req.Host = h.host
	req.Header.Set("X-SDUI-Version", "1")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	var parts []string
	for k, v := range h.cookies {
		parts = append(parts, k+"="+v)
	}
	req.Header.Set("Cookie", strings.Join(parts, "; "))
	res, err := h.srv.App().Test(req, fiber.TestConfig{Timeout: time.Minute, FailOnTimeout: true})
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return res, raw
}

func decodeBody(t *testing.T, coding string, b []byte) []byte {
	t.Helper()
	var r io.Reader
	switch coding {
	case "":
		return b
	case "br":
		r = brotli.NewReader(bytes.NewReader(b))
	case "gzip":
		gz, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r = gz
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		r = zr
	default:
		t.Fatalf("unexpected Content-Encoding %q", coding)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(coding, err)
	}
	return out
}

// TestCachedScreenIsCompressedOnce: the signed-in dashboard, a kept page, is
// the same bytes for every request of each encoding (so it is compressed
// once), every encoding decodes to the identity body, which is a valid
// envelope without per-request meta; the CSRF token comes in X-CSRF-Token
// and the time in Date; an unchanged page revalidates with 304, which still
// carries the token.
func TestCachedScreenIsCompressedOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")

	identity, plain := h.rawScreen("/dashboard")
	if identity.StatusCode != http.StatusOK || identity.Header.Get("Content-Encoding") != "" {
		t.Fatalf("identity: %d, Content-Encoding %q", identity.StatusCode, identity.Header.Get("Content-Encoding"))
	}
	if err := ui.ValidateEnvelope(plain); err != nil {
		t.Fatalf("kept dashboard: %v", err)
	}
	var env struct {
		Screen map[string]any `json:"screen"`
		Meta   map[string]any `json:"meta"`
	}
	if err := json.Unmarshal(plain, &env); err != nil {
		t.Fatal(err)
	}
	if env.Screen["id"] != "home" && env.Screen["id"] == nil {
		t.Fatalf("not a screen: %s", plain)
	}
	for _, k := range []string{"csrf", "serverNow"} {
		if _, ok := env.Meta[k]; ok {
			t.Errorf("a kept page's meta carries %s", k)
		}
	}
	if _, ok := env.Meta["brand"]; !ok {
		t.Error("meta lost the brand")
	}
	token := identity.Header.Get("X-CSRF-Token")
	if token == "" || identity.Header.Get("Date") == "" {
		t.Fatalf("X-CSRF-Token %q, Date %q", token, identity.Header.Get("Date"))
	}

	for _, c := range []struct{ accept, coding string }{
		{"gzip, deflate, br", "br"}, {"gzip", "gzip"}, {"zstd, gzip;q=0.5", "zstd"}, {"br;q=0, gzip;q=0", ""},
	} {
		first, a := h.rawScreen("/dashboard", "Accept-Encoding", c.accept)
		second, b := h.rawScreen("/dashboard", "Accept-Encoding", c.accept)
		if got := first.Header.Get("Content-Encoding"); got != c.coding || second.Header.Get("Content-Encoding") != c.coding {
			t.Fatalf("Accept-Encoding %q: Content-Encoding %q, want %q", c.accept, got, c.coding)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("Accept-Encoding %q: two requests of an unchanged page differ", c.accept)
		}
		if got := decodeBody(t, c.coding, a); !bytes.Equal(got, plain) {
			t.Errorf("%q decodes to other bytes than identity", c.coding)
		}
		if !strings.Contains(first.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("%q: Vary %q", c.coding, first.Header.Get("Vary"))
		}
		if first.Header.Get("X-CSRF-Token") != token {
			t.Errorf("%q: X-CSRF-Token %q, want %q", c.coding, first.Header.Get("X-CSRF-Token"), token)
		}
		tag := first.Header.Get("ETag")
		if tag == "" || tag != second.Header.Get("ETag") {
			t.Fatalf("%q: ETags %q, %q", c.coding, tag, second.Header.Get("ETag"))
		}
		again, body := h.rawScreen("/dashboard", "Accept-Encoding", c.accept, "If-None-Match", tag)
		if again.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Fatalf("%q: revalidation answered %d with %d bytes", c.coding, again.StatusCode, len(body))
		}
		if again.Header.Get("X-CSRF-Token") != token {
			t.Errorf("%q: a 304 without X-CSRF-Token", c.coding)
		}
	}

	// The token in the header is the one POSTs need.
	h.csrf = token
	if res := h.actionAt("/dashboard", "session.sign_out", nil); res.status != http.StatusOK {
		t.Fatalf("sign-out with the header's token: %d %s", res.status, res.raw)
	}
}

// TestUncachedScreenKeepsMeta: a screen the server does not keep still
// carries serverNow and csrf in its meta, and the token in the header too.
func TestUncachedScreenKeepsMeta(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	res := h.screen("/dashboard/password-safety")
	meta, _ := res.body["meta"].(map[string]any)
	if meta["csrf"] == nil || meta["serverNow"] == nil {
		t.Fatalf("uncached meta: %v", meta)
	}
	if res.header.Get("X-CSRF-Token") != meta["csrf"] {
		t.Errorf("X-CSRF-Token %q, meta.csrf %v", res.header.Get("X-CSRF-Token"), meta["csrf"])
	}
}
