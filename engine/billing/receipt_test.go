package billing

import (
	"context"
	"errors"
	"regexp"
	"sync"
	"testing"
	"time"
)

// receiptsOf returns every receipt of the subscriptions.
func (f fixture) receiptsOf(t *testing.T, subIDs ...string) []Receipt {
	t.Helper()
	out, err := f.svc.st.Receipts().OfSubscriptions(context.Background(), subIDs)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (l *noticeLog) ofKind(kind string) []Notice {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Notice
	for _, n := range l.list {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

var receiptNumberPattern = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$`)

// A charge gets one receipt, whoever issues it and however many times at
// once: the number is the receipt's _id, taken with a unique insert, and
// the first issuer's receipt is the one every caller gets back.
func TestReceiptIssuedOncePerCharge(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	const callers = 12
	numbers := make([]Receipt, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := f.svc.issueReceipt(ctx, Receipt{ChargeID: "purchase:u1:course", SubscriptionID: "add_1",
				Email: "ann@example.com", Brand: "default", Kind: ReceiptAddOn, PlanCode: "pdf_course", Amount: USD(1999),
				CardBrand: "visa", CardLast4: "4242", PaidAt: start.Add(time.Duration(i) * time.Second)})
			if err != nil {
				t.Error(err)
			}
			numbers[i] = r
		}()
	}
	wg.Wait()
	for _, r := range numbers[1:] {
		if r.Number != numbers[0].Number || !r.PaidAt.Equal(numbers[0].PaidAt) {
			t.Fatalf("callers got different receipts: %+v and %+v", numbers[0], r)
		}
	}
	if all := f.receiptsOf(t, "add_1"); len(all) != 1 {
		t.Fatalf("%d receipts for one charge", len(all))
	}
	if !receiptNumberPattern.MatchString(numbers[0].Number) {
		t.Fatalf("receipt number %q", numbers[0].Number)
	}
	// Every mail asked for carries the same key, so the outbox sends one.
	for _, n := range f.notices.ofKind(NoticeReceipt) {
		if n.Key != "receipt:"+numbers[0].Number {
			t.Fatalf("receipt mail key %q", n.Key)
		}
	}
	got, err := f.svc.ReceiptOfCharge(ctx, "purchase:u1:course")
	if err != nil || got.Number != numbers[0].Number {
		t.Fatalf("ReceiptOfCharge = %+v, %v", got, err)
	}
	if _, err := f.svc.ReceiptOfCharge(ctx, "purchase:u1:other"); !errors.Is(err, ErrNoReceipt) {
		t.Fatalf("a charge with no receipt: %v", err)
	}
	// Numbers are distinct across charges and stable for one.
	if receiptNumber("a", 0) == receiptNumber("b", 0) || receiptNumber("a", 0) == receiptNumber("a", 1) {
		t.Fatal("receipt numbers are not distinct per charge")
	}
	// Stable across versions: a number once mailed must keep finding its
	// receipt, so the derivation is pinned.
	if numbers[0].Number != "PNAN-1HVA-K0YE" {
		t.Fatalf("receipt number %s, want the pinned PNAN-1HVA-K0YE", numbers[0].Number)
	}
}

// A batch of receipts (a renewal pass's) is one insert; a receipt issued
// before for one of its charges stands as it was, and the rest are issued,
// each once, with one mail each, also when two batches run at once.
func TestReceiptsIssuedInABatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	receipt := func(key string) Receipt {
		return Receipt{ChargeID: key, SubscriptionID: "sub_" + key, Email: "ann@example.com", Brand: "default",
			Kind: ReceiptRenewal, PlanCode: "glimpse_weekly", Amount: USD(2899), CardBrand: "visa", CardLast4: "4242", PaidAt: start}
	}
	before, err := f.svc.issueReceipt(ctx, receipt("renew:b"))
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"renew:a", "renew:b", "renew:c", "renew:d"}
	var wg sync.WaitGroup
	for range 2 {
		batch := make([]Receipt, len(keys))
		for i, k := range keys {
			batch[i] = receipt(k)
		}
		wg.Go(func() { f.svc.issueReceipts(ctx, batch) })
	}
	wg.Wait()
	var subIDs []string
	for _, k := range keys {
		subIDs = append(subIDs, receipt(k).SubscriptionID)
	}
	all := f.receiptsOf(t, subIDs...)
	if len(all) != len(keys) {
		t.Fatalf("%d receipts for %d charges", len(all), len(keys))
	}
	for _, k := range keys {
		r, err := f.svc.ReceiptOfCharge(ctx, k)
		if err != nil {
			t.Fatalf("receipt of %s: %v", k, err)
		}
		if k == "renew:b" && r.Number != before.Number {
			t.Fatalf("the receipt issued before became %s, want %s", r.Number, before.Number)
		}
	}
	mailed := map[string]bool{}
	for _, n := range f.notices.ofKind(NoticeReceipt) {
		mailed[n.Key] = true
	}
	if len(mailed) != len(keys) {
		t.Fatalf("receipt mails under %d keys, want one key per charge (%d): %v", len(mailed), len(keys), mailed)
	}
}

// Every successful charge has a receipt with what it bought, the card and
// the amount: the first purchase, an add-on, a renewal, a plan change.
// Billing history lists every charge with its status, failed ones too, and
// a refund shows as refunded on the line and the receipt.
func TestReceiptsAndBillingHistory(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	main := f.buy(t, FamilyWeekly, TestCardSucceeds, "hist")
	if err := f.svc.Finalize(ctx, main.ID, "u1"); err != nil {
		t.Fatal(err)
	}
	main, _ = f.svc.Subscription(ctx, main.ID)
	f.clock.Advance(time.Hour)
	bought, err := f.svc.BuyAddOn(ctx, PurchaseRequest{UserID: "u1", Email: main.Email, Main: main, Family: FamilyProfileReport})
	if err != nil {
		t.Fatal(err)
	}
	if bought.Kind != ReceiptAddOn || bought.Family() != FamilyProfileReport || bought.Card() != "Visa ••4242" ||
		bought.Amount.String() != "$28.99" {
		t.Fatalf("add-on receipt %+v", bought)
	}
	// A second tap answers the same receipt.
	again, err := f.svc.BuyAddOn(ctx, PurchaseRequest{UserID: "u1", Email: main.Email, Main: main, Family: FamilyProfileReport})
	if !errors.Is(err, ErrAlreadyOwned) || again.Number != bought.Number {
		t.Fatalf("second tap: %+v, %v", again, err)
	}
	// The weekly plan renews into the premium plan the subscriber changed to.
	premium, err := f.svc.Catalogue().Find("default", FamilyPremiumOneMonth)
	if err != nil {
		t.Fatal(err)
	}
	editSub(t, f.svc.st, main.ID, func(s *Subscription) { s.NextPlanCode = premium.Code })
	f.clock.Set(main.CurrentPeriodEnd)
	if _, err := f.svc.RenewDue(ctx); err != nil {
		t.Fatal(err)
	}
	receipts := f.receiptsOf(t, main.ID, bought.SubscriptionID)
	kinds := map[string]Receipt{}
	for _, r := range receipts {
		kinds[r.Kind] = r
	}
	if len(receipts) != 3 || kinds[ReceiptPurchase].PlanCode != main.PlanCode || kinds[ReceiptPlanChange].PlanCode != premium.Code ||
		kinds[ReceiptPlanChange].Amount != premium.Price {
		t.Fatalf("receipts %+v", receipts)
	}
	mails := f.notices.ofKind(NoticeReceipt)
	if len(mails) != 3 {
		t.Fatalf("%d receipt mails, want one per charge", len(mails))
	}
	for _, m := range mails {
		if m.Data["card"] != "Visa ••4242" || m.Data["number"] == "" || m.To != "ann@example.com" {
			t.Fatalf("receipt mail %+v", m)
		}
	}
	// The next renewal fails (the card now declines off-session).
	editSub(t, f.svc.st, main.ID, func(s *Subscription) { s.PaymentMethod.ID = "pm_sandbox_decline_x" })
	renewed, _ := f.svc.Subscription(ctx, main.ID)
	f.clock.Set(renewed.CurrentPeriodEnd)
	if _, err := f.svc.RenewDue(ctx); err != nil {
		t.Fatal(err)
	}
	// The add-on is refunded.
	boughtCharge, err := f.svc.Charge(ctx, bought.ChargeID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.ApplyChargeEvent(ctx, boughtCharge.Key, "evt_1", ChargeRefunded, f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	lines, err := f.svc.BillingHistory(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ plan, family, status, amount string }
	var got []row
	for _, l := range lines {
		got = append(got, row{l.PlanCode, l.Family, l.Status, l.Amount.String()})
		if (l.Status == HistoryFailed) != (l.Receipt == "") {
			t.Errorf("line %+v: a receipt exactly for the charges that did not fail", l)
		}
	}
	want := []row{
		{premium.Code, "", HistoryFailed, premium.Price.String()},
		{premium.Code, "", HistoryPaid, premium.Price.String()},
		{bought.PlanCode, FamilyProfileReport, HistoryRefunded, "$28.99"},
		{main.PlanCode, "", HistoryPaid, main.Price.String()},
	}
	if len(got) != len(want) {
		t.Fatalf("history %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	// The receipt page reads the refund; it is the owner's alone.
	view, err := f.svc.ReceiptForUser(ctx, "u1", bought.Number)
	if err != nil || view.Status != HistoryRefunded {
		t.Fatalf("receipt view %+v, %v", view, err)
	}
	if _, err := f.svc.ReceiptForUser(ctx, "u2", bought.Number); !errors.Is(err, ErrNoReceipt) {
		t.Fatalf("another user's receipt: %v", err)
	}
	if _, err := f.svc.ReceiptForUser(ctx, "u1", "NOPE-NOPE-NOPE"); !errors.Is(err, ErrNoReceipt) {
		t.Fatalf("an unknown receipt: %v", err)
	}
}

// A declined charge issues no receipt.
func TestDeclinedChargeHasNoReceipt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	main := f.buy(t, FamilyWeekly, TestCardFailsOnRenewal, "declined")
	if err := f.svc.Finalize(ctx, main.ID, "u1"); err != nil {
		t.Fatal(err)
	}
	main, _ = f.svc.Subscription(ctx, main.ID)
	if _, err := f.svc.BuyAddOn(ctx, PurchaseRequest{UserID: "u1", Email: main.Email, Main: main, Family: FamilyPDFCourse}); !errors.Is(err, ErrCardDeclined) {
		t.Fatalf("declined add-on: %v", err)
	}
	subs, err := f.svc.ForUser(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	var subIDs []string
	for _, s := range subs {
		subIDs = append(subIDs, s.ID)
	}
	if n := len(f.receiptsOf(t, subIDs...)); n != 1 {
		t.Fatalf("%d receipts, want the checkout's only", n)
	}
}
