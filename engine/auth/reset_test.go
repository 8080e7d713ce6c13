package auth_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
)

func subscribed(t *testing.T, svc *auth.Service, email, password string) auth.User {
	t.Helper()
	ctx := context.Background()
	u, err := svc.CreateUser(ctx, email, password)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.PutSubscription(ctx, billing.Subscription{ID: "sub-" + u.ID, UserID: u.ID, Email: u.Email,
		Bundle: "glimpse.web", PlanCode: "glimpse_weekly", Status: billing.StatusActive, MainPlan: true, StartedAt: start}); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestPasswordResetStoredHashedSingleUseAndEndsSessions(t *testing.T) {
	t.Parallel()
	svc, _, stores := newServiceStores(t)
	ctx := context.Background()
	u := subscribed(t, svc, "ann@example.com", "old-password")
	session, err := svc.SignIn(ctx, "ann@example.com", "old-password", "10.0.0.1", "glimpse.web")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, session); err != nil {
		t.Fatal(err)
	}
	token, err := svc.MintPasswordReset(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(token) < 43 { // 32 bytes, base64url
		t.Fatalf("token %q is shorter than 256 bits", token)
	}
	// Only the SHA-256 is stored, as the id.
	stored, err := stores.Links.Find(ctx, auth.PasswordResetKind, engine.HashToken(token))
	if err != nil || stored.Owner != u.ID {
		t.Fatalf("stored reset by hash: %+v %v", stored, err)
	}
	if _, err := stores.Links.Find(ctx, auth.PasswordResetKind, token); !errors.Is(err, auth.ErrLinkNotFound) {
		t.Fatalf("the raw token is stored: %v", err)
	}
	if err := svc.CheckPasswordReset(ctx, token, "10.0.0.1"); err != nil {
		t.Fatalf("check: %v", err)
	}
	if err := svc.ResetPassword(ctx, token, "brand-new-password", "10.0.0.1"); err != nil {
		t.Fatalf("reset: %v", err)
	}
	if _, err := svc.Authenticate(ctx, session); !errors.Is(err, auth.ErrNoSession) {
		t.Fatalf("the old session still works: %v", err)
	}
	if err := svc.ResetPassword(ctx, token, "another-password", "10.0.0.1"); !errors.Is(err, auth.ErrResetInvalid) {
		t.Fatalf("second use: %v", err)
	}
	if _, err := svc.SignIn(ctx, "ann@example.com", "old-password", "10.0.0.1", "glimpse.web"); !errors.Is(err, auth.ErrInvalidCredential) {
		t.Fatalf("old password: %v", err)
	}
	if _, err := svc.SignIn(ctx, "ann@example.com", "brand-new-password", "10.0.0.1", "glimpse.web"); err != nil {
		t.Fatalf("new password: %v", err)
	}
}

func TestPasswordResetExpires(t *testing.T) {
	t.Parallel()
	svc, clock, _ := newServiceStores(t)
	ctx := context.Background()
	u := subscribed(t, svc, "bob@example.com", "old-password")
	token, err := svc.MintPasswordReset(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(auth.PasswordResetLifetime - time.Second)
	if err := svc.CheckPasswordReset(ctx, token, "10.0.0.1"); err != nil {
		t.Fatalf("just before expiry: %v", err)
	}
	clock.Advance(time.Second)
	if err := svc.CheckPasswordReset(ctx, token, "10.0.0.1"); !errors.Is(err, auth.ErrResetInvalid) {
		t.Fatalf("at expiry: %v", err)
	}
	if err := svc.ResetPassword(ctx, token, "brand-new-password", "10.0.0.1"); !errors.Is(err, auth.ErrResetInvalid) {
		t.Fatalf("reset at expiry: %v", err)
	}
	if _, err := svc.SignIn(ctx, "bob@example.com", "old-password", "10.0.0.1", "glimpse.web"); err != nil {
		t.Fatalf("the old password must still work: %v", err)
	}
}

func TestPasswordResetRefusedPasswordKeepsTheLink(t *testing.T) {
	t.Parallel()
	svc, _, _ := newServiceStores(t)
	ctx := context.Background()
	refused := engine.Errorf(engine.CodeInvalid, "breached")
	svc.SetPasswordCheck(func(_ context.Context, p string) error {
		if p == "password123" {
			return refused
		}
		return nil
	})
	u := subscribed(t, svc, "cat@example.com", "old-password")
	token, _ := svc.MintPasswordReset(ctx, u.ID)
	if err := svc.ResetPassword(ctx, token, "password123", "10.0.0.1"); !errors.Is(err, refused) {
		t.Fatalf("breached password: %v", err)
	}
	if err := svc.ResetPassword(ctx, token, "a-fine-password", "10.0.0.1"); err != nil {
		t.Fatalf("the link must survive a refused password: %v", err)
	}
}

func TestPasswordResetOneWinner(t *testing.T) {
	t.Parallel()
	svc, _, _ := newServiceStores(t)
	ctx := context.Background()
	u := subscribed(t, svc, "dan@example.com", "old-password")
	token, _ := svc.MintPasswordReset(ctx, u.ID)
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range 6 {
		wg.Go(func() {
			err := svc.ResetPassword(ctx, token, "parallel-password", "10.0.1."+string(rune('0'+i)))
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				wins++
			} else if !errors.Is(err, auth.ErrResetInvalid) {
				t.Errorf("reset: %v", err)
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d concurrent resets won, want 1", wins)
	}
}

func TestSignInExpiredSubscription(t *testing.T) {
	t.Parallel()
	svc, _, _ := newServiceStores(t)
	ctx := context.Background()
	u, err := svc.CreateUser(ctx, "eve@example.com", "the-password")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SignIn(ctx, "eve@example.com", "the-password", "10.0.0.1", "glimpse.web"); !errors.Is(err, auth.ErrNoSubscription) {
		t.Fatalf("no subscription at all: %v", err)
	}
	ended := start.Add(-time.Hour)
	if err := svc.PutSubscription(ctx, billing.Subscription{ID: "old", UserID: u.ID, Email: u.Email, Bundle: "glimpse.web",
		PlanCode: "glimpse_weekly", Status: billing.StatusCanceled, MainPlan: true, StartedAt: start.Add(-48 * time.Hour), ExpiresAt: &ended}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SignIn(ctx, "eve@example.com", "the-password", "10.0.0.1", "glimpse.web"); !errors.Is(err, auth.ErrSubscriptionExpired) {
		t.Fatalf("expired subscription: %v", err)
	}
	if _, err := svc.SignIn(ctx, "eve@example.com", "the-password", "10.0.0.1", "other.bundle"); !errors.Is(err, auth.ErrNoSubscription) {
		t.Fatalf("another bundle: %v", err)
	}
}

func TestTakeRequestSlotAndOnce(t *testing.T) {
	t.Parallel()
	svc, clock, _ := newServiceStores(t)
	ctx := context.Background()
	for i := range 4 {
		ok, err := svc.TakeRequestSlot(ctx, "reset-email", "ann@example.com", 3, 15*time.Minute)
		if err != nil || ok != (i < 3) {
			t.Fatalf("slot %d: %v %v", i, ok, err)
		}
	}
	clock.Advance(15 * time.Minute)
	if ok, _ := svc.TakeRequestSlot(ctx, "reset-email", "ann@example.com", 3, 15*time.Minute); !ok {
		t.Fatal("a new window must count afresh")
	}
	if ok, _ := svc.TakeOnce(ctx, "activation", "ann@example.com", 10*time.Minute); !ok {
		t.Fatal("first once")
	}
	if ok, _ := svc.TakeOnce(ctx, "activation", "ann@example.com", 10*time.Minute); ok {
		t.Fatal("second once in the window")
	}
}

// TestResetEndsTheOtherLinks: using one reset link ends the account's other
// links with its sessions (the account's epoch moved on).
func TestResetEndsTheOtherLinks(t *testing.T) {
	t.Parallel()
	svc, _, _ := newServiceStores(t)
	ctx := context.Background()
	u := subscribed(t, svc, "cy@example.com", "old-password")
	first, err := svc.MintPasswordReset(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	second, err := svc.MintPasswordReset(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.ResetPassword(ctx, first, "brand-new-password", "10.0.0.1"); err != nil {
		t.Fatal(err)
	}
	if err := svc.CheckPasswordReset(ctx, second, "10.0.0.1"); !errors.Is(err, auth.ErrResetInvalid) {
		t.Fatalf("the other link after a reset: %v", err)
	}
	// A session opened after the reset is of the new epoch and works.
	session, err := svc.SignIn(ctx, "cy@example.com", "brand-new-password", "10.0.0.1", "glimpse.web")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, session); err != nil {
		t.Fatalf("a session after the reset: %v", err)
	}
}
