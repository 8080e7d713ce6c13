package server_test

import (
	"context"
	"net/http"
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

func (h *harness) pay(key, plan, email, card string) response {
	h.t.Helper()
	return h.actionAt("/checkout", "checkout.pay", map[string]any{"plan": plan, "email": email, "card": card,
		"expiry": "12/30", "cvc": "123", "/checkoutKey": key})
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
	r := h.pay(key, "glimpse_weekly_trial", "Buyer@Example.com", "4242 4242 4242 4242")
	eff := effects(r)
	if r.status != http.StatusOK || len(eff) != 1 || !strings.HasPrefix(eff[0]["to"].(string), "/checkout/done?id=sub_") {
		t.Fatalf("pay: %d %v", r.status, r.body)
	}
	done := h.screen(eff[0]["to"].(string))
	if screenID(done) != "checkout-done" || !strings.Contains(string(done.raw), "b•••@example.com") {
		t.Fatalf("done page: %s", done.raw)
	}
	// The same page submitted again charges nothing more.
	again := h.pay(key, "glimpse_weekly_trial", "buyer@example.com", "4242424242424242")
	if effects(again)[0]["to"] != eff[0]["to"] {
		t.Fatalf("a second submit of one checkout: %v", again.body)
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

func TestCheckoutRefusals(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	key := h.checkoutKey()
	cases := []struct {
		name, plan, card, expiry, field, form string
	}{
		{"declined", "glimpse_weekly_trial", billing.TestCardDeclined, "12/30", "", "Your card was declined."},
		{"luhn", "glimpse_weekly_trial", "4242424242424241", "12/30", "card", ""},
		{"pattern", "glimpse_weekly_trial", "4242", "12/30", "card", ""},
		{"expired", "glimpse_weekly_trial", billing.TestCardSucceeds, "01/21", "expiry", ""},
		{"other brand's plan", "_x_weekly_trial", billing.TestCardSucceeds, "12/30", "plan", ""},
	}
	for _, c := range cases {
		r := h.actionAt("/checkout", "checkout.pay", map[string]any{"plan": c.plan, "email": "x@example.com",
			"card": c.card, "expiry": c.expiry, "cvc": "123", "/checkoutKey": key})
		if r.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: status %d %v", c.name, r.status, r.body)
			continue
		}
		if c.form != "" && formError(r) != c.form {
			t.Errorf("%s: form error %q", c.name, formError(r))
		}
		if c.field != "" && fieldErrors(r)[c.field] == nil {
			t.Errorf("%s: no error under %s: %v", c.name, c.field, r.body)
		}
	}
	if subs, _ := h.app.Billing.SubscriptionsByEmail(context.Background(), "x@example.com"); len(subs) != 0 {
		t.Fatalf("refused checkouts created %d subscriptions", len(subs))
	}
}

func TestMyPlanPurchaseAndCancelByEmail(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	u := h.subscriber("ann@example.com", "correct-horse")
	main, err := h.app.Billing.Subscription(ctx, "sub-"+u.ID)
	if err != nil {
		t.Fatal(err)
	}
	main.PaymentMethod = billing.PaymentMethod{Provider: "sandbox", ID: "pm_sandbox_ok_test", Brand: "visa", Last4: "4242"}
	if err := h.app.Billing.Put(ctx, main); err != nil {
		t.Fatal(err)
	}
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

	// Cancel by email: the mail's link cancels on the public page.
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
	if screenID(page) != "unsubscription" {
		t.Fatalf("cancel page: %v", page.body)
	}
	done := h.actionAt("/unsubscription?"+link.RawQuery, "unsubscription.cancel", nil)
	if !strings.Contains(string(done.raw), "Your subscription has been canceled") {
		t.Fatalf("cancel: %s", done.raw)
	}
	main, _ = h.app.Billing.Subscription(ctx, "sub-"+u.ID)
	if main.Status != billing.StatusCanceled {
		t.Fatalf("status after the link: %s", main.Status)
	}
	// Still authorised until the period ends; My Plan says Canceled.
	h.clock.Advance(6 * time.Second)
	if home := h.screen("/dashboard"); home.status != http.StatusOK || !strings.Contains(string(home.raw), `"label":"Canceled"`) {
		t.Fatalf("My Plan after canceling: %d %s", home.status, home.raw)
	}
	// The link is spent: opened again (a second click, a copy read later)
	// it cancels nothing.
	if again := h.actionAt("/unsubscription?"+link.RawQuery, "unsubscription.cancel", nil); !strings.Contains(string(again.raw), "No subscriptions") {
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
