package app_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/auth"
	"glimpse/engine/staff"
	"glimpse/engine/store"
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
	count := func(coll string) int64 {
		t.Helper()
		n, err := db.Collection(coll).CountDocuments(ctx, bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := map[string]int64{}
	for _, coll := range []string{auth.SessionsCollection, auth.LoginLinksCollection, staff.SessionsCollection, store.ClaimsCollection} {
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

// Expired analytics events are swept once a day across instances: the day
// is a claim, so a second call that day (this instance's or another's,
// however often they restart) does not read every event again, and the
// next day's does.
func TestEventsAreSweptOncePerDay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	st := storetest.Open(t)
	a, err := app.Open(ctx, load(t, nil), slog.New(slog.DiscardHandler), clock, st)
	if err != nil {
		t.Fatal(err)
	}
	other, err := app.Open(ctx, load(t, nil), slog.New(slog.DiscardHandler), clock, st)
	if err != nil {
		t.Fatal(err)
	}
	// An event recorded an hour ago whose retention has just ended.
	record := func(id string) {
		t.Helper()
		now := clock.Now()
		if err := app.EventsStore(a).Insert(ctx, tracking.Event{ID: id, Name: "screen_view",
			At: now.Add(-time.Hour), ExpiresAt: now.Add(-time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	left := func() int64 {
		t.Helper()
		// Stored, expired or not: as seen from long before any expired.
		stored, err := app.EventsStore(a).Named(ctx, "screen_view", 100, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		return int64(len(stored))
	}
	record("e1")
	clock.Advance(2 * time.Hour)
	if swept, err := a.SweepEventsDaily(ctx); err != nil || !swept || left() != 0 {
		t.Fatalf("first sweep of the day: swept %v, %v, %d events left", swept, err, left())
	}
	record("e2")
	clock.Advance(2 * time.Hour)
	for _, inst := range []*app.App{a, other} {
		if swept, err := inst.SweepEventsDaily(ctx); err != nil || swept || left() != 1 {
			t.Fatalf("a second sweep the same day: swept %v, %v, %d events left", swept, err, left())
		}
	}
	clock.Advance(24 * time.Hour)
	if swept, err := other.SweepEventsDaily(ctx); err != nil || !swept || left() != 0 {
		t.Fatalf("the next day's sweep: swept %v, %v, %d events left", swept, err, left())
	}
	// The day after, both instances at once: one sweeps.
	clock.Advance(24 * time.Hour)
	record("e3")
	var wg sync.WaitGroup
	swept := make(chan bool, 2)
	for _, inst := range []*app.App{a, other} {
		wg.Go(func() {
			ok, err := inst.SweepEventsDaily(ctx)
			if err != nil {
				t.Error(err)
			}
			swept <- ok
		})
	}
	wg.Wait()
	close(swept)
	n := 0
	for ok := range swept {
		if ok {
			n++
		}
	}
	if n != 1 || left() != 0 {
		t.Fatalf("two instances at once: %d swept, %d events left; want one sweep", n, left())
	}
}
