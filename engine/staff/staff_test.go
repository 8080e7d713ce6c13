package staff_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/staff"
	"glimpse/engine/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

func TestStaffAccounts(t *testing.T) {
	t.Parallel()
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	svc := staff.NewService(storetest.Open(t).DB(), clock, auth.NewHasher())
	ctx := context.Background()
	if _, err := svc.Add(ctx, "ed@example.com", "owner"); err == nil {
		t.Fatal("an unknown role was accepted")
	}
	pw, err := svc.Add(ctx, "Ed@Example.com", staff.RoleEditor)
	if err != nil || len(pw) < 16 {
		t.Fatalf("add: %q %v", pw, err)
	}
	if _, err := svc.SignIn(ctx, "ed@example.com", "wrong"); !errors.Is(err, staff.ErrInvalidCredential) {
		t.Fatalf("wrong password: %v", err)
	}
	if _, err := svc.SignIn(ctx, "nobody@example.com", pw); !errors.Is(err, staff.ErrInvalidCredential) {
		t.Fatalf("unknown member: %v", err)
	}
	token, err := svc.SignIn(ctx, "ed@example.com", pw)
	if err != nil {
		t.Fatal(err)
	}
	m, err := svc.Authenticate(ctx, token)
	if err != nil || m.Role != staff.RoleEditor || !m.CanEdit() {
		t.Fatalf("authenticate: %+v %v", m, err)
	}
	// Resetting makes the old password useless.
	pw2, _ := svc.Add(ctx, "ed@example.com", staff.RoleTester)
	if _, err := svc.SignIn(ctx, "ed@example.com", pw); err == nil || pw2 == pw {
		t.Fatal("the old password still works after a reset")
	}
	if m, _ := svc.Authenticate(ctx, token); m.CanEdit() {
		t.Fatal("a tester can edit")
	}
	clock.Advance(staff.SessionLifetime)
	if _, err := svc.Authenticate(ctx, token); !errors.Is(err, staff.ErrNoSession) {
		t.Fatalf("an expired session: %v", err)
	}
}
