// Package stafftest is the contract every implementation of staff.Accounts
// keeps, run against each store by its own tests.
package stafftest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"glimpse/engine/staff"
	"glimpse/engine/store/contract"
)

// Options says what the store under test guarantees.
type Options = contract.Options

// Run runs the contract against stores made by open, one per call.
func Run(t *testing.T, open func(t *testing.T) staff.Accounts, opts Options) {
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	ctx := context.Background()
	member := func(email, role, hash string) staff.Member {
		return staff.Member{Email: email, Role: role, PasswordHash: hash, CreatedAt: t0}
	}
	session := func(id, email string, expires time.Time) staff.Session {
		return staff.Session{ID: id, Email: email, Credential: "cred-" + email, ExpiresAt: expires}
	}
	has := func(t *testing.T, s staff.Accounts, id string) bool {
		t.Helper()
		_, err := s.Session(ctx, id)
		if err != nil && !errors.Is(err, staff.ErrNoSession) {
			t.Fatal(err)
		}
		return err == nil
	}

	t.Run("ARoundTripKeepsEveryField", func(t *testing.T) {
		s := open(t)
		want := member("ed@example.com", staff.RoleEditor, "$argon2id$hash")
		contract.Must(t, s.PutMember(ctx, want))
		got, err := s.Member(ctx, want.Email)
		if err != nil || got.Email != want.Email || got.Role != want.Role || got.PasswordHash != want.PasswordHash || !got.CreatedAt.Equal(t0) {
			t.Fatalf("Member = %+v, %v; wrote %+v", got, err, want)
		}
		ws := session("h1", want.Email, t0.Add(8*time.Hour))
		contract.Must(t, s.OpenSession(ctx, ws))
		gs, err := s.Session(ctx, "h1")
		if err != nil || gs.ID != ws.ID || gs.Email != ws.Email || gs.Credential != ws.Credential || !gs.ExpiresAt.Equal(ws.ExpiresAt) {
			t.Fatalf("Session = %+v, %v; wrote %+v", gs, err, ws)
		}
	})

	t.Run("WhatIsNotStoredIsNamedSo", func(t *testing.T) {
		s := open(t)
		if _, err := s.Member(ctx, "nobody@example.com"); !errors.Is(err, staff.ErrNoMember) {
			t.Fatalf("Member = %v, want ErrNoMember", err)
		}
		if _, err := s.Session(ctx, "nope"); !errors.Is(err, staff.ErrNoSession) {
			t.Fatalf("Session = %v, want ErrNoSession", err)
		}
		if found, err := s.RemoveMember(ctx, "nobody@example.com"); err != nil || found {
			t.Fatalf("RemoveMember of nobody = %v, %v", found, err)
		}
	})

	t.Run("PutMemberReplacesAndEndsOnlyThatMembersSessions", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.PutMember(ctx, member("ed@example.com", staff.RoleEditor, "h1")))
		contract.Must(t, s.PutMember(ctx, member("ann@example.com", staff.RoleTester, "h2")))
		contract.Must(t, s.OpenSession(ctx, session("ed1", "ed@example.com", t0.Add(time.Hour))))
		contract.Must(t, s.OpenSession(ctx, session("ed2", "ed@example.com", t0.Add(time.Hour))))
		contract.Must(t, s.OpenSession(ctx, session("ann1", "ann@example.com", t0.Add(time.Hour))))
		contract.Must(t, s.PutMember(ctx, member("ed@example.com", staff.RoleAdmin, "h3")))
		if got, _ := s.Member(ctx, "ed@example.com"); got.Role != staff.RoleAdmin || got.PasswordHash != "h3" {
			t.Fatalf("after the reset: %+v", got)
		}
		if has(t, s, "ed1") || has(t, s, "ed2") || !has(t, s, "ann1") {
			t.Fatalf("sessions after ed's reset: ed1 %v ed2 %v ann1 %v; want only ann1", has(t, s, "ed1"), has(t, s, "ed2"), has(t, s, "ann1"))
		}
	})

	t.Run("RemoveMemberDeletesTheMemberAndItsSessions", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.PutMember(ctx, member("ed@example.com", staff.RoleEditor, "h1")))
		contract.Must(t, s.PutMember(ctx, member("ann@example.com", staff.RoleTester, "h2")))
		contract.Must(t, s.OpenSession(ctx, session("ed1", "ed@example.com", t0.Add(time.Hour))))
		contract.Must(t, s.OpenSession(ctx, session("ann1", "ann@example.com", t0.Add(time.Hour))))
		if found, err := s.RemoveMember(ctx, "ed@example.com"); err != nil || !found {
			t.Fatalf("RemoveMember = %v, %v", found, err)
		}
		if _, err := s.Member(ctx, "ed@example.com"); !errors.Is(err, staff.ErrNoMember) {
			t.Fatalf("a removed member: %v", err)
		}
		if has(t, s, "ed1") || !has(t, s, "ann1") {
			t.Fatal("RemoveMember left ed's session or took ann's")
		}
		if found, err := s.RemoveMember(ctx, "ed@example.com"); err != nil || found {
			t.Fatalf("a second RemoveMember = %v, %v", found, err)
		}
	})

	t.Run("EndSessionEndsOnlyThatSession", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.OpenSession(ctx, session("a", "ed@example.com", t0.Add(time.Hour))))
		contract.Must(t, s.OpenSession(ctx, session("b", "ed@example.com", t0.Add(time.Hour))))
		contract.Must(t, s.EndSession(ctx, "a"))
		contract.Must(t, s.EndSession(ctx, "missing"))
		if has(t, s, "a") || !has(t, s, "b") {
			t.Fatal("EndSession(a) left a or took b")
		}
	})

	t.Run("DeleteExpiredSessionsDeletesWhatExpired", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.OpenSession(ctx, session("old", "ed@example.com", t0)))
		contract.Must(t, s.OpenSession(ctx, session("now", "ed@example.com", t0.Add(time.Hour))))
		contract.Must(t, s.OpenSession(ctx, session("live", "ed@example.com", t0.Add(time.Hour+time.Second))))
		n, err := s.DeleteExpiredSessions(ctx, t0.Add(time.Hour))
		if err != nil || n != 2 {
			t.Fatalf("DeleteExpiredSessions = %d, %v; want 2 (expiring at now counts)", n, err)
		}
		if has(t, s, "old") || has(t, s, "now") || !has(t, s, "live") {
			t.Fatal("the sweep kept an expired session or took a live one")
		}
	})

	t.Run("ASecondSessionWithAnIDIsRefused", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.OpenSession(ctx, session("same", "ed@example.com", t0.Add(time.Hour))))
		if err := s.OpenSession(ctx, session("same", "ann@example.com", t0.Add(time.Hour))); err == nil {
			t.Fatal("a second session with the same id was stored")
		}
		if got, _ := s.Session(ctx, "same"); got.Email != "ed@example.com" {
			t.Fatalf("the session now belongs to %s", got.Email)
		}
	})

	t.Run("PutsOfOneMemberSentTogetherLeaveOneMember", func(t *testing.T) {
		if !opts.Atomic {
			t.Skip("FerretDB: concurrent upserts are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
		s := open(t)
		const n = 20
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[i] = s.PutMember(ctx, member("ed@example.com", staff.RoleEditor, fmt.Sprint("hash", i)))
			}()
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("put %d: %v", i, err)
			}
		}
		got, err := s.Member(ctx, "ed@example.com")
		contract.Must(t, err)
		var i int
		if _, err := fmt.Sscanf(got.PasswordHash, "hash%d", &i); err != nil || i < 0 || i >= n {
			t.Fatalf("the member holds %q, none of the puts", got.PasswordHash)
		}
	})
}
