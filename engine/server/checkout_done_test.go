package server_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine/billing"
	"glimpse/engine/mail"
)

// formState is a screen's form state.
func formState(r response) map[string]any {
	state, _ := r.body["state"].(map[string]any)
	form, _ := state["form"].(map[string]any)
	return form
}

// #32 item 12: the hosted page says what it charges and how often, and for
// whom; its "← Back" returns to the checkout with the plan chosen and the
// address typed (restored from the order: the URL names no address).
func TestHostedPageSaysThePeriodAndBackKeepsTheChoice(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	page, r := h.startCheckout(h.checkoutKey(), "glimpse_premium_one_month", "Chooser@Example.com")
	if page == "" {
		t.Fatalf("checkout: %d %v", r.status, r.body)
	}
	got := string(h.do(httptest.NewRequest(http.MethodGet, page, nil)).raw)
	if !strings.Contains(got, "$13.99 every 1 month") || !strings.Contains(got, "For chooser@example.com") {
		t.Fatalf("the hosted page: %s", got)
	}
	m := regexp.MustCompile(`<a class="back" href="([^"]+)"`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("no back link: %s", got)
	}
	back, err := url.Parse(html.UnescapeString(m[1]))
	if err != nil || strings.Contains(back.String(), "chooser") || back.Path != "/checkout" || back.Query().Get("plan") != "glimpse_premium_one_month" {
		t.Fatalf("back link %q", m[1])
	}
	again := h.screen(back.RequestURI())
	if form := formState(again); form["plan"] != "glimpse_premium_one_month" || form["email"] != "chooser@example.com" {
		t.Fatalf("back on the checkout: %v", form)
	}
	// Another order's id restores nothing of it once paid, and no id nothing.
	if form := formState(h.screen("/checkout?plan=nonsense&order=co_nobody")); form["email"] != "" || form["plan"] != "glimpse_weekly_trial" {
		t.Fatalf("an unknown order: %v", form)
	}
}

// #32 item 12: the done page of a paid plan says what was bought, when it
// renews and where the mail went, and offers no sign-in before the
// account exists: it sends the mail again, or to a corrected address, after
// which the link mailed to the wrong one no longer works.
func TestDonePageResendsAndCorrectsTheAddress(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	page, r := h.startCheckout(h.checkoutKey(), "glimpse_weekly_trial", "typo@exmaple.com")
	if page == "" {
		t.Fatalf("checkout: %d %v", r.status, r.body)
	}
	paid := h.payPage(page, cardForm("4242 4242 4242 4242", "12 / 30"))
	done, _ := url.Parse(paid.header.Get("Location"))
	path := done.RequestURI()
	r = h.screen(path)
	raw := string(r.raw)
	for _, want := range []string{"You bought the Weekly Plan: $1 every week. It renews on Nov 8, 2026 until you cancel.",
		"t•••@exmaple.com", "Send the email again", "Send to this address"} {
		if !strings.Contains(raw, want) {
			t.Fatalf("the done page lacks %q: %s", want, raw)
		}
	}
	if strings.Contains(raw, "Go to sign in") {
		t.Fatalf("the done page offers sign-in before the account exists: %s", raw)
	}
	// Again, to the same address.
	r = h.actionAt(path, "checkout.resend_mail", map[string]any{})
	if r.status != http.StatusOK || !strings.Contains(string(r.raw), "Sent again to t•••@exmaple.com") {
		t.Fatalf("resend: %d %s", r.status, r.raw)
	}
	wrong := purchaseMails(h, "typo@exmaple.com")
	if len(wrong) != 2 {
		t.Fatalf("purchase mails to the typed address: %d", len(wrong))
	}
	// To the right address: the link mailed to the wrong one stops working.
	r = h.actionAt(path, "checkout.change_email", map[string]any{"email": "Right@Example.com"})
	if r.status != http.StatusOK || !strings.Contains(string(r.raw), "Sent again to r•••@example.com") {
		t.Fatalf("change: %d %s", r.status, r.raw)
	}
	right := purchaseMails(h, "right@example.com")
	if len(right) != 1 {
		t.Fatalf("purchase mails to the right address: %d", len(right))
	}
	if r := h.screen(linkIn(t, wrong[0], "/access-recovery").RequestURI()); strings.Contains(string(r.raw), `"email":"right@example.com"`) ||
		strings.Contains(string(r.raw), "Create Your Account\",\"") && strings.Contains(string(r.raw), "typo@") {
		t.Fatalf("the link mailed to the wrong address: %s", r.raw)
	}
	if r := h.screen(linkIn(t, right[0], "/access-recovery").RequestURI()); screenID(r) != "create-account" ||
		!strings.Contains(string(r.raw), `"email":"right@example.com"`) {
		t.Fatalf("the link mailed to the right address: %s", r.raw)
	}
	// An address that already has a plan is refused under the field.
	h.paidCheckout(billing.CheckoutRequest{Brand: "default", Bundle: "glimpse.web", PlanCode: "glimpse_weekly_trial",
		Email: "member@example.com", Key: "member", Origin: "http://127.0.0.1:8080"})
	if r := h.actionAt(path, "checkout.change_email", map[string]any{"email": "member@example.com"}); fieldErrors(r)["email"] == nil {
		t.Fatalf("an address with a plan: %d %s", r.status, r.raw)
	}
	// A day later the page changes nothing, and leads to the access page.
	h.clock.Advance(billing.PurchaseFixWindow)
	if r := h.actionAt(path, "checkout.resend_mail", map[string]any{}); r.status != http.StatusConflict {
		t.Fatalf("a day later: %d %s", r.status, r.raw)
	}
	if raw := string(h.screen(path).raw); strings.Contains(raw, "Send the email again") || !strings.Contains(raw, "Ask for a new link") {
		t.Fatalf("a day later: %s", raw)
	}
}

func purchaseMails(h *harness, to string) []mail.Mail {
	var out []mail.Mail
	for _, m := range h.mailsTo(to) {
		if m.Template == mail.TemplatePurchase {
			out = append(out, m)
		}
	}
	return out
}

// #32 item 13: a checkout refused by a limit says which, and never that
// the device is blocked; the hosted page stops after
// SandboxDeclinesPerSession declines sent together.
func TestCheckoutLimitsThroughThePages(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for i := range billing.CheckoutsPerEmailPerHour {
		if page, r := h.startCheckout(h.checkoutKey(), "glimpse_weekly_trial", "busy@example.com"); page == "" {
			t.Fatalf("checkout %d: %d %v", i, r.status, r.body)
		}
	}
	_, r := h.startCheckout(h.checkoutKey(), "glimpse_weekly_trial", "busy@example.com")
	if r.status != http.StatusTooManyRequests || formError(r) != "Too many checkouts for this email address. Please try again in an hour." {
		t.Fatalf("over the address's limit: %d %v", r.status, r.body)
	}
	// More than the old 20 from one client, each for its own address.
	for i := range 12 {
		if page, r := h.startCheckout(h.checkoutKey(), "glimpse_weekly_trial", fmt.Sprintf("colleague-%d@example.com", i)); page == "" {
			t.Fatalf("colleague %d: %d %v", i, r.status, r.body)
		}
	}
	page, _ := h.startCheckout(h.checkoutKey(), "glimpse_weekly_trial", "cards@example.com")
	n := billing.SandboxDeclinesPerSession + 2
	bodies := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		req := httptest.NewRequest(http.MethodPost, page, strings.NewReader(cardForm(billing.TestCardDeclined, "12 / 30").Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Host = h.host
		wg.Go(func() {
			res, err := h.srv.App().Test(req, fiber.TestConfig{Timeout: time.Minute, FailOnTimeout: true})
			if err != nil {
				t.Error(err)
				return
			}
			defer res.Body.Close()
			var b strings.Builder
			_, _ = fmt.Fprint(&b, res.StatusCode)
			buf := make([]byte, 64<<10)
			for {
				k, err := res.Body.Read(buf)
				b.Write(buf[:k])
				if err != nil {
					break
				}
			}
			bodies[i] = b.String()
		})
	}
	wg.Wait()
	declined, stopped := 0, 0
	for _, b := range bodies {
		switch {
		case strings.Contains(b, "Your card was declined."):
			declined++
		case strings.Contains(b, "Too many cards were declined on this page."):
			stopped++
		}
	}
	if declined != billing.SandboxDeclinesPerSession || stopped != 2 {
		t.Fatalf("%d declines sent together: %d declined, %d stopped", n, declined, stopped)
	}
	if subs, _ := h.app.Billing.SubscriptionsByEmail(context.Background(), "cards@example.com"); len(subs) != 0 {
		t.Fatalf("subscriptions %+v", subs)
	}
}
