// Package authtest is the contract every implementation of auth's storage
// (auth.Stores: Users, Sessions, OneTimeLinks, Counters) keeps, run against
// each store by its own tests.
package authtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/store/contract"
)

// Options says what the store under test guarantees.
type Options = contract.Options

// Run runs the contract against stores made by open, one per subtest.
func Run(t *testing.T, open func(t *testing.T) auth.Stores, opts Options) {
	// Milliseconds: MongoDB keeps times to the millisecond.
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).Add(123 * time.Millisecond)
	ctx := context.Background()
	atomicOnly := func(t *testing.T) {
		t.Helper()
		if !opts.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
	}
	user := func(id, email string) auth.User {
		return auth.User{ID: id, Email: email, PasswordHash: "$argon2id$" + id, CreatedAt: t0}
	}
	session := func(id, userID string, created time.Time) auth.Session {
		return auth.Session{ID: id, UserID: userID, CreatedAt: created, ExpiresAt: created.Add(5 * time.Hour)}
	}

	t.Run("AUserRoundTripKeepsEveryField", func(t *testing.T) {
		s := open(t).Users
		want := auth.User{ID: "u1", Email: "ann@example.com", PasswordHash: "$argon2id$v=19$x", CreatedAt: t0,
			Disabled: true, SessionEpoch: 3}
		contract.Must(t, s.Create(ctx, want))
		for name, read := range map[string]func() (auth.User, error){
			"ByID":    func() (auth.User, error) { return s.ByID(ctx, "u1") },
			"ByEmail": func() (auth.User, error) { return s.ByEmail(ctx, "ann@example.com") },
		} {
			got, err := read()
			if err != nil || got != want {
				t.Fatalf("%s = %+v, %v; want %+v", name, got, err, want)
			}
		}
		if _, err := s.ByID(ctx, "nobody"); !errors.Is(err, auth.ErrUserNotFound) {
			t.Fatalf("ByID(unknown) = %v, want ErrUserNotFound", err)
		}
		if _, err := s.ByEmail(ctx, "nobody@example.com"); !errors.Is(err, auth.ErrUserNotFound) {
			t.Fatalf("ByEmail(unknown) = %v, want ErrUserNotFound", err)
		}
	})

	t.Run("AnEmailHasOneAccount", func(t *testing.T) {
		s := open(t).Users
		contract.Must(t, s.Create(ctx, user("u1", "ann@example.com")))
		if err := s.Create(ctx, user("u2", "ann@example.com")); !errors.Is(err, auth.ErrEmailTaken) {
			t.Fatalf("second account of one email: %v, want ErrEmailTaken", err)
		}
		if err := s.Create(ctx, user("u1", "other@example.com")); err == nil || errors.Is(err, auth.ErrEmailTaken) {
			t.Fatalf("second account with one id: %v, want an error that is not ErrEmailTaken", err)
		}
	})

	t.Run("SignUpsOfOneEmailTogetherMakeOneAccount", func(t *testing.T) {
		s := open(t).Users
		const n = 20
		var won, taken atomic.Int32
		together(n, func(i int) {
			err := s.Create(ctx, user(fmt.Sprint("u", i), "ann@example.com"))
			switch {
			case err == nil:
				won.Add(1)
			case errors.Is(err, auth.ErrEmailTaken):
				taken.Add(1)
			default:
				t.Error(err)
			}
		})
		if won.Load() != 1 || taken.Load() != n-1 {
			t.Fatalf("%d sign-ups made %d accounts and were refused %d times; want 1 and %d", n, won.Load(), taken.Load(), n-1)
		}
	})

	t.Run("IDsPageInOrder", func(t *testing.T) {
		s := open(t).Users
		contract.Must(t, s.CreateMany(ctx, []auth.User{user("c", "c@x"), user("a", "a@x"), user("d", "d@x"), user("b", "b@x")}))
		page, err := s.IDs(ctx, "", 3)
		if err != nil || fmt.Sprint(page) != "[a b c]" {
			t.Fatalf("IDs(\"\", 3) = %v, %v", page, err)
		}
		page, err = s.IDs(ctx, "c", 3)
		if err != nil || fmt.Sprint(page) != "[d]" {
			t.Fatalf("IDs(c, 3) = %v, %v", page, err)
		}
	})

	t.Run("AccountChangesAndDeletion", func(t *testing.T) {
		s := open(t).Users
		contract.Must(t, s.Create(ctx, user("u1", "ann@example.com")))
		contract.Must(t, s.Create(ctx, user("u2", "bob@example.com")))
		if won, err := s.ResetPassword(ctx, "u1", 0, "new-hash"); err != nil || !won {
			t.Fatalf("ResetPassword from the account's epoch: %v, %v", won, err)
		}
		contract.Must(t, s.EndSessions(ctx, "u1"))
		got, err := s.ByID(ctx, "u1")
		if err != nil || got.PasswordHash != "new-hash" || got.SessionEpoch != 2 || got.Disabled {
			t.Fatalf("after ResetPassword and EndSessions: %+v, %v", got, err)
		}
		// A reset from an epoch the account has left is refused.
		if won, err := s.ResetPassword(ctx, "u1", 1, "stale-hash"); err != nil || won {
			t.Fatalf("ResetPassword from a stale epoch: %v, %v", won, err)
		}
		if got, _ := s.ByID(ctx, "u1"); got.PasswordHash != "new-hash" || got.SessionEpoch != 2 {
			t.Fatalf("a stale reset changed the account: %+v", got)
		}
		contract.Must(t, s.Disable(ctx, "u1"))
		if got, err := s.ByID(ctx, "u1"); err != nil || !got.Disabled || got.SessionEpoch != 3 {
			t.Fatalf("after Disable: %+v, %v", got, err)
		}
		if won, err := s.ResetPassword(ctx, "nobody", 0, "h"); err != nil || won {
			t.Fatalf("ResetPassword of a missing account: %v, %v", won, err)
		}
		for _, change := range []error{s.EndSessions(ctx, "nobody"), s.Disable(ctx, "nobody"), s.Delete(ctx, "nobody")} {
			if change != nil {
				t.Fatalf("changing a missing account: %v", change)
			}
		}
		contract.Must(t, s.Delete(ctx, "u1"))
		if _, err := s.ByID(ctx, "u1"); !errors.Is(err, auth.ErrUserNotFound) {
			t.Fatalf("deleted account: %v", err)
		}
		if got, err := s.ByID(ctx, "u2"); err != nil || got.SessionEpoch != 0 || got.PasswordHash != "$argon2id$u2" {
			t.Fatalf("the other account: %+v, %v", got, err)
		}
		// The address is free again.
		contract.Must(t, s.Create(ctx, user("u3", "ann@example.com")))
	})

	t.Run("EndSessionsTogetherLosesNoIncrement", func(t *testing.T) {
		atomicOnly(t)
		s := open(t).Users
		const rounds, n = 10, 20
		for round := range rounds {
			id := fmt.Sprint("u", round)
			contract.Must(t, s.Create(ctx, user(id, id+"@example.com")))
			together(n, func(int) {
				if err := s.EndSessions(ctx, id); err != nil {
					t.Error(err)
				}
			})
			if got, err := s.ByID(ctx, id); err != nil || got.SessionEpoch != n {
				t.Fatalf("round %d: epoch after %d EndSessions together = %d, %v", round, n, got.SessionEpoch, err)
			}
		}
	})

	t.Run("ResetsTogetherFromOneEpochHaveOneWinner", func(t *testing.T) {
		atomicOnly(t)
		s := open(t).Users
		const rounds, n = 20, 20
		for round := range rounds {
			id := fmt.Sprint("u", round)
			contract.Must(t, s.Create(ctx, user(id, id+"@example.com")))
			var won atomic.Int32
			together(n, func(i int) {
				ok, err := s.ResetPassword(ctx, id, 0, fmt.Sprint("hash-", i))
				if err != nil {
					t.Error(err)
				}
				if ok {
					won.Add(1)
				}
			})
			if got, err := s.ByID(ctx, id); won.Load() != 1 || err != nil || got.SessionEpoch != 1 {
				t.Fatalf("round %d: %d resets together from epoch 0: %d won, epoch now %d (%v); want one winner, epoch 1",
					round, n, won.Load(), got.SessionEpoch, err)
			}
		}
	})

	t.Run("ASessionRoundTripsWithItsUser", func(t *testing.T) {
		st := open(t)
		u := user("u1", "ann@example.com")
		u.SessionEpoch = 2
		contract.Must(t, st.Users.Create(ctx, u))
		want := session("s1", "u1", t0)
		want.Epoch, want.Device, want.Country = 2, "Chrome on Android", "DE"
		contract.Must(t, st.Sessions.Insert(ctx, want))
		got, gotUser, err := st.Sessions.WithUser(ctx, "s1")
		if err != nil || got != want || gotUser != u {
			t.Fatalf("WithUser = %+v %+v %v; want %+v %+v", got, gotUser, err, want, u)
		}
		if all, err := st.Sessions.OfUser(ctx, "u1"); err != nil || len(all) != 1 || all[0] != want {
			t.Fatalf("OfUser = %+v, %v; want [%+v]", all, err, want)
		}
		if _, _, err := st.Sessions.WithUser(ctx, "nothing"); !errors.Is(err, auth.ErrNoSession) {
			t.Fatalf("unknown session: %v, want ErrNoSession", err)
		}
		contract.Must(t, st.Sessions.Insert(ctx, session("orphan", "gone", t0)))
		if _, _, err := st.Sessions.WithUser(ctx, "orphan"); !errors.Is(err, auth.ErrNoSession) {
			t.Fatalf("session of a deleted account: %v, want ErrNoSession", err)
		}
	})

	t.Run("OfUserIsTheAccountsSessionsNewestFirst", func(t *testing.T) {
		s := open(t).Sessions
		contract.Must(t, s.Insert(ctx, session("mid", "ann", t0.Add(time.Hour))))
		contract.Must(t, s.InsertMany(ctx, []auth.Session{session("old", "ann", t0), session("new", "ann", t0.Add(2*time.Hour)),
			session("bobs", "bob", t0.Add(time.Hour))}))
		got, err := s.OfUser(ctx, "ann")
		if err != nil || sessionIDs(got) != "[new mid old]" {
			t.Fatalf("OfUser(ann) = %s, %v; want [new mid old]", sessionIDs(got), err)
		}
	})

	t.Run("SessionsAreDeletedOneByAccountAndExpired", func(t *testing.T) {
		s := open(t).Sessions
		contract.Must(t, s.InsertMany(ctx, []auth.Session{session("a1", "ann", t0), session("a2", "ann", t0.Add(time.Hour)),
			session("b1", "bob", t0), session("b2", "bob", t0.Add(time.Hour)), session("c1", "cat", t0.Add(-time.Hour))}))
		contract.Must(t, s.Delete(ctx, "a1"))
		contract.Must(t, s.Delete(ctx, "a1")) // gone already: no error
		if got, _ := s.OfUser(ctx, "ann"); sessionIDs(got) != "[a2]" {
			t.Fatalf("after Delete(a1) ann has %s", sessionIDs(got))
		}
		if n, err := s.DeleteUser(ctx, "ann"); err != nil || n != 1 {
			t.Fatalf("DeleteUser(ann) = %d, %v; want 1", n, err)
		}
		// b1 expires at t0+5h exactly: expired by then; c1 an hour before.
		if n, err := s.DeleteExpired(ctx, t0.Add(5*time.Hour)); err != nil || n != 2 {
			t.Fatalf("DeleteExpired = %d, %v; want 2 (b1 at its expiry, c1)", n, err)
		}
		if got, _ := s.OfUser(ctx, "bob"); sessionIDs(got) != "[b2]" {
			t.Fatalf("bob has %s, want [b2]", sessionIDs(got))
		}
	})

	link := func(id string, kind auth.LinkKind, owner string, expires time.Time) auth.Link {
		return auth.Link{ID: id, Kind: kind, Owner: owner, ExpiresAt: expires}
	}

	t.Run("ALinkRoundTripsAndIsTakenOnce", func(t *testing.T) {
		s := open(t).Links
		want := auth.Link{ID: "l1", Kind: auth.ActivationKeyKind, Owner: "sub1", ExpiresAt: t0, Epoch: 4, Email: "ann@example.com"}
		contract.Must(t, s.Insert(ctx, want))
		if got, err := s.Find(ctx, auth.ActivationKeyKind, "l1"); err != nil || got != want {
			t.Fatalf("Find = %+v, %v; want %+v", got, err, want)
		}
		if _, err := s.Find(ctx, auth.LoginLinkKind, "l1"); !errors.Is(err, auth.ErrLinkNotFound) {
			t.Fatalf("Find of another kind: %v, want ErrLinkNotFound", err)
		}
		if _, err := s.Take(ctx, auth.PasswordResetKind, "l1"); !errors.Is(err, auth.ErrLinkNotFound) {
			t.Fatalf("Take of another kind: %v, want ErrLinkNotFound", err)
		}
		if got, err := s.Take(ctx, auth.ActivationKeyKind, "l1"); err != nil || got != want {
			t.Fatalf("Take = %+v, %v; want %+v", got, err, want)
		}
		if _, err := s.Take(ctx, auth.ActivationKeyKind, "l1"); !errors.Is(err, auth.ErrLinkNotFound) {
			t.Fatalf("second Take: %v, want ErrLinkNotFound", err)
		}
		if _, err := s.Find(ctx, auth.ActivationKeyKind, "l1"); !errors.Is(err, auth.ErrLinkNotFound) {
			t.Fatalf("Find after Take: %v, want ErrLinkNotFound", err)
		}
	})

	t.Run("ALinkTakenTogetherHasOneWinner", func(t *testing.T) {
		s := open(t).Links
		// Rounds: a store that read and then deleted would let two takers
		// through in some of them.
		const rounds, n = 50, 20
		for round := range rounds {
			id := fmt.Sprint("l", round)
			contract.Must(t, s.Insert(ctx, link(id, auth.PasswordResetKind, "ann", t0)))
			var won atomic.Int32
			together(n, func(int) {
				_, err := s.Take(ctx, auth.PasswordResetKind, id)
				switch {
				case err == nil:
					won.Add(1)
				case !errors.Is(err, auth.ErrLinkNotFound):
					t.Error(err)
				}
			})
			if won.Load() != 1 {
				t.Fatalf("round %d: %d takers together got the link %d times, want once", round, n, won.Load())
			}
		}
	})

	t.Run("LinksAreDeletedByOwnerAndKindAndWhenExpired", func(t *testing.T) {
		s := open(t).Links
		for _, l := range []auth.Link{
			link("login1", auth.LoginLinkKind, "ann", t0), link("login2", auth.LoginLinkKind, "ann", t0.Add(time.Hour)),
			link("reset1", auth.PasswordResetKind, "ann", t0), link("bobs", auth.LoginLinkKind, "bob", t0.Add(time.Hour)),
			link("key1", auth.ActivationKeyKind, "sub1", t0.Add(-time.Hour)),
		} {
			contract.Must(t, s.Insert(ctx, l))
		}
		if n, err := s.DeleteOwner(ctx, auth.LoginLinkKind, "ann"); err != nil || n != 2 {
			t.Fatalf("DeleteOwner(login, ann) = %d, %v; want 2", n, err)
		}
		if _, err := s.Find(ctx, auth.PasswordResetKind, "reset1"); err != nil {
			t.Fatalf("ann's reset link went with her sign-in links: %v", err)
		}
		if n, err := s.DeleteExpired(ctx, t0); err != nil || n != 2 {
			t.Fatalf("DeleteExpired(t0) = %d, %v; want 2 (reset1 at its expiry, key1)", n, err)
		}
		if _, err := s.Find(ctx, auth.LoginLinkKind, "bobs"); err != nil {
			t.Fatalf("bob's live link: %v", err)
		}
	})

	t.Run("CountersCountToTheirLimit", func(t *testing.T) {
		s := open(t).Counters
		expires := t0.Add(15 * time.Minute)
		for i := range 3 {
			if ok, err := s.Take(ctx, "k", 3, expires); err != nil || !ok {
				t.Fatalf("take %d of 3: %v, %v", i+1, ok, err)
			}
		}
		if ok, err := s.Take(ctx, "k", 3, expires); err != nil || ok {
			t.Fatalf("a fourth take of 3: %v, %v", ok, err)
		}
		if ok, err := s.Take(ctx, "other", 3, expires); err != nil || !ok {
			t.Fatalf("another key is counted apart: %v, %v", ok, err)
		}
		contract.Must(t, s.Release(ctx, "k"))
		if ok, err := s.Take(ctx, "k", 3, expires); err != nil || !ok {
			t.Fatalf("a take after a release: %v, %v", ok, err)
		}
		contract.Must(t, s.Reset(ctx, "k"))
		for i := range 3 {
			if ok, err := s.Take(ctx, "k", 3, expires); err != nil || !ok {
				t.Fatalf("take %d after a reset: %v, %v", i+1, ok, err)
			}
		}
		// Releases never take a counter below zero.
		contract.Must(t, s.Reset(ctx, "z"))
		if ok, _ := s.Take(ctx, "z", 1, expires); !ok {
			t.Fatal("first take of 1")
		}
		for range 3 {
			contract.Must(t, s.Release(ctx, "z"))
		}
		got := 0
		for range 3 {
			if ok, _ := s.Take(ctx, "z", 2, expires); ok {
				got++
			}
		}
		if got != 2 {
			t.Fatalf("after releasing more than was taken, %d takes of 2 succeeded", got)
		}
		if n, err := s.DeleteExpired(ctx, expires); err != nil || n != 3 {
			t.Fatalf("DeleteExpired = %d, %v; want 3", n, err)
		}
		if ok, err := s.Take(ctx, "k", 1, expires.Add(time.Hour)); err != nil || !ok {
			t.Fatalf("a swept counter starts again: %v, %v", ok, err)
		}
	})

	t.Run("TakesTogetherNeverPassTheLimit", func(t *testing.T) {
		atomicOnly(t)
		s := open(t).Counters
		// Rounds, each on a new counter: a store that read the count and
		// then wrote it would count past the limit in some of them.
		const rounds, n, limit = 50, 40, 10
		for round := range rounds {
			key := fmt.Sprint("signin:client:", round)
			var took atomic.Int32
			together(n, func(int) {
				ok, err := s.Take(ctx, key, limit, t0.Add(time.Hour))
				if err != nil {
					t.Error(err)
				}
				if ok {
					took.Add(1)
				}
			})
			if took.Load() != limit {
				t.Fatalf("round %d: %d takes together of a limit of %d: %d counted", round, n, limit, took.Load())
			}
		}
	})

	t.Run("ResetPasswordStoppedBetweenAnyTwoWritesThenRunAgain", func(t *testing.T) {
		// A reset writes the account (hash and epoch), the mail window and
		// the link. Stopped at each of its writes in turn and sent again
		// with the same link, it leaves what one reset leaves: the new
		// password, the epoch moved on once, no link, the window free.
		hasher := auth.NewHasherCosting(auth.Cost{MemoryKiB: 64, Passes: 1})
		for failAt := 1; ; failAt++ {
			st := open(t)
			crashing := &crashingStores{Stores: st}
			svc := auth.NewService(crashing.stores(), noBilling{}, engine.NewManualClock(t0), hasher, 5*time.Hour)
			ann, err := svc.CreateUser(ctx, "ann@example.com", "old-password")
			contract.Must(t, err)
			token, err := svc.MintPasswordReset(ctx, ann.ID)
			contract.Must(t, err)
			if first, err := svc.TakeOnce(ctx, "reset-mail", ann.Email, auth.ResetMailWindow); err != nil || !first {
				t.Fatalf("the reset mail's window: %v, %v", first, err)
			}
			crashing.writes.Store(0)
			crashing.failAt = failAt
			err = svc.ResetPassword(ctx, token, "new-password", "203.0.113.1")
			stopped := crashing.writes.Load() >= int32(failAt)
			if stopped && !errors.Is(err, errCrash) {
				t.Fatalf("failAt %d: ResetPassword = %v, want the crash", failAt, err)
			}
			if !stopped {
				contract.Must(t, err)
				if failAt == 1 {
					t.Fatal("ResetPassword wrote nothing")
				}
				return
			}
			crashing.failAt = 0
			if err := svc.ResetPassword(ctx, token, "new-password", "203.0.113.1"); err != nil && !errors.Is(err, auth.ErrResetInvalid) {
				t.Fatalf("failAt %d: sent again: %v", failAt, err)
			}
			got, err := st.Users.ByID(ctx, ann.ID)
			if err != nil || got.SessionEpoch != 1 {
				t.Fatalf("failAt %d: account %+v, %v; want the epoch moved on once", failAt, got, err)
			}
			if ok, err := hasher.Verify(ctx, got.PasswordHash, "new-password"); err != nil || !ok {
				t.Fatalf("failAt %d: the new password does not verify: %v", failAt, err)
			}
			if _, err := st.Links.Find(ctx, auth.PasswordResetKind, engine.HashToken(token)); !errors.Is(err, auth.ErrLinkNotFound) {
				t.Fatalf("failAt %d: the reset link is still stored: %v", failAt, err)
			}
			if first, err := svc.TakeOnce(ctx, "reset-mail", ann.Email, auth.ResetMailWindow); err != nil || !first {
				t.Fatalf("failAt %d: the reset mail's window is still taken: %v, %v", failAt, first, err)
			}
		}
	})

	t.Run("EraseUserStoppedBetweenAnyTwoWritesThenRunAgain", func(t *testing.T) {
		// The erasure writes several rows (the epoch, sessions, each kind of
		// link, the account). Stopped at each of its writes in turn and run
		// again, it leaves what one run leaves.
		for failAt := 1; ; failAt++ {
			st := open(t)
			crashing := &crashingStores{Stores: st, failAt: failAt}
			svc := auth.NewService(crashing.stores(), noBilling{}, engine.NewManualClock(t0), nil, 5*time.Hour)
			ann, bob := user("ann", "ann@example.com"), user("bob", "bob@example.com")
			contract.Must(t, st.Users.CreateMany(ctx, []auth.User{ann, bob}))
			contract.Must(t, st.Sessions.InsertMany(ctx, []auth.Session{session("a1", "ann", t0), session("a2", "ann", t0), session("b1", "bob", t0)}))
			for _, l := range []auth.Link{link("al", auth.LoginLinkKind, "ann", t0.Add(time.Hour)),
				link("ar", auth.PasswordResetKind, "ann", t0.Add(time.Hour)), link("ak", auth.ActivationKeyKind, "sub-ann", t0.Add(time.Hour)),
				link("bl", auth.LoginLinkKind, "bob", t0.Add(time.Hour)), link("bk", auth.ActivationKeyKind, "sub-bob", t0.Add(time.Hour))} {
				contract.Must(t, st.Links.Insert(ctx, l))
			}
			err := svc.EraseUser(ctx, ann, []string{"sub-ann"})
			stopped := crashing.writes.Load() >= int32(failAt)
			if stopped && !errors.Is(err, errCrash) {
				t.Fatalf("failAt %d: EraseUser = %v, want the crash", failAt, err)
			}
			if !stopped {
				contract.Must(t, err)
				if failAt == 1 {
					t.Fatal("EraseUser wrote nothing")
				}
				return // every write has been stopped at once
			}
			crashing.failAt = 0
			contract.Must(t, svc.EraseUser(ctx, ann, []string{"sub-ann"}))
			if _, err := st.Users.ByID(ctx, "ann"); !errors.Is(err, auth.ErrUserNotFound) {
				t.Fatalf("failAt %d: ann's account: %v", failAt, err)
			}
			if got, _ := st.Sessions.OfUser(ctx, "ann"); len(got) != 0 {
				t.Fatalf("failAt %d: ann's sessions %s", failAt, sessionIDs(got))
			}
			for _, l := range []struct {
				kind auth.LinkKind
				id   string
				kept bool
			}{{auth.LoginLinkKind, "al", false}, {auth.PasswordResetKind, "ar", false}, {auth.ActivationKeyKind, "ak", false},
				{auth.LoginLinkKind, "bl", true}, {auth.ActivationKeyKind, "bk", true}} {
				if _, err := st.Links.Find(ctx, l.kind, l.id); (err == nil) != l.kept {
					t.Fatalf("failAt %d: link %s kept=%v: %v", failAt, l.id, l.kept, err)
				}
			}
			if got, err := st.Users.ByID(ctx, "bob"); err != nil || got.SessionEpoch != 0 {
				t.Fatalf("failAt %d: bob %+v, %v", failAt, got, err)
			}
			if got, _ := st.Sessions.OfUser(ctx, "bob"); sessionIDs(got) != "[b1]" {
				t.Fatalf("failAt %d: bob's sessions %s", failAt, sessionIDs(got))
			}
			// The address is free for a new account.
			contract.Must(t, st.Users.Create(ctx, user("ann2", "ann@example.com")))
		}
	})
}

// together runs fn(0..n-1) in n goroutines released at one instant and
// waits for them.
func together(n int, fn func(i int)) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			fn(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}

func sessionIDs(sessions []auth.Session) string {
	ids := make([]string, len(sessions))
	for i, s := range sessions {
		ids[i] = s.ID
	}
	return fmt.Sprint(ids)
}

// errCrash is the write a crashingStores stops at.
var errCrash = errors.New("crash: the process stopped here")

// crashingStores fail their failAt-th write (counting from 1; 0: none)
// with errCrash, as a process stopped between two writes would leave
// things. The writes counted are the ones the use cases under test make
// after their setup.
type crashingStores struct {
	auth.Stores
	failAt int
	writes atomic.Int32
}

func (c *crashingStores) write() error {
	if n := c.writes.Add(1); c.failAt > 0 && int(n) == c.failAt {
		return errCrash
	}
	return nil
}

func (c *crashingStores) stores() auth.Stores {
	return auth.Stores{Users: crashingUsers{c.Stores.Users, c}, Sessions: crashingSessions{c.Stores.Sessions, c},
		Links: crashingLinks{c.Stores.Links, c}, Counters: crashingCounters{c.Stores.Counters, c}}
}

type crashingUsers struct {
	auth.Users
	c *crashingStores
}

func (u crashingUsers) EndSessions(ctx context.Context, id string) error {
	if err := u.c.write(); err != nil {
		return err
	}
	return u.Users.EndSessions(ctx, id)
}

func (u crashingUsers) ResetPassword(ctx context.Context, id string, fromEpoch int, hash string) (bool, error) {
	if err := u.c.write(); err != nil {
		return false, err
	}
	return u.Users.ResetPassword(ctx, id, fromEpoch, hash)
}

func (u crashingUsers) Delete(ctx context.Context, id string) error {
	if err := u.c.write(); err != nil {
		return err
	}
	return u.Users.Delete(ctx, id)
}

type crashingSessions struct {
	auth.Sessions
	c *crashingStores
}

func (s crashingSessions) DeleteUser(ctx context.Context, userID string) (int64, error) {
	if err := s.c.write(); err != nil {
		return 0, err
	}
	return s.Sessions.DeleteUser(ctx, userID)
}

func (l crashingLinks) Take(ctx context.Context, kind auth.LinkKind, id string) (auth.Link, error) {
	if err := l.c.write(); err != nil {
		return auth.Link{}, err
	}
	return l.OneTimeLinks.Take(ctx, kind, id)
}

type crashingCounters struct {
	auth.Counters
	c *crashingStores
}

func (k crashingCounters) Reset(ctx context.Context, key string) error {
	if err := k.c.write(); err != nil {
		return err
	}
	return k.Counters.Reset(ctx, key)
}

type crashingLinks struct {
	auth.OneTimeLinks
	c *crashingStores
}

func (l crashingLinks) DeleteOwner(ctx context.Context, kind auth.LinkKind, owner string) (int64, error) {
	if err := l.c.write(); err != nil {
		return 0, err
	}
	return l.OneTimeLinks.DeleteOwner(ctx, kind, owner)
}

// noBilling has no subscriptions.
type noBilling struct{}

func (noBilling) SubscriptionsOf(context.Context, string) ([]billing.Subscription, error) {
	return nil, nil
}
func (noBilling) PutSubscription(context.Context, billing.Subscription) error {
	return errors.New("no billing in the contract")
}
