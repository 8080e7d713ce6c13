package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A used account-creation link (the purchase mail's) says the account is
// ready and offers sign-in whatever became of the plan since: canceled and
// ended, it read 'No subscription', telling the buyer their plan was gone
// (#32 item 11).
func TestAUsedAccountLinkSaysTheAccountIsReady(t *testing.T) {
	t.Parallel()
	h := newAccountHarness(t)
	ctx := context.Background()
	sub := h.buy("buyer@example.com")
	path := h.welcomePath("buyer@example.com")
	h.screen(path)
	r := h.actionAt(path, "account.create", map[string]any{"email": "buyer@example.com", "password": "buyers-own-password",
		"/key": strings.TrimPrefix(path, "/access-recovery?key=")})
	if r.status != http.StatusOK {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	if _, err := h.app.Billing.Cancel(ctx, sub.ID, "test"); err != nil {
		t.Fatal(err)
	}
	const ready = "Your account is ready. Sign in with your email and the password you chose."
	stranger := &harness{t: t, app: h.app, srv: h.srv, clock: h.clock, cookies: map[string]string{}, host: h.host}
	for _, when := range []time.Duration{0, 8 * 24 * time.Hour} { // canceled; then ended
		h.clock.Advance(when)
		page := stranger.screen(path)
		html := stranger.do(httptest.NewRequest(http.MethodGet, path, nil))
		for _, got := range []response{page, html} {
			if !strings.Contains(string(got.raw), ready) || strings.Contains(string(got.raw), "No subscription") {
				t.Fatalf("the used link %v later: %s", when, got.raw)
			}
		}
		if !strings.Contains(string(page.raw), `"to":"/sign-in"`) {
			t.Fatalf("no sign-in: %s", page.raw)
		}
	}
}
