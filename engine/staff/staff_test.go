package staff_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/staff"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

func TestStaffAccounts(t *testing.T) {
	t.Parallel()
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	svc := staff.NewService(sqlstore.NewStaffAccounts(storetest.OpenSQL(t)), clock, hasher,
		auth.NewLimiter(sqlstore.NewCounters(storetest.OpenSQL(t)), clock, "staff", auth.DefaultLimits))
	ctx := context.Background()
	if _, err := svc.Add(ctx, "ed@example.com", "owner"); err == nil {
		t.Fatal("an unknown role was accepted")
	}
	pw, err := svc.Add(ctx, "Ed@Example.com", staff.RoleEditor)
	if err != nil || len(pw) < 16 {
		t.Fatalf("add: %q %v", pw, err)
	}
	if _, err := svc.SignIn(ctx, "ed@example.com", "wrong", "ip"); !errors.Is(err, staff.ErrInvalidCredential) {
		t.Fatalf("wrong password: %v", err)
	}
	if _, err := svc.SignIn(ctx, "nobody@example.com", pw, "ip"); !errors.Is(err, staff.ErrInvalidCredential) {
		t.Fatalf("unknown member: %v", err)
	}
	token, err := svc.SignIn(ctx, "ed@example.com", pw, "ip")
	if err != nil {
		t.Fatal(err)
	}
	m, err := svc.Authenticate(ctx, token)
	if err != nil || m.Role != staff.RoleEditor || !m.CanEdit() {
		t.Fatalf("authenticate: %+v %v", m, err)
	}
	// Resetting makes the old password useless.
	pw2, _ := svc.Add(ctx, "ed@example.com", staff.RoleTester)
	if _, err := svc.SignIn(ctx, "ed@example.com", pw, "ip"); err == nil || pw2 == pw {
		t.Fatal("the old password still works after a reset")
	}
	token, err = svc.SignIn(ctx, "ed@example.com", pw2, "ip")
	if err != nil {
		t.Fatal(err)
	}
	if m, err := svc.Authenticate(ctx, token); err != nil || m.CanEdit() {
		t.Fatalf("a tester: %+v %v", m, err)
	}
	clock.Advance(staff.SessionLifetime)
	if _, err := svc.Authenticate(ctx, token); !errors.Is(err, staff.ErrNoSession) {
		t.Fatalf("an expired session: %v", err)
	}
}

func newStaff(t *testing.T) (*staff.Service, *engine.ManualClock) {
	t.Helper()
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	// The sign-in counters on the embedded SQLite store, as engine/app gives
	// them: FerretDB's conditional updates are not atomic.
	limiter := auth.NewLimiter(sqlstore.NewCounters(storetest.OpenSQL(t)), clock, "staff", auth.DefaultLimits)
	return staff.NewService(sqlstore.NewStaffAccounts(storetest.OpenSQL(t)), clock, hasher, limiter), clock
}

// A cheap argon2id cost: see auth.NewHasherCosting.
var hasher = auth.NewHasherCosting(auth.Cost{MemoryKiB: 1024, Passes: 1})

// Issue #8, defect 2: 60 wrong editor passwords in 2.4 s, then the right one
// worked. Staff sign-in now has the subscribers' limits, reserved before the
// hash, so parallel guesses cannot outrun them either.
func TestStaffSignInIsLimitedUnderParallelGuesses(t *testing.T) {
	t.Parallel()
	svc, clock := newStaff(t)
	ctx := context.Background()
	if err := svc.Put(ctx, "ed@example.com", staff.RoleEditor, "editor-password"); err != nil {
		t.Fatal(err)
	}
	const total = 60
	results := make([]error, total)
	var wg sync.WaitGroup
	for i := range total {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, results[i] = svc.SignIn(ctx, "ed@example.com", "guess", "203.0.113.66")
		}()
	}
	wg.Wait()
	evaluated := 0
	for i, err := range results {
		switch {
		case errors.Is(err, staff.ErrInvalidCredential):
			evaluated++
		case errors.Is(err, staff.ErrTooManyRequests):
		default:
			t.Errorf("guess %d: %v", i, err)
		}
	}
	if evaluated != auth.DefaultLimits.PerClient {
		t.Errorf("%d of %d guesses evaluated, want %d", evaluated, total, auth.DefaultLimits.PerClient)
	}
	if _, err := svc.SignIn(ctx, "ed@example.com", "editor-password", "203.0.113.66"); !errors.Is(err, staff.ErrTooManyRequests) {
		t.Fatalf("the right password after the limit: %v", err)
	}
	// The editor on her own machine is not locked out by the guesser.
	if _, err := svc.SignIn(ctx, "ed@example.com", "editor-password", "198.51.100.7"); err != nil {
		t.Fatalf("the editor from another client: %v", err)
	}
	clock.Advance(auth.DefaultLimits.Window)
	if _, err := svc.SignIn(ctx, "ed@example.com", "editor-password", "203.0.113.66"); err != nil {
		t.Fatalf("in the next window: %v", err)
	}
}

// The per-IP limit holds across accounts: guessing many editors' addresses
// from one client stops too.
func TestStaffSignInIsLimitedPerIP(t *testing.T) {
	t.Parallel()
	svc, _ := newStaff(t)
	svc.Limiter().SetLimits(auth.Limits{PerClient: 10, PerIP: 4, PerAccount: 100, Window: time.Hour})
	ctx := context.Background()
	for i := range 4 {
		if _, err := svc.SignIn(ctx, fmt.Sprintf("ed%d@example.com", i), "guess", "203.0.113.66"); !errors.Is(err, staff.ErrInvalidCredential) {
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	if _, err := svc.SignIn(ctx, "another@example.com", "guess", "203.0.113.66"); !errors.Is(err, staff.ErrTooManyRequests) {
		t.Fatalf("a guess past the IP limit: %v", err)
	}
}

// Issue #8, defect 8: a reset left sessions valid and nobody could be
// removed. Both now end the member's sessions at once: there is no session
// cache, so no TTL to wait for.
func TestStaffAccessCanBeRevoked(t *testing.T) {
	t.Parallel()
	svc, clock := newStaff(t)
	ctx := context.Background()
	if err := svc.Put(ctx, "ed@example.com", staff.RoleEditor, "editor-password"); err != nil {
		t.Fatal(err)
	}
	if err := svc.Put(ctx, "ann@example.com", staff.RoleEditor, "ann-password"); err != nil {
		t.Fatal(err)
	}
	signIn := func(email, password string) string {
		t.Helper()
		token, err := svc.SignIn(ctx, email, password, "ip")
		if err != nil {
			t.Fatal(err)
		}
		return token
	}
	ed1, ed2, ann := signIn("ed@example.com", "editor-password"), signIn("ed@example.com", "editor-password"),
		signIn("ann@example.com", "ann-password")

	if _, err := svc.Add(ctx, "ed@example.com", staff.RoleEditor); err != nil {
		t.Fatal(err)
	}
	for _, token := range []string{ed1, ed2} {
		if _, err := svc.Authenticate(ctx, token); !errors.Is(err, staff.ErrNoSession) {
			t.Fatalf("a session after the password reset: %v", err)
		}
	}
	if _, err := svc.Authenticate(ctx, ann); err != nil {
		t.Fatalf("another member's session after ed's reset: %v", err)
	}

	if err := svc.Remove(ctx, "Ann@Example.com"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Nanosecond) // no cache to outwait: at once
	if _, err := svc.Authenticate(ctx, ann); !errors.Is(err, staff.ErrNoSession) {
		t.Fatalf("a removed member's session: %v", err)
	}
	if _, err := svc.SignIn(ctx, "ann@example.com", "ann-password", "ip"); !errors.Is(err, staff.ErrInvalidCredential) {
		t.Fatalf("a removed member signs in: %v", err)
	}
	if err := svc.Remove(ctx, "ann@example.com"); !engine.IsNotFound(err) {
		t.Fatalf("removing nobody: %v", err)
	}
}

func TestStaffSweepRemovesExpiredSessions(t *testing.T) {
	t.Parallel()
	svc, clock := newStaff(t)
	ctx := context.Background()
	if err := svc.Put(ctx, "ed@example.com", staff.RoleEditor, "editor-password"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SignIn(ctx, "ed@example.com", "editor-password", "ip"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(staff.SessionLifetime - time.Hour)
	live, err := svc.SignIn(ctx, "ed@example.com", "editor-password", "ip")
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour + time.Second)
	if n, err := svc.Sweep(ctx); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v, want the expired session", n, err)
	}
	if _, err := svc.Authenticate(ctx, live); err != nil {
		t.Fatalf("the live session after the sweep: %v", err)
	}
}

// A sign-in that read the member before a password reset and writes its
// session after the reset deleted the member's sessions: the session must
// not admit anyone (it carries the old password's fingerprint, which
// Authenticate refuses). The store below runs the reset at exactly that
// point, so the interleaving happens every time.
func TestASignInOvertakenByAResetAdmitsNoOne(t *testing.T) {
	t.Parallel()
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	accounts := &resetBeforeSession{Accounts: sqlstore.NewStaffAccounts(storetest.OpenSQL(t))}
	svc := staff.NewService(accounts, clock, hasher, auth.NewLimiter(sqlstore.NewCounters(storetest.OpenSQL(t)), clock, "staff", auth.DefaultLimits))
	ctx := context.Background()
	if err := svc.Put(ctx, "ed@example.com", staff.RoleEditor, "old-password"); err != nil {
		t.Fatal(err)
	}
	accounts.reset = func() {
		if err := svc.Put(ctx, "ed@example.com", staff.RoleEditor, "new-password"); err != nil {
			t.Error(err)
		}
	}
	token, err := svc.SignIn(ctx, "ed@example.com", "old-password", "ip")
	if err != nil {
		t.Fatal(err)
	}
	if m, err := svc.Authenticate(ctx, token); !errors.Is(err, staff.ErrNoSession) {
		t.Fatalf("a session opened with the reset password admits %+v (%v)", m, err)
	}
	fresh, err := svc.SignIn(ctx, "ed@example.com", "new-password", "ip")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, fresh); err != nil {
		t.Fatalf("a session of the new password: %v", err)
	}
}

// resetBeforeSession runs reset once, just before the first session is
// written.
type resetBeforeSession struct {
	staff.Accounts
	reset func()
	once  sync.Once
}

func (r *resetBeforeSession) OpenSession(ctx context.Context, sess staff.Session) error {
	if r.reset != nil {
		r.once.Do(r.reset)
	}
	return r.Accounts.OpenSession(ctx, sess)
}
