package auth_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/auth"
)

// The desk's list of an account's sign-ins: ann's sessions opened on two
// days, newest first, someone else's not among them, one ended by a
// sign-out everywhere marked so; an expired session the sweep has not yet
// deleted is still listed, a swept one is not.
func TestSessionsAreTheAccountsNewestFirstUntilSwept(t *testing.T) {
	t.Parallel()
	svc, clock, _ := newServiceStores(t)
	ctx := context.Background()
	ann := subscribed(t, svc, "ann@example.com", "correct-horse")
	subscribed(t, svc, "bob@example.com", "correct-horse")
	signIn := func(email string) {
		t.Helper()
		if _, err := svc.SignIn(ctx, email, "correct-horse", "1.2.3.4", "glimpse.web"); err != nil {
			t.Fatal(err)
		}
	}
	clock.Set(time.Date(2026, 11, 1, 22, 0, 0, 0, time.UTC))
	signIn("ann@example.com")
	signIn("bob@example.com")
	if err := svc.SignOutAll(ctx, ann.ID); err != nil {
		t.Fatal(err)
	}
	clock.Set(time.Date(2026, 11, 2, 1, 0, 0, 0, time.UTC))
	signIn("ann@example.com")
	sessions, err := svc.Sessions(ctx, ann.ID)
	if err != nil || len(sessions) != 2 || !sessions[0].CreatedAt.After(sessions[1].CreatedAt) {
		t.Fatalf("ann's sessions over two days: %+v, %v", sessions, err)
	}
	for _, s := range sessions {
		if s.UserID != ann.ID {
			t.Fatalf("someone else's session listed: %+v", s)
		}
	}
	if sessions[0].Ended || !sessions[1].Ended {
		t.Fatalf("the session opened after the sign-out everywhere is live, the one before ended: %+v", sessions)
	}
	// 03:30: the first expired, not yet swept: still a recent sign-in.
	clock.Set(time.Date(2026, 11, 2, 3, 30, 0, 0, time.UTC))
	if sessions, _ := svc.Sessions(ctx, ann.ID); len(sessions) != 2 {
		t.Fatalf("an expired session not yet swept: %d listed, want 2", len(sessions))
	}
	if _, err := svc.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if sessions, _ := svc.Sessions(ctx, ann.ID); len(sessions) != 1 {
		t.Fatalf("after the sweep: %d listed, want the live one", len(sessions))
	}
}

// Sign-ins at once each open a session: every one is listed.
func TestConcurrentSignInsAreAllListed(t *testing.T) {
	t.Parallel()
	svc, _, _ := newServiceStores(t)
	ctx := context.Background()
	ann := subscribed(t, svc, "ann@example.com", "correct-horse")
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			_, err := svc.SignIn(ctx, "ann@example.com", "correct-horse", "1.2.3.4", "glimpse.web")
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if sessions, err := svc.Sessions(ctx, ann.ID); err != nil || len(sessions) != n {
		t.Fatalf("%d of %d sign-ins listed (%v)", len(sessions), n, err)
	}
}

// EraseUser deletes an account's sessions, its sign-in and reset links, the
// activation keys of its subscriptions and the account (its address is
// free again), and leaves another account's.
func TestEraseUserDeletesEverythingOfTheAccount(t *testing.T) {
	t.Parallel()
	svc, clock, stores := newServiceStores(t)
	ctx := context.Background()
	ann := subscribed(t, svc, "ann@example.com", "correct-horse")
	bob := subscribed(t, svc, "bob@example.com", "correct-horse")
	accounts := auth.NewAccounts(svc, nil, nil, auth.Links{CreateAccount: "/create"})
	if _, err := accounts.ActivationLink(ctx, "sub-"+ann.ID); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{}
	for _, u := range []auth.User{ann, bob} {
		if _, err := svc.SignIn(ctx, u.Email, "correct-horse", "1.2.3.4", "glimpse.web"); err != nil {
			t.Fatal(err)
		}
		token, err := svc.MintLoginLink(ctx, u.Email)
		if err != nil {
			t.Fatal(err)
		}
		links[u.ID] = engine.HashToken(token)
	}
	clock.Advance(20 * time.Minute)
	reset, err := svc.MintPasswordReset(ctx, ann.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.EraseUser(ctx, ann, []string{"sub-" + ann.ID}); err != nil {
		t.Fatal(err)
	}
	if got, _ := stores.Sessions.OfUser(ctx, ann.ID); len(got) != 0 {
		t.Errorf("ann's sessions: %+v", got)
	}
	if got, _ := stores.Sessions.OfUser(ctx, bob.ID); len(got) != 1 {
		t.Errorf("bob's sessions: %+v", got)
	}
	if _, err := stores.Links.Find(ctx, auth.LoginLinkKind, links[ann.ID]); !errors.Is(err, auth.ErrLinkNotFound) {
		t.Errorf("ann's sign-in link: %v", err)
	}
	if _, err := stores.Links.Find(ctx, auth.LoginLinkKind, links[bob.ID]); err != nil {
		t.Errorf("bob's sign-in link: %v", err)
	}
	if _, err := stores.Links.Find(ctx, auth.PasswordResetKind, engine.HashToken(reset)); !errors.Is(err, auth.ErrLinkNotFound) {
		t.Errorf("ann's reset link: %v", err)
	}
	if n, err := stores.Links.DeleteOwner(ctx, auth.ActivationKeyKind, "sub-"+ann.ID); err != nil || n != 0 {
		t.Errorf("ann's subscription's activation keys: %d left (%v)", n, err)
	}
	if _, err := svc.User(ctx, ann.ID); !engine.IsNotFound(err) {
		t.Errorf("ann's account: %v", err)
	}
	if _, err := svc.UserByEmail(ctx, "ann@example.com"); !engine.IsNotFound(err) {
		t.Errorf("ann's address: %v", err)
	}
	if _, err := svc.CreateUser(ctx, "ann@example.com", "another-horse"); err != nil {
		t.Errorf("a new account of the erased address: %v", err)
	}
	if err := svc.EraseUser(ctx, ann, []string{"sub-" + ann.ID}); err != nil {
		t.Errorf("erasing again: %v", err)
	}
}

// Two sign-ups of one address at once make one account: the other is told
// the address is in use.
func TestSignUpsOfOneAddressTogetherMakeOneAccount(t *testing.T) {
	t.Parallel()
	svc, _, _ := newServiceStores(t)
	ctx := context.Background()
	const n = 6
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := svc.CreateUser(ctx, "Ann@Example.com", "horse-"+string(rune('a'+i)))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	made := 0
	for err := range errs {
		switch {
		case err == nil:
			made++
		case engine.ErrorCode(err) != engine.CodeConflict:
			t.Fatalf("sign-up: %v", err)
		}
	}
	if made != 1 {
		t.Fatalf("%d sign-ups of one address together made %d accounts", n, made)
	}
}
