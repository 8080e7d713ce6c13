// Package retentiontest is the contract every implementation of
// retention.Attempts keeps, run against each store by its own tests.
package retentiontest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"glimpse/engine/retention"
	"glimpse/engine/store/contract"
)

// Run runs the contract against stores made by open, one per subtest.
func Run(t *testing.T, open func(t *testing.T) retention.Attempts) {
	t0 := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	ctx := context.Background()
	attempt := func(id, user, sub string, at time.Time) retention.Attempt {
		return retention.Attempt{ID: id, UserID: user, SubscriptionID: sub, Brand: "default", PlanCode: "glimpse_weekly_trial",
			Entry: "my_plan", Return: "/plan", StartedAt: at}
	}
	event := func(id string, a retention.Attempt, kind string, at time.Time) retention.Event {
		return retention.Event{ID: id, AttemptID: a.ID, UserID: a.UserID, SubscriptionID: a.SubscriptionID, Kind: kind, At: at}
	}
	openNew := func(t *testing.T, s retention.Attempts, a retention.Attempt) retention.Attempt {
		t.Helper()
		got, started, err := s.Open(ctx, a)
		if err != nil || !started || got.ID != a.ID {
			t.Fatalf("Open(%s) = %s, started %v, %v; want a new attempt", a.ID, got.ID, started, err)
		}
		return got
	}

	t.Run("ARoundTripKeepsEveryField", func(t *testing.T) {
		s := open(t)
		want := openNew(t, s, attempt("a1", "ann", "sub1", t0))
		got, err := s.Get(ctx, "a1")
		if err != nil || got != want {
			t.Fatalf("Get = %+v, %v; want %+v", got, err, want)
		}
		e := event("e1", want, retention.EventAnswer, t0.Add(time.Second))
		e.Step, e.Reason, e.Stars, e.Review, e.Offer = 6, "other", 4, "Fine", retention.OfferGiftMonth
		contract.Must(t, s.Record(ctx, e))
		out := event("e2", want, retention.EventOutcome, t0.Add(2*time.Second))
		out.Step, out.Outcome, out.Exit = 8, retention.OutcomeStayed, "stay"
		contract.Must(t, s.End(ctx, out))
		events, err := s.Events(ctx, "a1")
		if err != nil || len(events) != 2 || events[0] != e || events[1] != out {
			t.Fatalf("Events = %+v, %v; want %+v then %+v", events, err, e, out)
		}
		if _, err := s.Get(ctx, "nobody"); !errors.Is(err, retention.ErrNoAttempt) {
			t.Fatalf("Get(unknown) = %v, want ErrNoAttempt", err)
		}
	})

	t.Run("EventsAreTheAttemptsOldestFirst", func(t *testing.T) {
		s := open(t)
		a := openNew(t, s, attempt("a1", "ann", "sub1", t0))
		b := openNew(t, s, attempt("b1", "bob", "sub2", t0))
		contract.Must(t, s.Record(ctx, event("late", a, retention.EventReached, t0.Add(time.Minute))))
		contract.Must(t, s.Record(ctx, event("early", a, retention.EventReached, t0.Add(time.Second))))
		contract.Must(t, s.Record(ctx, event("y-tie", a, retention.EventReached, t0.Add(2*time.Second))))
		contract.Must(t, s.Record(ctx, event("x-tie", a, retention.EventReached, t0.Add(2*time.Second))))
		contract.Must(t, s.Record(ctx, event("bobs", b, retention.EventReached, t0)))
		events, err := s.Events(ctx, "a1")
		if err != nil || ids(events) != "[early x-tie y-tie late]" {
			t.Fatalf("Events = %s, %v; want [early x-tie y-tie late]", ids(events), err)
		}
	})

	t.Run("OfUserIsThePersonsAttemptsNewestFirstWithTheirEvents", func(t *testing.T) {
		s := open(t)
		first := openNew(t, s, attempt("first", "ann", "sub1", t0))
		contract.Must(t, s.End(ctx, event("f1", first, retention.EventOutcome, t0.Add(time.Second))))
		second := openNew(t, s, attempt("second", "ann", "sub1", t0.Add(time.Hour)))
		contract.Must(t, s.Record(ctx, event("s1", second, retention.EventReached, t0.Add(time.Hour))))
		other := openNew(t, s, attempt("other", "bob", "sub2", t0))
		contract.Must(t, s.Record(ctx, event("o1", other, retention.EventReached, t0)))
		attempts, events, err := s.OfUser(ctx, "ann")
		if err != nil || len(attempts) != 2 || attempts[0].ID != "second" || attempts[1].ID != "first" {
			t.Fatalf("OfUser(ann) = %+v, %v; want [second first]", attempts, err)
		}
		got := map[string]bool{}
		for _, e := range events {
			got[e.ID] = true
		}
		if len(events) != 2 || !got["f1"] || !got["s1"] {
			t.Fatalf("ann's events = %s, want f1 and s1", ids(events))
		}
		if attempts, events, err := s.OfUser(ctx, "nobody"); err != nil || len(attempts) != 0 || len(events) != 0 {
			t.Fatalf("OfUser(nobody) = %v, %v, %v", attempts, events, err)
		}
	})

	t.Run("OpenResumesTheOpenAttemptUntilItEndsOrGoesStale", func(t *testing.T) {
		s := open(t)
		a := openNew(t, s, attempt("a1", "ann", "sub1", t0))
		// Opened again soon after: the same attempt.
		got, started, err := s.Open(ctx, attempt("a2", "ann", "sub1", t0.Add(10*time.Minute)))
		if err != nil || started || got != a {
			t.Fatalf("Open again = %+v, started %v, %v; want %s resumed", got, started, err, a.ID)
		}
		// Another subscription has its own.
		openNew(t, s, attempt("b1", "bob", "sub2", t0))
		// Ended: the next Open starts a new attempt.
		contract.Must(t, s.End(ctx, event("out", a, retention.EventOutcome, t0.Add(11*time.Minute))))
		c := openNew(t, s, attempt("a3", "ann", "sub1", t0.Add(12*time.Minute)))
		// Abandoned for longer than ResumeWithin: a new attempt again.
		d := openNew(t, s, attempt("a4", "ann", "sub1", c.StartedAt.Add(retention.ResumeWithin)))
		if got, started, err := s.Open(ctx, attempt("a5", "ann", "sub1", d.StartedAt.Add(time.Minute))); err != nil || started || got.ID != "a4" {
			t.Fatalf("Open after a stale attempt = %s, started %v, %v; want a4 resumed", got.ID, started, err)
		}
		for _, id := range []string{"a1", "a3", "a4", "b1"} {
			if _, err := s.Get(ctx, id); err != nil {
				t.Fatalf("Get(%s): %v", id, err)
			}
		}
		if _, err := s.Get(ctx, "a2"); !errors.Is(err, retention.ErrNoAttempt) {
			t.Fatalf("a resumed Open stored its attempt: %v", err)
		}
	})

	// Opening the flow's page twice is not two attempts: Opens sent
	// together for one subscription store one attempt, and all of them
	// return it.
	t.Run("OpensSentTogetherMakeOneAttempt", func(t *testing.T) {
		s := open(t)
		const n = 20
		type result struct {
			a       retention.Attempt
			started bool
			err     error
		}
		results := make(chan result, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				a, started, err := s.Open(ctx, attempt(fmt.Sprint("t", i), "ann", "sub1", t0.Add(time.Duration(i)*time.Millisecond)))
				results <- result{a, started, err}
			})
		}
		wg.Wait()
		close(results)
		winners, ids := 0, map[string]bool{}
		for r := range results {
			contract.Must(t, r.err)
			if r.started {
				winners++
			}
			ids[r.a.ID] = true
		}
		attempts, _, err := s.OfUser(ctx, "ann")
		if err != nil || winners != 1 || len(ids) != 1 || len(attempts) != 1 {
			t.Fatalf("%d started, %d attempts returned, %d stored (%v); want one", winners, len(ids), len(attempts), err)
		}
	})

	t.Run("EventsSentTogetherAreAllKept", func(t *testing.T) {
		s := open(t)
		a := openNew(t, s, attempt("a1", "ann", "sub1", t0))
		const n = 30
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Go(func() {
				errs <- s.Record(ctx, event(fmt.Sprint("e", i), a, retention.EventReached, t0.Add(time.Duration(i)*time.Millisecond)))
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			contract.Must(t, err)
		}
		if events, err := s.Events(ctx, "a1"); err != nil || len(events) != n {
			t.Fatalf("%d of %d events kept (%v)", len(events), n, err)
		}
	})

	// A request run again after a failure records its event once, and an
	// End run again leaves what one End leaves: the attempt closed, one
	// outcome.
	t.Run("RecordAndEndRunAgainLeaveOneRunsState", func(t *testing.T) {
		s := open(t)
		a := openNew(t, s, attempt("a1", "ann", "sub1", t0))
		e := event("e1", a, retention.EventReached, t0)
		contract.Must(t, s.Record(ctx, e))
		contract.Must(t, s.Record(ctx, e))
		out := event("out", a, retention.EventOutcome, t0.Add(time.Second))
		contract.Must(t, s.End(ctx, out))
		contract.Must(t, s.End(ctx, out))
		if events, err := s.Events(ctx, "a1"); err != nil || ids(events) != "[e1 out]" {
			t.Fatalf("Events = %s, %v; want [e1 out]", ids(events), err)
		}
		openNew(t, s, attempt("a2", "ann", "sub1", t0.Add(2*time.Second)))
	})

	t.Run("DeleteUserDeletesThePersonsAttemptsAndEventsOnly", func(t *testing.T) {
		s := open(t)
		a := openNew(t, s, attempt("a1", "ann", "sub1", t0))
		contract.Must(t, s.Record(ctx, event("e1", a, retention.EventAnswer, t0)))
		contract.Must(t, s.End(ctx, event("e2", a, retention.EventOutcome, t0)))
		b := openNew(t, s, attempt("a2", "ann", "sub1", t0.Add(time.Hour)))
		contract.Must(t, s.Record(ctx, event("e3", b, retention.EventReached, t0)))
		bob := openNew(t, s, attempt("b1", "bob", "sub2", t0))
		contract.Must(t, s.Record(ctx, event("b-e1", bob, retention.EventReached, t0)))
		n, err := s.DeleteUser(ctx, "ann")
		if err != nil || n != 2 {
			t.Fatalf("DeleteUser = %d, %v; want 2", n, err)
		}
		if attempts, events, err := s.OfUser(ctx, "ann"); err != nil || len(attempts)+len(events) != 0 {
			t.Fatalf("ann still has %v and %s (%v)", attempts, ids(events), err)
		}
		for _, id := range []string{"a1", "a2"} {
			if events, err := s.Events(ctx, id); err != nil || len(events) != 0 {
				t.Fatalf("events of %s left: %s, %v", id, ids(events), err)
			}
		}
		if events, err := s.Events(ctx, "b1"); err != nil || ids(events) != "[b-e1]" {
			t.Fatalf("bob's events = %s, %v", ids(events), err)
		}
		// Again, as after a failure in a later step of the erasure.
		if n, err := s.DeleteUser(ctx, "ann"); err != nil || n != 0 {
			t.Fatalf("DeleteUser again = %d, %v", n, err)
		}
		// The subscription's open attempt went with it: a new one starts.
		openNew(t, s, attempt("a3", "ann", "sub1", t0.Add(time.Hour+time.Minute)))
	})

	t.Run("InsertManyStoresFinishedAttempts", func(t *testing.T) {
		s := open(t)
		var attempts []retention.Attempt
		var events []retention.Event
		for i := range 10 {
			a := attempt(fmt.Sprint("m", i), fmt.Sprint("u", i%3), fmt.Sprint("sub", i%3), t0.Add(time.Duration(i)*time.Minute))
			attempts = append(attempts, a)
			events = append(events, event(fmt.Sprint("m", i, "-1"), a, retention.EventReached, a.StartedAt),
				event(fmt.Sprint("m", i, "-2"), a, retention.EventOutcome, a.StartedAt.Add(time.Second)))
		}
		contract.Must(t, s.InsertMany(ctx, attempts, events))
		got, evs, err := s.OfUser(ctx, "u1")
		if err != nil || len(got) != 3 || got[0].ID != "m7" || len(evs) != 6 {
			t.Fatalf("OfUser(u1) = %d attempts (first %v), %d events, %v", len(got), got, len(evs), err)
		}
		// Seeded attempts are finished: none is resumed.
		openNew(t, s, attempt("new", "u1", "sub1", t0.Add(10*time.Minute)))
	})
}

func ids(events []retention.Event) string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.ID
	}
	return fmt.Sprint(out)
}
