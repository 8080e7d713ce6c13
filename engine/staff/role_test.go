package staff_test

import (
	"context"
	"errors"
	"testing"

	"glimpse/engine/staff"
)

func TestMemberCan(t *testing.T) {
	t.Parallel()
	roles := []string{staff.RoleTester, staff.RoleEditor, staff.RoleExperimenter, staff.RoleSupport, staff.RoleAdmin, "typo"}
	want := map[string][]bool{ // by member role, in the order of roles
		staff.RoleEditor:  {true, true, false, false, false, false},
		staff.RoleTester:  {true, false, true, false, false, false},
		staff.RoleSupport: {false, false, false, true, false, false},
		staff.RoleAdmin:   {true, true, true, true, true, false},
	}
	for held, can := range want {
		for i, role := range roles {
			if got := (staff.Member{Role: held}).Can(role); got != can[i] {
				t.Errorf("%s can %s: %v, want %v", held, role, got, can[i])
			}
		}
	}
}

func TestAdmit(t *testing.T) {
	t.Parallel()
	svc, _ := newStaff(t)
	ctx := context.Background()
	if err := svc.Put(ctx, "ed@example.com", staff.RoleEditor, "editor-password"); err != nil {
		t.Fatal(err)
	}
	token, err := svc.SignIn(ctx, "ed@example.com", "editor-password", "ip")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, token, role string
		want              error
	}{
		{"no session", "", staff.RoleTester, staff.ErrNoSession},
		{"unknown token", "nope", staff.RoleTester, staff.ErrNoSession},
		{"role held", token, staff.RoleEditor, nil},
		{"role not held", token, staff.RoleExperimenter, staff.ErrForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := svc.Admit(ctx, tc.token, tc.role)
			if !errors.Is(err, tc.want) || (err == nil && m.Email != "ed@example.com") {
				t.Fatalf("admit: %+v %v, want %v", m, err, tc.want)
			}
		})
	}
}

func TestSignInReplacingEndsThePreviousSession(t *testing.T) {
	t.Parallel()
	svc, _ := newStaff(t)
	ctx := context.Background()
	if err := svc.Put(ctx, "ed@example.com", staff.RoleEditor, "editor-password"); err != nil {
		t.Fatal(err)
	}
	old, err := svc.SignIn(ctx, "ed@example.com", "editor-password", "ip")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SignInReplacing(ctx, "ed@example.com", "wrong", "ip", old); !errors.Is(err, staff.ErrInvalidCredential) {
		t.Fatalf("wrong password: %v", err)
	}
	if _, err := svc.Authenticate(ctx, old); err != nil {
		t.Fatalf("a failed sign-in ended the session: %v", err)
	}
	token, err := svc.SignInReplacing(ctx, "ed@example.com", "editor-password", "ip", old)
	if err != nil || token == old {
		t.Fatalf("sign in: %q %v", token, err)
	}
	if _, err := svc.Authenticate(ctx, old); !errors.Is(err, staff.ErrNoSession) {
		t.Fatalf("the previous session is still live: %v", err)
	}
	if _, err := svc.Authenticate(ctx, token); err != nil {
		t.Fatal(err)
	}
}
