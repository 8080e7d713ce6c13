package mongostore

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"glimpse/engine/staff"
	"glimpse/engine/staff/stafftest"
)

func TestStaffAccountsContract(t *testing.T) {
	stafftest.Run(t, func(t *testing.T) staff.Accounts { return NewStaffAccounts(openDB(t)) },
		stafftest.Options{Atomic: os.Getenv("GLIMPSE_TEST_MONGODB_URI") != ""})
}

// A reset and a removal each write two documents here (SQLite writes both
// in one transaction). Stopped between the two and run again, each leaves
// exactly what one run leaves.
func TestStaffWritesStoppedBetweenTheirStepsAreCompletedByARetry(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	crash := errors.New("stopped between the writes")
	setup := func(t *testing.T) *StaffAccounts {
		s := NewStaffAccounts(openDB(t))
		must(t, s.PutMember(ctx, staff.Member{Email: "ed@example.com", Role: staff.RoleEditor, PasswordHash: "old", CreatedAt: t0}))
		must(t, s.PutMember(ctx, staff.Member{Email: "ann@example.com", Role: staff.RoleEditor, PasswordHash: "ann", CreatedAt: t0}))
		for _, id := range []string{"ed1", "ed2"} {
			must(t, s.OpenSession(ctx, staff.Session{ID: id, Email: "ed@example.com", Credential: "c", ExpiresAt: t0.Add(time.Hour)}))
		}
		must(t, s.OpenSession(ctx, staff.Session{ID: "ann1", Email: "ann@example.com", Credential: "c", ExpiresAt: t0.Add(time.Hour)}))
		return s
	}
	state := func(t *testing.T, s *StaffAccounts) string {
		t.Helper()
		out := ""
		for _, email := range []string{"ed@example.com", "ann@example.com"} {
			m, err := s.Member(ctx, email)
			out += email + ":" + m.Role + "/" + m.PasswordHash + "/" + errString(err) + " "
		}
		for _, id := range []string{"ed1", "ed2", "ann1"} {
			_, err := s.Session(ctx, id)
			out += id + ":" + errString(err) + " "
		}
		return out
	}
	uses := map[string]func(s *StaffAccounts) error{
		"reset": func(s *StaffAccounts) error {
			return s.PutMember(ctx, staff.Member{Email: "ed@example.com", Role: staff.RoleAdmin, PasswordHash: "new", CreatedAt: t0})
		},
		"removal": func(s *StaffAccounts) error { _, err := s.RemoveMember(ctx, "ed@example.com"); return err },
	}
	for name, use := range uses {
		t.Run(name, func(t *testing.T) {
			once := setup(t)
			must(t, use(once))
			want := state(t, once)

			s := setup(t)
			s.betweenWrites = func() error { return crash }
			if err := use(s); !errors.Is(err, crash) {
				t.Fatalf("the stopped %s returned %v", name, err)
			}
			s.betweenWrites = func() error { return nil }
			must(t, use(s))
			if got := state(t, s); got != want {
				t.Errorf("after a stopped %s and its retry:\n %s\nafter one run:\n %s", name, got, want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
