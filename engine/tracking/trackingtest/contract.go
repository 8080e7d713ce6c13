// Package trackingtest is the contract every implementation of
// tracking.Events keeps, run against each store by its own tests.
package trackingtest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"glimpse/engine/store/contract"
	"glimpse/engine/tracking"
)

// Run runs the contract against stores made by open, one per subtest.
func Run(t *testing.T, open func(t *testing.T) tracking.Events) {
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	event := func(id, user, name string, at time.Time) tracking.Event {
		return tracking.Event{ID: id, Name: name, UserID: user, Brand: "default", Project: tracking.Project,
			Props: map[string]any{"source": "contract", "n": 2.0}, At: at, ExpiresAt: at.Add(24 * time.Hour)}
	}
	ctx := context.Background()

	t.Run("ARoundTripKeepsEveryField", func(t *testing.T) {
		s := open(t)
		want := event("e1", "ann", "plan_viewed", t0)
		want.Host, want.SubscriptionID, want.UserAgent = "glimpse.test", "sub1", "Mozilla/5.0"
		contract.Must(t, s.Insert(ctx, want))
		got, err := s.OfUser(ctx, "ann", t0)
		if err != nil || len(got) != 1 {
			t.Fatalf("OfUser = %v, %v", got, err)
		}
		g := got[0]
		if g.ID != want.ID || g.Name != want.Name || g.UserID != want.UserID || g.Brand != want.Brand || g.Host != want.Host ||
			g.Project != want.Project || g.SubscriptionID != want.SubscriptionID || g.UserAgent != want.UserAgent ||
			!g.At.Equal(want.At) || !g.ExpiresAt.Equal(want.ExpiresAt) || g.Props["source"] != "contract" || g.Props["n"] != 2.0 {
			t.Fatalf("read back %+v, wrote %+v", g, want)
		}
	})

	t.Run("OfUserIsThePersonsUnexpiredEventsOldestFirst", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.Insert(ctx, event("late", "ann", "b", t0.Add(time.Hour))))
		contract.Must(t, s.Insert(ctx, event("early", "ann", "a", t0)))
		contract.Must(t, s.Insert(ctx, event("bobs", "bob", "a", t0)))
		contract.Must(t, s.Insert(ctx, event("anon", "", "a", t0)))
		contract.Must(t, s.Insert(ctx, event("old", "ann", "a", t0.Add(-25*time.Hour)))) // expired an hour ago
		got, err := s.OfUser(ctx, "ann", t0)
		if err != nil || ids(got) != "[early late]" {
			t.Fatalf("OfUser(ann) = %s, %v; want [early late]", ids(got), err)
		}
	})

	t.Run("NamedIsNewestFirstAndLimited", func(t *testing.T) {
		s := open(t)
		for i := range 5 {
			contract.Must(t, s.Insert(ctx, event(fmt.Sprint("n", i), "", "sww_modal", t0.Add(time.Duration(i)*time.Minute))))
		}
		contract.Must(t, s.Insert(ctx, event("other", "", "plan_viewed", t0)))
		got, err := s.Named(ctx, "sww_modal", 3, t0.Add(time.Hour))
		if err != nil || ids(got) != "[n4 n3 n2]" {
			t.Fatalf("Named = %s, %v; want [n4 n3 n2]", ids(got), err)
		}
	})

	t.Run("DeleteUserDeletesOnlyThePersons", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.Insert(ctx, event("a1", "ann", "a", t0)))
		contract.Must(t, s.Insert(ctx, event("a2", "ann", "b", t0.Add(-30*time.Hour)))) // expired, still stored
		contract.Must(t, s.Insert(ctx, event("b1", "bob", "a", t0)))
		n, err := s.DeleteUser(ctx, "ann")
		if err != nil || n != 2 {
			t.Fatalf("DeleteUser = %d, %v; want 2 (an expired event not yet swept is deleted too)", n, err)
		}
		if got, _ := s.OfUser(ctx, "ann", t0.Add(-48*time.Hour)); len(got) != 0 {
			t.Fatalf("ann still has %s", ids(got))
		}
		if got, _ := s.OfUser(ctx, "bob", t0); ids(got) != "[b1]" {
			t.Fatalf("bob has %s", ids(got))
		}
	})

	t.Run("DeleteExpiredDeletesWhatExpired", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.Insert(ctx, event("gone", "ann", "a", t0)))
		contract.Must(t, s.Insert(ctx, event("kept", "ann", "a", t0.Add(2*time.Hour))))
		n, err := s.DeleteExpired(ctx, t0.Add(25*time.Hour))
		if err != nil || n != 1 {
			t.Fatalf("DeleteExpired = %d, %v; want 1", n, err)
		}
		if got, _ := s.OfUser(ctx, "ann", t0); ids(got) != "[kept]" {
			t.Fatalf("left %s", ids(got))
		}
	})

	t.Run("InsertsSentTogetherAreAllKept", func(t *testing.T) {
		s := open(t)
		const n = 40
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- s.Insert(ctx, event(fmt.Sprint("c", i), "ann", "tap", t0.Add(time.Duration(i)*time.Millisecond)))
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			contract.Must(t, err)
		}
		if got, err := s.OfUser(ctx, "ann", t0); err != nil || len(got) != n {
			t.Fatalf("%d of %d events kept (%v)", len(got), n, err)
		}
	})

	t.Run("InsertManyStoresEveryEvent", func(t *testing.T) {
		s := open(t)
		var batch []tracking.Event
		for i := range 25 {
			batch = append(batch, event(fmt.Sprint("m", i), fmt.Sprint("u", i%5), "screen_view", t0.Add(time.Duration(i)*time.Second)))
		}
		contract.Must(t, s.InsertMany(ctx, batch))
		if got, err := s.OfUser(ctx, "u3", t0); err != nil || ids(got) != "[m3 m8 m13 m18 m23]" {
			t.Fatalf("OfUser(u3) = %s, %v", ids(got), err)
		}
	})

	t.Run("ASecondInsertOfAnIDIsRefused", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.Insert(ctx, event("same", "ann", "a", t0)))
		if err := s.Insert(ctx, event("same", "bob", "b", t0)); err == nil {
			t.Fatal("a second event with the same id was stored")
		}
		if got, _ := s.OfUser(ctx, "bob", t0); len(got) != 0 {
			t.Fatalf("bob has %s", ids(got))
		}
	})
}

func ids(events []tracking.Event) string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.ID
	}
	return fmt.Sprint(out)
}
