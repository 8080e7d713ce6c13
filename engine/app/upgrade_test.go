package app_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/brand"
	library "glimpse/engine/content"
	"glimpse/engine/store/storetest"
)

// TestCopySurvivesAnUpgrade starts on a database an older release seeded:
// it stored whole brands, with copy that lacks keys added since and with an
// outdated text. The new release must show its shipped copy (new keys and
// changed texts), while an editor's published override still wins.
func TestCopySurvivesAnUpgrade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := storetest.Open(t)
	// What an older release kept in the "brands" collection.
	old := bson.M{"_id": "default", "name": "Glimpse", "bundle": "glimpse.web",
		"copy": bson.A{bson.M{"k": "signIn.headline", "t": "An outdated headline"}}}
	if _, err := st.DB().Collection("brands").InsertOne(ctx, old); err != nil {
		t.Fatal(err)
	}
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
