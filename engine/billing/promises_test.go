package billing

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// noticesOf returns the notices of a kind sent so far, in order.
func (l *noticeLog) noticesOf(kind string) []Notice {
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

// distinctKeys counts the mails notices make: the outbox sends a key once.
func distinctKeys(ns []Notice) int {
	keys := map[string]bool{}
	for _, n := range ns {
		keys[n.Key] = true
	}
	return len(keys)
}

// Each cancel is a mail of its own: cancel, resume and cancel again is two
// cancellation mails and one resume mail. Cancels (and resumes) sent
// together are one event each, so one mail each.
func TestEveryCancelIsConfirmedByMail(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buy(t, FamilyWeekly, TestCardSucceeds, "cancel-twice")
	together := func(do func() error) {
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				if err := do(); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	together(func() error { _, err := f.svc.Cancel(ctx, sub.ID, "user:u1"); return err })
	if n := distinctKeys(f.notices.noticesOf(NoticeCanceled)); n != 1 {
		t.Fatalf("one cancel sent four times together: %d mails", n)
	}
	f.clock.Advance(1)
	together(func() error { _, err := f.svc.Resume(ctx, sub.ID, "user:u1"); return err })
	if n := distinctKeys(f.notices.noticesOf(NoticeResumed)); n != 1 {
		t.Fatalf("one resume sent four times together: %d mails", n)
	}
	f.clock.Advance(1)
	if _, err := f.svc.Cancel(ctx, sub.ID, "user:u1"); err != nil {
		t.Fatal(err)
	}
	if n := distinctKeys(f.notices.noticesOf(NoticeCanceled)); n != 2 {
		t.Fatalf("cancel, resume, cancel: %d cancellation mails, want 2", n)
	}
	h, err := f.svc.History(ctx, sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{}
	for _, c := range h {
		if c.Kind == ChangeCanceled || c.Kind == ChangeResumed {
			kinds = append(kinds, c.Kind)
		}
	}
	if len(kinds) != 3 {
		t.Fatalf("history: %v, want canceled, resumed, canceled", kinds)
	}
}

// A cancel drops the plan change scheduled for the renewal it stops, and its
// mail says so; a resume brings back the plan as it runs, says at what price
// and from when, and brings back no change silently.
func TestCancelAndResumeSayWhatHappensToAScheduledChange(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buy(t, FamilyWeekly, TestCardSucceeds, "cancel-change")
	sale, err := f.svc.Catalogue().SaleOf("default", FamilyPremiumOneMonth)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.ChangePlanAtRenewal(ctx, sub.ID, sale.Code, "offer-1", "user:u1"); err != nil {
		t.Fatal(err)
	}
	changed := f.notices.noticesOf(NoticePlanChange)
	if len(changed) != 1 || changed[0].Data["price"] != sale.Price.String() || changed[0].Data["date"] == "" {
		t.Fatalf("the plan change's mail: %+v", changed)
	}
	canceled, err := f.svc.Cancel(ctx, sub.ID, "user:u1")
	if err != nil || canceled.NextPlanCode != "" {
		t.Fatalf("canceled: next plan %q, %v", canceled.NextPlanCode, err)
	}
	if stored, _ := f.svc.Subscription(ctx, sub.ID); stored.NextPlanCode != "" {
		t.Fatalf("a canceled plan keeps its scheduled change %q", stored.NextPlanCode)
	}
	mails := f.notices.noticesOf(NoticeCanceled)
	if len(mails) != 1 || mails[0].Data["dropped"] != Describe(sale.Code).Name {
		t.Fatalf("the cancel's mail does not name the dropped change: %+v", mails)
	}
	resumed, err := f.svc.Resume(ctx, sub.ID, "user:u1")
	if err != nil || resumed.NextPlanCode != "" || resumed.Status != StatusActive {
		t.Fatalf("resumed: %+v, %v", resumed, err)
	}
	back := f.notices.noticesOf(NoticeResumed)
	if len(back) != 1 || back[0].Data["price"] != sub.Price.String() || back[0].Data["plan"] != Describe(sub.PlanCode).Name ||
		back[0].Data["date"] == "" || back[0].Data["period"] == "" {
		t.Fatalf("the resume's mail: %+v", back)
	}
}

// Every change to a plan's money or term is mailed: a free month, a desk's
// extension, a new card, and each refund (what it ends, in full; nothing, in
// part). The welcome mail names the plan, its price, period and renewal.
func TestEveryChangeToAPlanSendsAMail(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buy(t, FamilyWeekly, TestCardSucceeds, "every-change")
	welcome := f.notices.noticesOf(NoticePurchase)
	if len(welcome) != 1 || welcome[0].Data["period"] == "" || welcome[0].Data["renewDate"] == "" || welcome[0].Data["price"] == "" {
		t.Fatalf("the welcome mail: %+v", welcome)
	}
	if _, err := f.svc.AddFreeMonth(ctx, sub.ID, "offer", "user:u1"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.AddFreeMonth(ctx, sub.ID, "offer", "user:u1"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Extend(ctx, sub.ID, 3, "desk-1", "staff:s"); err != nil {
		t.Fatal(err)
	}
	if n := distinctKeys(f.notices.noticesOf(NoticeExtended)); n != 2 {
		t.Fatalf("a free month (asked twice) and an extension: %d mails", n)
	}
	if err := f.svc.setCard(ctx, sub.ID, PaymentMethod{Provider: sandboxName, ID: "pm_new", Brand: "mastercard", Last4: "4444"}, "user:u1"); err != nil {
		t.Fatal(err)
	}
	if cards := f.notices.noticesOf(NoticeCardUpdated); len(cards) != 1 || cards[0].Data["card"] == "" {
		t.Fatalf("the card update's mail: %+v", cards)
	}
	addOn, ch := f.withAddOn(t)
	if _, err := f.svc.Refund(ctx, RefundRequest{ChargeID: ch.ID, Amount: ch.Amount.Amount / 2, Reason: "Goodwill", By: "staff:s", Key: "part"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Refund(ctx, RefundRequest{ChargeID: ch.ID, Amount: ch.Amount.Amount - ch.Amount.Amount/2, Reason: "Mistake", By: "staff:s", Key: "rest"}); err != nil {
		t.Fatal(err)
	}
	refunds := f.notices.noticesOf(NoticeRefunded)
	if len(refunds) != 2 || refunds[0].Data["ends"] != "" || refunds[1].Data["ends"] != "add_on" ||
		refunds[1].Data["family"] != FamilyOf(addOn.PlanCode) || refunds[0].Data["amount"] == "" || refunds[0].To != addOn.Email {
		t.Fatalf("the refunds' mails: %+v", refunds)
	}
	// Billing history shows what was given back, and when.
	lines, err := f.svc.BillingHistory(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	shown := false
	for _, l := range lines {
		if l.Family == FamilyOf(addOn.PlanCode) {
			shown = l.Refunded == ch.Amount && l.RefundedAt.Equal(f.clock.Now())
		}
	}
	if !shown {
		t.Fatalf("billing history does not show the refund: %+v", lines)
	}
}

// An address with a running plan is sent to sign in, not to a second page.
// Pages opened before the first was paid (two tabs), paid and settled
// together: one is the plan, the other is refunded in full at once, ends
// nothing, is filed under the plan and mailed.
func TestAnAddressWithAPlanPaysForOnePlan(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	const tabs = 3
	var orders []Order
	var sessions []map[string]any
	for i := range tabs {
		o, session := f.paidOnSandbox(t, f.start(t, FamilyWeekly, fmt.Sprintf("tab-%d", i)))
		orders, sessions = append(orders, o), append(sessions, session)
	}
	var wg sync.WaitGroup
	for i := range tabs {
		wg.Go(func() {
			if _, err := f.deliver(t, fmt.Sprintf("evt_tab_%d", i), "checkout.session.completed", f.clock.Now(), sessions[i]); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var plans, refunded []Order
	for _, o := range orders {
		got, err := f.svc.Order(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		switch got.Status {
		case OrderPaid:
			plans = append(plans, got)
		case OrderRefunded:
			refunded = append(refunded, got)
		default:
			t.Fatalf("order %s is %s", got.ID, got.Status)
		}
	}
	if len(plans) != 1 || len(refunded) != tabs-1 {
		t.Fatalf("%d plans and %d refunded orders, want 1 and %d", len(plans), len(refunded), tabs-1)
	}
	live, err := f.svc.Subscription(ctx, plans[0].SubscriptionID)
	if err != nil || live.Status != StatusActive {
		t.Fatalf("the plan: %+v %v", live, err)
	}
	for _, o := range refunded {
		if status, _ := f.svc.ChargeStatus(ctx, ChargeIDOf(o.ChargeKey)); status != ChargeRefunded {
			t.Errorf("the second payment %s is %s", o.ChargeKey, status)
		}
		if _, err := f.svc.Subscription(ctx, o.SubscriptionID); !errors.Is(err, ErrNoSubscription) {
			t.Errorf("a refunded order made a subscription: %v", err)
		}
	}
	charges, _ := f.svc.ChargesFor(ctx, []string{live.ID})
	if len(charges) != tabs {
		t.Errorf("the plan's billing history lists %d charges, want its own and the %d refunded", len(charges), tabs-1)
	}
	mails := f.notices.noticesOf(NoticeRefunded)
	if len(mails) != tabs-1 || mails[0].Data["ends"] != "duplicate" {
		t.Errorf("refund mails: %+v", mails)
	}
	if n := len(f.notices.noticesOf(NoticePurchase)); n != 1 {
		t.Errorf("%d welcome mails", n)
	}
	if _, err := f.svc.StartCheckout(ctx, CheckoutRequest{Brand: "default", Bundle: "glimpse.web", PlanCode: live.PlanCode,
		Email: "ANN@example.com", Key: "after", Origin: "https://glimpse.example"}); !errors.Is(err, ErrHasLivePlan) {
		t.Fatalf("a checkout for an address with a plan: %v", err)
	}
}

// An add-on whose bank asks for the buyer has one hosted page: a second tap
// goes back to it. A second page paid anyway (the first had expired, say,
// then was paid from another tab) is refunded at once; the add-on stays.
func TestAnAddOnIsPaidForOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	main := f.buyAuthenticated(t, "addon-once")
	req := PurchaseRequest{UserID: "u1", Email: main.Email, Main: main, Family: FamilyPDFCourse, Origin: "https://glimpse.example"}
	page := func() string {
		_, err := f.svc.Purchase(ctx, req)
		var need *AuthenticationNeeded
		if !errors.As(err, &need) {
			t.Fatalf("purchase: %v", err)
		}
		return strings.TrimPrefix(need.URL, PathSandboxPay)
	}
	first := page()
	if again := page(); again != first {
		t.Fatalf("a second tap opened another page: %s, then %s", first, again)
	}
	course, err := f.svc.Catalogue().Find("default", FamilyPDFCourse)
	if err != nil {
		t.Fatal(err)
	}
	addOnID, _, _, err := f.svc.addOnPurchase(ctx, "u1", course.Code) // not made yet: the id it will have
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.st.Keys().Unbind(ctx, addOnPageClaim(addOnID)); err != nil {
		t.Fatal(err)
	}
	second := page()
	if second == first {
		t.Fatal("no second page after the first was let go")
	}
	// Both pages paid at once: the add-on's insert decides which payment
	// bought it.
	for _, session := range []string{first, second} {
		if _, err := f.svc.PayOnSandbox(ctx, SandboxPayRequest{Session: session, Step: "saved"}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, session := range []string{first, second} {
		wg.Go(func() {
			if _, err := f.svc.PayOnSandbox(ctx, SandboxPayRequest{Session: session, Step: "authenticate"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	charges, err := f.svc.ChargesFor(ctx, []string{addOnID})
	if err != nil {
		t.Fatal(err)
	}
	kept, refunded := 0, 0
	for _, ch := range charges {
		switch status, _ := f.svc.ChargeStatus(ctx, ch.ID); status {
		case ChargeSucceeded:
			kept++
		case ChargeRefunded:
			refunded++
		}
	}
	if kept != 1 || refunded != 1 {
		t.Fatalf("%d charges kept and %d refunded, want 1 and 1", kept, refunded)
	}
	subs, _ := f.svc.ForUser(ctx, "u1")
	if !Entitlements(subs, "glimpse.web", f.clock.Now())[PDFCourse] {
		t.Fatal("the refund of the second payment took the add-on")
	}
}

// A page that closed unpaid settles its order as expired (the buyer's
// "Confirming your payment…" page then says so); an expired event for a
// page that was paid changes nothing.
func TestAnExpiredCheckoutSettlesItsOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	unpaid := f.start(t, FamilyWeekly, "left-open")
	paid, session := f.paidOnSandbox(t, f.startAs(t, "bea@example.com", FamilyWeekly, "paid-then-expired"))
	if _, err := f.deliver(t, "evt_paid", "checkout.session.completed", f.clock.Now(), session); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(sandboxSessionLifetime + time.Minute)
	order, _ := f.svc.Order(ctx, unpaid.OrderID)
	for _, o := range []Order{order, paid} {
		if _, err := f.deliver(t, "evt_expired_"+o.ID, "checkout.session.expired", f.clock.Now(), map[string]any{
			"id": o.Session, "object": "checkout.session", "client_reference_id": o.ID, "status": "expired"}); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := f.svc.Order(ctx, unpaid.OrderID); got.Status != OrderExpired {
		t.Fatalf("an unpaid page that closed: %s", got.Status)
	}
	if got, _ := f.svc.Order(ctx, paid.ID); got.Status != OrderPaid {
		t.Fatalf("a paid page's late expiry: %s", got.Status)
	}
	if sub, err := f.svc.Subscription(ctx, paid.SubscriptionID); err != nil || sub.Status != StatusActive {
		t.Fatalf("the paid plan: %+v %v", sub, err)
	}
}

// A plan changed from My Plan renews as the new plan, from the renewal,
// with nothing charged now; the change can be undone, a sale plan is only
// an offer's, and each step is mailed.
func TestMyPlanChangesAPlanAtRenewal(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buy(t, FamilyWeekly, TestCardSucceeds, "my-plan-change")
	monthly, _ := f.svc.Catalogue().Find("default", FamilyPremiumOneMonth)
	sale, _ := f.svc.Catalogue().SaleOf("default", FamilyPremiumOneMonth)
	charges := f.chargeCount(t)
	if _, err := f.svc.ChangePlan(ctx, sub.ID, sale.Code, "user:u1"); !errors.Is(err, ErrUnknownPlan) {
		t.Fatalf("a sale plan from My Plan: %v", err)
	}
	if _, err := f.svc.ChangePlan(ctx, sub.ID, sub.PlanCode, "user:u1"); !errors.Is(err, ErrSamePlan) {
		t.Fatalf("the plan it has: %v", err)
	}
	got, err := f.svc.ChangePlan(ctx, sub.ID, monthly.Code, "user:u1")
	if err != nil || got.NextPlanCode != monthly.Code || got.PlanCode != sub.PlanCode {
		t.Fatalf("changed: %+v %v", got, err)
	}
	if f.chargeCount(t) != charges {
		t.Fatal("a plan change charged now")
	}
	f.clock.Advance(time.Second)
	if got, err = f.svc.ChangePlan(ctx, sub.ID, sub.PlanCode, "user:u1"); err != nil || got.NextPlanCode != "" {
		t.Fatalf("choosing the plan it has undoes the change: %+v %v", got, err)
	}
	f.clock.Advance(time.Second)
	if _, err := f.svc.ChangePlan(ctx, sub.ID, monthly.Code, "user:u1"); err != nil {
		t.Fatal(err)
	}
	mails, kept := f.notices.noticesOf(NoticePlanChange), f.notices.noticesOf(NoticePlanKept)
	if distinctKeys(mails) != 2 || mails[0].Data["price"] != monthly.Price.String() || len(kept) != 1 || kept[0].Data["price"] != sub.Price.String() {
		t.Fatalf("the change, its undoing and the change again: %+v, kept %+v", mails, kept)
	}
	f.clock.Set(sub.CurrentPeriodEnd)
	if _, err := f.svc.RenewDue(ctx); err != nil {
		t.Fatal(err)
	}
	if renewed, _ := f.svc.Subscription(ctx, sub.ID); renewed.PlanCode != monthly.Code || renewed.NextPlanCode != "" {
		t.Fatalf("at renewal: plan %s, next %s", renewed.PlanCode, renewed.NextPlanCode)
	}
}

// A card update started from a purchase remembers the purchase (an add-on
// family on sale, nothing else) for the page it returns to.
func TestACardUpdateRemembersThePurchase(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	main := f.buyAuthenticated(t, "card-return")
	for ret, want := range map[string]string{FamilyReelsPlaybook: FamilyReelsPlaybook, "https://evil.example": "", "": ""} {
		st, err := f.svc.StartCardUpdate(ctx, CardUpdateRequest{SubscriptionID: main.ID, UserID: "u1", Origin: "https://glimpse.example", Return: ret})
		if err != nil {
			t.Fatal(err)
		}
		if order, _ := f.svc.Order(ctx, st.OrderID); order.Return != want {
			t.Fatalf("return %q kept as %q", ret, order.Return)
		}
	}
}

// A plan's receipt names the service period it pays for; a receipt sent
// again after a refund says what was given back and when.
func TestReceiptsNameTheirPeriodAndRefunds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buy(t, FamilyWeekly, TestCardSucceeds, "receipt-period")
	receipts := f.notices.noticesOf(NoticeReceipt)
	if len(receipts) != 1 || receipts[0].Data["period"] == "" || !strings.Contains(receipts[0].Data["period"], " – ") {
		t.Fatalf("the plan's receipt: %+v", receipts)
	}
	charges, err := f.svc.ChargesFor(ctx, []string{sub.ID})
	if err != nil || len(charges) != 1 {
		t.Fatalf("charges: %v %v", charges, err)
	}
	if _, err := f.svc.Refund(ctx, RefundRequest{ChargeID: charges[0].ID, Amount: charges[0].Amount.Amount / 2, Reason: "Goodwill", By: "staff:s"}); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.ResendReceipt(ctx, charges[0].ID); err != nil {
		t.Fatal(err)
	}
	receipts = f.notices.noticesOf(NoticeReceipt)
	if again := receipts[len(receipts)-1]; again.Data["refunded"] == "" || again.Data["refundedOn"] == "" || again.Data["period"] != receipts[0].Data["period"] {
		t.Fatalf("the receipt sent again after a refund: %+v", again)
	}
}
