package imageproxy

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"glimpse/engine"
)

// FuzzSignedURL exercises the whole signed-URL path the /img handler runs:
// the query string URL() writes is parsed back the way the server reads it,
// and Fetch gets both that pair and a tampered signature. A URL the server
// signed must round-trip unchanged; any other signature must be refused with
// ErrBadSignature before anything is fetched; an accepted fetch may only go to
// an allow-listed https URL. Panics and other error kinds fail the target.
func FuzzSignedURL(f *testing.F) {
	for _, seed := range []struct{ remote, sig string }{
		{"https://scontent.cdninstagram.com/v/t51/1.jpg?stp=dst&_nc=1", ""},
		{"https://a.fbcdn.net/x.png", "AAAAAAAAAAAAAAAAAAAAAA"},
		{"https://scontent.cdninstagram.com/x y#frag&s=zz", "%%%"},
		{"http://127.0.0.1/admin", "-_-_"},
		{"https://scontent.cdninstagram.com/" + "%zz", "==="},
		{"", ""},
		{"https://\x00.fbcdn.net/", "\x00"},
	} {
		f.Add(seed.remote, seed.sig)
	}
	var hits atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("\x89PNG\r\n\x1a\n"))
	}))
	f.Cleanup(srv.Close)
	p := New(Config{Secret: testSecret})
	p.allowLoopbackForTest()
	p.routeToTestServer(srv)

	f.Fuzz(func(t *testing.T, remote, sig string) {
		ctx := context.Background()
		// The server reads u and s from the query string URL() produced.
		u, err := url.Parse(p.URL(remote))
		if err != nil {
			t.Fatalf("URL(%q) is not a URL: %v", remote, err)
		}
		q := u.Query()
		if q.Get("u") != remote || q.Get("s") != p.sign(remote) {
			t.Fatalf("URL(%q) = %q does not round-trip: u=%q s=%q", remote, u, q.Get("u"), q.Get("s"))
		}

		// A signature the server did not write is refused before any fetch.
		if sig != q.Get("s") {
			before := hits.Load()
			_, err := p.Fetch(ctx, remote, sig)
			if !errors.Is(err, ErrBadSignature) || engine.ErrorCode(err) != engine.CodeForbidden {
				t.Fatalf("Fetch(%q, forged %q) = %v, want a forbidden ErrBadSignature", remote, sig, err)
			}
			if hits.Load() != before {
				t.Fatalf("Fetch(%q, forged %q) reached the network", remote, sig)
			}
		}

		// The genuine signature passes; what happens next depends only on the URL checks.
		img, err := p.Fetch(ctx, remote, q.Get("s"))
		if _, checkErr := p.checkURL(remote); checkErr != nil {
			if !errors.Is(err, ErrNotAllowed) {
				t.Fatalf("Fetch(%q) of a refused URL = %v, want ErrNotAllowed", remote, err)
			}
			return
		}
		if err != nil && !errors.Is(err, ErrUpstream) && !errors.Is(err, ErrNotImage) {
			t.Fatalf("Fetch(%q) of an allowed URL = %v", remote, err)
		}
		if err == nil && img.ContentType != "image/png" {
			t.Fatalf("Fetch(%q) = %q, want the test server's PNG", remote, img.ContentType)
		}
	})
}
