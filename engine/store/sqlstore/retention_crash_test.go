package sqlstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"glimpse/engine/retention"
	"glimpse/engine/store/sqlite"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/store/storetest"
)

// stopAt returns a context that ends just before db runs a statement
// beginning with prefix: the use case stops between two of its writes, as a
// crash would stop it.
func stopAt(t *testing.T, db *sqlite.DB, prefix string) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	db.Observe(func(q string) {
		if strings.HasPrefix(strings.TrimSpace(q), prefix) {
			cancel()
		}
	})
	t.Cleanup(func() { db.Observe(nil); cancel() })
	return ctx
}

// Each multi-row use case of the attempts is one transaction: stopped
// between its writes it leaves nothing, and run again it leaves one run's
// state.
func TestAttemptsStoppedBetweenWritesAndRunAgain(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	attempt := func(id string, at time.Time) retention.Attempt {
		return retention.Attempt{ID: id, UserID: "ann", SubscriptionID: "sub1", Brand: "default", StartedAt: at}
	}
	outcome := retention.Event{ID: "out", AttemptID: "a1", UserID: "ann", SubscriptionID: "sub1",
		Kind: retention.EventOutcome, Outcome: retention.OutcomeStayed, At: t0.Add(time.Second)}

	t.Run("End", func(t *testing.T) {
		db := storetest.OpenSQL(t)
		s := sqlstore.NewAttempts(db)
		if _, _, err := s.Open(ctx, attempt("a1", t0)); err != nil {
			t.Fatal(err)
		}
		if err := s.End(stopAt(t, db, "INSERT INTO cancel_steps"), outcome); err == nil {
			t.Fatal("End stopped before its second write succeeded")
		}
		db.Observe(nil)
		// Nothing of it stayed: the attempt is still open, with no outcome.
		if got, started, err := s.Open(ctx, attempt("probe", t0.Add(time.Minute))); err != nil || started || got.ID != "a1" {
			t.Fatalf("after a stopped End: %s, started %v, %v; want a1 still open", got.ID, started, err)
		}
		if err := s.End(ctx, outcome); err != nil {
			t.Fatal(err)
		}
		if events, err := s.Events(ctx, "a1"); err != nil || len(events) != 1 {
			t.Fatalf("events: %+v, %v; want the one outcome", events, err)
		}
		if _, started, err := s.Open(ctx, attempt("a2", t0.Add(2*time.Minute))); err != nil || !started {
			t.Fatalf("after End: started %v, %v; want a new attempt", started, err)
		}
	})

	t.Run("DeleteUser", func(t *testing.T) {
		db := storetest.OpenSQL(t)
		s := sqlstore.NewAttempts(db)
		a, _, err := s.Open(ctx, attempt("a1", t0))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Record(ctx, retention.Event{ID: "e1", AttemptID: a.ID, UserID: "ann", Kind: retention.EventAnswer, Review: "secret", At: t0}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DeleteUser(stopAt(t, db, "DELETE FROM cancel_attempts"), "ann"); err == nil {
			t.Fatal("DeleteUser stopped before its second write succeeded")
		}
		db.Observe(nil)
		if attempts, events, err := s.OfUser(ctx, "ann"); err != nil || len(attempts) != 1 || len(events) != 1 {
			t.Fatalf("after a stopped DeleteUser: %d attempts, %d events, %v; want both kept whole", len(attempts), len(events), err)
		}
		if n, err := s.DeleteUser(ctx, "ann"); err != nil || n != 1 {
			t.Fatalf("DeleteUser again = %d, %v", n, err)
		}
		if attempts, events, err := s.OfUser(ctx, "ann"); err != nil || len(attempts)+len(events) != 0 {
			t.Fatalf("left: %v, %v, %v", attempts, events, err)
		}
	})

	t.Run("OpenOverAStaleAttempt", func(t *testing.T) {
		db := storetest.OpenSQL(t)
		s := sqlstore.NewAttempts(db)
		if _, _, err := s.Open(ctx, attempt("stale", t0)); err != nil {
			t.Fatal(err)
		}
		later := t0.Add(retention.ResumeWithin)
		if _, _, err := s.Open(stopAt(t, db, "INSERT INTO cancel_attempts"), attempt("new", later)); err == nil {
			t.Fatal("Open stopped before its second write succeeded")
		}
		db.Observe(nil)
		if _, err := s.Get(ctx, "new"); err == nil {
			t.Fatal("a stopped Open stored its attempt")
		}
		if got, started, err := s.Open(ctx, attempt("new", later)); err != nil || !started || got.ID != "new" {
			t.Fatalf("Open run again = %s, started %v, %v", got.ID, started, err)
		}
		if got, started, err := s.Open(ctx, attempt("again", later.Add(time.Minute))); err != nil || started || got.ID != "new" {
			t.Fatalf("the next Open = %s, started %v, %v; want new resumed", got.ID, started, err)
		}
	})
}
