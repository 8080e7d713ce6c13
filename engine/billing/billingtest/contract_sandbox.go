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

// RunSandbox runs the contract of the sandbox provider's books against
// records made by open, one per subtest.
func RunSandbox(t *testing.T, open func(t *testing.T) billing.SandboxRecords) {
	ctx := context.Background()
	card := billing.PaymentMethod{Provider: "sandbox", ID: "pm_sandbox_ok_1", Customer: "cus_1", Brand: "visa", Last4: "4242"}
	page := func(id string) billing.SandboxSession {
		return billing.SandboxSession{ID: id, Key: "session:co_" + id, OrderID: "co_" + id, Mode: billing.SessionPayment,
			ChargeKey: "checkout:" + id, Amount: billing.USD(1399), Description: "Monthly Plan", Email: "ann@example.com",
			Brand: "default", Saved: card, SuccessURL: "https://glimpse.example/done", CancelURL: "https://glimpse.example/back",
			Status: "open", PaymentStatus: "unpaid", CreatedAt: t0, ExpiresAt: t0.Add(24 * time.Hour)}
	}
	charge := func(id, key string, amount int64) billing.Charge {
		return billing.Charge{ID: id, Key: key, Provider: "sandbox", Reference: "pi_" + id, Amount: billing.USD(amount),
			Method: card.ID, Status: "succeeded", CreatedAt: t0}
	}

	t.Run("APageRoundTripsEveryFieldAndOpensOnce", func(t *testing.T) {
		recs := open(t)
		want := page("cs_1")
		want.Challenge, want.Method, want.PaymentIntent = card, card, "pi_1"
		if got, err := recs.OpenSession(ctx, want); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("OpenSession = %+v, %v", got, err)
		}
		if got, err := recs.Session(ctx, "cs_1"); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("read back\n%+v, %v\nwrote\n%+v", got, err, want)
		}
		other := page("cs_1")
		other.OrderID = "co_other"
		if got, err := recs.OpenSession(ctx, other); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("OpenSession again = %+v, %v; want the first", got, err)
		}
		if _, err := recs.Session(ctx, "cs_nobody"); !errors.Is(err, billing.ErrNoSession) {
			t.Fatalf("Session(unknown) = %v, want ErrNoSession", err)
		}
		for range 2 { // an erasure run again
			if err := recs.DeleteSession(ctx, "cs_1"); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := recs.Session(ctx, "cs_1"); !errors.Is(err, billing.ErrNoSession) {
			t.Fatalf("Session after DeleteSession = %v", err)
		}
	})

	t.Run("AChallengeWaitsOnAnOpenPageOnly", func(t *testing.T) {
		recs := open(t)
		if _, err := recs.OpenSession(ctx, page("cs_1")); err != nil {
			t.Fatal(err)
		}
		if err := recs.Challenge(ctx, "cs_1", card); err != nil {
			t.Fatal(err)
		}
		if got, _ := recs.Session(ctx, "cs_1"); got.Challenge != card {
			t.Fatalf("challenge %+v", got.Challenge)
		}
		if err := recs.Challenge(ctx, "cs_1", billing.PaymentMethod{}); err != nil {
			t.Fatal(err)
		}
		if got, _ := recs.Session(ctx, "cs_1"); got.Challenge != (billing.PaymentMethod{}) {
			t.Fatalf("challenge not cleared: %+v", got.Challenge)
		}
		paid := page("cs_1")
		paid.Status, paid.PaymentStatus, paid.Method, paid.PaymentIntent = "complete", "paid", card, "pi_cs_1"
		if won, err := recs.PaySession(ctx, charge("session:cs_1", "checkout:cs_1", 1399), paid); err != nil || !won {
			t.Fatalf("PaySession = %v, %v", won, err)
		}
		if err := recs.Challenge(ctx, "cs_1", card); err != nil {
			t.Fatal(err)
		}
		got, err := recs.Session(ctx, "cs_1")
		if err != nil || got.Challenge != (billing.PaymentMethod{}) || got.Status != "complete" || got.PaymentStatus != "paid" ||
			got.Method != card || got.PaymentIntent != "pi_cs_1" {
			t.Fatalf("a paid page: %+v, %v", got, err)
		}
	})

	t.Run("APagePaidTogetherIsPaidOnce", func(t *testing.T) {
		recs := open(t)
		for round := range 3 {
			id := fmt.Sprintf("cs_%d", round)
			if _, err := recs.OpenSession(ctx, page(id)); err != nil {
				t.Fatal(err)
			}
			var (
				won  atomic.Int32
				wg   sync.WaitGroup
				gate = make(chan struct{})
			)
			for i := range 10 {
				wg.Go(func() {
					<-gate
					paid := page(id)
					paid.Status, paid.PaymentStatus, paid.PaymentIntent = "complete", "paid", "pi_"+id
					paid.Method = billing.PaymentMethod{Provider: "sandbox", ID: fmt.Sprintf("pm_%d", i)}
					ok, err := recs.PaySession(ctx, charge("session:"+id, "checkout:"+id, 1399), paid)
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
			if n := won.Load(); n != 1 {
				t.Fatalf("round %d: %d payments of one page, want 1", round, n)
			}
			if got, err := recs.Session(ctx, id); err != nil || got.Status != "complete" {
				t.Fatalf("round %d: the page after its payment: %+v, %v", round, got, err)
			}
		}
	})

	t.Run("AChargeIsStoredOncePerKeyAndTheFirstAnswers", func(t *testing.T) {
		recs := open(t)
		first := charge("sbx_1", "renew:s1:1:0", 1399)
		got, created, err := recs.Charges(ctx, []billing.Charge{first})
		if err != nil || !created[0] || !reflect.DeepEqual(got[0], first) {
			t.Fatalf("Charges = %+v, %v, %v", got, created, err)
		}
		second := charge("sbx_1", "renew:s1:1:0", 5)
		second.Status, second.Failure = "failed", "card_declined"
		other := charge("sbx_2", "renew:s2:1:0", 700)
		got, created, err = recs.Charges(ctx, []billing.Charge{second, other})
		if err != nil || created[0] || !created[1] || !reflect.DeepEqual(got[0], first) || !reflect.DeepEqual(got[1], other) {
			t.Fatalf("Charges again = %+v, %v, %v; want the first for the key taken", got, created, err)
		}
		// Sent together, one stores it and every caller gets that one.
		var (
			stored atomic.Int32
			wg     sync.WaitGroup
			gate   = make(chan struct{})
		)
		for i := range 10 {
			wg.Go(func() {
				<-gate
				ch := charge("sbx_3", "renew:s3:1:0", int64(100+i))
				got, created, err := recs.Charges(ctx, []billing.Charge{ch})
				if err != nil {
					t.Error(err)
					return
				}
				if created[0] {
					stored.Add(1)
				}
				if got[0].Amount.Amount < 100 {
					t.Errorf("answered %+v", got[0])
				}
			})
		}
		close(gate)
		wg.Wait()
		if stored.Load() != 1 {
			t.Fatalf("%d charges stored under one key, want 1", stored.Load())
		}
		a, _, _ := recs.Charges(ctx, []billing.Charge{charge("sbx_3", "renew:s3:1:0", 1)})
		b, _, _ := recs.Charges(ctx, []billing.Charge{charge("sbx_3", "renew:s3:1:0", 2)})
		if a[0] != b[0] {
			t.Fatalf("the key answers %+v, then %+v", a[0], b[0])
		}
	})

	t.Run("AChargeIsFoundByIdThenByReferenceAndRekeyed", func(t *testing.T) {
		recs := open(t)
		ch := charge("sbx_1", "purchase:u1:addon", 499)
		if _, _, err := recs.Charges(ctx, []billing.Charge{ch}); err != nil {
			t.Fatal(err)
		}
		if got, err := recs.ChargeOf(ctx, []string{"nope", "sbx_1"}, ""); err != nil || !reflect.DeepEqual(got, ch) {
			t.Fatalf("ChargeOf(ids) = %+v, %v", got, err)
		}
		if got, err := recs.ChargeOf(ctx, []string{"nope"}, "pi_sbx_1"); err != nil || !reflect.DeepEqual(got, ch) {
			t.Fatalf("ChargeOf(reference) = %+v, %v", got, err)
		}
		if _, err := recs.ChargeOf(ctx, []string{"nope"}, "pi_nope"); !errors.Is(err, billing.ErrNoCharge) {
			t.Fatalf("ChargeOf(unknown) = %v, want ErrNoCharge", err)
		}
		for range 2 { // an erasure run again changes nothing more
			if err := recs.Rekey(ctx, "purchase:u1:addon", "erased:h"); err != nil {
				t.Fatal(err)
			}
		}
		got, err := recs.ChargeOf(ctx, []string{"sbx_1"}, "")
		ch.Key = "erased:h"
		if err != nil || !reflect.DeepEqual(got, ch) {
			t.Fatalf("after Rekey: %+v, %v; want the key rewritten", got, err)
		}
	})

	t.Run("ARefundIsStoredOncePerKeyAndTheFirstAnswers", func(t *testing.T) {
		recs := open(t)
		first := billing.SandboxRefund{ID: "refund:ch_1#0", ChargeKey: "ch_1", Reference: "re_1", Amount: billing.USD(499), CreatedAt: t0}
		if got, err := recs.Refund(ctx, first); err != nil || got != first {
			t.Fatalf("Refund = %+v, %v", got, err)
		}
		again := first
		again.Reference, again.Amount = "re_2", billing.USD(1)
		if got, err := recs.Refund(ctx, again); err != nil || got != first {
			t.Fatalf("Refund again = %+v, %v; want the first", got, err)
		}
	})
}
