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
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/store/storetest"
)

var start = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

// A cheap argon2id cost: see auth.NewHasherCosting.
var hasher = auth.NewHasherCosting(auth.Cost{MemoryKiB: 1024, Passes: 1})

func newService(t *testing.T) (*auth.Service, *engine.ManualClock) {
	t.Helper()
	svc, clock, _ := newServiceStores(t)
	return svc, clock
}

// newServiceStores returns a service on an embedded database of the test's
// own, with its stores for the tests that look at what was stored.
func newServiceStores(t *testing.T) (*auth.Service, *engine.ManualClock, auth.Stores) {
	t.Helper()
	stores := sqlstore.AuthStores(storetest.OpenSQL(t))
	clock := engine.NewManualClock(start)
	return auth.NewService(stores, &fakeBilling{}, clock, hasher, 5*time.Hour), clock, stores
}

// fakeBilling keeps subscriptions in memory, for billing's side of auth.
type fakeBilling struct {
	mu   sync.Mutex
	subs []billing.Subscription
}

func (b *fakeBilling) SubscriptionsOf(_ context.Context, userID string) ([]billing.Subscription, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []billing.Subscription
	for _, s := range b.subs {
		if s.UserID == userID {
			out = append(out, s)
		}
	}
	return out, nil
}

func (b *fakeBilling) PutSubscription(_ context.Context, sub billing.Subscription) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, s := range b.subs {
		if s.ID == sub.ID {
			b.subs[i] = sub
			return nil
		}
	}
	b.subs = append(b.subs, sub)
	return nil
}

func TestCreateUserRejectsDuplicateEmail(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	ctx := context.Background()
	if _, err := svc.CreateUser(ctx, "Ann@Example.com ", "correct-horse"); err != nil {
		t.Fatal(err)
	}
	_, err := svc.CreateUser(ctx, "ann@example.com", "another-horse")
	if engine.ErrorCode(err) != engine.CodeConflict {
		t.Fatalf("duplicate email: %v", err)
	}
	u, err := svc.UserByEmail(ctx, "ANN@example.com")
	if err != nil || u.Email != "ann@example.com" {
		t.Fatalf("lookup by another case: %+v %v", u, err)
	}
	if _, err := svc.UserByEmail(ctx, "nobody@example.com"); !engine.IsNotFound(err) {
		t.Fatalf("unknown email: %v", err)
	}
}

func TestMainSubscription(t *testing.T) {
	t.Parallel()
	past, future := start.Add(-time.Hour), start.Add(time.Hour)
	cases := []struct {
		name string
		sub  billing.Subscription
		want bool
	}{
		{"active main", billing.Subscription{Bundle: "b", Status: billing.StatusActive, MainPlan: true}, true},
		{"canceled main until it ends", billing.Subscription{Bundle: "b", Status: billing.StatusCanceled, MainPlan: true, ExpiresAt: &future}, true},
		{"canceled main that ended", billing.Subscription{Bundle: "b", Status: billing.StatusCanceled, MainPlan: true, ExpiresAt: &past}, false},
		{"expired", billing.Subscription{Bundle: "b", Status: billing.StatusExpired, MainPlan: true}, false},
		{"add-on only", billing.Subscription{Bundle: "b", Status: billing.StatusActive}, false},
		{"another brand's bundle", billing.Subscription{Bundle: "other", Status: billing.StatusActive, MainPlan: true}, false},
	}
	for _, tc := range cases {
		if _, got := billing.MainSubscription([]billing.Subscription{tc.sub}, "b", start); got != tc.want {
			t.Errorf("%s: authorised = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSessionLifecycle(t *testing.T) {
	t.Parallel()
	svc, clock := newService(t)
	ctx := context.Background()
	u, err := svc.CreateUser(ctx, "ann@example.com", "correct-horse")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SignIn(ctx, "ann@example.com", "correct-horse", "ip", "b"); !errors.Is(err, auth.ErrNoSubscription) {
		t.Fatalf("without a subscription: %v", err)
	}
	if err := svc.PutSubscription(ctx, billing.Subscription{ID: "s1", UserID: u.ID, Bundle: "b", Status: billing.StatusActive, MainPlan: true}); err != nil {
		t.Fatal(err)
	}
	token, err := svc.SignIn(ctx, "ann@example.com", "correct-horse", "ip", "b")
	if err != nil {
		t.Fatal(err)
	}
	p, err := svc.Authenticate(ctx, token)
	if err != nil || p.User.ID != u.ID || len(p.Subscriptions) != 1 {
		t.Fatalf("authenticate: %+v %v", p, err)
	}
	if p.Session.ID == token {
		t.Fatal("the session is stored under the raw token")
	}
	clock.Advance(5 * time.Hour)
	if _, err := svc.Authenticate(ctx, token); !errors.Is(err, auth.ErrNoSession) {
		t.Fatalf("after 5 hours: %v", err)
	}
}

func TestUnknownEmailCostsAHash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	began := time.Now()
	// The OWASP cost, not the suite's cheap one: at 1 MiB a hash can take
	// under the millisecond this test tells a hash from none by.
	ok, err := auth.NewHasher().Verify(ctx, "", "whatever-password")
	if err != nil || ok {
		t.Fatalf("verify against no hash: %v %v", ok, err)
	}
	// Not a timing assertion: the dummy path must run argon2 at all, which
	// takes milliseconds, never microseconds.
	if time.Since(began) < time.Millisecond {
		t.Fatal("unknown emails skip the password hash")
	}
}

func TestHashRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h, err := hasher.Hash(ctx, "correct-horse")
	if err != nil {
		t.Fatal(err)
	}
	for pw, want := range map[string]bool{"correct-horse": true, "correct-horsE": false, "": false} {
		if ok, err := hasher.Verify(ctx, h, pw); err != nil || ok != want {
			t.Errorf("Verify(%q) = %v, %v; want %v", pw, ok, err, want)
		}
	}
}
