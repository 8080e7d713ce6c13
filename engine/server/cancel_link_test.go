package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/mail"
)

// The mailed cancel link's page cancels on its one tap, never on its load:
// a mail scanner that opens the link (the page, its screen, again and
// again) cancels nothing. Tapped once it cancels; opened or tapped again it
// says the plan is canceled already and until when, not 'No subscriptions'
// (#32 item 10).
func TestTheCancelLinksPageCancelsOnlyOnItsTap(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	u := h.subscriber("ann@example.com", "ann-password")
	token, err := h.app.Billing.NewCancelLink(ctx, u.Email, u.ID, "glimpse.web", billing.CancelLinkLifetime)
	if err != nil {
		t.Fatal(err)
	}
	path := "/unsubscription?from=" + url.QueryEscape(token)
	status := func() string {
		sub, err := h.app.Billing.Subscription(ctx, "sub-"+u.ID)
		if err != nil {
			t.Fatal(err)
		}
		return sub.Status
	}

	// A scanner: the page's HTML and its screen, twice each.
	for range 2 {
		if res := h.do(httptest.NewRequest(http.MethodGet, path, nil)); res.status != http.StatusOK {
			t.Fatalf("GET %s: %d", path, res.status)
		}
		h.screen(path)
	}
	if got := status(); got != billing.StatusActive {
		t.Fatalf("the page's load canceled the plan: %s", got)
	}
	page := h.screen(path)
	var env struct {
		Screen json.RawMessage `json:"screen"`
	}
	_ = json.Unmarshal(page.raw, &env)
	if strings.Contains(string(env.Screen), `"onLoad"`) || !strings.Contains(string(env.Screen), `"label":"Cancel my subscription"`) ||
		!strings.Contains(string(env.Screen), `"action":"unsubscription.cancel"`) ||
		!strings.Contains(string(env.Screen), "You can keep using Glimpse until Nov 7, 2026.") {
		t.Fatalf("the confirmation: %s", env.Screen)
	}

	// The tap cancels.
	done := h.actionAt(path, "unsubscription.cancel", nil)
	if done.status != http.StatusOK || !strings.Contains(string(done.raw), "Your subscription has been canceled") {
		t.Fatalf("the tap: %d %s", done.status, done.raw)
	}
	sub, _ := h.app.Billing.Subscription(ctx, "sub-"+u.ID)
	if sub.Status != billing.StatusCanceled || sub.ExpiresAt == nil {
		t.Fatalf("after the tap: %+v", sub)
	}
	until := "You can keep using Glimpse until " + brand.Date(*sub.ExpiresAt) + "."

	// The used link, opened or tapped again, says so, and until when.
	h.clock.Advance(time.Hour)
	for what, r := range map[string]response{"opened": h.screen(path), "tapped": h.actionAt(path, "unsubscription.cancel", nil)} {
		if r.status != http.StatusOK || !strings.Contains(string(r.raw), "Your subscription is already canceled") ||
			!strings.Contains(string(r.raw), until) || strings.Contains(string(r.raw), "No subscriptions") {
			t.Fatalf("the used link %s again: %d %s", what, r.status, r.raw)
		}
	}
	// Still so once the link itself has expired.
	h.clock.Advance(billing.CancelLinkLifetime)
	if r := h.screen(path); !strings.Contains(string(r.raw), "Your subscription is already canceled") {
		t.Fatalf("the used link a day later: %s", r.raw)
	}
	hist, _ := h.app.Billing.History(ctx, "sub-"+u.ID)
	canceled := 0
	for _, c := range hist {
		if c.Kind == billing.ChangeCanceled {
			canceled++
		}
	}
	if canceled != 1 {
		t.Fatalf("%d cancels in %+v", canceled, hist)
	}

	// A link that names nothing says so and offers the form; an expired,
	// unused link offers a new one.
	if r := h.screen("/unsubscription?from=nonsense"); !strings.Contains(string(r.raw), "No subscriptions") ||
		!strings.Contains(string(r.raw), `"action":"unsubscription.ask"`) {
		t.Fatalf("an unknown link: %s", r.raw)
	}
	old, err := h.app.Billing.NewCancelLink(ctx, "bob@example.com", "", "glimpse.web", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(2 * time.Minute)
	if r := h.screen("/unsubscription?from=" + url.QueryEscape(old)); !strings.Contains(string(r.raw), "This link has expired or was already used.") ||
		!strings.Contains(string(r.raw), `"action":"unsubscription.ask"`) {
		t.Fatalf("an expired link: %s", r.raw)
	}
}

// /unsubscription without a link asks for one by address: the mail goes to
// an address with a plan, and every address gets the same answer, and the
// same limit, whether or not it has one (#32 item 10).
func TestACancelLinkIsAskedForOnThePublicPage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriber("ann@example.com", "ann-password")
	page := h.screen("/unsubscription")
	if screenID(page) != "unsubscription" || !strings.Contains(string(page.raw), `"action":"unsubscription.ask"`) ||
		!strings.Contains(string(page.raw), `"bind":"/form/email"`) || strings.Contains(string(page.raw), "Check if the specified email address is correct") {
		t.Fatalf("the page without a link: %s", page.raw)
	}
	screenOf := func(r response, email string) string {
		var env struct {
			Screen json.RawMessage `json:"screen"`
			State  json.RawMessage `json:"state"`
		}
		_ = json.Unmarshal(r.raw, &env)
		return strings.ReplaceAll(string(env.Screen)+string(env.State), email, "EMAIL")
	}
	ask := func(email string) response {
		return h.actionAt("/unsubscription", "unsubscription.ask", map[string]any{"email": email})
	}
	customer, stranger := ask("Ann@Example.com"), ask("nobody@example.com")
	if customer.status != http.StatusOK || stranger.status != customer.status || screenOf(customer, "Ann@Example.com") != screenOf(stranger, "nobody@example.com") ||
		!strings.Contains(string(customer.raw), "If Ann@Example.com has a Glimpse subscription, we've sent a link to cancel it there.") {
		t.Fatalf("the answers differ:\n%d %s\n%d %s", customer.status, customer.raw, stranger.status, stranger.raw)
	}
	mails := h.waitMails(mail.TemplateCancelConfirm, 1)
	if mails[0].To != "ann@example.com" {
		t.Fatalf("mailed to %s", mails[0].To)
	}
	// The mailed link's page asks for the tap.
	link := linkIn(t, mails[0], "/unsubscription")
	if r := h.screen("/unsubscription?" + link.RawQuery); !strings.Contains(string(r.raw), "Cancel my subscription") {
		t.Fatalf("the mailed link: %s", r.raw)
	}

	// The limit: CancelMailsPer asks per address in a window, the same for
	// an address with a plan and one without.
	for range billing.CancelMailsPer - 1 {
		ask("ann@example.com")
		ask("nobody@example.com")
	}
	customer, stranger = ask("ann@example.com"), ask("nobody@example.com")
	for _, r := range []response{customer, stranger} {
		if r.status != http.StatusTooManyRequests || formError(r) != "We've sent all the links we can to this address for now. Please check your inbox, or try again in 10 minutes." {
			t.Fatalf("over the limit: %d %s", r.status, r.raw)
		}
	}
	h.waitMails(mail.TemplateCancelConfirm, 1) // one mail per window
	h.clock.Advance(billing.CancelMailWindow)
	if r := ask("ann@example.com"); r.status != http.StatusOK {
		t.Fatalf("the next window: %d %s", r.status, r.raw)
	}
	h.waitMails(mail.TemplateCancelConfirm, 2)

	if r := ask("not-an-address"); r.status == http.StatusOK || fieldErrors(r)["email"] != "Wrong email format" {
		t.Fatalf("a wrong address: %d %s", r.status, r.raw)
	}
}
