package server_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"glimpse/engine/auth"
	"glimpse/engine/staff"
)

// A studio sign-in ends the session the browser had before, as a subscriber
// sign-in does, so a token that was seen (a shared machine, a copied cookie)
// does not outlive the next sign-in.
func TestStudioSignInRotatesTheSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	if err := h.app.Staff.Put(ctx, "ed@glimpse.example", staff.RoleEditor, "editor-password"); err != nil {
		t.Fatal(err)
	}
	signIn := func() string {
		t.Helper()
		h.screen("/studio")
		before := h.csrf
		res := h.action("studio.sign_in", map[string]any{"email": "ed@glimpse.example", "password": "editor-password"})
		if got := effects(res); len(got) != 1 || got[0]["to"] != "/studio" {
			t.Fatalf("studio sign-in: %d %s", res.status, res.raw)
		}
		if tok := res.header.Get("X-CSRF-Token"); tok == "" || tok == before {
			t.Fatalf("studio sign-in sent CSRF token %q, want a new one (before: %q)", tok, before)
		}
		return h.cookies["glimpse_staff"]
	}
	first := signIn()
	second := signIn()
	if first == "" || second == first {
		t.Fatalf("the session was not rotated: %q then %q", first, second)
	}
	if _, err := h.app.Staff.Authenticate(ctx, first); !errors.Is(err, staff.ErrNoSession) {
		t.Fatalf("the previous session after a new sign-in: %v", err)
	}
	if _, err := h.app.Staff.Authenticate(ctx, second); err != nil {
		t.Fatalf("the new session: %v", err)
	}
}

// Issue #8, defect 2, through HTTP: past the limit the studio answers 429
// with the sign-in copy, even for the right password.
func TestStudioSignInIsRateLimited(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.app.Staff.Limiter().SetLimits(auth.Limits{PerClient: 3, PerIP: 30, PerAccount: 100, Window: auth.LimitWindow})
	if err := h.app.Staff.Put(context.Background(), "ed@glimpse.example", staff.RoleEditor, "editor-password"); err != nil {
		t.Fatal(err)
	}
	h.screen("/studio")
	for i := range 3 {
		if res := h.action("studio.sign_in", map[string]any{"email": "ed@glimpse.example", "password": "guess-password"}); res.status != http.StatusUnauthorized {
			t.Fatalf("guess %d: %d %s", i+1, res.status, res.raw)
		}
	}
	res := h.action("studio.sign_in", map[string]any{"email": "ed@glimpse.example", "password": "editor-password"})
	if res.status != http.StatusTooManyRequests ||
		formError(res) != "We have blocked all requests from this device due to unusual activity. Try again later." {
		t.Fatalf("the right password past the limit: %d %s", res.status, res.raw)
	}
}
