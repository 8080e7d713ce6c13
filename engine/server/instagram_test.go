package server_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"glimpse/engine/instagram/api"
	"glimpse/engine/instagram/api/apitest"
	"glimpse/engine/server"
)

func TestInstagramLoginConnectsAndAnalyses(t *testing.T) {
	t.Parallel()
	fake := apitest.NewServer(t, "")
	h := newHarnessDeps(t, func(d *server.Deps) {
		cfg := fake.Config()
		d.Instagram = api.New(cfg)
	})
	h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	idle := h.screen("/dashboard/analytics")
	if !strings.Contains(string(idle.raw), "/instagram/connect") {
		t.Fatalf("Instagram Login is not offered: %s", idle.raw)
	}
	start := h.do(httptest.NewRequest(http.MethodGet, "/instagram/connect", nil))
	if start.status != http.StatusSeeOther && start.status != http.StatusFound {
		t.Fatalf("connect: %d", start.status)
	}
	consent, err := url.Parse(start.header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	state := consent.Query().Get("state")
	if state == "" {
		t.Fatalf("no state in %s", consent)
	}
	// A callback with another state is refused and connects nothing.
	bad := h.do(httptest.NewRequest(http.MethodGet, "/instagram/callback?code="+apitest.Code+"&state=forged", nil))
	if loc := bad.header.Get("Location"); !strings.HasSuffix(loc, "?instagram=failed") {
		t.Fatalf("forged state: %s", loc)
	}
	// The state cookie is single use: start again, then come back properly.
	start = h.do(httptest.NewRequest(http.MethodGet, "/instagram/connect", nil))
	consent, _ = url.Parse(start.header.Get("Location"))
	state = consent.Query().Get("state")
	done := h.do(httptest.NewRequest(http.MethodGet, "/instagram/callback?code="+apitest.Code+"&state="+state, nil))
	if loc := done.header.Get("Location"); loc != "/dashboard/analytics" {
		t.Fatalf("callback: %d → %s", done.status, loc)
	}
	after := h.screen("/dashboard/analytics")
	all := strings.Join(texts(after.body["screen"]), "\n")
	for _, want := range []string{"User Engagement", "Most Liked Posts", "Audience"} {
		if !strings.Contains(all, want) {
			t.Errorf("after connecting, Analytics lacks %q", want)
		}
	}
	if strings.Contains(string(after.raw), fake.Token().AccessToken) {
		t.Fatal("the access token reached the page")
	}
}

func TestInstagramDeniedConsent(t *testing.T) {
	t.Parallel()
	fake := apitest.NewServer(t, "")
	h := newHarnessDeps(t, func(d *server.Deps) { d.Instagram = api.New(fake.Config()) })
	h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	start := h.do(httptest.NewRequest(http.MethodGet, "/instagram/connect", nil))
	consent, _ := url.Parse(start.header.Get("Location"))
	res := h.do(httptest.NewRequest(http.MethodGet, "/instagram/callback?error=access_denied&error_reason=user_denied&state="+
		consent.Query().Get("state"), nil))
	if loc := res.header.Get("Location"); !strings.HasSuffix(loc, "?instagram=denied") {
		t.Fatalf("denied: %s", loc)
	}
	if !contains(texts(h.screen("/dashboard/analytics?instagram=denied").body["screen"]),
		"You did not allow the connection, so nothing was connected.") {
		t.Fatal("the denial is not explained")
	}
}
