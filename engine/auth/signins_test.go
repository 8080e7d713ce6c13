package auth_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine/auth"
)

// The desk's list of a subscriber's sign-ins reads their lists by day:
// sessions opened on two days, newest first, someone else's not among
// them; an expired session the sweep has not yet deleted is still listed,
// a swept one is not; and a day's list is erased once every session it can
// name has expired, so the lists do not outgrow the sessions.
func TestSessionsAreListedByDayAndErasedWhenAllExpired(t *testing.T) {
	t.Parallel()
	svc, clock, db := newServiceDB(t)
	ctx := context.Background()
	ann := subscribed(t, svc, "ann@example.com", "correct-horse")
	subscribed(t, svc, "bob@example.com", "correct-horse")
	signIn := func(email string) {
		t.Helper()
		if _, err := svc.SignIn(ctx, email, "correct-horse", "1.2.3.4", "glimpse.web"); err != nil {
			t.Fatal(err)
		}
	}
	clock.Set(time.Date(2026, 11, 1, 22, 0, 0, 0, time.UTC))
	signIn("ann@example.com")
	signIn("bob@example.com")
	clock.Set(time.Date(2026, 11, 2, 1, 0, 0, 0, time.UTC))
	signIn("ann@example.com")
	sessions, err := svc.Sessions(ctx, ann.ID)
	if err != nil || len(sessions) != 2 || !sessions[0].CreatedAt.After(sessions[1].CreatedAt) {
		t.Fatalf("ann's sessions over two days: %+v, %v", sessions, err)
	}
	for _, s := range sessions {
		if s.UserID != ann.ID {
			t.Fatalf("someone else's session listed: %+v", s)
		}
	}
	// 03:30: the first expired, not yet swept: still a recent sign-in.
	clock.Set(time.Date(2026, 11, 2, 3, 30, 0, 0, time.UTC))
	if sessions, _ := svc.Sessions(ctx, ann.ID); len(sessions) != 2 {
		t.Fatalf("an expired session not yet swept: %d listed, want 2", len(sessions))
	}
	if _, err := svc.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if sessions, _ := svc.Sessions(ctx, ann.ID); len(sessions) != 1 {
		t.Fatalf("after the sweep: %d listed, want the live one", len(sessions))
	}
	slots := func() int64 {
		t.Helper()
		n, err := db.Collection(auth.SessionsByUserCollection).CountDocuments(ctx, bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := slots(); n != 3 {
		t.Fatalf("%d list slots, want one per session (3) until their days' sessions have all expired", n)
	}
	// A day's list is erased a day and a session's lifetime after its
	// first session opened (any other opened within that day): Nov 1's,
	// first at 22:00, at Nov 3 03:00.
	clock.Set(time.Date(2026, 11, 3, 3, 1, 0, 0, time.UTC))
	if _, err := svc.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if n := slots(); n != 1 {
		t.Fatalf("%d list slots after Nov 1's lists expired, want Nov 2's one", n)
	}
	clock.Set(time.Date(2026, 11, 3, 7, 1, 0, 0, time.UTC))
	if _, err := svc.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if n := slots(); n != 0 {
		t.Fatalf("%d list slots once every session expired", n)
	}
}

// Sign-ins at once each take a slot of the day's list: every one is
// listed.
func TestConcurrentSignInsAreAllListed(t *testing.T) {
	t.Parallel()
	svc, _, _ := newServiceDB(t)
	ctx := context.Background()
	ann := subscribed(t, svc, "ann@example.com", "correct-horse")
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			_, err := svc.SignIn(ctx, "ann@example.com", "correct-horse", "1.2.3.4", "glimpse.web")
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if sessions, err := svc.Sessions(ctx, ann.ID); err != nil || len(sessions) != n {
		t.Fatalf("%d of %d sign-ins listed (%v)", len(sessions), n, err)
	}
}

// Live sessions opened before the lists existed are listed once, at start
// (an expired one is as good as swept).
func TestListExistingSessionsListsEarlierSessionsOnce(t *testing.T) {
	t.Parallel()
	svc, clock, db := newServiceDB(t)
	ctx := context.Background()
	ann := subscribed(t, svc, "ann@example.com", "correct-horse")
	now := clock.Now()
	old := []any{
		auth.Session{ID: "s1", UserID: ann.ID, CreatedAt: now.Add(-2 * time.Hour), ExpiresAt: now.Add(3 * time.Hour)},
		auth.Session{ID: "s2", UserID: ann.ID, CreatedAt: now.Add(-time.Hour), ExpiresAt: now.Add(4 * time.Hour)},
		auth.Session{ID: "expired", UserID: ann.ID, CreatedAt: now.Add(-6 * time.Hour), ExpiresAt: now.Add(-time.Hour)},
	}
	if _, err := db.Collection(auth.SessionsCollection).InsertMany(ctx, old); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := auth.ListExistingSessions(ctx, db, "settings", 5*time.Hour, now); err != nil {
			t.Fatal(err)
		}
	}
	sessions, err := svc.Sessions(ctx, ann.ID)
	if err != nil || len(sessions) != 2 || sessions[0].ID != "s2" {
		t.Fatalf("sessions listed at start: %+v, %v", sessions, err)
	}
	if n, _ := db.Collection(auth.SessionsByUserCollection).CountDocuments(ctx, bson.M{}); n != 2 {
		t.Fatalf("%d slots, want each session once", n)
	}
}
