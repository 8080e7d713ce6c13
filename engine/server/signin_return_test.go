package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"glimpse/engine/privacy"
	"glimpse/screens"
)

// TestMailedExportLinkReturnsAfterSignIn: the export link of the mail,
// opened signed out, leads to sign-in with the link as ?next=, and signing
// in there opens the privacy screen and downloads the export, instead of
// landing on the dashboard. A next that is not this site's subscriber
// screen or the download (another origin in any spelling, a guest or a
// staff screen) is ignored: the dashboard.
func TestMailedExportLinkReturnsAfterSignIn(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	u := h.subscriber("return@example.com", "secret-password-1")
	if _, err := h.app.Privacy.RequestExport(ctx, u.ID, "default"); err != nil {
		t.Fatal(err)
	}
	if n, err := h.app.Privacy.BuildPending(ctx); err != nil || n != 1 {
		t.Fatalf("build: %d, %v", n, err)
	}
	key, err := h.app.Privacy.DownloadKey(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	link := privacy.DownloadPath + "?key=" + key

	res := h.do(httptest.NewRequest(http.MethodGet, link, nil))
	if res.status != http.StatusSeeOther && res.status != http.StatusFound {
		t.Fatalf("signed-out download: %d %s", res.status, res.raw)
	}
	signIn := res.header.Get("Location")
	target, err := url.Parse(signIn)
	if err != nil || target.Path != screens.PathSignIn || target.Query().Get("next") != link {
		t.Fatalf("signed out, the link leads to %q, want sign-in with next=%q", signIn, link)
	}
	if res := h.screen(signIn); screenID(res) != "sign-in" {
		t.Fatalf("the sign-in screen with next: %d %s", res.status, res.raw)
	}
	res = h.actionAt(signIn, "session.sign_in", map[string]any{"email": u.Email, "password": "secret-password-1"})
	eff := effects(res)
	if len(eff) != 2 || eff[0]["type"] != "replace" || eff[0]["to"] != screens.PathPrivacyData ||
		eff[1]["type"] != "download" || eff[1]["url"] != link {
		t.Fatalf("signing in from the link: %d %s, want the privacy screen and the download", res.status, res.raw)
	}
	if got := h.do(httptest.NewRequest(http.MethodGet, link, nil)); got.status != http.StatusOK ||
		got.header.Get("Content-Type") != "application/zip" {
		t.Fatalf("the download after sign-in: %d %s", got.status, got.header)
	}

	for next, want := range map[string]string{
		screens.PathPrivacyData:        screens.PathPrivacyData,
		"//evil.example/x":             screens.PathDashboard,
		"https://evil.example/":        screens.PathDashboard,
		"/\\evil.example":              screens.PathDashboard,
		"/%5Cevil.example":             screens.PathDashboard,
		"/\t/evil.example":             screens.PathDashboard,
		"javascript:alert(1)":          screens.PathDashboard,
		screens.PathSignIn:             screens.PathDashboard,
		"/studio":                      screens.PathDashboard,
		"/nowhere":                     screens.PathDashboard,
		privacy.DownloadPath + "?x=1":  screens.PathPrivacyData,
		strings.Repeat("/a", 600) + "": screens.PathDashboard,
	} {
		h.cookies, h.csrf = map[string]string{}, ""
		from := screens.PathSignIn + "?next=" + url.QueryEscape(next)
		h.screen(from)
		res := h.actionAt(from, "session.sign_in", map[string]any{"email": u.Email, "password": "secret-password-1"})
		eff := effects(res)
		if len(eff) != 1 || eff[0]["type"] != "replace" || eff[0]["to"] != want {
			t.Errorf("signing in with next=%q: %d %s, want to go to %s only", next, res.status, res.raw, want)
		}
	}
}
