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

// subscriberWithPlan creates an account that may sign in on bundle "b".
func subscriberWithPlan(t *testing.T, svc *auth.Service, email, password string) auth.User {
	t.Helper()
	ctx := context.Background()
	u, err := svc.CreateUser(ctx, email, password)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.PutSubscription(ctx, billing.Subscription{ID: "s-" + u.ID, UserID: u.ID, Bundle: "b",
		Status: billing.StatusActive, MainPlan: true}); err != nil {
		t.Fatal(err)
	}
	return u
}

// Issue #8, defect 4: 60 parallel guesses were all evaluated, because each
// read the failure count before any of them had written it, and the right
// password among the late ones signed in.
func TestParallelGuessesAreEvaluatedAtMostToTheLimit(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	subscriberWithPlan(t, svc, "ann@example.com", "correct-horse")
	ctx := context.Background()

	const total, early, right = 60, 50, 55
	results := make([]error, total)
	var earlyDone, wg sync.WaitGroup
	begin := make(chan struct{})
	earlyDone.Add(early)
	for i := range total {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i >= early {
				earlyDone.Wait() // the late ones, the right password among them
			} else {
				defer earlyDone.Done()
			}
			<-begin
			password := "wrong-horse"
			if i == right {
				password = "correct-horse"
			}
			_, results[i] = svc.SignIn(ctx, "ann@example.com", password, "198.51.100.7", "b")
		}()
	}
	close(begin)
	wg.Wait()

	evaluated := 0
	for i, err := range results {
		switch {
		case errors.Is(err, auth.ErrInvalidCredential):
			evaluated++
		case errors.Is(err, auth.ErrTooManyRequests):
		default:
			t.Errorf("attempt %d: %v", i, err)
		}
	}
	if evaluated > auth.AccountFailureLimit {
		t.Errorf("%d of %d parallel guesses were evaluated, limit %d", evaluated, total, auth.AccountFailureLimit)
	}
	if !errors.Is(results[right], auth.ErrTooManyRequests) {
		t.Errorf("the right password after the limit: %v", results[right])
	}
}

// Issue #8, defect 9: ten wrong guesses from anyone locked the subscriber
// out. Now they hold back only the client that made them.
func TestGuessesFromOneClientDoNotLockOutAnother(t *testing.T) {
	t.Parallel()
	svc, clock := newService(t)
	subscriberWithPlan(t, svc, "ann@example.com", "correct-horse")
	ctx := context.Background()
	for i := range auth.AccountFailureLimit {
		if _, err := svc.SignIn(ctx, "ann@example.com", "wrong-horse", "203.0.113.66", "b"); !errors.Is(err, auth.ErrInvalidCredential) {
			t.Fatalf("guess %d: %v", i+1, err)
		}
	}
	if _, err := svc.SignIn(ctx, "ann@example.com", "correct-horse", "203.0.113.66", "b"); !errors.Is(err, auth.ErrTooManyRequests) {
		t.Fatalf("the guessing client past its limit: %v", err)
	}
	if _, err := svc.SignIn(ctx, "ann@example.com", "correct-horse", "198.51.100.7", "b"); err != nil {
		t.Fatalf("the subscriber on her own device: %v", err)
	}
	clock.Advance(auth.LimitWindow)
	if _, err := svc.SignIn(ctx, "ann@example.com", "correct-horse", "203.0.113.66", "b"); err != nil {
		t.Fatalf("the guessing client in the next window: %v", err)
	}
}

// Many clients together are not refused (that would be the lock-out again)
// but slowed down once the account's total is over its bound.
func TestManyClientsSlowTheAccountDownInsteadOfLockingIt(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	subscriberWithPlan(t, svc, "ann@example.com", "correct-horse")
	ctx := context.Background()
	limits := auth.Limits{PerClient: 3, PerIP: 30, PerAccount: 6, Window: auth.LimitWindow, Slowdown: 7 * time.Second}
	var mu sync.Mutex
	var slept []time.Duration
	svc.Limiter().SetLimits(limits)
	svc.Limiter().SetSleep(func(_ context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		slept = append(slept, d)
		return nil
	})
	for _, ip := range []string{"203.0.113.1", "203.0.113.2"} {
		for range limits.PerClient {
			if _, err := svc.SignIn(ctx, "ann@example.com", "wrong-horse", ip, "b"); !errors.Is(err, auth.ErrInvalidCredential) {
				t.Fatalf("guess from %s: %v", ip, err)
			}
		}
	}
	if len(slept) != 0 {
		t.Fatalf("slowed down within the bound: %v", slept)
	}
	if _, err := svc.SignIn(ctx, "ann@example.com", "wrong-horse", "203.0.113.3", "b"); !errors.Is(err, auth.ErrInvalidCredential) {
		t.Fatalf("a guess past the account's bound is refused instead of slowed: %v", err)
	}
	if _, err := svc.SignIn(ctx, "ann@example.com", "correct-horse", "198.51.100.7", "b"); err != nil {
		t.Fatalf("the subscriber while the account is under attack: %v", err)
	}
	if len(slept) != 2 || slept[0] != limits.Slowdown || slept[1] != limits.Slowdown {
		t.Fatalf("slowdowns past the bound: %v, want two of %v", slept, limits.Slowdown)
	}
}

func TestASuccessForgetsTheClientsFailures(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	subscriberWithPlan(t, svc, "ann@example.com", "correct-horse")
	ctx := context.Background()
	// Small limits: every attempt costs an argon2 hash.
	limits := auth.Limits{PerClient: 3, PerIP: 30, PerAccount: 100, Window: auth.LimitWindow}
	svc.Limiter().SetLimits(limits)
	for range 2 {
		for i := range limits.PerClient - 1 {
			if _, err := svc.SignIn(ctx, "ann@example.com", "wrong-horse", "ip", "b"); !errors.Is(err, auth.ErrInvalidCredential) {
				t.Fatalf("typo %d: %v", i+1, err)
			}
		}
		if _, err := svc.SignIn(ctx, "ann@example.com", "correct-horse", "ip", "b"); err != nil {
			t.Fatalf("after %d typos: %v", limits.PerClient-1, err)
		}
	}
}

// Guessed sign-in link tokens count against the IP like wrong passwords, and
// are reserved before the lookup, so parallel guesses cannot exceed it.
func TestParallelLinkGuessesStopAtTheIPLimit(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	ctx := context.Background()
	const total = auth.IPFailureLimit + 20
	results := make([]error, total)
	var wg sync.WaitGroup
	for i := range total {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, results[i] = svc.ConsumeLoginLink(ctx, "guessed-token", "203.0.113.9", "b")
		}()
	}
	wg.Wait()
	looked := 0
	for _, err := range results {
		if errors.Is(err, auth.ErrLinkInvalid) {
			looked++
		} else if !errors.Is(err, auth.ErrTooManyRequests) {
			t.Errorf("link guess: %v", err)
		}
	}
	if looked != auth.IPFailureLimit {
		t.Errorf("%d link guesses looked up, want %d", looked, auth.IPFailureLimit)
	}
}

func TestSweepRemovesExpiredSessionsAndLinks(t *testing.T) {
	t.Parallel()
	svc, clock, stores := newServiceStores(t)
	ann := subscriberWithPlan(t, svc, "ann@example.com", "correct-horse")
	ctx := context.Background()
	old, err := svc.SignIn(ctx, "ann@example.com", "correct-horse", "ip", "b")
	if err != nil {
		t.Fatal(err)
	}
	oldLink, err := svc.MintLoginLink(ctx, "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(4 * time.Hour)
	live, err := svc.SignIn(ctx, "ann@example.com", "correct-horse", "ip", "b")
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour + time.Second) // the first session and link have expired
	link, err := svc.MintLoginLink(ctx, "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	// The sweep also deletes the sign-ins' counters, whose windows ended.
	n, err := svc.Sweep(ctx)
	if err != nil || n < 2 {
		t.Fatalf("sweep: %d %v, want at least the expired session and link", n, err)
	}
	if sessions, _ := stores.Sessions.OfUser(ctx, ann.ID); len(sessions) != 1 {
		t.Fatalf("after the sweep ann has %d sessions, want the live one", len(sessions))
	}
	if _, err := stores.Links.Find(ctx, auth.LoginLinkKind, engine.HashToken(oldLink)); !errors.Is(err, auth.ErrLinkNotFound) {
		t.Fatalf("the expired link after the sweep: %v", err)
	}
	if _, err := svc.Authenticate(ctx, live); err != nil {
		t.Fatalf("a live session after the sweep: %v", err)
	}
	if _, err := svc.ConsumeLoginLink(ctx, link, "ip", "b"); err != nil {
		t.Fatalf("a live link after the sweep: %v", err)
	}
	if _, err := svc.Authenticate(ctx, old); !errors.Is(err, auth.ErrNoSession) {
		t.Fatalf("the expired session: %v", err)
	}
}
