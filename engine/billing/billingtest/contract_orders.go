package billingtest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"glimpse/engine/billing"
)

// order is a plan checkout's order for an address, pending since t0.
func order(id, email, subID string) billing.Order {
	return billing.Order{ID: id, Kind: billing.OrderPlan, Brand: "default", Bundle: "glimpse.web", PlanCode: "glimpse_monthly",
		Email: email, SubscriptionID: subID, ChargeKey: "checkout:" + id, Amount: billing.USD(1399), Status: billing.OrderPending,
		CreatedAt: t0}
}

// RunOrders runs the contract of the hosted-page orders against stores made
// by open, one per subtest.
func RunOrders(t *testing.T, open func(t *testing.T) billing.Store, o Options) {
	ctx := context.Background()

	t.Run("AnOrderRoundTripsEveryFieldAndOpensOnce", func(t *testing.T) {
		orders := open(t).Orders()
		want := billing.Order{ID: "co_1", Kind: billing.OrderAddOn, Brand: "default", Bundle: "glimpse.web", PlanCode: "addon_x",
			Family: "reports", Email: "ann@example.com", UserID: "u1", SubscriptionID: "add_1", MainID: "sub_1", Period: 1700000000,
			ChargeKey: "purchase:u1:addon_x:session", Amount: billing.USD(499),
			Saved:  billing.PaymentMethod{Provider: "sandbox", ID: "pm_1", Customer: "cus_1", Brand: "visa", Last4: "4242"},
			Return: "reports", Status: billing.OrderPending, CreatedAt: t0}
		got, created, err := orders.Open(ctx, want)
		if err != nil || !created || !reflect.DeepEqual(got, want) {
			t.Fatalf("Open = %+v, %v, %v", got, created, err)
		}
		read, err := orders.Get(ctx, "co_1")
		if err != nil || !reflect.DeepEqual(read, want) {
			t.Fatalf("read back\n%+v, %v\nwrote\n%+v", read, err, want)
		}
		// The same order opened again (the same checkout key) finds the
		// first, as stored.
		again := want
		again.Email, again.Amount = "other@example.com", billing.USD(1)
		got, created, err = orders.Open(ctx, again)
		if err != nil || created || !reflect.DeepEqual(got, want) {
			t.Fatalf("Open again = %+v, %v, %v; want the first", got, created, err)
		}
		if _, err := orders.Get(ctx, "co_nobody"); !errors.Is(err, billing.ErrNoOrder) {
			t.Fatalf("Get(unknown) = %v, want ErrNoOrder", err)
		}
		if err := orders.SetSession(ctx, "co_1", "cs_1", "https://pay.example/cs_1"); err != nil {
			t.Fatal(err)
		}
		if err := orders.ChangeEmail(ctx, "co_1", "ann.new@example.com"); err != nil {
			t.Fatal(err)
		}
		read, err = orders.Get(ctx, "co_1")
		want.Session, want.URL, want.Email = "cs_1", "https://pay.example/cs_1", "ann.new@example.com"
		if err != nil || !reflect.DeepEqual(read, want) {
			t.Fatalf("after SetSession and ChangeEmail\n%+v, %v\nwant\n%+v", read, err, want)
		}
	})

	t.Run("OrdersAreFoundByAddressAndSubscriptionAndDeletedOnce", func(t *testing.T) {
		orders := open(t).Orders()
		for _, o := range []billing.Order{order("co_a", "ann@example.com", "sub_a"), order("co_b", "ann@example.com", "sub_b"),
			order("co_c", "ann.old@example.com", "sub_a"), order("co_d", "bob@example.com", "sub_d")} {
			if _, _, err := orders.Open(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
		ids := func(os []billing.Order, err error) map[string]bool {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]bool{}
			for _, o := range os {
				out[o.ID] = true
			}
			return out
		}
		if got := ids(orders.ByEmail(ctx, "ann@example.com")); !reflect.DeepEqual(got, map[string]bool{"co_a": true, "co_b": true}) {
			t.Fatalf("ByEmail = %v", got)
		}
		if got := ids(orders.OfSubscription(ctx, "sub_a")); !reflect.DeepEqual(got, map[string]bool{"co_a": true, "co_c": true}) {
			t.Fatalf("OfSubscription = %v", got)
		}
		for range 2 { // an erasure run again: nothing left to delete, no error
			for _, id := range []string{"co_a", "co_b", "co_c"} {
				if err := orders.Delete(ctx, id); err != nil {
					t.Fatal(err)
				}
			}
		}
		if got := ids(orders.ByEmail(ctx, "ann@example.com")); len(got) != 0 {
			t.Fatalf("ByEmail after the erasure = %v", got)
		}
		if got := ids(orders.OfSubscription(ctx, "sub_a")); len(got) != 0 {
			t.Fatalf("OfSubscription after the erasure = %v", got)
		}
		if _, err := orders.Get(ctx, "co_d"); err != nil {
			t.Fatalf("another person's order: %v", err)
		}
	})

	t.Run("OnlyAPendingOrderBecomesProcessing", func(t *testing.T) {
		orders := open(t).Orders()
		for _, o := range []billing.Order{order("co_p", "a@example.com", "s1"), order("co_s", "b@example.com", "s2")} {
			if _, _, err := orders.Open(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
		if err := orders.Settled(ctx, "co_s", billing.OrderPaid); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"co_p", "co_s", "co_nobody"} {
			if err := orders.Processing(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		for id, want := range map[string]string{"co_p": billing.OrderProcessing, "co_s": billing.OrderPaid} {
			if got, err := orders.Get(ctx, id); err != nil || got.Status != want {
				t.Errorf("%s: %s, %v; want %s", id, got.Status, err, want)
			}
		}
	})

	t.Run("AnOutcomeIsClaimedOnce", func(t *testing.T) {
		orders := open(t).Orders()
		if _, _, err := orders.Open(ctx, order("co_1", "a@example.com", "s1")); err != nil {
			t.Fatal(err)
		}
		if got, err := orders.ClaimOutcome(ctx, "co_1", billing.OrderPaid); err != nil || got != billing.OrderPaid {
			t.Fatalf("first claim = %q, %v", got, err)
		}
		if got, err := orders.ClaimOutcome(ctx, "co_1", billing.OrderExpired); err != nil || got != billing.OrderPaid {
			t.Fatalf("a late claim = %q, %v; want the first, paid", got, err)
		}
		if got, err := orders.ClaimOutcome(ctx, "co_1", billing.OrderPaid); err != nil || got != billing.OrderPaid {
			t.Fatalf("the same claim again (a retry) = %q, %v", got, err)
		}
		// An order settled without an outcome (before outcomes were
		// stored) stays as it was settled.
		if _, _, err := orders.Open(ctx, order("co_old", "a@example.com", "s2")); err != nil {
			t.Fatal(err)
		}
		if err := orders.Settled(ctx, "co_old", billing.OrderPaid); err != nil {
			t.Fatal(err)
		}
		if got, err := orders.ClaimOutcome(ctx, "co_old", billing.OrderExpired); err != nil || got != billing.OrderPaid {
			t.Fatalf("a settled order's claim = %q, %v; want paid", got, err)
		}
		if _, err := orders.ClaimOutcome(ctx, "co_nobody", billing.OrderPaid); !errors.Is(err, billing.ErrNoOrder) {
			t.Fatalf("an unknown order's claim: %v", err)
		}
	})

	t.Run("PaidAndExpiredClaimedTogetherIsOneOutcome", func(t *testing.T) {
		if !o.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
		orders := open(t).Orders()
		for round := range 5 {
			id := fmt.Sprintf("co_%d", round)
			if _, _, err := orders.Open(ctx, order(id, "a@example.com", "s1")); err != nil {
				t.Fatal(err)
			}
			var (
				mu   sync.Mutex
				seen = map[string]int{}
				wg   sync.WaitGroup
				gate = make(chan struct{})
			)
			for i := range 20 {
				outcome := billing.OrderPaid
				if i%2 == 1 {
					outcome = billing.OrderExpired
				}
				wg.Go(func() {
					<-gate
					first, err := orders.ClaimOutcome(ctx, id, outcome)
					if err != nil {
						t.Error(err)
					}
					mu.Lock()
					seen[first]++
					mu.Unlock()
				})
			}
			close(gate)
			wg.Wait()
			if len(seen) != 1 {
				t.Fatalf("round %d: the claims were answered %v; want one outcome for all", round, seen)
			}
		}
	})

	t.Run("UnsettledOrdersAreDueByCheckTimeEarliestFirst", func(t *testing.T) {
		orders := open(t).Orders()
		checks := map[string]time.Duration{"co_3": 3 * time.Minute, "co_1": time.Minute, "co_2": 2 * time.Minute,
			"co_late": time.Hour, "co_settled": 0, "co_none": -1, "co_processing": 90 * time.Second}
		for id, after := range checks {
			if _, _, err := orders.Open(ctx, order(id, "a@example.com", "s_"+id)); err != nil {
				t.Fatal(err)
			}
			if after >= 0 {
				if err := orders.Recheck(ctx, id, t0.Add(after)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := orders.Settled(ctx, "co_settled", billing.OrderFailed); err != nil {
			t.Fatal(err)
		}
		if err := orders.Processing(ctx, "co_processing"); err != nil {
			t.Fatal(err)
		}
		now := t0.Add(10 * time.Minute)
		due := func(n int) []string {
			t.Helper()
			os, err := orders.Unsettled(ctx, now, n)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, o := range os {
				ids = append(ids, o.ID)
			}
			return ids
		}
		if got := due(10); !reflect.DeepEqual(got, []string{"co_1", "co_processing", "co_2", "co_3"}) {
			t.Fatalf("Unsettled = %v; want the due ones, pending or processing, earliest check first", got)
		}
		if got := due(2); !reflect.DeepEqual(got, []string{"co_1", "co_processing"}) {
			t.Fatalf("Unsettled(2) = %v", got)
		}
		// Looked at later; and one with nothing to ask is never again.
		if err := orders.Recheck(ctx, "co_1", now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := orders.Recheck(ctx, "co_2", time.Time{}); err != nil {
			t.Fatal(err)
		}
		if got := due(10); !reflect.DeepEqual(got, []string{"co_processing", "co_3"}) {
			t.Fatalf("Unsettled after Recheck = %v", got)
		}
	})
}
