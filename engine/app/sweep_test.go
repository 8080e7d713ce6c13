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
	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
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
	clock.Advance(staff.SessionLifetime + time.Second)
	if err := a.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	for coll := range before {
		if n := count(coll); n != 0 {
			t.Errorf("%s: %d expired documents left after the sweep", coll, n)
		}
	}
}
