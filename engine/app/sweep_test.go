package app_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/auth"
	"glimpse/engine/staff"
	"glimpse/engine/store/storetest"
	"glimpse/engine/tracking"
)

// Part of issue #8, defect 14: sessions, sign-in links and sign-in counters
// were never deleted. The sweeper removes all of them once expired.
func TestSweepRemovesExpiredSessionsLinksAndSignInCounters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	a, err := app.Open(ctx, load(t, map[string]string{"GLIMPSE_DEMO": "1"}), slog.New(slog.DiscardHandler), clock, storetest.Open(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Auth.SignIn(ctx, app.DemoEmail, "wrong-password", "ip", "glimpse.web"); !errors.Is(err, auth.ErrInvalidCredential) {
		t.Fatalf("wrong password: %v", err)
	}
	if _, err := a.Auth.SignIn(ctx, app.DemoEmail, app.DemoPassword, "ip", "glimpse.web"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Auth.MintLoginLink(ctx, app.DemoEmail); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Staff.SignIn(ctx, app.EditorEmail, app.EditorPassword, "ip"); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.Billing.TakeAttempt(ctx, "sweep-test", 1, time.Minute); err != nil || !ok {
		t.Fatalf("TakeAttempt = %v, %v", ok, err)
	}
	billingKeys := func() int {
		t.Helper()
		if a.Store.SQL() == nil {
			return -1
		}
		rows, err := a.Store.SQL().RowsText(ctx, "billing_keys")
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
	keysBefore := billingKeys()
	db := a.Store.DB()
	// The moved domains' tables are on the embedded SQLite database when
	// the store has one, and collections of the same names otherwise.
	count := func(coll string) int64 {
		t.Helper()
		if sql := a.Store.SQL(); sql != nil {
			rows, err := sql.RowsText(ctx, coll)
			if err != nil {
				t.Fatal(err)
			}
			return int64(len(rows))
		}
		n, err := db.Collection(coll).CountDocuments(ctx, bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := map[string]int64{}
	for _, coll := range []string{"sessions", "auth_links", "auth_counters", "staff_sessions"} {
		if before[coll] = count(coll); before[coll] == 0 {
			t.Fatalf("nothing in %s to sweep", coll)
		}
	}
	if err := a.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	for coll, n := range before {
		if got := count(coll); got != n {
			t.Errorf("%s: the sweep removed live documents: %d of %d left", coll, got, n)
		}
	}
	if n := billingKeys(); n != keysBefore {
		t.Errorf("billing_keys: the sweep removed live keys: %d of %d left", n, keysBefore)
	}
	clock.Advance(staff.SessionLifetime + time.Second)
	if err := a.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if n := billingKeys(); n > 0 {
		t.Errorf("billing_keys: %d expired keys left after the sweep", n)
	}
	for coll := range before {
		if n := count(coll); n != 0 {
			t.Errorf("%s: %d expired documents left after the sweep", coll, n)
		}
	}
}

// TestTheSweepDeletesExpiredEvents: an analytics event past its retention
// goes with the sweep, found by its expiry's index; one still kept stays.
func TestTheSweepDeletesExpiredEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	a, err := app.Open(ctx, load(t, nil), slog.New(slog.DiscardHandler), clock, storetest.Open(t))
	if err != nil {
		t.Fatal(err)
	}
	now := clock.Now()
	for id, expires := range map[string]time.Time{"expired": now.Add(-time.Minute), "kept": now.Add(time.Hour)} {
		if err := app.EventsStore(a).Insert(ctx, tracking.Event{ID: id, Name: "screen_view", At: now.Add(-time.Hour), ExpiresAt: expires}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	// Stored, expired or not: as seen from long before any expired.
	stored, err := app.EventsStore(a).Named(ctx, "screen_view", 100, time.Time{})
	if err != nil || len(stored) != 1 || stored[0].ID != "kept" {
		t.Fatalf("after the sweep: %v, %v; want the kept event alone", stored, err)
	}
}
