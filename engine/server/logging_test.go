package server

import (
	"net/url"
	"strings"
	"testing"
)

func TestRedactQuery(t *testing.T) {
	t.Parallel()
	cases := map[string]url.Values{
		"creds=abc&x=1":                  {"creds": {"redacted"}, "x": {"1"}},
		"login=tok":                      {"login": {"redacted"}},
		"path=%2F%3Fcreds%3Dabc%26a%3Db": {"path": {"/?a=b&creds=redacted"}},
		"path=%2Fdashboard":              {"path": {"/dashboard"}},
	}
	for raw, want := range cases {
		got, err := url.ParseQuery(redactQuery(raw))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range want {
			if got.Get(k) != v[0] {
				t.Errorf("redactQuery(%q)[%s] = %q, want %q", raw, k, got.Get(k), v[0])
			}
		}
	}
}

// TestRedactQueryFastPath: queries with nothing to redact that are already
// in Encode's form are returned as they are (the same text as the full
// parse writes); the others still go through it.
func TestRedactQueryFastPath(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"path=%2Fdashboard", "a=1&b=2&b=1", "path=%2Fdashboard%2Fnews%2Fsome-post", "q=hello+world"} {
		if !canonicalWithoutSecrets(raw) {
			t.Errorf("%q takes the slow path", raw)
		}
	}
	for _, raw := range []string{"b=1&a=2", "creds=x", "Token=x", "path=%2F%3Flogin%3Dx", "a", "a=%2f", "a=%41", "a=%20",
		"a=b=c", "a=1;b=2", "=1", "a=%", "a=%2", "a b=1", "a=1&", "a=1&&b=2"} {
		if canonicalWithoutSecrets(raw) {
			t.Errorf("%q takes the fast path", raw)
		}
	}
}

// FuzzRedactQuery: the fast path never changes what is logged: for any
// query it accepts, the full parse and encode writes the same text.
func FuzzRedactQuery(f *testing.F) {
	for _, seed := range []string{"path=%2Fdashboard", "creds=abc&x=1", "path=%2F%3Fcreds%3Dabc%26a%3Db", "a=1&a=2&b=%C3%A9",
		"q=a+b", "x=%7E", "id=1", "ID=1"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !canonicalWithoutSecrets(raw) {
			return
		}
		q, err := url.ParseQuery(raw)
		if err != nil {
			t.Fatalf("fast path for unparseable %q: %v", raw, err)
		}
		if enc := q.Encode(); enc != raw {
			t.Fatalf("fast path for %q, which encodes as %q", raw, enc)
		}
		for k := range q {
			if secretParams[strings.ToLower(k)] {
				t.Fatalf("fast path for %q, which names the secret %q", raw, k)
			}
		}
	})
}
