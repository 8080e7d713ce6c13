package server_test

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"glimpse/engine/analysis"
	"glimpse/engine/config"
	"glimpse/engine/privacy"
	"glimpse/engine/profile"
	"glimpse/screens"
)

// TestPrivacyExportFromTheScreen: the screen asks for an export, shows it
// being prepared (and looks again by itself), then offers the download,
// whose ZIP holds the person's address; the link is the signed-in
// person's only.
func TestPrivacyExportFromTheScreen(t *testing.T) {
	h := newHarness(t)
	u := h.subscriber("export@example.com", "secret-password-1")
	if res := h.signIn(u.Email, "secret-password-1"); res.status != http.StatusOK {
		t.Fatalf("sign in: %d %s", res.status, res.raw)
	}
	if res := h.screen(screens.PathPrivacyData); screenID(res) != "privacy-data" {
		t.Fatalf("privacy screen: %d %s", res.status, res.raw)
	}
	res := h.actionAt(screens.PathPrivacyData, screens.ActionRequestExport, nil)
	if res.status != http.StatusOK || !strings.Contains(string(res.raw), `"loader"`) || !strings.Contains(string(res.raw), `"refresh"`) {
		t.Fatalf("after the request the screen should show the preparing state and look again: %d %s", res.status, res.raw)
	}
	if n, err := h.app.Privacy.BuildPending(context.Background()); err != nil || n != 1 {
		t.Fatalf("build: %d, %v", n, err)
	}
	if res := h.screen(screens.PathPrivacyData); !strings.Contains(string(res.raw), screens.ActionDownloadExport) {
		t.Fatalf("a ready export offers no download: %s", res.raw)
	}
	res = h.actionAt(screens.PathPrivacyData, screens.ActionDownloadExport, nil)
	eff := effects(res)
	if len(eff) != 1 || eff[0]["type"] != "download" {
		t.Fatalf("download effects: %s", res.raw)
	}
	link, _ := eff[0]["url"].(string)
	if !strings.HasPrefix(link, privacy.DownloadPath+"?key=") {
		t.Fatalf("download link %q", link)
	}
	got := h.do(httptest.NewRequest(http.MethodGet, link, nil))
	if got.status != http.StatusOK || got.header.Get("Content-Type") != "application/zip" {
		t.Fatalf("download: %d %s", got.status, got.header)
	}
	zr, err := zip.NewReader(bytes.NewReader(got.raw), int64(len(got.raw)))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range zr.File {
		if f.Name == "account.json" {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			found = strings.Contains(string(b), u.Email)
		}
	}
	if !found {
		t.Error("account.json in the download does not hold the address")
	}

	// Signed out, the same link leads to sign-in; signed in as someone
	// else, it is not found.
	h.cookies = map[string]string{}
	if res := h.do(httptest.NewRequest(http.MethodGet, link, nil)); res.status != http.StatusSeeOther && res.status != http.StatusFound {
		t.Errorf("signed-out download: %d", res.status)
	}
	h.subscriber("other@example.com", "secret-password-2")
	h.csrf = ""
	h.signIn("other@example.com", "secret-password-2")
	if res := h.do(httptest.NewRequest(http.MethodGet, link, nil)); res.status != http.StatusNotFound {
		t.Errorf("another person's download: %d", res.status)
	}
}

// TestDeleteAccountFromTheScreen: the wrong password is refused on the
// field; the right one deletes the account, signs this browser out and
// leads to the confirmation page; signing in again fails.
func TestDeleteAccountFromTheScreen(t *testing.T) {
	h := newHarness(t)
	u := h.subscriber("leaving@example.com", "secret-password-1")
	h.signIn(u.Email, "secret-password-1")
	page := h.screen(screens.PathDeleteAccount)
	if screenID(page) != "delete-account" || !strings.Contains(string(page.raw), "10 years") {
		t.Fatalf("delete screen: %s", page.raw)
	}
	res := h.actionAt(screens.PathDeleteAccount, screens.ActionDeleteAccount, map[string]any{"password": "not-my-password"})
	if res.status != http.StatusUnprocessableEntity || fieldErrors(res)["password"] == nil {
		t.Fatalf("wrong password: %d %s", res.status, res.raw)
	}
	res = h.actionAt(screens.PathDeleteAccount, screens.ActionDeleteAccount, map[string]any{"password": ""})
	if res.status != http.StatusUnprocessableEntity || fieldErrors(res)["password"] == nil {
		t.Fatalf("empty password: %d %s", res.status, res.raw)
	}
	res = h.actionAt(screens.PathDeleteAccount, screens.ActionDeleteAccount, map[string]any{"password": "secret-password-1"})
	eff := effects(res)
	if res.status != http.StatusOK || len(eff) != 1 || eff[0]["to"] != screens.PathAccountDeleted {
		t.Fatalf("deletion: %d %s", res.status, res.raw)
	}
	if done := h.screen(screens.PathAccountDeleted); screenID(done) != "account-deleted" {
		t.Errorf("confirmation page: %s", done.raw)
	}
	h.cookies = map[string]string{}
	h.csrf = ""
	if res := h.signIn(u.Email, "secret-password-1"); res.status == http.StatusOK && len(effects(res)) > 0 && effects(res)[0]["to"] == screens.PathDashboard {
		t.Errorf("signed in after deletion: %s", res.raw)
	}
	if _, err := h.app.Auth.SignIn(context.Background(), u.Email, "secret-password-1", "10.9.9.9", "glimpse.web"); err == nil {
		t.Error("the account still signs in")
	}
}

// TestMetaDataDeletionCallback posts Meta's callback as Meta does: a form
// with signed_request. A forged one is refused; a valid one answers JSON
// with the status page and code, and the page says the data is deleted.
func TestMetaDataDeletionCallback(t *testing.T) {
	const secret = "meta-app-secret"
	h := newHarness(t, func(c *config.Config) { c.InstagramAppSecret = secret })
	u := h.subscriber("insta@example.com", "secret-password-1")
	ctx := context.Background()
	if err := h.app.Profiles.Connect(ctx, u.ID, profile.SourceAPI, "insta.example", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := h.app.Profiles.AddSnapshot(ctx, u.ID, analysis.Snapshot{TakenAt: start, Followers: []string{"ann", "bob"},
		Following: []string{"ann"}}); err != nil {
		t.Fatal(err)
	}
	if err := h.app.Profiles.LinkInstagram(ctx, u.ID, "178414000001"); err != nil {
		t.Fatal(err)
	}
	post := func(path, signed string) response {
		form := url.Values{"signed_request": {signed}}
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return h.do(req)
	}
	sr := privacy.SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: start.Unix(), UserID: "178414000001"}
	if res := post("/instagram/data-deletion", privacy.SignRequest(sr, []byte("forged"))); res.status != http.StatusUnauthorized {
		t.Fatalf("forged request: %d %s", res.status, res.raw)
	}
	if p, _ := h.app.Profiles.Get(ctx, u.ID); p.Source == "" {
		t.Fatal("a forged request deleted the profile")
	}
	res := post("/instagram/data-deletion", privacy.SignRequest(sr, []byte(secret)))
	code, _ := res.body["confirmation_code"].(string)
	link, _ := res.body["url"].(string)
	if res.status != http.StatusOK || code == "" || !strings.HasSuffix(link, "/instagram/deletion?code="+code) {
		t.Fatalf("valid request: %d %s", res.status, res.raw)
	}
	if p, _ := h.app.Profiles.Get(ctx, u.ID); p.Source != "" {
		t.Errorf("profile kept after the deletion request: %+v", p)
	}
	page := h.screen(screens.PathDeletionStatus + "?code=" + code)
	if screenID(page) != "deletion-status" || !strings.Contains(string(page.raw), code) {
		t.Errorf("status page: %s", page.raw)
	}
	// A replay answers the same; one issued long ago (issued_at=1) is refused.
	if again := post("/instagram/data-deletion", privacy.SignRequest(sr, []byte(secret))); again.status != http.StatusOK || string(again.raw) != string(res.raw) {
		t.Errorf("replay: %d %s, want %s", again.status, again.raw, res.raw)
	}
	stale := sr
	stale.IssuedAt = 1
	if res := post("/instagram/data-deletion", privacy.SignRequest(stale, []byte(secret))); res.status != http.StatusUnauthorized {
		t.Errorf("stale request: %d %s", res.status, res.raw)
	}
	if res := post("/instagram/deauthorize", privacy.SignRequest(sr, []byte(secret))); res.status != http.StatusOK {
		t.Errorf("deauthorize: %d %s", res.status, res.raw)
	}
}
