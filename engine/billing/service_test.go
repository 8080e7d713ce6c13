package billing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

type fixture struct {
	// st is the test's store (the sandbox's books are on it).
	st      *store.Store
	svc     *Service
	clock   *engine.ManualClock
	notices *noticeLog
}

type noticeLog struct {
	mu   sync.Mutex
	list []Notice
}

func (l *noticeLog) add(_ context.Context, n Notice) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.list = append(l.list, n)
	return nil
}

func (l *noticeLog) kinds() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, n := range l.list {
		out = append(out, n.Kind)
	}
	return out
}

var start = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

func newFixture(t *testing.T) fixture {
	t.Helper()
	st := storetest.Open(t)
	clock := engine.NewManualClock(start)
	log := &noticeLog{}
	svc := NewService(clock, Options{Store: storeOf(st), Provider: NewSandbox(sandboxOf(st), clock, testWebhookSecret), Notify: log.add,
		WebhookSecret: testWebhookSecret})
	return fixture{st: st, svc: svc, clock: clock, notices: log}
}

// editSub changes a stored subscription as a test needs it, over the
// version read, bypassing the rules.
func editSub(t *testing.T, st Store, id string, edit func(*Subscription)) {
	t.Helper()
	ctx := context.Background()
	sub, err := st.Subscriptions().Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	edit(&sub)
	if _, err := st.Subscriptions().Apply(ctx, sub, Effects{}); err != nil {
		t.Fatal(err)
	}
}

// testWebhookSecret signs the sandbox's events in these tests.
const testWebhookSecret = "whsec_test_secret"

// start opens the hosted page of a plan checkout.
func (f fixture) start(t *testing.T, family, key string) CheckoutStart {
	t.Helper()
	return f.startAs(t, "Ann@Example.com ", family, key)
}

// startAs opens the hosted page of a plan checkout for email: an address
// with a live plan cannot buy a second (ErrHasLivePlan).
func (f fixture) startAs(t *testing.T, email, family, key string) CheckoutStart {
	t.Helper()
	plan, err := f.svc.Catalogue().Find("default", family)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.svc.StartCheckout(context.Background(), CheckoutRequest{Brand: "default", Bundle: "glimpse.web",
		PlanCode: plan.Code, Email: email, Key: key, Origin: "https://glimpse.example"})
	if err != nil {
		t.Fatalf("checkout: %v", err)
	}
	return st
}

// sessionOf is the sandbox session id of a hosted page's URL.
func sessionOf(st CheckoutStart) string { return strings.TrimPrefix(st.URL, PathSandboxPay) }

// pay types a card on the sandbox's page.
func (f fixture) pay(st CheckoutStart, number string) (SandboxPage, error) {
	return f.svc.PayOnSandbox(context.Background(), SandboxPayRequest{Session: sessionOf(st), Step: "card", Card: card(number)})
}

func card(number string) Card { return Card{Number: number, ExpMonth: 12, ExpYear: 2030, CVC: "123"} }

func (f fixture) buy(t *testing.T, family, number, key string) Subscription {
	t.Helper()
	return f.buyAs(t, "Ann@Example.com ", family, number, key)
}

func (f fixture) buyAs(t *testing.T, email, family, number, key string) Subscription {
	t.Helper()
	plan, err := f.svc.Catalogue().Find("default", family)
	if err != nil {
		t.Fatal(err)
	}
	st := f.startAs(t, email, plan.Family, key)
	if _, err := f.pay(st, number); err != nil {
		t.Fatalf("pay: %v", err)
	}
	order, err := f.svc.Order(context.Background(), st.OrderID)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := f.svc.Subscription(context.Background(), order.SubscriptionID)
	if err != nil {
		t.Fatalf("the paid checkout made no subscription: %v", err)
	}
	return sub
}

func (f fixture) chargeCount(t *testing.T) int64 {
	t.Helper()
	n, err := countRows(f.st, "sandbox_charges", succeededSandboxCharges, succeededSandboxFilter)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCatalogueEveryFamilyAndBrand(t *testing.T) {
	t.Parallel()
	c := DefaultCatalogue()
	prices := map[string]string{FamilyWeekly: "$1", FamilyPremiumOneMonth: "$13.99", FamilyThreeMonth: "$49",
		FamilyGiftOneMonth: "$19.99", FamilyPDFCourse: "$19.99", FamilyProfileReport: "$28.99", FamilyReelsPlaybook: "$28.99"}
	for _, b := range []string{"default", "_x_", "_y_"} {
		for family, price := range prices {
			p, err := c.Find(b, family)
			if err != nil {
				t.Fatalf("%s %s: %v", b, family, err)
			}
			if p.Price.String() != price || p.Brand != b {
				t.Errorf("%s: price %s brand %s, want %s %s", p.Code, p.Price, p.Brand, price, b)
			}
			// The spec's substring rules read every code back to its family
			// and brand.
			if FamilyOf(p.Code) != family {
				t.Errorf("FamilyOf(%s) = %s", p.Code, FamilyOf(p.Code))
			}
			if (p.Kind == KindMain) != p.Recurring() {
				t.Errorf("%s: kind %s but recurring %v", p.Code, p.Kind, p.Recurring())
			}
			if p.Kind == KindMain && Describe(p.Code).Price != price {
				t.Errorf("Describe(%s) price %s, want %s", p.Code, Describe(p.Code).Price, price)
			}
		}
		sale, err := c.SaleOf(b, FamilyPremiumOneMonth)
		if err != nil || sale.Price != USD(1399) || sale.FullPrice != USD(13999) || sale.Discount != 90 {
			t.Errorf("%s sale: %+v %v", b, sale, err)
		}
		if got := len(c.ForBrand(b, KindMain)); got != 4 {
			t.Errorf("%s sells %d main plans, want 4", b, got)
		}
	}
	if got := (Interval{"week", 12}).After(start); !got.Equal(start.AddDate(0, 0, 84)) {
		t.Errorf("12 weeks after %v = %v", start, got)
	}
}

func TestLuhnAndCards(t *testing.T) {
	t.Parallel()
	for number, want := range map[string]bool{
		TestCardSucceeds: true, "4242 4242 4242 4242": true, TestCardDeclined: true, TestCardFailsOnRenewal: true,
		"4242424242424241": false, "4242-4242-4242-4242": true, "": false, "42424242a4242424": false, "0000": false,
	} {
		if Luhn(number) != want {
			t.Errorf("Luhn(%q) = %v, want %v", number, !want, want)
		}
	}
	now := start
	if _, err := checkCard(Card{Number: TestCardSucceeds, ExpMonth: 10, ExpYear: 2026, CVC: "123"}, now); !errors.Is(err, ErrCardExpired) {
		t.Errorf("a card that expired last month: %v", err)
	}
	if _, err := checkCard(Card{Number: TestCardSucceeds, ExpMonth: 11, ExpYear: 26, CVC: "123"}, now); err != nil {
		t.Errorf("a card good through this month: %v", err)
	}
	if _, err := checkCard(Card{Number: TestCardSucceeds, ExpMonth: 11, ExpYear: 2027, CVC: "12"}, now); !errors.Is(err, ErrCVCInvalid) {
		t.Errorf("a two-digit CVC: %v", err)
	}
}

func TestCheckoutDeclinedCreatesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	st := f.start(t, FamilyWeekly, "k1")
	if _, err := f.pay(st, TestCardDeclined); !errors.Is(err, ErrCardDeclined) {
		t.Fatalf("declined card: %v", err)
	}
	if _, err := f.pay(st, "4242424242424241"); !errors.Is(err, ErrCardInvalid) {
		t.Fatalf("a number failing the Luhn check: %v", err)
	}
	subs, err := f.svc.SubscriptionsByEmail(ctx, "ann@example.com")
	if err != nil || len(subs) != 0 {
		t.Fatalf("a declined checkout left %d subscriptions (%v)", len(subs), err)
	}
	if o, _ := f.svc.Order(ctx, st.OrderID); o.Status != OrderPending {
		t.Fatalf("order after declines: %s", o.Status)
	}
	if _, err := f.svc.StartCheckout(ctx, CheckoutRequest{Brand: "default", Bundle: "glimpse.web", PlanCode: "_x_weekly_trial",
		Email: "ann@example.com", Key: "k3"}); !errors.Is(err, ErrUnknownPlan) {
		t.Fatalf("another brand's plan: %v", err)
	}
}

func TestCheckoutIsIdempotentAndStoresNoCardNumber(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	subs := make([]Subscription, 8)
	for i := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			subs[i] = f.buy(t, FamilyWeekly, TestCardSucceeds, "same-key")
		}()
	}
	wg.Wait()
	for _, s := range subs[1:] {
		if s.ID != subs[0].ID {
			t.Fatalf("one checkout key made two subscriptions: %s and %s", s.ID, subs[0].ID)
		}
	}
	if n := f.chargeCount(t); n != 1 {
		t.Fatalf("one checkout key charged %d times", n)
	}
	sub, err := f.svc.Subscription(ctx, subs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if sub.Email != "ann@example.com" || sub.Status != StatusActive || !sub.MainPlan || sub.UserID != "" ||
		sub.PaymentMethod.Last4 != "4242" || sub.PaymentMethod.Brand != "visa" || !sub.CurrentPeriodEnd.Equal(start.AddDate(0, 0, 7)) {
		t.Fatalf("subscription %+v", sub)
	}
	// As stored: the store keeps every field of a subscription and no
	// other (billingtest's round trip).
	raw := fmt.Sprintf("%#v", sub)
	if containsDigits(raw, TestCardSucceeds) || containsDigits(raw, "CVC") {
		t.Fatalf("the stored subscription holds card data: %s", raw)
	}
	byEmail, err := f.svc.SubscriptionsByEmail(ctx, " ANN@example.com")
	if err != nil || len(byEmail) != 1 {
		t.Fatalf("by email: %d %v", len(byEmail), err)
	}
	if got := f.notices.kinds(); len(got) == 0 || got[0] != NoticePurchase {
		t.Fatalf("notices %v, want the purchase mail", got)
	}
}

func containsDigits(s, digits string) bool {
	return len(digits) > 0 && len(s) >= len(digits) && (func() bool {
		for i := 0; i+len(digits) <= len(s); i++ {
			if s[i:i+len(digits)] == digits {
				return true
			}
		}
		return false
	})()
}

func TestFinalizeOneAccountWins(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buy(t, FamilyPremiumOneMonth, TestCardSucceeds, "k")
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f.svc.Finalize(ctx, sub.ID, "user-"+string(rune('a'+i)))
		}()
	}
	wg.Wait()
	winners := 0
	for _, err := range errs {
		if err == nil {
			winners++
		} else if !errors.Is(err, ErrAlreadyFinalized) {
			t.Fatal(err)
		}
	}
	if winners != 1 {
		t.Fatalf("%d accounts finalised one subscription", winners)
	}
	got, _ := f.svc.Subscription(ctx, sub.ID)
	if err := f.svc.Finalize(ctx, sub.ID, got.UserID); err != nil {
		t.Fatalf("finalising again by the owner: %v", err)
	}
}

// A subscription's life under the injected clock: the weekly trial renews,
// a card that fails off-session is retried after 1, 3 and 5 days and then
// expires, and a canceled plan stays authorised until its period ends.
func TestSubscriptionLife(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	good := f.buy(t, FamilyWeekly, TestCardSucceeds, "good")
	bad := f.buyAs(t, "bad@example.com", FamilyPremiumOneMonth, TestCardFailsOnRenewal, "bad")
	canceled := f.buyAs(t, "cancel@example.com", FamilyThreeMonth, "5555555555554444", "cancel")
	if _, err := f.svc.Cancel(ctx, canceled.ID, "user:u"); err != nil {
		t.Fatal(err)
	}
	pass := func() RenewStats {
		t.Helper()
		stats, err := f.svc.RenewDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return stats
	}
	if s := pass(); s.Due != 0 {
		t.Fatalf("nothing is due at the start: %+v", s)
	}
	// Week 1 ends: the trial renews for another week.
	f.clock.Advance(7 * 24 * time.Hour)
	if s := pass(); s.Renewed != 1 {
		t.Fatalf("after a week: %+v", s)
	}
	g, _ := f.svc.Subscription(ctx, good.ID)
	if !g.CurrentPeriodEnd.Equal(start.AddDate(0, 0, 14)) || g.Status != StatusActive {
		t.Fatalf("renewed trial %+v", g)
	}
	// The month ends: the 0341 card fails; retries follow on days 1, 3, 5.
	monthEnd := start.AddDate(0, 1, 0)
	f.clock.Set(monthEnd)
	pass()
	b, _ := f.svc.Subscription(ctx, bad.ID)
	if b.Status != StatusActive || b.FailedAttempts != 1 || !b.DueAt.Equal(monthEnd.Add(24*time.Hour)) {
		t.Fatalf("after the first failure %+v", b)
	}
	for i, day := range []int{1, 3, 5} {
		f.clock.Set(monthEnd.AddDate(0, 0, day))
		pass()
		b, _ = f.svc.Subscription(ctx, bad.ID)
		if i < 2 && (b.Status != StatusActive || b.FailedAttempts != i+2) {
			t.Fatalf("retry on day %d: %+v", day, b)
		}
	}
	if b.Status != StatusExpired {
		t.Fatalf("after the last retry the subscription is %s", b.Status)
	}
	// The canceled 12-week plan authorised until its end, then expires.
	c, _ := f.svc.Subscription(ctx, canceled.ID)
	if c.Status != StatusCanceled || c.Expired(start.AddDate(0, 0, 83)) || !c.Expired(start.AddDate(0, 0, 84)) {
		t.Fatalf("canceled %+v", c)
	}
	f.clock.Set(start.AddDate(0, 0, 85))
	pass()
	c, _ = f.svc.Subscription(ctx, canceled.ID)
	if c.Status != StatusExpired {
		t.Fatalf("canceled plan after its period: %s", c.Status)
	}
	hist, err := f.svc.History(ctx, bad.ID)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, h := range hist {
		kinds = append(kinds, h.Kind)
	}
	want := []string{ChangeCreated, ChangePaymentFailed, ChangePaymentFailed, ChangePaymentFailed, ChangePaymentFailed, ChangeExpired}
	if len(kinds) != len(want) {
		t.Fatalf("history %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("history %v, want %v", kinds, want)
		}
	}
	failedMails := 0
	for _, k := range f.notices.kinds() {
		if k == NoticePaymentFailed {
			failedMails++
		}
	}
	if failedMails != 3 {
		t.Fatalf("%d payment-failed mails, want one per scheduled retry (3)", failedMails)
	}
}

func TestPurchaseAddOnOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	main := f.buy(t, FamilyWeekly, TestCardSucceeds, "k")
	if err := f.svc.Finalize(ctx, main.ID, "u1"); err != nil {
		t.Fatal(err)
	}
	main, _ = f.svc.Subscription(ctx, main.ID)
	req := PurchaseRequest{UserID: "u1", Email: main.Email, Main: main, Family: FamilyPDFCourse}
	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.svc.Purchase(ctx, req); err != nil && !errors.Is(err, ErrAlreadyOwned) {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := f.chargeCount(t); n != 2 {
		t.Fatalf("%d charges, want the checkout and one course", n)
	}
	subs, err := f.svc.ForUser(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	ent := Entitlements(subs, "glimpse.web", f.clock.Now())
	if !ent[PDFCourse] || ent[ProfileReport] {
		t.Fatalf("entitlements %v", ent)
	}
	if _, err := f.svc.Purchase(ctx, PurchaseRequest{UserID: "u1", Email: main.Email, Family: FamilyPDFCourse}); err == nil {
		t.Fatal("a purchase without a subscription id went through")
	}
}

func TestTwoWorkersRenewOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	for i := range 40 {
		f.buyAs(t, fmt.Sprintf("ann+%d@example.com", i), FamilyWeekly, TestCardSucceeds, "k"+string(rune('A'+i)))
	}
	f.clock.Advance(8 * 24 * time.Hour)
	other := NewService(f.clock, Options{Store: f.svc.st, Provider: NewSandbox(sandboxOf(f.st), f.clock, testWebhookSecret)})
	var wg sync.WaitGroup
	for _, w := range []*Service{f.svc, other, f.svc, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := w.RenewDue(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := f.chargeCount(t); n != 80 {
		t.Fatalf("%d charges for 40 checkouts and 40 renewals", n)
	}
}

// A cancel link works once, however many clicks arrive together: one
// deletes it and cancels, the others cancel nothing.
func TestCancelLinkIsSpentOnce(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buy(t, FamilyWeekly, "4242424242424242", "k-cancel-link")
	token, err := f.svc.NewCancelLink(ctx, sub.Email, "", sub.Bundle, CancelLinkLifetime)
	if err != nil {
		t.Fatal(err)
	}
	const clicks = 8
	var wg sync.WaitGroup
	results := make(chan bool, clicks)
	for range clicks {
		wg.Go(func() {
			done, err := f.svc.CancelByLink(ctx, token, sub.Bundle)
			if err != nil {
				t.Error(err)
			}
			if done.Canceled && done.AccessEnds.UnixMilli() != sub.CurrentPeriodEnd.UnixMilli() {
				t.Errorf("access ends %v, want the period's end %v", done.AccessEnds, sub.CurrentPeriodEnd)
			}
			results <- done.Canceled
		})
	}
	wg.Wait()
	close(results)
	canceled := 0
	for ok := range results {
		if ok {
			canceled++
		}
	}
	if canceled != 1 {
		t.Fatalf("%d clicks canceled, want 1", canceled)
	}
	// The address buys again: the old link, read later, must not cancel
	// the new plan.
	// (Its plan ran out first: an address with a running plan buys no second.)
	f.clock.Set(sub.CurrentPeriodEnd.Add(time.Hour))
	again := f.buy(t, FamilyWeekly, "4242424242424242", "k-cancel-link-2")
	if done, _ := f.svc.CancelByLink(ctx, token, sub.Bundle); done.Canceled || !done.AccessEnds.IsZero() {
		t.Fatal("a spent link canceled again")
	}
	if got, _ := f.svc.Subscription(ctx, again.ID); got.Status != StatusActive {
		t.Fatalf("the new plan is %s", got.Status)
	}
}

// A checkout key is bound to what it buys. Pairs of checkouts with one key
// and two plans, sent together, buy one plan each, at that plan's price
// (3 of 10 pairs stored a 3-Month plan charged $1 when the key was not
// bound: the second request got the first's charge back).
func TestCheckoutKeyIsBoundToWhatItBuys(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	weekly, _ := f.svc.Catalogue().Find("default", FamilyWeekly)
	threeMonth, _ := f.svc.Catalogue().Find("default", FamilyThreeMonth)
	for pair := range 10 {
		key := "pair-" + strconv.Itoa(pair)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		starts := make([]CheckoutStart, 2)
		for i, plan := range []PlanSpec{weekly, threeMonth} {
			wg.Go(func() {
				starts[i], errs[i] = f.svc.StartCheckout(ctx, CheckoutRequest{Brand: "default", Bundle: "glimpse.web",
					PlanCode: plan.Code, Email: "pair" + strconv.Itoa(pair) + "@example.com", Key: key})
				if errs[i] == nil {
					_, errs[i] = f.pay(starts[i], TestCardSucceeds)
				}
			})
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, ErrKeyReused) && !errors.Is(err, ErrIdempotencyMismatch):
				t.Fatalf("pair %d: %v", pair, err)
			}
		}
		if ok != 1 {
			t.Fatalf("pair %d: %d checkouts went through with one key, want 1 (%v)", pair, ok, errs)
		}
		subs, err := f.svc.SubscriptionsByEmail(ctx, "pair"+strconv.Itoa(pair)+"@example.com")
		if err != nil || len(subs) != 1 {
			t.Fatalf("pair %d: %d subscriptions (%v)", pair, len(subs), err)
		}
		plan, _ := f.svc.Catalogue().Plan(subs[0].PlanCode)
		if subs[0].Price != plan.Price {
			t.Fatalf("pair %d: %s stored at %s", pair, plan.Code, subs[0].Price)
		}
	}
	if n := f.chargeCount(t); n != 10 {
		t.Fatalf("%d charges for 10 checkouts", n)
	}
}

// A buyer whose card was declined corrects it on the same page and pays;
// paying the page again (a double click, a second tab) buys nothing more.
func TestCheckoutAfterADeclineOnTheSamePage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	st := f.start(t, FamilyWeekly, "one-page")
	if _, err := f.pay(st, TestCardDeclined); !errors.Is(err, ErrCardDeclined) {
		t.Fatalf("declined card: %v", err)
	}
	page, err := f.pay(st, TestCardSucceeds)
	if err != nil || page.Step != "complete" || page.SuccessURL != "https://glimpse.example/checkout/done?order="+st.OrderID {
		t.Fatalf("the corrected card: %+v %v", page, err)
	}
	order, _ := f.svc.Order(ctx, st.OrderID)
	sub, err := f.svc.Subscription(ctx, order.SubscriptionID)
	if err != nil || order.Status != OrderPaid || sub.PaymentMethod.Last4 != "4242" || f.chargeCount(t) != 1 {
		t.Fatalf("order %s, subscription %+v (%v), %d charges", order.Status, sub, err, f.chargeCount(t))
	}
	if _, err := f.pay(st, TestCardSucceeds); err != nil || f.chargeCount(t) != 1 {
		t.Fatalf("again: %v, %d charges", err, f.chargeCount(t))
	}
	if again := f.start(t, FamilyWeekly, "one-page"); again.URL != st.URL || again.OrderID != st.OrderID {
		t.Fatalf("the same page opened %v, then %v", st, again)
	}
}

// A declined add-on can be bought once the card is fixed (it answered 422
// for good: the failure was kept under the purchase's one key).
func TestPurchaseAfterADeclineIsANewAttempt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	main := f.buy(t, FamilyWeekly, TestCardFailsOnRenewal, "k-addon")
	if err := f.svc.Finalize(ctx, main.ID, "u1"); err != nil {
		t.Fatal(err)
	}
	main, _ = f.svc.Subscription(ctx, main.ID)
	req := PurchaseRequest{UserID: "u1", Email: main.Email, Main: main, Family: FamilyPDFCourse}
	if _, err := f.svc.Purchase(ctx, req); !errors.Is(err, ErrCardDeclined) {
		t.Fatalf("off-session on the failing card: %v", err)
	}
	st, err := f.svc.StartCardUpdate(ctx, CardUpdateRequest{SubscriptionID: main.ID, UserID: "u1", Origin: "https://glimpse.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.pay(st, TestCardSucceeds); err != nil {
		t.Fatal(err)
	}
	req.Main, _ = f.svc.Subscription(ctx, main.ID)
	if _, err := f.svc.Purchase(ctx, req); err != nil {
		t.Fatalf("after a new card: %v", err)
	}
}

// A plan canceled at period end can be resumed before it ends, and renews
// again; an ended one cannot.
func TestResumeACanceledPlan(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buy(t, FamilyWeekly, TestCardSucceeds, "k-resume")
	if _, err := f.svc.Cancel(ctx, sub.ID, "user:u1"); err != nil {
		t.Fatal(err)
	}
	got, err := f.svc.Resume(ctx, sub.ID, "user:u1")
	if err != nil {
		t.Fatal(err)
	}
	got, _ = f.svc.Subscription(ctx, sub.ID)
	if got.Status != StatusActive || got.CancelAtPeriodEnd || got.ExpiresAt != nil || !got.DueAt.Equal(sub.CurrentPeriodEnd) {
		t.Fatalf("resumed: %+v", got)
	}
	if _, err := f.svc.Resume(ctx, sub.ID, "user:u1"); err != nil {
		t.Fatalf("resuming twice: %v", err)
	}
	if _, err := f.svc.Cancel(ctx, sub.ID, "user:u1"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(8 * 24 * time.Hour) // past the period's end
	if _, err := f.svc.Resume(ctx, sub.ID, "user:u1"); !errors.Is(err, ErrNotResumable) {
		t.Fatalf("an ended plan: %v", err)
	}
}
