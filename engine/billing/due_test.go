package billing

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine"
	"glimpse/engine/store"
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

// TestAnUnfinishedRenewalIsFiledAgain: a renewal the provider could not
// answer stays due; the pass files it again under its now, so that once
// its minute's bucket is settled (after the grace) and its claim swept, a
// later pass renews it, once. Nothing is left in the schedule's past.
func TestAnUnfinishedRenewalIsFiledAgain(t *testing.T) {
	t.Parallel()
	db := openBillingDB(t)
	ctx := context.Background()
	seedDue(t, db, 3, 0)
	clock := engine.NewManualClock(renewAt)
	provider := &flakySandbox{Sandbox: NewSandbox(db.Database, clock, testWebhookSecret), down: map[string]bool{"sub_bench_0000001": true}}
	svc := NewService(db.Database, clock, Options{Store: db.store, Provider: provider})
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
	// Its claim holds it for the lease; the sweeper then frees it.
	clock.Advance(renewLease + time.Minute)
	if st, err := svc.RenewDue(ctx); err != nil || st.Renewed != 0 || st.Skipped != 1 {
		t.Fatalf("pass within the lease %+v, %v, want the one skipped", st, err)
	}
	if _, err := store.NewClaims(db.Database).Sweep(ctx, clock.Now()); err != nil {
		t.Fatal(err)
	}
	clock.Advance(store.ScheduleGrace + time.Minute)
	if st, err := svc.RenewDue(ctx); err != nil || st.Renewed != 1 || st.Due != 1 {
		t.Fatalf("pass after the lease %+v, %v, want the one renewed", st, err)
	}
	clock.Advance(store.ScheduleGrace + time.Minute)
	if st, err := svc.RenewDue(ctx); err != nil || st.Due != 0 {
		t.Fatalf("a pass after everything renewed %+v, %v", st, err)
	}
	if c := countRenewals(t, db); c.charges != 3 || c.distinct != 3 {
		t.Fatalf("counts %+v, want 3 charges for 3 periods", c)
	}
	// What is left in the schedule is the next week's: every bucket up to
	// the grace before now went.
	cur, err := db.Collection(renewalScheduleCollection).Find(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID      string                `bson:"_id"`
		Entries []store.ScheduleEntry `bson:"e"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		for _, e := range d.Entries {
			if !e.At.After(clock.Now()) {
				t.Errorf("slot %s still holds %s due %v, before now %v", d.ID, e.Ref, e.At, clock.Now())
			}
		}
	}
}

// TestRenewalReadsByScheduleOrByScan: over a fifth of the subscriptions due
// (and more than the floor), the pass reads them in one scan; otherwise it
// reads what the schedule names by _id. Either way each due subscription
// is renewed once, and its next week is filed.
func TestRenewalReadsByScheduleOrByScan(t *testing.T) {
	t.Parallel()
	db := openBillingDB(t)
	ctx := context.Background()
	seedDue(t, db, 12, 0)
	clock := engine.NewManualClock(renewAt)
	svc := NewService(db.Database, clock, Options{Store: db.store, Provider: NewSandbox(db.Database, clock, testWebhookSecret)})
	svc.renewal.scanFloor = 5
	if !svc.scanCheaper(ctx, 12) || svc.scanCheaper(ctx, 2) {
		t.Fatal("12 of 12 due should be read by a scan, 2 by _id")
	}
	if st, err := svc.RenewDue(ctx); err != nil || st.Renewed != 12 {
		t.Fatalf("scanning pass %+v, %v", st, err)
	}
	// A week on, each is due again from the entry the renewal filed.
	clock.Advance(7 * 24 * time.Hour)
	svc.renewal.scanFloor = 1000
	if st, err := svc.RenewDue(ctx); err != nil || st.Renewed != 12 || st.Due != 12 {
		t.Fatalf("pass by _id %+v, %v", st, err)
	}
	if c := countRenewals(t, db); c.charges != 24 || c.distinct != 24 {
		t.Fatalf("counts %+v, want 24 charges for 24 periods", c)
	}
}

// TestExistingSubscriptionsAreScheduledOnce: subscriptions stored before
// the renewal schedule existed are filed in it at start, once per database;
// one without a due time (ended) is not.
func TestExistingSubscriptionsAreScheduledOnce(t *testing.T) {
	t.Parallel()
	db := openBillingDB(t)
	ctx := context.Background()
	coll := db.Collection(SubscriptionsCollection)
	put := func(i int, due time.Time) {
		t.Helper()
		id := fmt.Sprintf("sub_old_%d", i)
		if _, err := coll.InsertOne(ctx, Subscription{ID: id, Email: id + "@example.com", Brand: "default", PlanCode: "glimpse_weekly_trial",
			Status: StatusActive, MainPlan: true, Price: USD(100), Provider: sandboxName, CurrentPeriodEnd: due, DueAt: due,
			PaymentMethod: PaymentMethod{Provider: sandboxName, ID: "pm_sandbox_ok_" + id, Brand: "visa", Last4: "4242"}}); err != nil {
			t.Fatal(err)
		}
	}
	put(0, renewAt.Add(-time.Hour))
	put(1, renewAt.Add(-30*24*time.Hour)) // long overdue: filed under now
	put(2, renewAt.Add(time.Hour))
	put(3, time.Time{})
	if err := FileExistingRenewals(ctx, db.Database, "settings", renewAt); err != nil {
		t.Fatal(err)
	}
	put(4, renewAt.Add(-time.Hour)) // written after: an app files its own
	if err := FileExistingRenewals(ctx, db.Database, "settings", renewAt); err != nil {
		t.Fatal(err)
	}
	clock := engine.NewManualClock(renewAt)
	svc := NewService(db.Database, clock, Options{Store: db.store, Provider: NewSandbox(db.Database, clock, testWebhookSecret)})
	if st, err := svc.RenewDue(ctx); err != nil || st.Renewed != 2 || st.Due != 2 {
		t.Fatalf("pass %+v, %v, want sub_old_0 and sub_old_1 renewed", st, err)
	}
	clock.Advance(2 * time.Hour)
	if st, err := svc.RenewDue(ctx); err != nil || st.Renewed != 1 {
		t.Fatalf("pass two hours on %+v, %v, want sub_old_2 renewed", st, err)
	}
}
