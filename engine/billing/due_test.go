package billing

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"glimpse/engine"
)

// flakySandbox is the sandbox with the provider unreachable for the charges
// whose keys are in down.
type flakySandbox struct {
	*Sandbox
	mu   sync.Mutex
	down map[string]bool
}

var errProviderDown = errors.New("the provider did not answer")

func (f *flakySandbox) ChargeMany(ctx context.Context, reqs []ChargeRequest) ([]Charge, []error) {
	charges, errs := make([]Charge, len(reqs)), make([]error, len(reqs))
	var pass []int
	f.mu.Lock()
	for i, r := range reqs {
		if f.down[r.SubscriptionID] {
			errs[i] = errProviderDown
		} else {
			pass = append(pass, i)
		}
	}
	f.mu.Unlock()
	sent := make([]ChargeRequest, len(pass))
	for j, i := range pass {
		sent[j] = reqs[i]
	}
	got, gotErrs := f.Sandbox.ChargeMany(ctx, sent)
	for j, i := range pass {
		charges[i], errs[i] = got[j], gotErrs[j]
	}
	return charges, errs
}

// TestAnUnfinishedRenewalIsRenewedByTheNextPass: a renewal the provider
// could not answer stays due, and the pass gives its lease back, so the
// next pass renews it, once. Nothing is due after that.
func TestAnUnfinishedRenewalIsRenewedByTheNextPass(t *testing.T) {
	t.Parallel()
	db := openBillingDB(t)
	ctx := context.Background()
	seedDue(t, db, 3, 0)
	clock := engine.NewManualClock(renewAt)
	provider := &flakySandbox{Sandbox: NewSandbox(db.sandbox, clock, testWebhookSecret), down: map[string]bool{benchID(1): true}}
	svc := NewService(clock, Options{Store: db.store, Provider: provider})
	st, err := svc.RenewDue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Renewed != 2 || st.Failures != 1 {
		t.Fatalf("first pass %+v, want 2 renewed and 1 failure", st)
	}
	provider.mu.Lock()
	provider.down = nil
	provider.mu.Unlock()
	clock.Advance(time.Minute)
	if st, err := svc.RenewDue(ctx); err != nil || st.Renewed != 1 || st.Due != 1 {
		t.Fatalf("the next pass %+v, %v, want the one renewed", st, err)
	}
	clock.Advance(time.Minute)
	if st, err := svc.RenewDue(ctx); err != nil || st.Due != 0 {
		t.Fatalf("a pass after everything renewed %+v, %v", st, err)
	}
	if c := countRenewals(t, db); c.charges != 3 || c.distinct != 3 || c.renewed != 3 {
		t.Fatalf("counts %+v, want 3 charges for 3 periods", c)
	}
}

// TestALeaseLeftByADeadWorkerLapses: a worker that claimed subscriptions
// and died holds them until its lease lapses; no pass renews them before,
// and the first pass after renews each once.
func TestALeaseLeftByADeadWorkerLapses(t *testing.T) {
	t.Parallel()
	db := openBillingDB(t)
	ctx := context.Background()
	seedDue(t, db, 3, 0)
	clock := engine.NewManualClock(renewAt)
	if claimed, err := db.store.Subscriptions().ClaimDue(ctx, renewAt, "dead worker", renewLease, 2); err != nil || len(claimed) != 2 {
		t.Fatalf("the dead worker claimed %d, %v", len(claimed), err)
	}
	svc := NewService(clock, Options{Store: db.store, Provider: NewSandbox(db.sandbox, clock, testWebhookSecret)})
	if st, err := svc.RenewDue(ctx); err != nil || st.Renewed != 1 || st.Due != 1 {
		t.Fatalf("pass within the lease %+v, %v, want only the unleased one", st, err)
	}
	clock.Advance(renewLease + time.Minute)
	if st, err := svc.RenewDue(ctx); err != nil || st.Renewed != 2 || st.Due != 2 {
		t.Fatalf("pass after the lease %+v, %v, want the two renewed", st, err)
	}
	if st, err := svc.RenewDue(ctx); err != nil || st.Due != 0 {
		t.Fatalf("a pass after everything renewed %+v, %v", st, err)
	}
	if c := countRenewals(t, db); c.charges != 3 || c.distinct != 3 || c.renewed != 3 {
		t.Fatalf("counts %+v, want 3 charges for 3 periods", c)
	}
}

// TestEachDueSubscriptionIsRenewedOncePerPeriod: a pass claims batch after
// batch until nothing is due, renewing each due subscription once; a week
// on, each is due again at the end the renewal wrote.
func TestEachDueSubscriptionIsRenewedOncePerPeriod(t *testing.T) {
	t.Parallel()
	db := openBillingDB(t)
	ctx := context.Background()
	seedDue(t, db, 12, 0)
	clock := engine.NewManualClock(renewAt)
	svc := NewService(clock, Options{Store: db.store, Provider: NewSandbox(db.sandbox, clock, testWebhookSecret)})
	svc.renewal.batch = 5
	if st, err := svc.RenewDue(ctx); err != nil || st.Renewed != 12 || st.Due != 12 {
		t.Fatalf("first pass %+v, %v", st, err)
	}
	clock.Advance(7 * 24 * time.Hour)
	if st, err := svc.RenewDue(ctx); err != nil || st.Renewed != 12 || st.Due != 12 {
		t.Fatalf("a week on %+v, %v", st, err)
	}
	if c := countRenewals(t, db); c.charges != 24 || c.distinct != 24 {
		t.Fatalf("counts %+v, want 24 charges for 24 periods", c)
	}
}

// TestOnlyWhatIsDueIsRenewed: a subscription is renewed once its due time
// has come, however long overdue, and one without a due time (ended) never.
func TestOnlyWhatIsDueIsRenewed(t *testing.T) {
	t.Parallel()
	db := openBillingDB(t)
	ctx := context.Background()
	put := func(i int, due time.Time) {
		t.Helper()
		id := fmt.Sprintf("sub_old_%d", i)
		if err := db.store.Subscriptions().Put(ctx, Subscription{ID: id, Email: id + "@example.com", Brand: "default", PlanCode: "glimpse_weekly_trial",
			Status: StatusActive, MainPlan: true, Price: USD(100), Provider: sandboxName, CurrentPeriodEnd: due, DueAt: due,
			PaymentMethod: PaymentMethod{Provider: sandboxName, ID: "pm_sandbox_ok_" + id, Brand: "visa", Last4: "4242"}}); err != nil {
			t.Fatal(err)
		}
	}
	put(0, renewAt.Add(-time.Hour))
	put(1, renewAt.Add(-30*24*time.Hour)) // long overdue
	put(2, renewAt.Add(time.Hour))
	put(3, time.Time{})
	clock := engine.NewManualClock(renewAt)
	svc := NewService(clock, Options{Store: db.store, Provider: NewSandbox(db.sandbox, clock, testWebhookSecret)})
	if st, err := svc.RenewDue(ctx); err != nil || st.Renewed != 2 || st.Due != 2 {
		t.Fatalf("pass %+v, %v, want sub_old_0 and sub_old_1 renewed", st, err)
	}
	clock.Advance(2 * time.Hour)
	if st, err := svc.RenewDue(ctx); err != nil || st.Renewed != 1 {
		t.Fatalf("pass two hours on %+v, %v, want sub_old_2 renewed", st, err)
	}
}
