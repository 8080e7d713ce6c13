package billingtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"

	"glimpse/engine/billing"
)

// Charge returns a charge of subscription sub with every field set.
func Charge(key, sub, ref string, at time.Time) billing.Charge {
	return billing.Charge{ID: billing.ChargeIDOf(key), Key: key, Provider: "sandbox", Reference: ref, Amount: billing.USD(1399),
		Method: "visa ····4242", SubscriptionID: sub, Status: billing.ChargeSucceeded, Failure: "", CreatedAt: at}
}

// RunLedger runs the ledger's contract against stores made by open, one
// per subtest.
func RunLedger(t *testing.T, open func(t *testing.T) billing.Store, o Options) {
	ctx := context.Background()
	// Milliseconds: MongoDB keeps times to the millisecond.
	at := t0.Add(1500 * time.Millisecond)

	t.Run("AChargeRoundTripsEveryField", func(t *testing.T) {
		ledger := open(t).Ledger()
		want := Charge("renew:s1:1", "s1", "pi_1", at)
		want.Failure, want.Status = "card declined", billing.ChargeFailed
		stored, err := ledger.Record(ctx, []billing.Charge{want})
		if err != nil || len(stored) != 1 || !reflect.DeepEqual(stored[0], want) {
			t.Fatalf("Record = %+v, %v", stored, err)
		}
		for name, read := range map[string]func() (billing.Charge, error){
			"Charge":      func() (billing.Charge, error) { return ledger.Charge(ctx, want.ID) },
			"ByKey":       func() (billing.Charge, error) { return ledger.ByKey(ctx, want.Key) },
			"ByReference": func() (billing.Charge, error) { return ledger.ByReference(ctx, "pi_1") },
		} {
			if got, err := read(); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s\n%+v, %v\nwant\n%+v", name, got, err, want)
			}
		}
		// The same key again: the first charge, not a second one.
		again := Charge("renew:s1:1", "s1", "pi_other", at.Add(time.Hour))
		if stored, err := ledger.Record(ctx, []billing.Charge{again}); err != nil || !reflect.DeepEqual(stored[0], want) {
			t.Fatalf("Record(same key) = %+v, %v; want the first", stored, err)
		}
		if err := ledger.MarkDuplicate(ctx, want.ID, "glimpse.web.pro"); err != nil {
			t.Fatal(err)
		}
		want.Duplicate, want.PlanCode = true, "glimpse.web.pro"
		if got, err := ledger.Charge(ctx, want.ID); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("after MarkDuplicate\n%+v, %v\nwant\n%+v", got, err, want)
		}
		for name, err := range map[string]error{
			"Charge":        func() error { _, err := ledger.Charge(ctx, "ch_none"); return err }(),
			"ByKey":         func() error { _, err := ledger.ByKey(ctx, "none"); return err }(),
			"ByReference":   func() error { _, err := ledger.ByReference(ctx, "pi_none"); return err }(),
			"MarkDuplicate": ledger.MarkDuplicate(ctx, "ch_none", "p"),
		} {
			if !errors.Is(err, billing.ErrNoCharge) {
				t.Fatalf("%s(unknown) = %v, want ErrNoCharge", name, err)
			}
		}
	})

	t.Run("ChargesOfSubscriptionsAreOldestFirst", func(t *testing.T) {
		ledger := open(t).Ledger()
		chs := []billing.Charge{Charge("c", "s2", "", at.Add(3*time.Minute)), Charge("a", "s1", "", at.Add(time.Minute)),
			Charge("b", "s2", "", at.Add(2*time.Minute)), Charge("d", "s3", "", at)}
		if _, err := ledger.Record(ctx, chs); err != nil {
			t.Fatal(err)
		}
		got, err := ledger.OfSubscriptions(ctx, []string{"s2", "s1"})
		var keys []string
		for _, ch := range got {
			keys = append(keys, ch.Key)
		}
		if err != nil || !reflect.DeepEqual(keys, []string{"a", "b", "c"}) {
			t.Fatalf("OfSubscriptions = %v, %v; want a b c", keys, err)
		}
	})

	t.Run("TheNewestEventWinsWhateverTheOrder", func(t *testing.T) {
		ledger := open(t).Ledger()
		ch := Charge("k", "s1", "pi_1", at)
		if _, err := ledger.Record(ctx, []billing.Charge{ch}); err != nil {
			t.Fatal(err)
		}
		steps := []struct {
			ev      billing.ChargeEvent
			applied bool
			status  string
		}{
			{billing.ChargeEvent{ChargeID: ch.ID, EventID: "evt_2", Status: billing.ChargeDisputed, At: at.Add(2 * time.Second)}, true, billing.ChargeDisputed},
			{billing.ChargeEvent{ChargeID: ch.ID, EventID: "evt_1", Status: billing.ChargeRefunded, At: at.Add(time.Second)}, false, billing.ChargeDisputed},
			// The same time: the larger event id wins, on every instance.
			{billing.ChargeEvent{ChargeID: ch.ID, EventID: "evt_3", Status: billing.ChargeDisputeWon, At: at.Add(2 * time.Second)}, true, billing.ChargeDisputeWon},
			{billing.ChargeEvent{ChargeID: ch.ID, EventID: "evt_0", Status: billing.ChargeDisputeLost, At: at.Add(2 * time.Second)}, false, billing.ChargeDisputeWon},
			// Named by the provider's reference alone (a dispute).
			{billing.ChargeEvent{Reference: "pi_1", EventID: "evt_4", Status: billing.ChargeDisputeLost, At: at.Add(3 * time.Second)}, true, billing.ChargeDisputeLost},
			// Delivered twice: applied once.
			{billing.ChargeEvent{Reference: "pi_1", EventID: "evt_4", Status: billing.ChargeDisputeLost, At: at.Add(3 * time.Second)}, false, billing.ChargeDisputeLost},
		}
		for i, step := range steps {
			applied, err := ledger.AddEvent(ctx, step.ev)
			got, rerr := ledger.Charge(ctx, ch.ID)
			if err != nil || rerr != nil || applied != step.applied || got.Status != step.status {
				t.Fatalf("step %d (%s): applied %v, %v; status %q, %v; want %v, %q", i, step.ev.EventID, applied, err, got.Status, rerr,
					step.applied, step.status)
			}
		}
	})

	t.Run("EventsBeforeTheChargeGiveItItsStatus", func(t *testing.T) {
		ledger := open(t).Ledger()
		ch := Charge("k", "s1", "pi_1", at)
		for _, ev := range []billing.ChargeEvent{
			{ChargeID: ch.ID, EventID: "evt_1", Status: billing.ChargeRefunded, At: at.Add(time.Second)},
			{Reference: "pi_1", EventID: "evt_2", Status: billing.ChargeDisputed, At: at.Add(2 * time.Second)},
			{ChargeID: "ch_other", EventID: "evt_3", Status: billing.ChargeFailed, At: at.Add(3 * time.Second)},
		} {
			if applied, err := ledger.AddEvent(ctx, ev); err != nil || !applied {
				t.Fatalf("AddEvent(%s) before its charge = %v, %v; want applied (newest known)", ev.EventID, applied, err)
			}
		}
		stored, err := ledger.Record(ctx, []billing.Charge{ch})
		if err != nil || stored[0].Status != billing.ChargeDisputed {
			t.Fatalf("Record after its events = %+v, %v; want status disputed", stored, err)
		}
	})

	t.Run("EventsSentTogetherInRandomOrderEndOnTheNewest", func(t *testing.T) {
		if !o.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
		for round := range 3 {
			ledger := open(t).Ledger()
			ch := Charge("k", "s1", "pi_1", at)
			const n = 30
			events := make([]billing.ChargeEvent, n)
			for i := range events {
				events[i] = billing.ChargeEvent{ChargeID: ch.ID, EventID: fmt.Sprintf("evt_%02d", i), Status: fmt.Sprintf("status_%02d", i),
					At: at.Add(time.Duration(i) * time.Millisecond)}
				if i%3 == 0 {
					events[i].ChargeID, events[i].Reference = "", "pi_1"
				}
			}
			rand.Shuffle(n, func(i, j int) { events[i], events[j] = events[j], events[i] })
			var (
				wg      sync.WaitGroup
				start   = make(chan struct{})
				errs    = make(chan error, n+1)
				applied = make(chan string, n)
			)
			record := rand.IntN(n)
			for i, ev := range events {
				if i == record {
					wg.Go(func() {
						<-start
						_, err := ledger.Record(ctx, []billing.Charge{ch})
						errs <- err
					})
				}
				wg.Go(func() {
					<-start
					ok, err := ledger.AddEvent(ctx, ev)
					errs <- err
					if ok {
						applied <- ev.EventID
					}
				})
			}
			close(start)
			wg.Wait()
			close(errs)
			close(applied)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			got, err := ledger.Charge(ctx, ch.ID)
			if err != nil || got.Status != "status_29" {
				t.Fatalf("round %d: status %q, %v; want status_29 (the newest event's)", round, got.Status, err)
			}
		}
	})

	t.Run("AnErasedChargeKeepsItsIdUntilItsRetentionEndsThenGoesWithItsEvents", func(t *testing.T) {
		ledger := open(t).Ledger()
		ch := Charge("purchase:u1:course", "s1", "pi_1", at)
		other := Charge("renew:s2:1", "s2", "pi_2", at)
		if _, err := ledger.Record(ctx, []billing.Charge{ch, other}); err != nil {
			t.Fatal(err)
		}
		if _, err := ledger.AddEvent(ctx, billing.ChargeEvent{ChargeID: ch.ID, EventID: "evt_1", Status: billing.ChargeRefunded,
			At: at.Add(time.Second)}); err != nil {
			t.Fatal(err)
		}
		retain := t0.AddDate(8, 0, 0)
		// Run again (an erasure resumed), it changes nothing more: the
		// first key and period stay.
		if err := ledger.Erase(ctx, ch.ID, "erased:1", retain); err != nil {
			t.Fatal(err)
		}
		if err := ledger.Erase(ctx, ch.ID, "erased:2", retain.AddDate(1, 0, 0)); err != nil {
			t.Fatal(err)
		}
		want := ch
		want.Key, want.Erased, want.RetainUntil, want.Status = "erased:1", true, retain, billing.ChargeRefunded
		for name, read := range map[string]func() (billing.Charge, error){
			"Charge":      func() (billing.Charge, error) { return ledger.Charge(ctx, ch.ID) },
			"ByKey":       func() (billing.Charge, error) { return ledger.ByKey(ctx, "erased:1") },
			"ByReference": func() (billing.Charge, error) { return ledger.ByReference(ctx, "pi_1") },
		} {
			if got, err := read(); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s after the erasure\n%+v, %v\nwant\n%+v", name, got, err, want)
			}
		}
		if got, err := ledger.OfSubscriptions(ctx, []string{"s1"}); err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], want) {
			t.Fatalf("OfSubscriptions after the erasure = %+v, %v", got, err)
		}
		if _, err := ledger.ByKey(ctx, ch.Key); !errors.Is(err, billing.ErrNoCharge) {
			t.Fatalf("the key that named the account still finds the charge: %v", err)
		}
		if err := ledger.Erase(ctx, "ch_none", "erased:x", retain); !errors.Is(err, billing.ErrNoCharge) {
			t.Fatalf("Erase(unknown) = %v, want ErrNoCharge", err)
		}
		// Kept until the end of its period, not a moment less.
		if got, err := ledger.Retained(ctx, retain, 10); err != nil || len(got) != 0 {
			t.Fatalf("Retained(at its end) = %+v, %v; want none", got, err)
		}
		if purged, err := ledger.Purge(ctx, ch.ID, retain); err != nil || purged {
			t.Fatalf("Purge(at its end) = %v, %v; want kept", purged, err)
		}
		after := retain.Add(time.Millisecond)
		if got, err := ledger.Retained(ctx, after, 10); err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], want) {
			t.Fatalf("Retained(after) = %+v, %v; want the erased charge alone", got, err)
		}
		if purged, err := ledger.Purge(ctx, other.ID, after); err != nil || purged {
			t.Fatalf("Purge(a charge never erased) = %v, %v", purged, err)
		}
		for range 2 { // again: nothing left to purge
			if _, err := ledger.Purge(ctx, ch.ID, after); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := ledger.Charge(ctx, ch.ID); !errors.Is(err, billing.ErrNoCharge) {
			t.Fatalf("the purged charge: %v", err)
		}
		if got, err := ledger.Retained(ctx, after, 10); err != nil || len(got) != 0 {
			t.Fatalf("Retained after the purge = %+v, %v", got, err)
		}
		// Its events went with it: recorded anew under the same key, it
		// has the status it is recorded with.
		if stored, err := ledger.Record(ctx, []billing.Charge{ch}); err != nil || stored[0].Status != billing.ChargeSucceeded {
			t.Fatalf("recorded again after the purge: %+v, %v; want no event left", stored, err)
		}
		if got, err := ledger.Charge(ctx, other.ID); err != nil || got.Erased {
			t.Fatalf("the charge never erased: %+v, %v", got, err)
		}
	})

	t.Run("ARecordStoppedBeforeItsEventIsAppliedIsFinishedByARerun", func(t *testing.T) {
		if o.Failing == nil {
			t.Skip("no failing store on this engine")
		}
		ch := Charge("k", "s1", "pi_1", at)
		ev := billing.ChargeEvent{Reference: "pi_1", EventID: "evt_1", Status: billing.ChargeDisputed, At: at.Add(time.Second)}
		// Record writes the charge, then applies the event: stop at each.
		for n := 1; n <= 3; n++ {
			failing, clean := o.Failing(t, n)
			if _, err := clean.Ledger().AddEvent(ctx, ev); err != nil {
				t.Fatal(err)
			}
			_, ferr := failing.Ledger().Record(ctx, []billing.Charge{ch})
			stored, err := clean.Ledger().Record(ctx, []billing.Charge{ch})
			if err != nil || len(stored) != 1 || stored[0].Status != billing.ChargeDisputed {
				t.Fatalf("stopped at write %d (%v), then rerun: %+v, %v; want status disputed", n, ferr, stored, err)
			}
			if all, err := clean.Ledger().OfSubscriptions(ctx, []string{"s1"}); err != nil || len(all) != 1 {
				t.Fatalf("charges after the rerun = %+v, %v; want one", all, err)
			}
		}
	})
}
