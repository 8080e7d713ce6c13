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

// Refund returns refund number seq of charge ch1 with every field set but
// the provider's answer and the erasure's.
func Refund(seq int, key string, amount int64) billing.Refund {
	return billing.Refund{ChargeID: "ch1", SubscriptionID: "s1", Seq: seq, Amount: billing.USD(amount), By: "staff:kim@example.com",
		Reason: "asked nicely", Key: key, CreatedAt: t0.Add(time.Duration(seq)*time.Minute + 500*time.Millisecond)}
}

// RunRefunds runs the refunds' contract against stores made by open, one
// per subtest.
func RunRefunds(t *testing.T, open func(t *testing.T) billing.Store, o Options) {
	ctx := context.Background()

	t.Run("ARefundRoundTripsEveryField", func(t *testing.T) {
		refunds := open(t).Refunds()
		want := Refund(0, "k0", 500)
		want.Full = true
		got, won, err := refunds.Claim(ctx, want, 1399)
		want.ID, want.Status = "ch1#0", billing.RefundPending
		if err != nil || !won || !reflect.DeepEqual(got, want) {
			t.Fatalf("Claim = %+v, %v, %v", got, won, err)
		}
		if all, err := refunds.Of(ctx, "ch1"); err != nil || len(all) != 1 || !reflect.DeepEqual(all[0], want) {
			t.Fatalf("Of\n%+v, %v\nwant\n%+v", all, err, want)
		}
		settled, err := refunds.Settle(ctx, want.ID, billing.RefundSucceeded, "re_1", "")
		want.Status, want.Reference = billing.RefundSucceeded, "re_1"
		if err != nil || !reflect.DeepEqual(settled, want) {
			t.Fatalf("Settle\n%+v, %v\nwant\n%+v", settled, err, want)
		}
		// Settled once: a second answer changes nothing.
		if again, err := refunds.Settle(ctx, want.ID, billing.RefundFailed, "", "late"); err != nil || !reflect.DeepEqual(again, want) {
			t.Fatalf("Settle again = %+v, %v", again, err)
		}
		if _, err := refunds.Settle(ctx, "ch1#9", billing.RefundSucceeded, "re_9", ""); !errors.Is(err, billing.ErrNoRefund) {
			t.Fatalf("Settle(unknown) = %v", err)
		}
		if all, err := refunds.Of(ctx, "ch2"); err != nil || len(all) != 0 {
			t.Fatalf("Of(another charge) = %+v, %v", all, err)
		}
	})

	t.Run("ARefundIsRefusedOverTheChargeOrOnATakenNumber", func(t *testing.T) {
		refunds := open(t).Refunds()
		if _, _, err := refunds.Claim(ctx, Refund(0, "a", 600), 1000); err != nil {
			t.Fatal(err)
		}
		if _, _, err := refunds.Claim(ctx, Refund(0, "b", 100), 1000); !errors.Is(err, billing.ErrRefundInProgress) {
			t.Fatalf("a claim of a taken number = %v, want ErrRefundInProgress", err)
		}
		if _, _, err := refunds.Claim(ctx, Refund(1, "b", 401), 1000); !errors.Is(err, billing.ErrRefundTooLarge) {
			t.Fatalf("a claim over the charge = %v, want ErrRefundTooLarge", err)
		}
		// A failed refund gave nothing back: what it asked is free again.
		if _, err := refunds.Settle(ctx, "ch1#0", billing.RefundFailed, "", "card expired"); err != nil {
			t.Fatal(err)
		}
		if _, won, err := refunds.Claim(ctx, Refund(1, "b", 1000), 1000); err != nil || !won {
			t.Fatalf("a claim after a failed refund = %v, %v", won, err)
		}
		// The same key again: the first refund, not a new one.
		first, won, err := refunds.Claim(ctx, Refund(2, "b", 1000), 1000)
		if err != nil || won || first.ID != "ch1#1" {
			t.Fatalf("the same key again = %+v, %v, %v; want ch1#1", first, won, err)
		}
	})

	t.Run("ARefundAskedTogetherIsMadeOnce", func(t *testing.T) {
		refunds := open(t).Refunds()
		const n = 10
		var won atomic.Int32
		ids := make([]string, n)
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-gate
				r, w, err := refunds.Claim(ctx, Refund(0, "double-click", 1000), 1000)
				if err != nil {
					t.Error(err)
					return
				}
				if w {
					won.Add(1)
				}
				ids[i] = r.ID
			})
		}
		close(gate)
		wg.Wait()
		all, err := refunds.Of(ctx, "ch1")
		if won.Load() != 1 || err != nil || len(all) != 1 {
			t.Fatalf("%d claims won, %d refunds stored (%v); want one", won.Load(), len(all), err)
		}
		for i, id := range ids {
			if id != "ch1#0" {
				t.Fatalf("claim %d got %q, want the one refund", i, id)
			}
		}
	})

	t.Run("RefundsAskedTogetherNeverExceedTheCharge", func(t *testing.T) {
		refunds := open(t).Refunds()
		// Ten partial refunds of 300 of a charge of 1000, each retried on
		// the next number until refused: three fit.
		var wg sync.WaitGroup
		var made atomic.Int32
		gate := make(chan struct{})
		for i := range 10 {
			wg.Go(func() {
				<-gate
				for {
					earlier, err := refunds.Of(ctx, "ch1")
					if err != nil {
						t.Error(err)
						return
					}
					_, won, err := refunds.Claim(ctx, Refund(len(earlier), fmt.Sprintf("k%d", i), 300), 1000)
					switch {
					case errors.Is(err, billing.ErrRefundInProgress):
						continue
					case errors.Is(err, billing.ErrRefundTooLarge):
						return
					case err != nil:
						t.Error(err)
						return
					}
					if won {
						made.Add(1)
					}
					return
				}
			})
		}
		close(gate)
		wg.Wait()
		all, err := refunds.Of(ctx, "ch1")
		if err != nil || made.Load() != 3 || len(all) != 3 || billing.Refunded(all) != 900 {
			t.Fatalf("%d refunds made, %d stored giving back %d (%v); want 3 of 300", made.Load(), len(all), billing.Refunded(all), err)
		}
		for i, r := range all {
			if r.Seq != i || r.ID != billing.RefundID("ch1", i) {
				t.Fatalf("refund %d is %+v: the numbers skip", i, r)
			}
		}
	})

	t.Run("PendingRefundsAreFoundOldestFirst", func(t *testing.T) {
		refunds := open(t).Refunds()
		for seq := range 4 {
			if _, _, err := refunds.Claim(ctx, Refund(seq, fmt.Sprintf("k%d", seq), 100), 1000); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := refunds.Settle(ctx, "ch1#1", billing.RefundSucceeded, "re", ""); err != nil {
			t.Fatal(err)
		}
		got, err := refunds.Pending(ctx, Refund(3, "", 0).CreatedAt, 10)
		if err != nil || len(got) != 2 || got[0].ID != "ch1#0" || got[1].ID != "ch1#2" {
			t.Fatalf("Pending = %+v, %v; want ch1#0 and ch1#2 (ch1#1 settled, ch1#3 not before)", got, err)
		}
		if got, err := refunds.Pending(ctx, t0.AddDate(1, 0, 0), 1); err != nil || len(got) != 1 || got[0].ID != "ch1#0" {
			t.Fatalf("Pending(limit 1) = %+v, %v", got, err)
		}
	})

	t.Run("AnErasedRefundIsKeptWithoutTheReasonThenPurged", func(t *testing.T) {
		refunds := open(t).Refunds()
		for seq := range 2 {
			if _, _, err := refunds.Claim(ctx, Refund(seq, fmt.Sprintf("k%d", seq), 100), 1000); err != nil {
				t.Fatal(err)
			}
		}
		retain := t0.AddDate(8, 0, 0)
		if n, err := refunds.DeleteRetained(ctx, "ch1#0", retain.Add(time.Hour)); err != nil || n != 0 {
			t.Fatalf("a refund never erased was purged: %d, %v", n, err)
		}
		for _, id := range []string{"ch1#0", "ch1#1"} {
			if err := refunds.Anonymise(ctx, id, retain); err != nil {
				t.Fatal(err)
			}
		}
		for range 2 { // again changes nothing
			for _, id := range []string{"ch1#0", "ch1#1"} {
				if err := refunds.Anonymise(ctx, id, retain); err != nil {
					t.Fatal(err)
				}
			}
		}
		kept, err := refunds.Of(ctx, "ch1")
		if err != nil || len(kept) != 2 {
			t.Fatalf("kept: %+v, %v", kept, err)
		}
		for i, r := range kept {
			want := Refund(i, fmt.Sprintf("k%d", i), 100)
			want.ChargeID, want.ID, want.Status = "ch1", billing.RefundID("ch1", i), billing.RefundPending
			want.Reason, want.Erased, want.RetainUntil = "erased", true, retain
			if !reflect.DeepEqual(r, want) {
				t.Fatalf("kept\n%+v\nwant\n%+v", r, want)
			}
		}
		if n, err := refunds.DeleteRetained(ctx, "ch1#0", retain); err != nil || n != 0 {
			t.Fatalf("purged at the end of its period, not after: %d, %v", n, err)
		}
		if n, err := refunds.DeleteRetained(ctx, "ch1#0", retain.Add(time.Millisecond)); err != nil || n != 1 {
			t.Fatalf("purge after its period = %d, %v", n, err)
		}
	})

	t.Run("ARefundStoppedBetweenItsWritesIsFinishedByARerun", func(t *testing.T) {
		if o.Failing == nil {
			t.Skip("no failing store")
		}
		// The refund use case's writes (refund.go Refund, finishRefund):
		// claim, then settle with the provider's answer. A rerun (the
		// same request again, or the reconciliation) finds the claim by
		// its key and settles it.
		run := func(st billing.Store) error {
			refunds := st.Refunds()
			earlier, err := refunds.Of(ctx, "ch1")
			if err != nil {
				return err
			}
			r, _, err := refunds.Claim(ctx, Refund(len(earlier), "desk-view-1", 700), 1000)
			if err != nil {
				return err
			}
			_, err = refunds.Settle(ctx, r.ID, billing.RefundSucceeded, "re_1", "")
			return err
		}
		_, once := o.Failing(t, 1<<30)
		if err := run(once); err != nil {
			t.Fatal(err)
		}
		want, err := once.Refunds().Of(ctx, "ch1")
		if err != nil {
			t.Fatal(err)
		}
		for n := 1; n <= 2; n++ {
			failing, clean := o.Failing(t, n)
			if err := run(failing); err == nil {
				t.Fatalf("stop at write %d: the run did not stop", n)
			}
			if err := run(clean); err != nil {
				t.Fatalf("rerun after a stop at write %d: %v", n, err)
			}
			got, err := clean.Refunds().Of(ctx, "ch1")
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("after a stop at write %d and a rerun\n%+v, %v\nwant (one run)\n%+v", n, got, err, want)
			}
		}
	})
}
