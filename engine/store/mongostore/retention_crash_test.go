package mongostore

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine/retention"
)

// The MongoDB store's multi-document use cases are idempotent steps: each
// is stopped here after its first write (done by hand, as the method does
// it) and run again, and the state must be the one a single run leaves.
func TestAttemptsStoppedBetweenWritesAndRunAgain(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	attempt := func(id string, at time.Time) retention.Attempt {
		return retention.Attempt{ID: id, UserID: "ann", SubscriptionID: "sub1", Brand: "default", StartedAt: at}
	}
	outcome := func(a retention.Attempt) retention.Event {
		return retention.Event{ID: "out-" + a.ID, AttemptID: a.ID, UserID: a.UserID, SubscriptionID: a.SubscriptionID,
			Kind: retention.EventOutcome, Outcome: retention.OutcomeStayed, At: a.StartedAt.Add(time.Second)}
	}
	closeByHand := func(t *testing.T, s *Attempts, id string) {
		t.Helper()
		if _, err := s.attempts.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "openKey", Value: id}}}}); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("End", func(t *testing.T) {
		s := NewAttempts(openDB(t))
		a, _, err := s.Open(ctx, attempt("a1", t0))
		if err != nil {
			t.Fatal(err)
		}
		closeByHand(t, s, a.ID) // End's first write; the outcome was never recorded
		// Closed without an outcome, it looks abandoned: not resumed.
		if _, started, err := s.Open(ctx, attempt("probe", t0.Add(time.Minute))); err != nil || !started {
			t.Fatalf("Open after a stopped End: started %v, %v; want a new attempt", started, err)
		}
		if err := s.End(ctx, outcome(a)); err != nil {
			t.Fatal(err)
		}
		events, err := s.Events(ctx, a.ID)
		if err != nil || len(events) != 1 || events[0].Outcome != retention.OutcomeStayed {
			t.Fatalf("events after End run again: %+v, %v; want the one outcome", events, err)
		}
	})

	t.Run("DeleteUser", func(t *testing.T) {
		s := NewAttempts(openDB(t))
		a, _, err := s.Open(ctx, attempt("a1", t0))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Record(ctx, retention.Event{ID: "e1", AttemptID: a.ID, UserID: "ann", Kind: retention.EventAnswer, Review: "secret", At: t0}); err != nil {
			t.Fatal(err)
		}
		// DeleteUser's first write: the attempts went, the events stayed.
		if _, err := s.attempts.DeleteMany(ctx, bson.D{{Key: "userId", Value: "ann"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DeleteUser(ctx, "ann"); err != nil {
			t.Fatal(err)
		}
		if n, err := s.steps.CountDocuments(ctx, bson.D{{Key: "userId", Value: "ann"}}); err != nil || n != 0 {
			t.Fatalf("%d events of ann left (%v)", n, err)
		}
	})

	t.Run("OpenOverAStaleAttempt", func(t *testing.T) {
		s := NewAttempts(openDB(t))
		stale, _, err := s.Open(ctx, attempt("stale", t0))
		if err != nil {
			t.Fatal(err)
		}
		later := t0.Add(retention.ResumeWithin)
		closeByHand(t, s, stale.ID) // Open's first write over a stale attempt; the new one was never inserted
		got, started, err := s.Open(ctx, attempt("new", later))
		if err != nil || !started || got.ID != "new" {
			t.Fatalf("Open run again = %s, started %v, %v; want new", got.ID, started, err)
		}
		if got, started, err := s.Open(ctx, attempt("again", later.Add(time.Minute))); err != nil || started || got.ID != "new" {
			t.Fatalf("the next Open = %s, started %v, %v; want new resumed", got.ID, started, err)
		}
	})
}
