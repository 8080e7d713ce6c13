package billingtest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"glimpse/engine/billing"
)

// RunLinks runs the contract of the cancel links and the handled webhook
// events against stores made by open, one per subtest.
func RunLinks(t *testing.T, open func(t *testing.T) billing.Store, o Options) {
	ctx := context.Background()
	// Milliseconds: MongoDB keeps times to the millisecond.
	at := t0.Add(1500 * time.Millisecond)

	t.Run("ACancelLinkRoundTripsEveryField", func(t *testing.T) {
		links := open(t).CancelLinks()
		want := billing.CancelLink{ID: "h1", Email: "ann@example.com", UserID: "u1", Bundle: "glimpse.web", ExpiresAt: at}
		if err := links.Insert(ctx, want); err != nil {
			t.Fatal(err)
		}
		got, err := links.Get(ctx, "h1")
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("read back\n%+v, %v\nwrote\n%+v", got, err, want)
		}
		if _, err := links.Get(ctx, "h2"); !errors.Is(err, billing.ErrNoCancelLink) {
			t.Fatalf("Get(unknown) = %v, want ErrNoCancelLink", err)
		}
		if err := links.Insert(ctx, want); err == nil {
			t.Fatal("a second link with the same id was stored")
		}
	})

	t.Run("ACancelLinkIsSpentOnce", func(t *testing.T) {
		links := open(t).CancelLinks()
		if err := links.Insert(ctx, billing.CancelLink{ID: "h1", Email: "ann@example.com", Bundle: "b", ExpiresAt: at}); err != nil {
			t.Fatal(err)
		}
		if ok, err := links.Spend(ctx, "h1", at); err != nil || !ok {
			t.Fatalf("first Spend = %v, %v", ok, err)
		}
		if ok, err := links.Spend(ctx, "h1", at.Add(time.Second)); err != nil || ok {
			t.Fatalf("second Spend = %v, %v; want false", ok, err)
		}
		if ok, err := links.Spend(ctx, "nobody", at); err != nil || ok {
			t.Fatalf("Spend(unknown) = %v, %v; want false", ok, err)
		}
		got, err := links.Get(ctx, "h1")
		if err != nil || !got.SpentAt.Equal(at) {
			t.Fatalf("spent at %v, %v; want %v (the first tap's)", got.SpentAt, err, at)
		}
	})

	t.Run("ACancelLinkTappedTogetherCancelsOnce", func(t *testing.T) {
		if !o.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
		links := open(t).CancelLinks()
		for i := range 5 {
			id := fmt.Sprintf("h%d", i)
			if err := links.Insert(ctx, billing.CancelLink{ID: id, Email: "ann@example.com", Bundle: "b", ExpiresAt: at}); err != nil {
				t.Fatal(err)
			}
			var won atomic.Int32
			var wg sync.WaitGroup
			gate := make(chan struct{})
			for range 20 {
				wg.Go(func() {
					<-gate
					ok, err := links.Spend(ctx, id, at)
					if err != nil {
						t.Error(err)
					}
					if ok {
						won.Add(1)
					}
				})
			}
			close(gate)
			wg.Wait()
			if won.Load() != 1 {
				t.Fatalf("link %s: %d taps spent it, want 1", id, won.Load())
			}
		}
	})

	t.Run("CancelLinksAreDeletedByAddressAndByExpiry", func(t *testing.T) {
		links := open(t).CancelLinks()
		for _, l := range []billing.CancelLink{
			{ID: "ann1", Email: "ann@example.com", Bundle: "b", ExpiresAt: at},
			{ID: "ann2", Email: "ann@example.com", Bundle: "b", ExpiresAt: at.Add(time.Hour), SpentAt: at},
			{ID: "bob1", Email: "bob@example.com", Bundle: "b", ExpiresAt: at},
			{ID: "bob2", Email: "bob@example.com", Bundle: "b", ExpiresAt: at.Add(2 * time.Hour)},
		} {
			if err := links.Insert(ctx, l); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := links.DeleteOf(ctx, "ann@example.com"); err != nil || n != 2 {
			t.Fatalf("DeleteOf = %d, %v; want 2", n, err)
		}
		// Expired before: strictly earlier than the cut.
		if n, err := links.DeleteExpired(ctx, at.Add(time.Hour)); err != nil || n != 1 {
			t.Fatalf("DeleteExpired = %d, %v; want 1", n, err)
		}
		for id, present := range map[string]bool{"ann1": false, "ann2": false, "bob1": false, "bob2": true} {
			_, err := links.Get(ctx, id)
			if present != (err == nil) || err != nil && !errors.Is(err, billing.ErrNoCancelLink) {
				t.Errorf("%s: Get = %v, want present %v", id, err, present)
			}
		}
	})

	t.Run("AStripeEventRoundTripsEveryFieldAndIsRecordedOnce", func(t *testing.T) {
		events := open(t).StripeEvents()
		if _, found, err := events.Get(ctx, "evt_1"); err != nil || found {
			t.Fatalf("Get before Record = %v, %v", found, err)
		}
		want := billing.StripeEventRecord{ID: "evt_1", Type: "payment_intent.succeeded", ChargeID: "ch_0123456789abcdef01234567", Order: "o1",
			Applied: true, Created: at.Add(-time.Minute), ReceivedAt: at}
		if err := events.Record(ctx, want); err != nil {
			t.Fatal(err)
		}
		// A second delivery recorded again changes nothing and is no error.
		again := want
		again.Applied, again.ReceivedAt = false, at.Add(time.Hour)
		if err := events.Record(ctx, again); err != nil {
			t.Fatal(err)
		}
		got, found, err := events.Get(ctx, "evt_1")
		if err != nil || !found || !reflect.DeepEqual(got, want) {
			t.Fatalf("read back\n%+v, %v, %v\nwrote\n%+v", got, found, err, want)
		}
	})

	t.Run("AStripeEventRecordedTogetherIsOneRecord", func(t *testing.T) {
		events := open(t).StripeEvents()
		var wg sync.WaitGroup
		for i := range 10 {
			wg.Go(func() {
				r := billing.StripeEventRecord{ID: "evt_1", Type: "charge.refunded", ReceivedAt: at.Add(time.Duration(i) * time.Second)}
				if err := events.Record(ctx, r); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if n, err := events.DeleteReceivedBefore(ctx, at.Add(time.Hour)); err != nil || n != 1 {
			t.Fatalf("records = %d, %v; want 1", n, err)
		}
	})

	t.Run("StripeEventsAreForgottenByAge", func(t *testing.T) {
		events := open(t).StripeEvents()
		for i, id := range []string{"old", "edge", "new"} {
			if err := events.Record(ctx, billing.StripeEventRecord{ID: id, Type: "t", ReceivedAt: at.Add(time.Duration(i) * time.Hour)}); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := events.DeleteReceivedBefore(ctx, at.Add(time.Hour)); err != nil || n != 1 {
			t.Fatalf("DeleteReceivedBefore = %d, %v; want 1", n, err)
		}
		for id, present := range map[string]bool{"old": false, "edge": true, "new": true} {
			if _, found, err := events.Get(ctx, id); err != nil || found != present {
				t.Errorf("%s: found %v, %v; want %v", id, found, err, present)
			}
		}
	})
}
