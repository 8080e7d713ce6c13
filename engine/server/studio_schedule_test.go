package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"glimpse/engine/library"
	"glimpse/engine/staff"
)

// TestEditorSchedulesACopyChange: a copy change is scheduled from its edit
// screen (the form saved with it), listed on the studio's home, published by
// the runner once its time has come, and then can no longer be cancelled.
func TestEditorSchedulesACopyChange(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleEditor)
	ctx := context.Background()
	const path = "/studio/edit/copy/_x_/signIn.headline"
	headline := "Scheduled: see your Instagram the way your audience does"
	values := func(at time.Time) map[string]any {
		return map[string]any{"/doc/kind": "copy", "/doc/slug": "_x_/signIn.headline",
			"publishAt": at.UTC().Format("2006-01-02T15:04:05"), "/form": map[string]any{"body": headline}}
	}
	if res := h.actionAt(path, "studio.schedule", values(h.clock.Now().Add(-time.Minute))); res.status != http.StatusUnprocessableEntity ||
		fieldErrors(res)["publishAt"] != "Choose a time after now (times are in UTC)." {
		t.Fatalf("a schedule in the past: %d %s", res.status, res.raw)
	}
	if res := h.actionAt(path, "studio.schedule", values(h.clock.Now().Add(time.Hour))); res.status != 200 {
		t.Fatalf("schedule: %d %s", res.status, res.raw)
	}
	if home := h.screen("/studio"); !strings.Contains(string(home.raw), "Scheduled for ") ||
		!strings.Contains(string(home.raw), "signIn.headline") {
		t.Fatalf("the home does not list the schedule: %.400s", home.raw)
	}
	pending, err := h.app.Schedules.Pending(ctx, library.KindCopy, "_x_/signIn.headline")
	if err != nil || len(pending) != 1 {
		t.Fatalf("pending = %+v, %v", pending, err)
	}
	x := &harness{t: t, app: h.app, srv: h.srv, clock: h.clock, cookies: map[string]string{}, host: "x.glimpse.test"}
	if contains(texts(x.screen("/sign-in").body["screen"]), headline) {
		t.Fatal("the headline shows before its time")
	}
	h.clock.Advance(2 * time.Hour)
	if n, err := h.app.Schedules.RunDue(ctx); err != nil || n != 1 {
		t.Fatalf("RunDue = %d, %v", n, err)
	}
	// Every instance's content watch reloads on the version the publish bumped.
	if err := h.srv.ReloadContent(ctx); err != nil {
		t.Fatal(err)
	}
	if !contains(texts(x.screen("/sign-in").body["screen"]), headline) {
		t.Fatal("the _x_ brand does not show the scheduled headline")
	}
	res := h.action("studio.cancel_schedule", map[string]any{"/schedule/cancel": pending[0].ID})
	if res.status != http.StatusConflict {
		t.Fatalf("cancel after the publish: %d %s", res.status, res.raw)
	}
}
