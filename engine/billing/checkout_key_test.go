package billing

import (
	"context"
	"errors"
	"strings"
	"testing"

	"glimpse/engine"
	"glimpse/engine/store"
)

// TestCheckoutKeyClaimHoldsNoAddress: a checkout key's claim binds it to
// the plan and the address without holding the address (account deletion
// cannot find the claim by it), and still refuses the key for another
// address; a claim an older release bound to the address itself is
// rewritten once at start, and its key still buys for that address.
func TestCheckoutKeyClaimHoldsNoAddress(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	claims := store.NewClaims(f.svc.db)
	plan, err := f.svc.Catalogue().Find("default", FamilyWeekly)
	if err != nil {
		t.Fatal(err)
	}
	const email = "ann@example.com" // as f.start's address is normalised
	checkout := func(key, address string) error {
		_, err := f.svc.StartCheckout(ctx, CheckoutRequest{Brand: "default", Bundle: "glimpse.web",
			PlanCode: plan.Code, Email: address, Key: key, Origin: "https://glimpse.example"})
		return err
	}
	owner := func(key string) string {
		t.Helper()
		o, err := claims.Owner(ctx, checkoutKeyClaim(engine.HashToken("checkout:"+key)))
		if err != nil || o == "" {
			t.Fatalf("the claim of key %s: %q, %v", key, o, err)
		}
		return o
	}

	f.start(t, FamilyWeekly, "new-key")
	if o := owner("new-key"); strings.Contains(o, email) || !strings.HasPrefix(o, plan.Code+"|") {
		t.Errorf("the claim's owner %q holds the address, or not the plan", o)
	}
	if err := checkout("new-key", email); err != nil {
		t.Errorf("the same checkout again: %v", err)
	}
	if err := checkout("new-key", "bob@example.com"); !errors.Is(err, ErrKeyReused) {
		t.Errorf("the key for another address: %v, want ErrKeyReused", err)
	}

	// Bound by an older release.
	if _, err := claims.Take(ctx, checkoutKeyClaim(engine.HashToken("checkout:old-key")), plan.Code+"|"+email,
		f.clock.Now().Add(keyLifetime)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := HashCheckoutKeyOwners(ctx, f.svc.db, "settings", f.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if o := owner("old-key"); strings.Contains(o, email) {
		t.Errorf("the older claim still holds the address: %q", o)
	}
	if err := checkout("old-key", email); err != nil {
		t.Errorf("the older page's key: %v", err)
	}
	if err := checkout("old-key", "bob@example.com"); !errors.Is(err, ErrKeyReused) {
		t.Errorf("the older key for another address: %v, want ErrKeyReused", err)
	}
}
