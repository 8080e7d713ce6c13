package redact

import (
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestQuery(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, raw string
		want      url.Values
	}{
		{"a credential", "creds=abc&x=1", url.Values{"creds": {Marker}, "x": {"1"}}},
		{"a sign-in link", "login=tok", url.Values{"login": {Marker}}},
		{"any case", "Token=tok&LOGIN=x", url.Values{"Token": {Marker}, "LOGIN": {Marker}}},
		{"the cancel link", "from=SECRET", url.Values{"from": {Marker}}},
		{"a reset token", "reset=SECRET", url.Values{"reset": {Marker}}},
		{"a subscription id", "id=sub-1&subscription=sub-1", url.Values{"id": {Marker}, "subscription": {Marker}}},
		{"OAuth", "code=c&state=s&access_token=a", url.Values{"code": {Marker}, "state": {Marker}, "access_token": {Marker}}},
		{"a page's query", "path=%2F%3Fcreds%3Dabc%26a%3Db", url.Values{"path": {"/?a=b&creds=" + Marker}}},
		{"the cancel page", "path=%2Funsubscription%3Ffrom%3DSECRET", url.Values{"path": {"/unsubscription?from=" + Marker}}},
		{"a page without a query", "path=%2Fdashboard", url.Values{"path": {"/dashboard"}}},
		{"sign-in's return", "next=%2Fprivacy%2Fexport%3Fkey%3DSECRET", url.Values{"next": {"/privacy/export?key=" + Marker}}},
		{"the sign-in page's return", "path=%2Fsign-in%3Fnext%3D%252Fprivacy%252Fexport%253Fkey%253DSECRET",
			url.Values{"path": {"/sign-in?next=" + url.QueryEscape("/privacy/export?key="+Marker)}}},
		{"nothing secret", "page=2&q=a+b", url.Values{"page": {"2"}, "q": {"a b"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := url.ParseQuery(Query(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Query(%q) (-want +got):\n%s", tc.raw, diff)
			}
		})
	}
	if got := Query("a=%zz&creds=x"); got != Unparseable {
		t.Errorf("an unparseable query gives %q, want %q", got, Unparseable)
	}
	if got := Query(""); got != "" {
		t.Errorf("an empty query gives %q", got)
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	for _, name := range Names() {
		if !Param(name) {
			t.Errorf("Names lists %q, which Param does not know", name)
		}
	}
	Names()[0] = "changed"
	if !Param(params[0]) || params[0] == "changed" {
		t.Error("Names hands out the list itself")
	}
}

// TestQueryFastPath: queries with nothing to redact that are already in
// Encode's form are returned as they are (the same text as the full parse
// writes); the others still go through it.
func TestQueryFastPath(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"path=%2Fdashboard", "a=1&b=2&b=1", "path=%2Fdashboard%2Fnews%2Fsome-post", "q=hello+world"} {
		if !canonicalWithoutSecrets(raw) {
			t.Errorf("%q takes the slow path", raw)
		}
	}
	for _, raw := range []string{"b=1&a=2", "creds=x", "Token=x", "from=x", "path=%2F%3Flogin%3Dx", "a", "a=%2f", "a=%41", "a=%20",
		"a=b=c", "a=1;b=2", "=1", "a=%", "a=%2", "a b=1", "a=1&", "a=1&&b=2"} {
		if canonicalWithoutSecrets(raw) {
			t.Errorf("%q takes the fast path", raw)
		}
	}
}

// FuzzQuery: the fast path never changes what is written: for any query it
// accepts, the full parse and encode writes the same text.
func FuzzQuery(f *testing.F) {
	for _, seed := range []string{"path=%2Fdashboard", "creds=abc&x=1", "path=%2F%3Fcreds%3Dabc%26a%3Db", "a=1&a=2&b=%C3%A9",
		"q=a+b", "x=%7E", "id=1", "ID=1", "from=x"} {
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
			if Param(k) {
				t.Fatalf("fast path for %q, which names the secret %q", raw, k)
			}
		}
	})
}
