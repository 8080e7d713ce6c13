package billingtest

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"glimpse/engine/billing"
)

// Receipt returns a plan's receipt with every field set but the erasure's.
func Receipt(number, chargeID string) billing.Receipt {
	paid := t0.Add(1500 * time.Millisecond)
	return billing.Receipt{Number: number, ChargeID: chargeID, SubscriptionID: "s1", Email: "ann@example.com", Brand: "default",
		Kind: billing.ReceiptRenewal, PlanCode: "glimpse_monthly", Amount: billing.USD(1399), CardBrand: "visa", CardLast4: "4242",
		PaidAt: paid, PeriodStart: paid, PeriodEnd: paid.AddDate(0, 1, 0)}
}

// RunReceipts runs the receipts' contract against stores made by open, one
// per subtest.
func RunReceipts(t *testing.T, open func(t *testing.T) billing.Store) {
	ctx := context.Background()

	t.Run("AReceiptRoundTripsEveryField", func(t *testing.T) {
		receipts := open(t).Receipts()
		plan, addOn := Receipt("AAAA-0000-0001", "renew:s1:1"), Receipt("AAAA-0000-0002", "addon:k")
		addOn.Kind, addOn.PeriodStart, addOn.PeriodEnd, addOn.CardBrand, addOn.CardLast4 = billing.ReceiptAddOn, time.Time{}, time.Time{}, "", ""
		stored, err := receipts.Issue(ctx, []billing.Receipt{plan, addOn})
		if err != nil || len(stored) != 2 || !reflect.DeepEqual(stored[0], plan) || !reflect.DeepEqual(stored[1], addOn) {
			t.Fatalf("Issue = %+v, %v", stored, err)
		}
		for _, want := range []billing.Receipt{plan, addOn} {
			if got, err := receipts.ByNumber(ctx, want.Number); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("ByNumber\n%+v, %v\nwant\n%+v", got, err, want)
			}
			if got, err := receipts.OfCharge(ctx, want.ChargeID); err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("OfCharge\n%+v, %v\nwant\n%+v", got, err, want)
			}
		}
		// Of subscriptions: oldest paid first, only theirs.
		later := Receipt("AAAA-0000-0003", "renew:s1:2")
		later.PaidAt = later.PaidAt.AddDate(0, 1, 0)
		other := Receipt("AAAA-0000-0004", "renew:s2:1")
		other.SubscriptionID = "s2"
		if _, err := receipts.Issue(ctx, []billing.Receipt{later, other}); err != nil {
			t.Fatal(err)
		}
		addOn.SubscriptionID = "s1"
		got, err := receipts.OfSubscriptions(ctx, []string{"s1", "s3"})
		if err != nil || len(got) != 3 || got[0].Number != plan.Number || got[1].Number != addOn.Number || got[2].Number != later.Number {
			t.Fatalf("OfSubscriptions(s1, s3) = %+v, %v; want the plan's, the add-on's, the later one", got, err)
		}
		if got, err := receipts.OfSubscriptions(ctx, nil); err != nil || len(got) != 0 {
			t.Fatalf("OfSubscriptions() = %+v, %v", got, err)
		}
		if _, err := receipts.ByNumber(ctx, "ZZZZ-ZZZZ-ZZZZ"); !errors.Is(err, billing.ErrNoReceipt) {
			t.Fatalf("ByNumber(unknown) = %v", err)
		}
		if _, err := receipts.OfCharge(ctx, "nobody"); !errors.Is(err, billing.ErrNoReceipt) {
			t.Fatalf("OfCharge(unknown) = %v", err)
		}
	})

	t.Run("ATakenNumberKeepsItsReceipt", func(t *testing.T) {
		receipts := open(t).Receipts()
		first := Receipt("AAAA-0000-0001", "k1")
		if _, err := receipts.Issue(ctx, []billing.Receipt{first}); err != nil {
			t.Fatal(err)
		}
		// Another charge's receipt on the same number: refused, and the
		// caller learns whose the number is.
		other := Receipt("AAAA-0000-0001", "k2")
		other.Email = "bob@example.com"
		stored, err := receipts.Issue(ctx, []billing.Receipt{other})
		if err != nil || !reflect.DeepEqual(stored[0], first) {
			t.Fatalf("Issue over a taken number = %+v, %v; want the first", stored, err)
		}
		if _, err := receipts.OfCharge(ctx, "k2"); !errors.Is(err, billing.ErrNoReceipt) {
			t.Fatalf("the refused receipt was stored: %v", err)
		}
	})

	t.Run("AReceiptIssuedTogetherIsIssuedOnce", func(t *testing.T) {
		receipts := open(t).Receipts()
		const n = 10
		got := make([]billing.Receipt, n)
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-gate
				r := Receipt("AAAA-0000-0001", "k1")
				r.PaidAt = r.PaidAt.Add(time.Duration(i) * time.Second) // each issuer's own time
				stored, err := receipts.Issue(ctx, []billing.Receipt{r})
				if err != nil {
					t.Error(err)
					return
				}
				got[i] = stored[0]
			})
		}
		close(gate)
		wg.Wait()
		final, err := receipts.OfCharge(ctx, "k1")
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range got {
			if !reflect.DeepEqual(r, final) {
				t.Fatalf("issuer %d got\n%+v\nbut the receipt is\n%+v", i, r, final)
			}
		}
	})

	t.Run("AnErasedReceiptIsKeptWithoutThePersonThenPurged", func(t *testing.T) {
		receipts := open(t).Receipts()
		r := Receipt("AAAA-0000-0001", "k1")
		if _, err := receipts.Issue(ctx, []billing.Receipt{r}); err != nil {
			t.Fatal(err)
		}
		retain := t0.AddDate(8, 0, 0)
		if n, err := receipts.DeleteRetained(ctx, r.Number, retain.Add(time.Hour)); err != nil || n != 0 {
			t.Fatalf("a receipt never erased was purged: %d, %v", n, err)
		}
		for range 2 { // again changes nothing more
			if err := receipts.Anonymise(ctx, r.Number, retain); err != nil {
				t.Fatal(err)
			}
		}
		want := r
		want.Email, want.ChargeID, want.Erased, want.RetainUntil = billing.ErasedEmail, "", true, retain
		if got, err := receipts.ByNumber(ctx, r.Number); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("erased\n%+v, %v\nwant\n%+v", got, err, want)
		}
		if _, err := receipts.OfCharge(ctx, "k1"); !errors.Is(err, billing.ErrNoReceipt) {
			t.Fatalf("found by its charge key after the erasure: %v", err)
		}
		if n, err := receipts.DeleteRetained(ctx, r.Number, retain); err != nil || n != 0 {
			t.Fatalf("purged at the end of its period, not after: %d, %v", n, err)
		}
		if n, err := receipts.DeleteRetained(ctx, r.Number, retain.Add(time.Millisecond)); err != nil || n != 1 {
			t.Fatalf("purge after its period = %d, %v", n, err)
		}
		if _, err := receipts.ByNumber(ctx, r.Number); !errors.Is(err, billing.ErrNoReceipt) {
			t.Fatalf("still there after the purge: %v", err)
		}
	})
}
