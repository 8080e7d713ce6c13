package billing

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine"
	"glimpse/engine/metrics"
)

// TestRenewalPagesAndBatches: with pages of 7 and batches of 3, so that
// pages, batches and claims all split the due set, two passes at once over
// 40 due subscriptions (good cards, declined cards, canceled plans) charge
// each good one exactly once, schedule one retry per declined one, expire
// the canceled ones, write each history line once, and count the outcomes.
func TestRenewalPagesAndBatches(t *testing.T) {
	t.Parallel()
	db := openBillingDB(t)
	ctx := context.Background()
	seedDue(t, db, 40, 1)
	kind := func(i int) string {
		switch i % 5 {
		case 3:
			return "declined"
		case 4:
			return "canceled"
		}
		return "good"
	}
	coll := db.Collection(SubscriptionsCollection)
	for i := range 40 {
		id := fmt.Sprintf("sub_bench_%07d", i)
		var set bson.M
		switch kind(i) {
		case "declined":
			set = bson.M{"paymentMethod.id": "pm_sandbox_offsession_" + id}
		case "canceled":
			set = bson.M{"status": StatusCanceled, "cancelAtPeriodEnd": true}
		default:
			continue
		}
		if _, err := coll.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": set}); err != nil {
			t.Fatal(err)
		}
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total RenewStats
	)
	counted := metrics.NewBusiness(nil)
	var (
		mailsMu sync.Mutex
		mails   = map[string]int{} // receipt mails by address
	)
	notify := func(_ context.Context, n Notice) error {
		if n.Kind == NoticeReceipt {
			t.Errorf("receipt mail %s queued alone, not with its batch", n.Key)
		}
		return nil
	}
	notifyMany := func(_ context.Context, ns []Notice) error {
		mailsMu.Lock()
		defer mailsMu.Unlock()
		for _, n := range ns {
			if n.Kind == NoticeReceipt {
				mails[n.To]++
			}
		}
		return nil
	}
	for range 2 {
		clock := engine.NewManualClock(renewAt)
		svc := NewService(db.Database, clock, Options{Store: db.store, Provider: NewSandbox(db.Database, clock, testWebhookSecret),
			Notify: notify, NotifyMany: notifyMany})
		svc.renewal.batch = 3
		svc.SetMetrics(counted)
		wg.Go(func() {
			st, err := svc.RenewDue(ctx)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			total.add(st)
			mu.Unlock()
		})
	}
	wg.Wait()
	if total.Renewed != 24 || total.Failed != 8 || total.Expired != 8 || total.Failures != 0 || total.Skipped != total.Due-40 {
		t.Fatalf("stats %+v, want 24 renewed, 8 failed, 8 expired between the passes", total)
	}
	c := countRenewals(t, db)
	if c.charges != 24 || c.distinct != 24 || c.renewed != 32 {
		// renewed counts due times moved past renewAt: the 24 renewals and
		// the 8 retries scheduled a day later.
		t.Fatalf("counts %+v, want 24 charges for 24 periods and 32 due times moved on", c)
	}
	for i := range 40 {
		id := fmt.Sprintf("sub_bench_%07d", i)
		var sub Subscription
		if err := coll.FindOne(ctx, bson.M{"_id": id}).Decode(&sub); err != nil {
			t.Fatal(err)
		}
		end := renewAt.Add(-time.Hour)
		hist, err := db.Collection(historyCollection).CountDocuments(ctx, bson.M{"subscriptionId": id})
		if err != nil {
			t.Fatal(err)
		}
		switch kind(i) {
		case "good":
			if sub.Status != StatusActive || !sub.CurrentPeriodStart.Equal(end) || !sub.DueAt.Equal(end.AddDate(0, 0, 7)) {
				t.Errorf("%s renewed as %+v", id, sub)
			}
		case "declined":
			if sub.Status != StatusActive || sub.FailedAttempts != 1 || !sub.DueAt.Equal(end.Add(24*time.Hour)) {
				t.Errorf("%s after a declined renewal: %+v", id, sub)
			}
		case "canceled":
			if sub.Status != StatusExpired || !sub.DueAt.IsZero() {
				t.Errorf("%s after its canceled period: %+v", id, sub)
			}
		}
		if hist != 1 {
			t.Errorf("%s has %d history lines, want 1", id, hist)
		}
		// One receipt (issued in the batch's one insert) and one receipt mail per renewal.
		issued, err := db.store.Receipts().OfSubscriptions(ctx, []string{id})
		if err != nil {
			t.Fatal(err)
		}
		receipts := int64(len(issued))
		want := 0
		if kind(i) == "good" {
			want = 1
		}
		if receipts != int64(want) || mails[sub.Email] != want {
			t.Errorf("%s (%s) has %d receipts and %d receipt mails, want %d of each", id, kind(i), receipts, mails[sub.Email], want)
		}
	}
	reg, err := metrics.NewRegistry("test", counted)
	if err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "glimpse_renewals_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			got[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
		}
	}
	if got["renewed"] != 24 || got["payment_failed"] != 8 || got["expired"] != 8 || got["error"] != 0 {
		t.Errorf("glimpse_renewals_total %v", got)
	}
}

// TestChargeManyAnswersLikeCharge: the sandbox's batch answers each key as
// a charge of its own would: a new key is charged, a key charged before
// returns its first charge, a declined card is declined, a key reused for
// another amount is refused.
func TestChargeManyAnswersLikeCharge(t *testing.T) {
	t.Parallel()
	db := openBillingDB(t)
	ctx := context.Background()
	clock := engine.NewManualClock(renewAt)
	sb := NewSandbox(db.Database, clock, testWebhookSecret)
	ok := PaymentMethod{Provider: sandboxName, ID: "pm_sandbox_ok_1"}
	first, err := sb.Charge(ctx, ChargeRequest{Key: "k-before", Method: ok, Amount: USD(100)})
	if err != nil {
		t.Fatal(err)
	}
	charges, errs := sb.ChargeMany(ctx, []ChargeRequest{
		{Key: "k-new", Method: ok, Amount: USD(100)},
		{Key: "k-before", Method: ok, Amount: USD(100)},
		{Key: "k-declined", Method: PaymentMethod{Provider: sandboxName, ID: "pm_sandbox_decline_2"}, Amount: USD(100)},
		{Key: "k-before", Method: ok, Amount: USD(999)},
		{Key: "", Method: ok, Amount: USD(100)},
	})
	if errs[0] != nil || charges[0].Status != "succeeded" || charges[0].ID != "k-new" {
		t.Errorf("new key: %+v, %v", charges[0], errs[0])
	}
	if errs[1] != nil || charges[1].Reference != first.Reference {
		t.Errorf("key charged before: %+v, %v; want the first charge %s", charges[1], errs[1], first.Reference)
	}
	if !errors.Is(errs[2], ErrCardDeclined) || charges[2].Status != "failed" {
		t.Errorf("declined card: %+v, %v", charges[2], errs[2])
	}
	if !errors.Is(errs[3], ErrIdempotencyMismatch) {
		t.Errorf("key reused for another amount: %v", errs[3])
	}
	if errs[4] == nil {
		t.Error("a charge without a key was taken")
	}
	n, err := db.Collection(sandboxCollection).CountDocuments(ctx, bson.M{"status": "succeeded"})
	if err != nil || n != 2 {
		t.Fatalf("%d succeeded charges stored (%v), want 2", n, err)
	}
}

// TestRenewalFilesAtTheSubscriptionsBounds: the pass files a renewal's
// charge and history line in the slots the subscription's bounds name and
// moves the bounds past them, so the next renewal reads no earlier slot;
// a bound another writer left behind (a line filed since) or one never
// kept (an older subscription) still ends with every slot taken once, no
// gap, and the bound at the next free slot.
func TestRenewalFilesAtTheSubscriptionsBounds(t *testing.T) {
	t.Parallel()
	db := openBillingDB(t)
	ctx := context.Background()
	seedDue(t, db, 3, 2)
	subs := db.Collection(SubscriptionsCollection)
	const (
		kept  = "sub_bench_0000000" // bounds 2, two slots of each
		stale = "sub_bench_0000001" // a third slot of each filed by another writer since
		none  = "sub_bench_0000002" // no bounds kept yet
	)
	if _, err := db.Collection(filingsCollection).InsertMany(ctx, []any{
		ChargeFiling(stale, 2, "plan-change:"+stale), HistoryFiling(stale, 2, stale+"/plan-change"),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := subs.UpdateOne(ctx, bson.M{"_id": none}, bson.M{"$unset": bson.M{"filedCharges": "", "filedHistory": ""}}); err != nil {
		t.Fatal(err)
	}
	clock := engine.NewManualClock(renewAt)
	svc := NewService(db.Database, clock, Options{Store: db.store, Provider: NewSandbox(db.Database, clock, testWebhookSecret)})
	renew := func() {
		t.Helper()
		if st, err := svc.RenewDue(ctx); err != nil || st.Renewed == 0 || st.Failures != 0 {
			t.Fatalf("RenewDue: %+v, %v", st, err)
		}
	}
	// slots reads every slot of a list from 0 to the first missing one.
	slots := func(kind, owner string) []string {
		t.Helper()
		refs, err := filedSlots(ctx, db.Database, kind, owner)
		if err != nil {
			t.Fatal(err)
		}
		return refs
	}
	check := func(id string, wantSlots int, line string) {
		t.Helper()
		var sub Subscription
		if err := subs.FindOne(ctx, bson.M{"_id": id}).Decode(&sub); err != nil {
			t.Fatal(err)
		}
		charges, history := slots(filedCharges, id), slots(filedHistory, id)
		if len(charges) != wantSlots || len(history) != wantSlots {
			t.Errorf("%s: %d charge and %d history slots, want %d of each: %v %v", id, len(charges), len(history), wantSlots, charges, history)
		}
		if sub.FiledCharges != len(charges) || sub.FiledHistory != len(history) {
			t.Errorf("%s: bounds %d and %d, want the next free slots %d and %d", id, sub.FiledCharges, sub.FiledHistory, len(charges), len(history))
		}
		if len(history) == 0 || history[len(history)-1] != line {
			t.Errorf("%s: last history slot %v, want %s", id, history, line)
		}
		lines, err := svc.History(ctx, id)
		if err != nil || len(lines) == 0 || lines[len(lines)-1].ID != line {
			t.Errorf("%s: History %v (%v), want it to end with %s", id, lines, err, line)
		}
	}
	period := func(at time.Time) string { return strconv.FormatInt(at.Unix(), 10) }
	firstEnd := renewAt.Add(-time.Hour)
	renew()
	check(kept, 3, kept+"/renewed:"+period(firstEnd))
	check(stale, 4, stale+"/renewed:"+period(firstEnd))
	check(none, 3, none+"/renewed:"+period(firstEnd))

	// A week on, each renews again in the slot its bound names.
	clock.Set(renewAt.AddDate(0, 0, 7))
	renew()
	secondEnd := firstEnd.AddDate(0, 0, 7)
	check(kept, 4, kept+"/renewed:"+period(secondEnd))
	check(stale, 5, stale+"/renewed:"+period(secondEnd))
	check(none, 4, none+"/renewed:"+period(secondEnd))
}
