package billing

import (
	"context"
	"errors"
	"strings"
	"testing"

	"glimpse/engine"
)

// TestCheckoutKeyClaimHoldsNoAddress: a checkout key's claim binds it to
// the plan and the address without holding the address (account deletion
// cannot find the claim by it), and still refuses the key for another
// address.
func TestCheckoutKeyClaimHoldsNoAddress(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
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
		o, err := f.svc.st.Keys().Bound(ctx, checkoutKeyClaim(engine.HashToken("checkout:"+key)), f.clock.Now())
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

}
