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

// checkoutFrom starts a weekly checkout for email from client, as the
// checkout action does.
func (f fixture) checkoutFrom(client, email, key string) error {
	_, err := f.svc.StartCheckout(context.Background(), CheckoutRequest{Brand: "default", Bundle: "glimpse.web",
		PlanCode: "glimpse_weekly_trial", Email: email, Key: key, Client: client, Origin: "https://glimpse.example"})
	return err
}

// heldTakes is st whose Keys().Take of a key with prefix waits until n
// callers are taking one: calls sent together have all read what they
// decide on before any of them writes.
func heldTakes(st Store, prefix string, n int) Store {
	var arrived sync.WaitGroup
	arrived.Add(n)
	return heldStore{Store: st, keys: heldKeys{Keys: st.Keys(), prefix: prefix, arrived: &arrived}}
}

type heldStore struct {
	Store
	keys heldKeys
}

func (h heldStore) Keys() Keys { return h.keys }

type heldKeys struct {
	Keys
	prefix  string
	arrived *sync.WaitGroup
}

func (k heldKeys) Take(ctx context.Context, key string, limit int, now, expires time.Time) (bool, error) {
	if strings.HasPrefix(key, k.prefix) {
		k.arrived.Done()
		k.arrived.Wait()
	}
	return k.Keys.Take(ctx, key, limit, now, expires)
}

// together runs n calls at once and counts their outcomes by error ("" for
// none).
func together(n int, call func(i int) error) map[string]int {
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		out = map[string]int{}
	)
	for i := range n {
		wg.Go(func() {
			err := call(i)
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			mu.Lock()
			out[msg]++
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

// #32 item 13: one shared address (an office, a carrier) is no longer
// refused after 20 checkouts; only a flood from it is. Sent together,
// the buyers behind it all pass, and past the flood limit exactly the
// excess is refused.
func TestCheckoutsFromOneAddressAreLimitedOnlyForFloods(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const office = "203.0.113.7"
	got := together(25, func(i int) error {
		return f.checkoutFrom(office, fmt.Sprintf("colleague-%d@example.com", i), fmt.Sprintf("office-%d", i))
	})
	if got[""] != 25 {
		t.Fatalf("25 buyers behind one address: %v", got)
	}
	// The flood limit: fill the hour's count to three short of it, then
	// five at once: three pass.
	for range CheckoutsPerClientPerHour - 25 - 3 {
		if ok, err := f.svc.TakeAttempt(context.Background(), "checkout:"+office, CheckoutsPerClientPerHour, time.Hour); err != nil || !ok {
			t.Fatalf("fill: %v %v", ok, err)
		}
	}
	got = together(5, func(i int) error {
		return f.checkoutFrom(office, fmt.Sprintf("flood-%d@example.com", i), fmt.Sprintf("flood-%d", i))
	})
	if got[""] != 3 || got[ErrCheckoutsFromNetwork.Error()] != 2 {
		t.Fatalf("five at the flood limit: %v", got)
	}
	if err := f.checkoutFrom("198.51.100.1", "elsewhere@example.com", "elsewhere"); err != nil {
		t.Fatalf("another address is not limited by this one: %v", err)
	}
}

// #32 item 13: one email address may start CheckoutsPerEmailPerHour
// checkouts an hour, from any number of clients: sent together, exactly
// that many pass.
func TestCheckoutsPerEmailAreLimited(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	got := together(CheckoutsPerEmailPerHour+3, func(i int) error {
		return f.checkoutFrom(fmt.Sprintf("198.51.100.%d", i+1), "Target@Example.com", fmt.Sprintf("target-%d", i))
	})
	if got[""] != CheckoutsPerEmailPerHour || got[ErrCheckoutsForEmail.Error()] != 3 {
		t.Fatalf("%d checkouts for one address: %v", CheckoutsPerEmailPerHour+3, got)
	}
	if !errors.Is(ErrCheckoutsForEmail, ErrTooManyAttempts) || !errors.Is(ErrCheckoutsFromNetwork, ErrTooManyAttempts) {
		t.Fatal("the limits are not ErrTooManyAttempts")
	}
	if err := f.checkoutFrom("198.51.100.1", "other@example.com", "other"); err != nil {
		t.Fatalf("another address is not limited by this one: %v", err)
	}
	// The next hour the address may buy again.
	f.clock.Advance(time.Hour)
	if err := f.checkoutFrom("198.51.100.1", "target@example.com", "target-next-hour"); err != nil {
		t.Fatalf("the next hour: %v", err)
	}
}

// #32 item 13: a hosted page declines SandboxDeclinesPerSession cards and
// then takes none (card testing on one page); cards sent together cannot
// pass the limit between them. A typing mistake the page refuses itself
// costs nothing.
func TestSandboxPageLimitsDeclines(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	st := f.start(t, FamilyWeekly, "declines")
	step := func(number string) error {
		_, err := f.svc.PayOnSandboxLimited(ctx, SandboxPayRequest{Session: sessionOf(st), Step: "card", Card: card(number)})
		return err
	}
	for range SandboxDeclinesPerSession + 2 {
		if err := step("4242424242424241"); !errors.Is(err, ErrCardInvalid) {
			t.Fatalf("a mistyped number: %v", err)
		}
	}
	got := together(SandboxDeclinesPerSession+3, func(int) error { return step(TestCardDeclined) })
	if got[ErrCardDeclined.Error()] != SandboxDeclinesPerSession || got[ErrTooManyDeclines.Error()] != 3 {
		t.Fatalf("%d declines sent together: %v", SandboxDeclinesPerSession+3, got)
	}
	if err := step(TestCardSucceeds); !errors.Is(err, ErrTooManyDeclines) {
		t.Fatalf("a card after the limit: %v", err)
	}
	if o, _ := f.svc.Order(ctx, st.OrderID); o.Status != OrderPending {
		t.Fatalf("the order: %s", o.Status)
	}
	// Another page (the buyer starting again) takes cards.
	other := f.start(t, FamilyWeekly, "declines-again")
	if _, err := f.svc.PayOnSandboxLimited(ctx, SandboxPayRequest{Session: sessionOf(other), Step: "card", Card: card(TestCardSucceeds)}); err != nil {
		t.Fatalf("a new page: %v", err)
	}
}

// paidOrder buys a weekly plan for email and returns its order, paid.
func (f fixture) paidOrder(t *testing.T, email, key string) Order {
	t.Helper()
	st := f.startAs(t, email, FamilyWeekly, key)
	if _, err := f.pay(st, TestCardSucceeds); err != nil {
		t.Fatal(err)
	}
	o, err := f.svc.Order(context.Background(), st.OrderID)
	if err != nil || o.Status != OrderPaid {
		t.Fatalf("order %+v %v", o, err)
	}
	return o
}

// purchaseMails are the purchase notices sent to an address.
func (f fixture) purchaseMails(to string) []Notice {
	f.notices.mu.Lock()
	defer f.notices.mu.Unlock()
	var out []Notice
	for _, n := range f.notices.list {
		if n.Kind == NoticePurchase && n.To == to {
			out = append(out, n)
		}
	}
	return out
}

// #32 item 12: the done page of a paid plan sends the account mail again,
// PurchaseMailsPerHour times an hour (sent together, exactly that many),
// only before the account exists and within a day.
func TestPurchaseMailAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	order := f.paidOrder(t, "buyer@example.com", "again")
	p, err := f.svc.PaidPlan(ctx, order.ID, "glimpse.web")
	if err != nil || !p.Fixable || p.AccountReady || p.Plan.Name != "Weekly Plan" || p.RenewsOn.IsZero() {
		t.Fatalf("paid plan %+v %v", p, err)
	}
	if _, err := f.svc.PaidPlan(ctx, order.ID, "other.bundle"); !errors.Is(err, ErrNoOrder) {
		t.Fatalf("another brand's page: %v", err)
	}
	got := together(PurchaseMailsPerHour+2, func(int) error { return f.svc.ResendPurchaseMail(ctx, order.ID, "glimpse.web") })
	if got[""] != PurchaseMailsPerHour || got[ErrPurchaseMails.Error()] != 2 {
		t.Fatalf("mails sent together: %v", got)
	}
	if mails := f.purchaseMails("buyer@example.com"); len(mails) != 1+PurchaseMailsPerHour ||
		!strings.HasPrefix(mails[1].Key, "purchase:"+order.SubscriptionID+":again:") || mails[1].Data["subscription"] != order.SubscriptionID {
		t.Fatalf("purchase mails %+v", mails)
	}
	f.clock.Advance(time.Hour)
	if err := f.svc.ResendPurchaseMail(ctx, order.ID, "glimpse.web"); err != nil {
		t.Fatalf("the next hour: %v", err)
	}
	// Once the account exists, the page changes nothing.
	if err := f.svc.Finalize(ctx, order.SubscriptionID, "user-1"); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.ResendPurchaseMail(ctx, order.ID, "glimpse.web"); !errors.Is(err, ErrPurchaseClosed) {
		t.Fatalf("after the account: %v", err)
	}
	if p, _ := f.svc.PaidPlan(ctx, order.ID, "glimpse.web"); !p.AccountReady || p.Fixable {
		t.Fatalf("after the account: %+v", p)
	}
	// A day after the purchase, neither.
	late := f.paidOrder(t, "late@example.com", "late")
	f.clock.Advance(PurchaseFixWindow)
	if err := f.svc.ResendPurchaseMail(ctx, late.ID, "glimpse.web"); !errors.Is(err, ErrPurchaseClosed) {
		t.Fatalf("a day later: %v", err)
	}
	if err := f.svc.ChangePurchaseEmail(ctx, late.ID, "glimpse.web", "right@example.com"); !errors.Is(err, ErrPurchaseClosed) {
		t.Fatalf("a day later: %v", err)
	}
	if err := f.svc.ResendPurchaseMail(ctx, "co_nobody", "glimpse.web"); !errors.Is(err, ErrNoOrder) {
		t.Fatalf("an unknown order: %v", err)
	}
}

// #32 item 12: a mistyped address is corrected from the done page before
// the account exists: the plan moves to the new address (found by it, no
// longer by the old one), the mail goes there, and an address that has a
// plan is refused. Two corrections sent together: one wins.
func TestPurchaseEmailCorrected(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	order := f.paidOrder(t, "typo@exmaple.com", "typo")
	f.buyAs(t, "taken@example.com", FamilyWeekly, TestCardSucceeds, "taken")
	if err := f.svc.ChangePurchaseEmail(ctx, order.ID, "glimpse.web", "Taken@Example.com"); !errors.Is(err, ErrHasLivePlan) {
		t.Fatalf("an address with a plan: %v", err)
	}
	if err := f.svc.ChangePurchaseEmail(ctx, order.ID, "glimpse.web", "not an address"); err == nil {
		t.Fatal("a non-address was taken")
	}
	// Together: both have read the purchase before either writes (a call
	// is a few fast statements, so unheld the first could end before the
	// second reads, and two corrections one after the other both count).
	inner := f.svc.st
	f.svc.st = heldTakes(inner, "purchase-email-change:", 2)
	got := together(2, func(i int) error {
		return f.svc.ChangePurchaseEmail(ctx, order.ID, "glimpse.web", fmt.Sprintf("Right-%d@Example.com", i))
	})
	f.svc.st = inner
	if got[""] != 1 || got[ErrPurchaseClosed.Error()] != 1 {
		t.Fatalf("two corrections together: %v", got)
	}
	sub, err := f.svc.Subscription(ctx, order.SubscriptionID)
	if err != nil || !strings.HasPrefix(sub.Email, "right-") || sub.Emails[len(sub.Emails)-1] != sub.Email {
		t.Fatalf("subscription %+v %v", sub, err)
	}
	loser := "right-0@example.com"
	if sub.Email == loser {
		loser = "right-1@example.com"
	}
	for email, want := range map[string]int{sub.Email: 1, "typo@exmaple.com": 0, loser: 0} {
		if subs, err := f.svc.SubscriptionsByEmail(ctx, email); err != nil || len(subs) != want {
			t.Errorf("found by %s: %d %v", email, len(subs), err)
		}
	}
	if o, _ := f.svc.Order(ctx, order.ID); o.Email != sub.Email {
		t.Fatalf("the order's address: %s", o.Email)
	}
	if mails := f.purchaseMails(sub.Email); len(mails) != 1 || mails[0].Data["subscription"] != sub.ID {
		t.Fatalf("mails to the corrected address: %+v", mails)
	}
	if mails := f.purchaseMails(loser); len(mails) != 0 {
		t.Fatalf("mails to the losing address: %+v", mails)
	}
	// The old address may buy for itself: it has no plan now.
	if err := f.checkoutFrom("", "typo@exmaple.com", "typo-owner"); err != nil {
		t.Fatalf("the old address buys: %v", err)
	}
	hist, err := f.svc.History(ctx, sub.ID)
	if err != nil || hist[len(hist)-1].Kind != ChangeEmail || hist[len(hist)-1].From != "t•••@exmaple.com" {
		t.Fatalf("history %+v %v", hist, err)
	}
}

// #32 item 12: "← Back" restores the address typed, from the order the
// cancel URL names (never from the URL): only an unpaid plan order on the
// brand's bundle, for a day.
func TestCheckoutBackRestoresTheAddress(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	st := f.startAs(t, "Back@Example.com", FamilyWeekly, "back")
	if email, err := f.svc.CheckoutBack(ctx, st.OrderID, "glimpse.web"); err != nil || email != "back@example.com" {
		t.Fatalf("back: %q %v", email, err)
	}
	order, _ := f.svc.Order(ctx, st.OrderID)
	page, err := f.svc.SandboxPage(ctx, order.Session)
	if err != nil || !strings.Contains(page.CancelURL, "?plan=glimpse_weekly_trial&order="+st.OrderID) || strings.Contains(page.CancelURL, "back@") {
		t.Fatalf("cancel URL %q %v", page.CancelURL, err)
	}
	if period, err := f.svc.HostedPagePeriod(ctx, order.Session); err != nil || period != "week" {
		t.Fatalf("period %q %v", period, err)
	}
	for name, c := range map[string]struct{ order, bundle string }{
		"another bundle": {st.OrderID, "other.bundle"}, "unknown": {"co_nobody", "glimpse.web"}, "empty": {"", "glimpse.web"},
	} {
		if email, err := f.svc.CheckoutBack(ctx, c.order, c.bundle); err != nil || email != "" {
			t.Errorf("%s: %q %v", name, email, err)
		}
	}
	paid := f.paidOrder(t, "paid@example.com", "paid")
	if email, _ := f.svc.CheckoutBack(ctx, paid.ID, "glimpse.web"); email != "" {
		t.Fatalf("a paid order: %q", email)
	}
	f.clock.Advance(25 * time.Hour)
	if email, _ := f.svc.CheckoutBack(ctx, st.OrderID, "glimpse.web"); email != "" {
		t.Fatalf("a day later: %q", email)
	}
}
