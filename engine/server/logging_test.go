package server

import (
	"net/url"
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
