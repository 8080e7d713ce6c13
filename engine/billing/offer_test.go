package billing

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
)

func countKind(t *testing.T, f fixture, subID, kind string) int {
	t.Helper()
	h, err := f.svc.History(context.Background(), subID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range h {
		if c.Kind == kind {
			n++
		}
	}
	return n
}

func TestChangePlanAtRenewalOnceAndAppliedAtRenewal(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buy(t, FamilyWeekly, "4242424242424242", "k-change")
	sale, err := f.svc.Catalogue().SaleOf("default", FamilyPremiumOneMonth)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := f.svc.ChangePlanAtRenewal(ctx, sub.ID, sale.Code, "attempt-1", "user:u1")
		if err != nil {
			t.Fatal(err)
		}
		if got.NextPlanCode != sale.Code || got.PlanCode != sub.PlanCode {
			t.Fatalf("after the change: plan %q next %q", got.PlanCode, got.NextPlanCode)
		}
	}
	// Another attempt asking for the same plan changes nothing either.
	if _, err := f.svc.ChangePlanAtRenewal(ctx, sub.ID, sale.Code, "attempt-2", "user:u1"); err != nil {
		t.Fatal(err)
	}
	if n := countKind(t, f, sub.ID, ChangePlanChanged); n != 1 {
		t.Fatalf("plan_changed lines = %d, want 1", n)
	}
	// The renewal charges the sale plan and applies it.
	f.clock.Set(sub.CurrentPeriodEnd)
	if _, err := f.svc.RenewDue(ctx); err != nil {
		t.Fatal(err)
	}
	now, _ := f.svc.Subscription(ctx, sub.ID)
	if now.PlanCode != sale.Code || now.NextPlanCode != "" || now.Price != sale.Price {
		t.Fatalf("after renewal: plan %q next %q price %v", now.PlanCode, now.NextPlanCode, now.Price)
	}
}

func TestChangePlanAtRenewalRefusals(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buy(t, FamilyWeekly, "4242424242424242", "k-refuse")
	regular, _ := f.svc.Catalogue().Find("default", FamilyPremiumOneMonth)
	if _, err := f.svc.ChangePlanAtRenewal(ctx, sub.ID, regular.Code, "a", "u"); !errors.Is(err, ErrUnknownPlan) {
		t.Fatalf("a regular plan: %v", err)
	}
	other, _ := f.svc.Catalogue().SaleOf("_x_", FamilyPremiumOneMonth)
	if _, err := f.svc.ChangePlanAtRenewal(ctx, sub.ID, other.Code, "a", "u"); !errors.Is(err, ErrUnknownPlan) {
		t.Fatalf("another brand's sale: %v", err)
	}
	if _, err := f.svc.Cancel(ctx, sub.ID, "u"); err != nil {
		t.Fatal(err)
	}
	sale, _ := f.svc.Catalogue().SaleOf("default", FamilyPremiumOneMonth)
	if _, err := f.svc.ChangePlanAtRenewal(ctx, sub.ID, sale.Code, "a", "u"); !errors.Is(err, ErrOfferUnavailable) {
		t.Fatalf("a canceled plan: %v", err)
	}
}

func TestAddFreeMonthOncePerKey(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buy(t, FamilyThreeMonth, "4242424242424242", "k-gift")
	want := sub.CurrentPeriodEnd.AddDate(0, 1, 0)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			if _, err := f.svc.AddFreeMonth(ctx, sub.ID, "attempt-1", "user:u1"); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, _ := f.svc.Subscription(ctx, sub.ID)
	if !got.CurrentPeriodEnd.Equal(want) || !got.DueAt.Equal(want) {
		t.Fatalf("period end %v due %v, want %v", got.CurrentPeriodEnd, got.DueAt, want)
	}
	if n := countKind(t, f, sub.ID, ChangeExtended); n != 1 {
		t.Fatalf("extended lines = %d, want 1", n)
	}
	if key, err := f.svc.FreeMonthKey(ctx, sub.ID); err != nil || key != "attempt-1" {
		t.Fatalf("free month key = %q, %v", key, err)
	}
}

// A free month is once per subscription: attempts racing each other, each
// with its own key, get one month between them (it was three of ten when
// the rule was a read of the history before the write).
func TestFreeMonthOncePerSubscriptionUnderConcurrency(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buy(t, FamilyWeekly, "4242424242424242", "k-gift-race")
	want := sub.CurrentPeriodEnd.AddDate(0, 1, 0)
	const callers = 10
	var wg sync.WaitGroup
	results := make(chan error, callers)
	for i := range callers {
		wg.Go(func() {
			_, err := f.svc.AddFreeMonth(ctx, sub.ID, "attempt-"+strconv.Itoa(i), "user:u1")
			results <- err
		})
	}
	wg.Wait()
	close(results)
	won := 0
	for err := range results {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, ErrOfferUnavailable):
			t.Fatalf("a losing caller: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d callers took the month, want 1", won)
	}
	got, _ := f.svc.Subscription(ctx, sub.ID)
	if !got.CurrentPeriodEnd.Equal(want) {
		t.Fatalf("period end %v, want %v", got.CurrentPeriodEnd, want)
	}
	if n := countKind(t, f, sub.ID, ChangeExtended); n != 1 {
		t.Fatalf("extended lines = %d, want 1", n)
	}
	// The winner's retry is the same month, done.
	key, err := f.svc.FreeMonthKey(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.AddFreeMonth(ctx, sub.ID, key, "user:u1"); err != nil {
		t.Fatalf("the winner's retry: %v", err)
	}
	if got, _ := f.svc.Subscription(ctx, sub.ID); !got.CurrentPeriodEnd.Equal(want) {
		t.Fatalf("a retry moved the period end to %v", got.CurrentPeriodEnd)
	}
}

func TestAddFreeMonthRefusesACanceledPlan(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buy(t, FamilyWeekly, "4242424242424242", "k-gift-canceled")
	if _, err := f.svc.Cancel(ctx, sub.ID, "u"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.AddFreeMonth(ctx, sub.ID, "a", "u"); !errors.Is(err, ErrOfferUnavailable) {
		t.Fatalf("canceled: %v", err)
	}
	got, _ := f.svc.Subscription(ctx, sub.ID)
	if !got.CurrentPeriodEnd.Equal(sub.CurrentPeriodEnd) {
		t.Fatal("a refused gift moved the period end")
	}
}
