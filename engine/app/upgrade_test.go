package app_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"log/slog"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/brand"
	"glimpse/engine/instagram"
	"glimpse/engine/instagram/api"
	"glimpse/engine/library"
	"glimpse/engine/store/storetest"
)

// TestCopySurvivesAnUpgrade: the app shows its shipped copy (keys and texts
// change between releases and are never stored), while an editor's
// published override wins, and still does after a restart.
func TestCopySurvivesAnUpgrade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.Open(t)
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	cfg := load(t, nil)

	a, err := app.Open(ctx, cfg, slog.New(slog.DiscardHandler), clock, st)
	if err != nil {
		t.Fatal(err)
	}
	copyOf := func(a *app.App) brand.Copy { return a.Brands.Copy(a.Brands.Get(brand.DefaultKey)) }
	if got, want := copyOf(a).T("signIn.headline"), "Analyze your Instagram account and gain valuable insights"; got != want {
		t.Errorf("signIn.headline = %q, want the shipped %q", got, want)
	}
	if got := copyOf(a).T("signIn.emailLabel"); got != "Email address" {
		t.Errorf("a key the old release did not have shows %q", got)
	}

	// An editor publishes an override; it survives the next start.
	if _, err := a.Content.Save(ctx, library.KindCopy, "default/signIn.title", map[string]string{"body": "Welcome back"}, "editor@example.com", true); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Content.Publish(ctx, library.KindCopy, "default/signIn.title", "editor@example.com"); err != nil {
		t.Fatal(err)
	}
	again, err := app.Open(ctx, cfg, slog.New(slog.DiscardHandler), clock, st)
	if err != nil {
		t.Fatal(err)
	}
	if got := copyOf(again).T("signIn.title"); got != "Welcome back" {
		t.Errorf("the editor's published title shows %q after a restart", got)
	}
	if got := copyOf(again).T("signIn.emailLabel"); got != "Email address" {
		t.Errorf("shipped copy lost after a restart: %q", got)
	}
}

// TestTokenKeyComesFromTheSecret: Instagram tokens are sealed with a key
// derived from the deployment's secret, so another deployment's secret
// cannot open them, while tokens sealed by earlier releases (whose key came
// from an empty secret, a fixed value) still open.
func TestTokenKeyComesFromTheSecret(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	open := func(secret string) *app.App {
		a, err := app.Open(ctx, load(t, map[string]string{"GLIMPSE_SECRET": secret}), slog.New(slog.DiscardHandler), clock, storetest.Open(t))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a, b := open("first-deployment-secret-0123456789"), open("second-deployment-secret-0123456789")
	sealed, err := a.Sealer.Seal(api.Token{AccessToken: "a-token"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Sealer.Open(sealed); err == nil {
		t.Error("another deployment's secret opened a sealed token: the key does not come from the secret")
	}
	// What a release before this one sealed: the key HMAC(empty, purpose).
	mac := hmac.New(sha256.New, nil)
	mac.Write([]byte("instagram-token"))
	legacy, err := instagram.NewSealer(mac.Sum(nil))
	if err != nil {
		t.Fatal(err)
	}
	old, err := legacy.Seal(api.Token{AccessToken: "stored-before"})
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := a.Sealer.Open(old); err != nil || tok.AccessToken != "stored-before" {
		t.Errorf("a token stored by an earlier release: %+v, %v", tok, err)
	}
}
