package billing

import (
	"context"
	"errors"
	"slices"
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
	for i := range 40 {
		id := benchID(i)
		switch kind(i) {
		case "declined":
			editSub(t, db.store, id, func(s *Subscription) { s.PaymentMethod.ID = "pm_sandbox_offsession_" + id })
		case "canceled":
			editSub(t, db.store, id, func(s *Subscription) { s.Status, s.CancelAtPeriodEnd = StatusCanceled, true })
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
		svc := NewService(clock, Options{Store: db.store, Provider: NewSandbox(db.sandbox, clock, testWebhookSecret),
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
		id := benchID(i)
		sub, err := db.store.Subscriptions().Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		end := renewAt.Add(-time.Hour)
		lines, err := db.store.Subscriptions().History(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		hist := len(lines) - 1 // the one seeded
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
	sb := NewSandbox(db.sandbox, clock, testWebhookSecret)
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
	n, err := countRows(db.st, "sandbox_charges", succeededSandboxCharges, succeededSandboxFilter)
	if err != nil || n != 2 {
		t.Fatalf("%d succeeded charges stored (%v), want 2", n, err)
	}
}

// TestACancelDuringTheRenewalPassIsNeverRenewedOver: subscribers cancel
// while the pass renews them, one batch of one at a time. Whichever comes
// first, no cancel is lost: a plan renewed before its cancel is canceled
// at the end of the period just paid; one canceled after the pass claimed
// it is not renewed, and the charge the pass made is given back; one
// canceled before is ended at its period end, uncharged. (Sleeps stagger
// the cancels over the pass, so the orders mix; the invariants hold for
// each order whatever the mix.)
func TestACancelDuringTheRenewalPassIsNeverRenewedOver(t *testing.T) {
	t.Parallel()
	db := openBillingDB(t)
	ctx := context.Background()
	const n = 24
	seedDue(t, db, n, 0)
	clock := engine.NewManualClock(renewAt)
	provider := NewSandbox(db.sandbox, clock, testWebhookSecret)
	// The refund mails the pass sends, by address: a charge given back is
	// a promise to the person, kept in writing.
	var refundMailsMu sync.Mutex
	refundMails := map[string]int{}
	notify := func(_ context.Context, n Notice) error {
		if n.Kind == NoticeRefunded {
			refundMailsMu.Lock()
			refundMails[n.To]++
			refundMailsMu.Unlock()
		}
		return nil
	}
	pass := NewService(clock, Options{Store: db.store, Provider: provider, Notify: notify})
	pass.renewal.batch, pass.renewal.batchesInFlight = 1, 1
	desk := NewService(clock, Options{Store: db.store, Provider: provider})
	var wg sync.WaitGroup
	wg.Go(func() {
		if _, err := pass.RenewDue(ctx); err != nil {
			t.Error(err)
		}
	})
	for i := range n {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * 10 * time.Millisecond)
			if _, err := desk.Cancel(ctx, benchID(i), "user"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	end := renewAt.Add(-time.Hour)
	var renewedFirst, voided, before int
	for i := range n {
		id := benchID(i)
		sub, err := db.store.Subscriptions().Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		h, err := desk.History(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, c := range h {
			kinds = append(kinds, c.Kind)
		}
		key := "renew:" + id + ":" + strconv.FormatInt(end.Unix(), 10) + ":0"
		refunds, err := desk.RefundsOf(ctx, ChargeIDOf(key))
		if err != nil {
			t.Fatal(err)
		}
		took, err := countRows(db.st, "sandbox_charges", "key = ?", bson.M{"key": key}, key)
		if err != nil {
			t.Fatal(err)
		}
		charged := took == 1
		// Lines of one instant are in id order: compare as sets.
		slices.Sort(kinds)
		switch {
		case slices.Contains(kinds, ChangeRenewed):
			renewedFirst++
			if !slices.Equal(kinds, []string{ChangeCanceled, ChangeRenewed}) || sub.Status != StatusCanceled ||
				!sub.ExpiresAt.Equal(end.AddDate(0, 0, 7)) || len(refunds) != 0 || refundMails[sub.Email] != 0 {
				t.Errorf("%s renewed, then canceled: %v, %+v, %d refunds", id, kinds, sub, len(refunds))
			}
		case charged:
			// Canceled after the claim: the renewal was refused and its
			// charge given back; the plan ends at its period end (now past,
			// so the pass may have ended it already).
			voided++
			if !slices.Contains(kinds, ChangeCanceled) || !slices.Contains(kinds, ChangeRefunded) || len(refunds) != 1 ||
				(sub.Status != StatusCanceled && sub.Status != StatusExpired) {
				t.Errorf("%s canceled after its claim: %v, %+v, %d refunds of its charge, want 1", id, kinds, sub, len(refunds))
			}
			if refundMails[sub.Email] != 1 {
				t.Errorf("%s canceled after its claim: %d refund mails to %s, want 1", id, refundMails[sub.Email], sub.Email)
			}
		default:
			before++
			if !slices.Equal(kinds, []string{ChangeCanceled, ChangeExpired}) || sub.Status != StatusExpired {
				t.Errorf("%s canceled before its claim: %v, %+v", id, kinds, sub)
			}
		}
	}
	t.Logf("renewed then canceled %d, canceled after the claim %d, canceled before %d", renewedFirst, voided, before)
}
