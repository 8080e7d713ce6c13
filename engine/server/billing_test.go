package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/mail"
)

// checkoutKey fetches the checkout screen and returns its idempotency key.
func (h *harness) checkoutKey() string {
	h.t.Helper()
	r := h.screen("/checkout?quiz=true&page=SUBSCRIPTION")
	if r.status != http.StatusOK || screenID(r) != "checkout" {
		h.t.Fatalf("checkout: %d %v", r.status, r.body)
	}
	state, _ := r.body["state"].(map[string]any)
	key, _ := state["checkoutKey"].(string)
	if key == "" {
		h.t.Fatal("the checkout has no idempotency key")
	}
	return key
}

// startCheckout posts the checkout's form (a plan and an address: no card)
// and returns the provider's page it sends the buyer to.
func (h *harness) startCheckout(key, plan, email string) (string, response) {
	h.t.Helper()
	r := h.actionAt("/checkout", "checkout.pay", map[string]any{"plan": plan, "email": email, "/checkoutKey": key})
	eff := effects(r)
	if r.status != http.StatusOK || len(eff) != 1 || eff[0]["type"] != "open_url" {
		return "", r
	}
	return eff[0]["url"].(string), r
}

// payPage submits the sandbox's hosted page as a browser does (a plain
// form post, outside /ui/actions).
func (h *harness) payPage(page string, form url.Values) response {
	h.t.Helper()
	req := httptest.NewRequest(http.MethodPost, page, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return h.do(req)
}

func cardForm(number, expiry string) url.Values {
	return url.Values{"step": {"card"}, "number": {number}, "expiry": {expiry}, "cvc": {"123"}}
}

// paidCheckout buys a plan through billing as the pages do: the hosted page
// opened, paid on the sandbox with 4242…, its event fulfilled.
func (h *harness) paidCheckout(req billing.CheckoutRequest) billing.Subscription {
	h.t.Helper()
	ctx := context.Background()
	st, err := h.app.Billing.StartCheckout(ctx, req)
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.app.Billing.PayOnSandbox(ctx, billing.SandboxPayRequest{Session: strings.TrimPrefix(st.URL, billing.PathSandboxPay),
		Step: "card", Card: billing.Card{Number: billing.TestCardSucceeds, ExpMonth: 12, ExpYear: 2030, CVC: "123"}}); err != nil {
		h.t.Fatal(err)
	}
	order, err := h.app.Billing.Order(ctx, st.OrderID)
	if err != nil {
		h.t.Fatal(err)
	}
	sub, err := h.app.Billing.Subscription(ctx, order.SubscriptionID)
	if err != nil {
		h.t.Fatal(err)
	}
	return sub
}

func (h *harness) mailsTo(to string) []mail.Mail {
	h.t.Helper()
	all, err := h.app.Outbox.List(context.Background(), 100)
	if err != nil {
		h.t.Fatal(err)
	}
	var out []mail.Mail
	for _, m := range all {
		if m.To == to {
			out = append(out, m)
		}
	}
	return out
}

// linkIn finds the first link to path in a mail's text.
func linkIn(t *testing.T, m mail.Mail, path string) *url.URL {
	t.Helper()
	for _, word := range strings.Fields(m.Text) {
		if u, err := url.Parse(word); err == nil && u.Path == path {
			return u
		}
	}
	t.Fatalf("no link to %s in %q", path, m.Text)
	return nil
}

func TestCheckoutCreatesASubscriptionAndMailsTheAccountLink(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	key := h.checkoutKey()
	page, r := h.startCheckout(key, "glimpse_weekly_trial", "Buyer@Example.com")
	if !strings.HasPrefix(page, "/sandbox-pay/cs_sandbox_") {
		t.Fatalf("pay: %d %v", r.status, r.body)
	}
	// The provider's page: its own HTML, strict CSP, card fields as Stripe's.
	get := h.do(httptest.NewRequest(http.MethodGet, page, nil))
	html := string(get.raw)
	if get.status != http.StatusOK || !strings.Contains(html, `inputmode="numeric"`) || !strings.Contains(html, "Pay $1") ||
		!strings.Contains(get.header.Get("Content-Security-Policy"), "script-src 'self';") || strings.Contains(html, "<script>") {
		t.Fatalf("sandbox page: %d %s %s", get.status, get.header.Get("Content-Security-Policy"), html)
	}
	// A decline: the page says so and stays open for another card.
	declined := h.payPage(page, cardForm("4000 0000 0000 0002", "12 / 30"))
	if declined.status != http.StatusUnprocessableEntity || !strings.Contains(string(declined.raw), "Your card was declined.") {
		t.Fatalf("declined: %d %s", declined.status, declined.raw)
	}
	paid := h.payPage(page, cardForm("4242 4242 4242 4242", "12 / 30"))
	done, err := url.Parse(paid.header.Get("Location"))
	if paid.status != http.StatusSeeOther || err != nil || done.Path != "/checkout/done" || done.Host != "127.0.0.1:8080" {
		t.Fatalf("paid: %d %s", paid.status, paid.header.Get("Location"))
	}
	if r := h.screen(done.RequestURI()); screenID(r) != "checkout-done" || !strings.Contains(string(r.raw), "b•••@example.com") ||
		!strings.Contains(string(r.raw), "Payment successful") {
		t.Fatalf("done page: %s", r.raw)
	}
	// The same checkout page submitted again opens the same paid page,
	// which sends the buyer on and charges nothing more.
	if again, _ := h.startCheckout(key, "glimpse_weekly_trial", "buyer@example.com"); again != page {
		t.Fatalf("a second submit of one checkout opened %s", again)
	}
	if r := h.do(httptest.NewRequest(http.MethodGet, page, nil)); r.status != http.StatusSeeOther {
		t.Fatalf("the paid page: %d", r.status)
	}
	subs, err := h.app.Billing.SubscriptionsByEmail(context.Background(), "buyer@example.com")
	if err != nil || len(subs) != 1 {
		t.Fatalf("subscriptions: %d %v", len(subs), err)
	}
	// The welcome mail with the account link, and the first payment's
	// receipt, each once.
	var welcome, receipt []mail.Mail
	for _, m := range h.mailsTo("buyer@example.com") {
		switch m.Template {
		case mail.TemplatePurchase:
			welcome = append(welcome, m)
		case mail.TemplateReceipt:
			receipt = append(receipt, m)
		}
	}
	if len(welcome) != 1 || len(receipt) != 1 || !strings.Contains(receipt[0].Text, "We charged $1 for Weekly Plan on ") ||
		!strings.Contains(receipt[0].Text, "Paid with: Visa ••4242") {
		t.Fatalf("welcome %+v, receipts %+v", welcome, receipt)
	}
	// The link carries the mail's own key, which names the subscription;
	// the id the done page showed is not in it.
	link := linkIn(t, welcome[0], "/access-recovery")
	if link.Query().Get("key") == "" || strings.Contains(link.String(), subs[0].ID) {
		t.Fatalf("the mail links %s", link)
	}
	if r := h.screen(link.RequestURI()); screenID(r) != "create-account" || !strings.Contains(string(r.raw), `"email":"buyer@example.com"`) {
		t.Fatalf("the mail's link opens %s", r.raw)
	}
}

// The return page never grants: before the provider's event it says the
// payment is being confirmed and looks again; an unknown order is not found.
func TestCheckoutDoneWaitsForTheEvent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	st, err := h.app.Billing.StartCheckout(context.Background(), billing.CheckoutRequest{Brand: "default", Bundle: "glimpse.web",
		PlanCode: "glimpse_weekly_trial", Email: "wait@example.com", Key: "wait", Origin: "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	r := h.screen("/checkout/done?order=" + st.OrderID)
	if !strings.Contains(string(r.raw), "Confirming your payment") || !strings.Contains(string(r.raw), `"onLoad"`) {
		t.Fatalf("pending: %s", r.raw)
	}
	if r := h.screen("/checkout/done?order=co_nobody"); !strings.Contains(string(r.raw), "This checkout was not found.") {
		t.Fatalf("unknown: %s", r.raw)
	}
}

func TestCheckoutRefusals(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	key := h.checkoutKey()
	if _, r := h.startCheckout(key, "_x_weekly_trial", "x@example.com"); r.status != http.StatusUnprocessableEntity ||
		fieldErrors(r)["plan"] == nil {
		t.Fatalf("another brand's plan: %d %v", r.status, r.body)
	}
	page, r := h.startCheckout(key, "glimpse_weekly_trial", "x@example.com")
	if page == "" {
		t.Fatalf("checkout: %d %v", r.status, r.body)
	}
	cases := []struct {
		name, card, expiry, text string
	}{
		{"declined", billing.TestCardDeclined, "12/30", "Your card was declined."},
		{"luhn", "4242424242424241", "12/30", "Your card number is invalid."},
		{"short", "4242", "12/30", "Your card number is invalid."},
		{"expired", billing.TestCardSucceeds, "01 / 21", "Your card&#39;s expiration date is in the past."},
		{"incomplete expiry", billing.TestCardSucceeds, "1", "Your card&#39;s expiration date is incomplete."},
	}
	for _, c := range cases {
		r := h.payPage(page, cardForm(c.card, c.expiry))
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.raw), c.text) {
			t.Errorf("%s: status %d %s", c.name, r.status, r.raw)
		}
	}
	if r := h.payPage(page, url.Values{"step": {"steal"}}); r.status != http.StatusBadRequest {
		t.Errorf("an unknown step: %d", r.status)
	}
	req := httptest.NewRequest(http.MethodPost, page, strings.NewReader(cardForm(billing.TestCardSucceeds, "12/30").Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if r := h.do(req); r.status != http.StatusForbidden {
		t.Errorf("a cross-site post to the page: %d", r.status)
	}
	if subs, _ := h.app.Billing.SubscriptionsByEmail(context.Background(), "x@example.com"); len(subs) != 0 {
		t.Fatalf("refused payments created %d subscriptions", len(subs))
	}
}

// A partner brand's buyer pays on the page and comes back to the partner's
// own host (the brand's origin, never the request's Host).
func TestPartnerCheckoutReturnsToItsHost(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.host = "x.glimpse.test"
	key := h.checkoutKey()
	page, r := h.startCheckout(key, "_x_weekly_trial", "partner@example.com")
	if page == "" {
		t.Fatalf("checkout: %d %v", r.status, r.body)
	}
	if html := string(h.do(httptest.NewRequest(http.MethodGet, page, nil)).raw); !strings.Contains(html, h.app.Brands.Get("_x_").Name) {
		t.Fatalf("the page does not name the partner: %s", html)
	}
	paid := h.payPage(page, cardForm("4242 4242 4242 4242", "12/30"))
	if loc := paid.header.Get("Location"); !strings.HasPrefix(loc, "http://x.glimpse.test:8080/checkout/done?order=") {
		t.Fatalf("paid: %d %s", paid.status, loc)
	}
	subs, _ := h.app.Billing.SubscriptionsByEmail(context.Background(), "partner@example.com")
	if len(subs) != 1 || subs[0].Brand != "_x_" {
		t.Fatalf("subscriptions %+v", subs)
	}
}

// No action takes a card: checkout.pay's request has no card fields, and a
// card number sent to it anyway is not read.
func TestNoActionTakesACard(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	key := h.checkoutKey()
	r := h.actionAt("/checkout", "checkout.pay", map[string]any{"plan": "glimpse_weekly_trial", "email": "c@example.com",
		"/checkoutKey": key, "card": billing.TestCardSucceeds, "expiry": "12/30", "cvc": "123"})
	if eff := effects(r); len(eff) != 1 || eff[0]["type"] != "open_url" {
		t.Fatalf("checkout.pay: %d %v", r.status, r.body)
	}
	if subs, _ := h.app.Billing.SubscriptionsByEmail(context.Background(), "c@example.com"); len(subs) != 0 {
		t.Fatal("a card sent to an action bought something")
	}
	checkout := h.screen("/checkout")
	if strings.Contains(string(checkout.raw), `"card"`) || strings.Contains(string(checkout.raw), "cc-number") {
		t.Fatalf("the checkout screen has card fields: %s", checkout.raw)
	}
}

func TestMyPlanPurchaseAndCancelByEmail(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	u := h.subscriberWithCard("ann@example.com", "correct-horse")
	if r := h.signIn("ann@example.com", "correct-horse"); r.status != http.StatusOK {
		t.Fatalf("sign in: %d %v", r.status, r.body)
	}
	home := h.screen("/dashboard")
	if !strings.Contains(string(home.raw), "Buy for $28.99") || strings.Contains(string(home.raw), "PURCHASED") {
		t.Fatalf("My Plan before buying: %s", home.raw)
	}
	// Nothing is charged from My Plan or the course modal: each opens the
	// confirmation, which names the price and the card.
	if !strings.Contains(string(home.raw), "Pay $19.99 with Visa ••4242") {
		t.Fatalf("no confirmation naming the card: %s", home.raw)
	}
	r := h.actionAt("/dashboard", "course.purchase", nil)
	eff := effects(r)
	boughtAt, _ := eff[len(eff)-1]["to"].(string)
	if r.status != http.StatusOK || !strings.HasPrefix(boughtAt, "/dashboard/receipts/") || !strings.HasSuffix(boughtAt, "?purchase=done") {
		t.Fatalf("buy course: %d %v", r.status, r.body)
	}
	// It lands on the receipt, which says it went through and opens the course.
	landed := h.screen(boughtAt)
	if screenID(landed) != "receipt" || !strings.Contains(string(landed.raw), "Payment successful") ||
		!strings.Contains(string(landed.raw), `"to":"/dashboard/course"`) || !strings.Contains(string(landed.raw), "Visa ••4242") {
		t.Fatalf("the receipt after buying: %s", landed.raw)
	}
	again := h.actionAt("/dashboard", "course.purchase", nil) // a double tap
	if eff := effects(again); again.status != http.StatusOK || eff[len(eff)-1]["to"] != boughtAt {
		t.Fatalf("a double tap: %d %v", again.status, again.body)
	}
	subs, _ := h.app.Billing.ForUser(ctx, u.ID)
	if len(subs) != 2 {
		t.Fatalf("%d subscriptions after buying the course twice", len(subs))
	}
	if course := h.screen("/dashboard/course"); screenID(course) != "course" {
		t.Fatalf("the course after buying it: %v", course.body)
	}
	if home := h.screen("/dashboard"); !strings.Contains(string(home.raw), "PURCHASED") {
		t.Fatal("My Plan does not show the course as purchased")
	}
	// The receipt names what was bought (it read "Weekly Plan").
	receipts := h.mails(mail.TemplateReceipt)
	if len(receipts) != 1 || !strings.Contains(receipts[0].Text, " for Instagram PRO course on ") ||
		!strings.Contains(receipts[0].Text, "Visa ••4242") || !strings.Contains(receipts[0].Subject, "Your Glimpse receipt ") {
		t.Fatalf("receipts: %+v", receipts)
	}
	// Billing history lists it, paid, with its receipt.
	history := h.screen("/dashboard/billing")
	if screenID(history) != "billing" || !strings.Contains(string(history.raw), "Instagram PRO course") ||
		!strings.Contains(string(history.raw), `"label":"Paid"`) || !strings.Contains(string(history.raw), strings.TrimSuffix(boughtAt, "?purchase=done")) {
		t.Fatalf("billing history: %s", history.raw)
	}

	// Cancel by email: one tap on the mail's link's page cancels.
	r = h.actionAt("/dashboard", "plan.cancel_request", nil)
	if r.status != http.StatusOK {
		t.Fatalf("cancel request: %d %v", r.status, r.body)
	}
	mails := h.mailsTo("ann@example.com")
	var confirm *mail.Mail
	for i := range mails {
		if mails[i].Template == mail.TemplateCancelConfirm {
			confirm = &mails[i]
		}
	}
	if confirm == nil {
		t.Fatalf("no confirmation mail in %+v", mails)
	}
	link := linkIn(t, *confirm, "/unsubscription")
	page := h.screen("/unsubscription?" + link.RawQuery)
	if screenID(page) != "unsubscription" || !strings.Contains(string(page.raw), "Cancel my subscription") {
		t.Fatalf("cancel page: %v", page.body)
	}
	done := h.actionAt("/unsubscription?"+link.RawQuery, "unsubscription.cancel", nil)
	if !strings.Contains(string(done.raw), "Your subscription has been canceled") {
		t.Fatalf("cancel: %s", done.raw)
	}
	main, _ := h.app.Billing.Subscription(ctx, "sub-"+u.ID)
	if main.Status != billing.StatusCanceled {
		t.Fatalf("status after the link: %s", main.Status)
	}
	// Still authorised until the period ends; My Plan says Canceled.
	h.clock.Advance(6 * time.Second)
	if home := h.screen("/dashboard"); home.status != http.StatusOK || !strings.Contains(string(home.raw), `"label":"Canceled"`) {
		t.Fatalf("My Plan after canceling: %d %s", home.status, home.raw)
	}
	// The link is spent: tapped again (a second click, a copy read later)
	// it cancels nothing and says the plan is canceled already.
	if again := h.actionAt("/unsubscription?"+link.RawQuery, "unsubscription.cancel", nil); !strings.Contains(string(again.raw), "Your subscription is already canceled") {
		t.Fatalf("the link worked twice: %s", again.raw)
	}
	// A made-up link reads 'No subscriptions'.
	none := h.actionAt("/unsubscription?from=nonsense", "unsubscription.cancel", nil)
	if !strings.Contains(string(none.raw), "No subscriptions") {
		t.Fatalf("unknown link: %s", none.raw)
	}
	hist, _ := h.app.Billing.History(ctx, "sub-"+u.ID)
	if len(hist) == 0 || hist[len(hist)-1].Kind != billing.ChangeCanceled || hist[len(hist)-1].By != "email-link" {
		t.Fatalf("history %+v", hist)
	}
}

// A renewal the bank refused until the subscriber authenticates: the mail
// links to the confirmation page, which sends them to the provider's page;
// authenticated there, the plan is renewed and the link closes.
func TestRenewalConfirmationThroughTheMailedLink(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	st, err := h.app.Billing.StartCheckout(ctx, billing.CheckoutRequest{Brand: "default", Bundle: "glimpse.web",
		PlanCode: "glimpse_weekly_trial", Email: "bank@example.com", Key: "bank", Origin: "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	page := st.URL
	if r := h.payPage(page, cardForm("4000 0027 6000 3184", "12/30")); r.status != http.StatusSeeOther {
		t.Fatalf("3-D Secure card: %d", r.status)
	}
	if r := h.payPage(page, url.Values{"step": {"authenticate"}}); r.status != http.StatusSeeOther {
		t.Fatalf("authenticate: %d %s", r.status, r.raw)
	}
	order, _ := h.app.Billing.Order(ctx, st.OrderID)
	sub, err := h.app.Billing.Subscription(ctx, order.SubscriptionID)
	if err != nil {
		t.Fatal(err)
	}
	h.clock.Set(sub.CurrentPeriodEnd)
	if _, err := h.app.Billing.RenewDue(ctx); err != nil {
		t.Fatal(err)
	}
	mails := h.mails(mail.TemplateConfirmPayment)
	if len(mails) != 1 {
		t.Fatalf("confirmation mails: %+v", mails)
	}
	link := linkIn(t, mails[0], "/checkout/confirm")
	if r := h.screen(link.RequestURI()); screenID(r) != "confirm-payment" || !strings.Contains(string(r.raw), "$1") {
		t.Fatalf("confirmation page: %s", r.raw)
	}
	r := h.actionAt(link.RequestURI(), "checkout.confirm", map[string]any{"/token": link.Query().Get("token")})
	eff := effects(r)
	if len(eff) != 1 || eff[0]["type"] != "open_url" {
		t.Fatalf("confirm: %d %v", r.status, r.body)
	}
	confirmPage := eff[0]["url"].(string)
	if html := string(h.do(httptest.NewRequest(http.MethodGet, confirmPage, nil)).raw); !strings.Contains(html, "Visa ••3184") {
		t.Fatalf("the provider's page does not offer the saved card: %s", html)
	}
	h.payPage(confirmPage, url.Values{"step": {"saved"}})
	if r := h.payPage(confirmPage, url.Values{"step": {"authenticate"}}); r.status != http.StatusSeeOther {
		t.Fatalf("authenticate: %d %s", r.status, r.raw)
	}
	got, _ := h.app.Billing.Subscription(ctx, sub.ID)
	if got.FailedAttempts != 0 || !got.CurrentPeriodEnd.After(sub.CurrentPeriodEnd) {
		t.Fatalf("after confirming: %+v", got)
	}
	if r := h.screen(link.RequestURI()); !strings.Contains(string(r.raw), "This payment no longer needs you.") {
		t.Fatalf("the used link: %s", r.raw)
	}
}

// A renewal's receipt reaches the subscriber as a mail in the brand's
// words, queued with its batch (app.billingMails, the outbox's batched insert).
func TestRenewalReceiptIsMailed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	st, err := h.app.Billing.StartCheckout(ctx, billing.CheckoutRequest{Brand: "default", Bundle: "glimpse.web",
		PlanCode: "glimpse_weekly_trial", Email: "renews@example.com", Key: "renews", Origin: "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	if r := h.payPage(st.URL, cardForm("4242 4242 4242 4242", "12/30")); r.status != http.StatusSeeOther {
		t.Fatalf("pay: %d %s", r.status, r.raw)
	}
	order, _ := h.app.Billing.Order(ctx, st.OrderID)
	sub, err := h.app.Billing.Subscription(ctx, order.SubscriptionID)
	if err != nil {
		t.Fatal(err)
	}
	before := len(h.mails(mail.TemplateReceipt))
	h.clock.Set(sub.CurrentPeriodEnd)
	if stats, err := h.app.Billing.RenewDue(ctx); err != nil || stats.Renewed != 1 {
		t.Fatalf("renewal: %+v %v", stats, err)
	}
	receipts := h.mails(mail.TemplateReceipt)
	if len(receipts) != before+1 {
		t.Fatalf("%d receipt mails after the renewal, want %d", len(receipts), before+1)
	}
	var renewal *mail.Mail
	for i := range receipts {
		if strings.Contains(receipts[i].Text, "Visa ••4242") && receipts[i].To == "renews@example.com" &&
			strings.Contains(receipts[i].Subject, "Your Glimpse receipt ") && receipts[i].Status == mail.StatusQueued {
			renewal = &receipts[i]
		}
	}
	if renewal == nil {
		t.Fatalf("no queued receipt mail for the renewal among %+v", receipts)
	}
}
