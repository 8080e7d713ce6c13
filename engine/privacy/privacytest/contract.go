// Package privacytest is the contract every implementation of privacy's
// stores (privacy.Stores) keeps, run against each engine by its own tests.
package privacytest

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"glimpse/engine/privacy"
	"glimpse/engine/store/contract"
)

// Options says what the stores under test guarantee and how to stop them.
type Options struct {
	// Atomic is true when a conditional update on one document or row is
	// atomic (SQLite, MongoDB; not FerretDB v1): the tests that send
	// conditional updates together need it.
	Atomic bool
	// FailWrites arms the stores to fail their nth write from now (n ≥ 1),
	// each later one too, until called with 0: a use case stopped between
	// two writes.
	FailWrites func(st privacy.Stores, n int)
}

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// together runs fn n times at once and returns how many returned true.
func together(t *testing.T, n int, fn func(i int) (bool, error)) int {
	t.Helper()
	var wins atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			ok, err := fn(i)
			if err != nil {
				errs <- err
				return
			}
			if ok {
				wins.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	return int(wins.Load())
}

func export(id, user, window string, at time.Time) privacy.Export {
	return privacy.Export{ID: id, UserID: user, Brand: "default", Status: privacy.ExportQueued, Window: window,
		RequestedAt: at, ExpiresAt: at.Add(7 * 24 * time.Hour)}
}

// Run runs the contract against stores made by open, one per subtest.
func Run(t *testing.T, open func(t *testing.T) privacy.Stores, o Options) {
	ctx := context.Background()
	needsAtomic := func(t *testing.T) {
		t.Helper()
		if !o.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
	}
	needsFail := func(t *testing.T) {
		t.Helper()
		if o.FailWrites == nil {
			t.Skip("no way to stop these stores between writes")
		}
	}
	request := func(t *testing.T, st privacy.Stores, e privacy.Export) {
		t.Helper()
		ok, err := st.Exports.Request(ctx, e)
		if err != nil || !ok {
			t.Fatalf("Request(%s) = %v, %v; want stored", e.ID, ok, err)
		}
	}
	parts := [][]byte{bytes.Repeat([]byte{1}, 10), bytes.Repeat([]byte{2}, 5)}

	t.Run("AnExportRoundTripKeepsEveryField", func(t *testing.T) {
		st := open(t)
		e := export("x1", "ann", "w1", t0)
		request(t, st, e)
		got, found, err := st.Exports.Get(ctx, "x1")
		if err != nil || !found || got != e {
			t.Fatalf("Get = %+v, %v, %v; want %+v", got, found, err, e)
		}
		leased, err := st.Exports.ClaimQueued(ctx, "builder", t0, t0.Add(time.Minute), 10)
		if err != nil || len(leased) != 1 || leased[0] != e {
			t.Fatalf("ClaimQueued = %+v, %v; want %+v", leased, err, e)
		}
		ok, err := st.Exports.Finish(ctx, "x1", t0.Add(time.Second), parts)
		if err != nil || !ok {
			t.Fatalf("Finish = %v, %v", ok, err)
		}
		want := e
		want.Status, want.ReadyAt, want.Size, want.Chunks = privacy.ExportReady, t0.Add(time.Second), 15, 2
		if got, _, err := st.Exports.Get(ctx, "x1"); err != nil || got != want {
			t.Fatalf("after Finish, Get = %+v, %v; want %+v", got, err, want)
		}
		if got, err := st.Exports.Parts(ctx, "x1"); err != nil || !reflect.DeepEqual(got, parts) {
			t.Fatalf("Parts = %v, %v; want %v", got, err, parts)
		}
		k := privacy.ExportKey{Hash: "h1", ExportID: "x1", UserID: "ann", ExpiresAt: t0.Add(time.Hour)}
		contract.Must(t, st.Exports.InsertKey(ctx, k))
		if got, found, err := st.Exports.Key(ctx, "h1"); err != nil || !found || got != k {
			t.Fatalf("Key = %+v, %v, %v; want %+v", got, found, err, k)
		}
		if _, found, err := st.Exports.Key(ctx, "nope"); err != nil || found {
			t.Fatalf("Key(unknown) found %v, %v", found, err)
		}
		if _, found, err := st.Exports.Get(ctx, "nope"); err != nil || found {
			t.Fatalf("Get(unknown) found %v, %v", found, err)
		}
	})

	t.Run("LatestIsTheNewestNotExpired", func(t *testing.T) {
		st := open(t)
		request(t, st, export("old", "ann", "w1", t0))
		request(t, st, export("new", "ann", "w2", t0.Add(time.Hour)))
		request(t, st, export("bob", "bob", "w3", t0.Add(2*time.Hour)))
		if got, found, err := st.Exports.Latest(ctx, "ann", t0.Add(2*time.Hour)); err != nil || !found || got.ID != "new" {
			t.Fatalf("Latest = %s, %v, %v; want new", got.ID, found, err)
		}
		if _, found, err := st.Exports.Latest(ctx, "ann", t0.Add(8*24*time.Hour)); err != nil || found {
			t.Fatalf("Latest after expiry found %v, %v", found, err)
		}
	})

	t.Run("OneExportIsStoredPerPersonAndWindowOfRequestsSentTogether", func(t *testing.T) {
		st := open(t)
		wins := together(t, 16, func(i int) (bool, error) {
			return st.Exports.Request(ctx, export(fmt.Sprintf("x%d", i), "ann", "w1", t0))
		})
		if wins != 1 {
			t.Fatalf("%d requests of one window stored, want 1", wins)
		}
		request(t, st, export("next", "ann", "w2", t0.Add(10*time.Minute)))
		request(t, st, export("bobs", "bob", "w1", t0))
	})

	t.Run("EachQueuedExportIsLeasedToOneBuilder", func(t *testing.T) {
		needsAtomic(t)
		st := open(t)
		for i := range 5 {
			request(t, st, export(fmt.Sprintf("x%d", i), fmt.Sprintf("u%d", i), "w", t0))
		}
		var mu sync.Mutex
		leases := map[string]int{}
		together(t, 8, func(i int) (bool, error) {
			got, err := st.Exports.ClaimQueued(ctx, fmt.Sprintf("b%d", i), t0, t0.Add(time.Minute), 10)
			mu.Lock()
			defer mu.Unlock()
			for _, e := range got {
				leases[e.ID]++
			}
			return false, err
		})
		if len(leases) != 5 {
			t.Fatalf("leased %v, want each of 5 exports", leases)
		}
		for id, n := range leases {
			if n != 1 {
				t.Errorf("export %s leased %d times together, want once", id, n)
			}
		}
		if got, err := st.Exports.ClaimQueued(ctx, "late", t0.Add(time.Second), t0.Add(time.Minute), 10); err != nil || len(got) != 0 {
			t.Fatalf("ClaimQueued while leased = %d, %v; want none", len(got), err)
		}
		if got, err := st.Exports.ClaimQueued(ctx, "after", t0.Add(time.Minute), t0.Add(2*time.Minute), 2); err != nil || len(got) != 2 {
			t.Fatalf("ClaimQueued after the lease, limit 2 = %d, %v; want 2", len(got), err)
		}
	})

	t.Run("AFinishedOrFailedOrDeletedExportIsNotFinished", func(t *testing.T) {
		st := open(t)
		request(t, st, export("x1", "ann", "w1", t0))
		contract.Must(t, st.Exports.Fail(ctx, "x1"))
		if ok, err := st.Exports.Finish(ctx, "x1", t0, parts); err != nil || ok {
			t.Fatalf("Finish of a failed export = %v, %v; want false", ok, err)
		}
		if got, _, _ := st.Exports.Get(ctx, "x1"); got.Status != privacy.ExportFailed {
			t.Fatalf("status %s, want failed", got.Status)
		}
		request(t, st, export("x2", "bob", "w1", t0))
		contract.Must(t, st.Exports.DeleteUser(ctx, "bob"))
		if ok, err := st.Exports.Finish(ctx, "x2", t0, parts); err != nil || ok {
			t.Fatalf("Finish of a deleted export = %v, %v; want false", ok, err)
		}
		if got, err := st.Exports.Parts(ctx, "x2"); err != nil || len(got) != 0 {
			t.Fatalf("a deleted export's parts were kept: %d, %v", len(got), err)
		}
	})

	t.Run("DeletingAPersonsExportsLeavesOthers", func(t *testing.T) {
		st := open(t)
		for _, u := range []string{"ann", "bob"} {
			request(t, st, export("x-"+u, u, "w1", t0))
			if ok, err := st.Exports.Finish(ctx, "x-"+u, t0, parts); err != nil || !ok {
				t.Fatalf("Finish = %v, %v", ok, err)
			}
			contract.Must(t, st.Exports.InsertKey(ctx, privacy.ExportKey{Hash: "k-" + u, ExportID: "x-" + u, UserID: u, ExpiresAt: t0.Add(time.Hour)}))
		}
		contract.Must(t, st.Exports.DeleteUser(ctx, "ann"))
		assertExport(t, st, "x-ann", false)
		assertExport(t, st, "x-bob", true)
		// The window is free again: a remade export takes it.
		request(t, st, export("again", "ann", "w1", t0))
	})

	t.Run("ExpiredExportsAndKeysAreDeleted", func(t *testing.T) {
		st := open(t)
		old := export("old", "ann", "w1", t0)
		old.ExpiresAt = t0.Add(time.Hour)
		request(t, st, old)
		request(t, st, export("live", "ann", "w2", t0))
		for _, id := range []string{"old", "live"} {
			if ok, err := st.Exports.Finish(ctx, id, t0, parts); err != nil || !ok {
				t.Fatalf("Finish = %v, %v", ok, err)
			}
		}
		contract.Must(t, st.Exports.InsertKey(ctx, privacy.ExportKey{Hash: "k-old", ExportID: "old", UserID: "ann", ExpiresAt: t0.Add(2 * time.Hour)}))
		contract.Must(t, st.Exports.InsertKey(ctx, privacy.ExportKey{Hash: "k-short", ExportID: "live", UserID: "ann", ExpiresAt: t0.Add(time.Hour)}))
		contract.Must(t, st.Exports.InsertKey(ctx, privacy.ExportKey{Hash: "k-long", ExportID: "live", UserID: "ann", ExpiresAt: t0.Add(3 * time.Hour)}))
		contract.Must(t, st.Exports.DeleteExpired(ctx, t0.Add(time.Hour)))
		if _, found, _ := st.Exports.Get(ctx, "old"); found {
			t.Error("the expired export is kept")
		}
		if got, _ := st.Exports.Parts(ctx, "old"); len(got) != 0 {
			t.Error("the expired export's parts are kept")
		}
		for key, want := range map[string]bool{"k-old": false, "k-short": false, "k-long": true} {
			if _, found, _ := st.Exports.Key(ctx, key); found != want {
				t.Errorf("key %s kept %v, want %v", key, found, want)
			}
		}
		assertExport(t, st, "live", true)
	})

	t.Run("AFinishStoppedBetweenWritesIsCompletedByARetry", func(t *testing.T) {
		needsFail(t)
		for n := 1; ; n++ {
			st := open(t)
			request(t, st, export("x1", "ann", "w1", t0))
			o.FailWrites(st, n)
			_, err := st.Exports.Finish(ctx, "x1", t0, parts)
			o.FailWrites(st, 0)
			if err == nil {
				if n == 1 {
					t.Fatal("stores armed to fail their first write wrote")
				}
				break
			}
			if ok, err := st.Exports.Finish(ctx, "x1", t0, parts); err != nil || !ok {
				t.Fatalf("stopped at write %d, then run again: %v, %v", n, ok, err)
			}
			got, _, _ := st.Exports.Get(ctx, "x1")
			gotParts, _ := st.Exports.Parts(ctx, "x1")
			if got.Status != privacy.ExportReady || got.Chunks != 2 || got.Size != 15 || !reflect.DeepEqual(gotParts, parts) {
				t.Fatalf("stopped at write %d, then run again: %+v with parts %v", n, got, gotParts)
			}
		}
	})

	t.Run("ADeleteStoppedBetweenWritesIsCompletedByARetry", func(t *testing.T) {
		needsFail(t)
		for n := 1; ; n++ {
			st := open(t)
			request(t, st, export("x1", "ann", "w1", t0))
			if ok, err := st.Exports.Finish(ctx, "x1", t0, parts); err != nil || !ok {
				t.Fatalf("Finish = %v, %v", ok, err)
			}
			contract.Must(t, st.Exports.InsertKey(ctx, privacy.ExportKey{Hash: "k1", ExportID: "x1", UserID: "ann", ExpiresAt: t0.Add(time.Hour)}))
			o.FailWrites(st, n)
			err := st.Exports.DeleteUser(ctx, "ann")
			o.FailWrites(st, 0)
			if err == nil {
				if n == 1 {
					t.Fatal("stores armed to fail their first write wrote")
				}
				break
			}
			contract.Must(t, st.Exports.DeleteUser(ctx, "ann"))
			assertExport(t, st, "x1", false)
			if _, found, _ := st.Exports.Key(ctx, "k1"); found {
				t.Fatalf("stopped at write %d, then run again: the key is kept", n)
			}
		}
	})

	pending := func(user string) privacy.PendingErasure {
		return privacy.PendingErasure{UserID: user, Email: user + "@example.com", Why: "request", At: t0, Farewell: "account-erased:" + user}
	}

	t.Run("AnErasureRoundTripKeepsEveryField", func(t *testing.T) {
		st := open(t)
		p := pending("ann")
		got, won, err := st.Erasures.Begin(ctx, p, "one", t0, t0.Add(time.Minute))
		if err != nil || !won || got != p {
			t.Fatalf("Begin = %+v, %v, %v; want %+v won", got, won, err, p)
		}
		// Held: another finds it, with the first's farewell, and does not win.
		other := p
		other.Farewell = "account-erased:other"
		if got, won, err := st.Erasures.Begin(ctx, other, "two", t0.Add(time.Second), t0.Add(time.Minute)); err != nil || won || got != p {
			t.Fatalf("Begin while held = %+v, %v, %v; want %+v, not won", got, won, err, p)
		}
		// Lapsed: the next one takes it over, with the stored farewell.
		if got, won, err := st.Erasures.Begin(ctx, other, "two", t0.Add(time.Minute), t0.Add(2*time.Minute)); err != nil || !won || got != p {
			t.Fatalf("Begin after the lease = %+v, %v, %v; want %+v won", got, won, err, p)
		}
		if all, err := st.Erasures.Pending(ctx); err != nil || len(all) != 1 || all[0] != p {
			t.Fatalf("Pending = %+v, %v", all, err)
		}
		e := privacy.Erasure{UserID: "ann", At: t0.Add(time.Hour), Why: "request"}
		f := privacy.Farewell{Key: p.Farewell, At: t0.Add(time.Hour)}
		contract.Must(t, st.Erasures.Finish(ctx, e, f))
		contract.Must(t, st.Erasures.Finish(ctx, e, f)) // a rerun changes nothing
		if got, found, err := st.Erasures.Erased(ctx, "ann"); err != nil || !found || got != e {
			t.Fatalf("Erased = %+v, %v, %v; want %+v", got, found, err, e)
		}
		if all, err := st.Erasures.Pending(ctx); err != nil || len(all) != 0 {
			t.Fatalf("Pending after Finish = %+v, %v", all, err)
		}
		if all, err := st.Erasures.Farewells(ctx); err != nil || len(all) != 1 || all[0] != f {
			t.Fatalf("Farewells = %+v, %v; want %+v", all, err, f)
		}
		contract.Must(t, st.Erasures.Forget(ctx, f.Key))
		if all, err := st.Erasures.Farewells(ctx); err != nil || len(all) != 0 {
			t.Fatalf("Farewells after Forget = %+v, %v", all, err)
		}
	})

	t.Run("OneOfErasuresBegunTogetherWins", func(t *testing.T) {
		st := open(t)
		wins := together(t, 12, func(i int) (bool, error) {
			p := pending("ann")
			p.Farewell = fmt.Sprintf("f%d", i)
			_, won, err := st.Erasures.Begin(ctx, p, fmt.Sprintf("o%d", i), t0, t0.Add(time.Minute))
			return won, err
		})
		if wins != 1 {
			t.Fatalf("%d erasures of one account began together, want 1", wins)
		}
	})

	t.Run("OneTakesOverALapsedErasure", func(t *testing.T) {
		needsAtomic(t)
		st := open(t)
		if _, won, err := st.Erasures.Begin(ctx, pending("ann"), "dead", t0, t0.Add(time.Minute)); err != nil || !won {
			t.Fatalf("Begin = %v, %v", won, err)
		}
		later := t0.Add(time.Hour)
		wins := together(t, 12, func(i int) (bool, error) {
			_, won, err := st.Erasures.Begin(ctx, pending("ann"), fmt.Sprintf("o%d", i), later, later.Add(time.Minute))
			return won, err
		})
		if wins != 1 {
			t.Fatalf("%d sweeps took over one lapsed erasure, want 1", wins)
		}
	})

	t.Run("AFinishedErasureStoppedBetweenWritesIsCompletedByARetry", func(t *testing.T) {
		needsFail(t)
		e := privacy.Erasure{UserID: "ann", At: t0, Why: "request"}
		f := privacy.Farewell{Key: "account-erased:ann", At: t0}
		for n := 1; ; n++ {
			st := open(t)
			if _, won, err := st.Erasures.Begin(ctx, pending("ann"), "one", t0, t0.Add(time.Minute)); err != nil || !won {
				t.Fatalf("Begin = %v, %v", won, err)
			}
			o.FailWrites(st, n)
			err := st.Erasures.Finish(ctx, e, f)
			o.FailWrites(st, 0)
			if err == nil {
				if n == 1 {
					t.Fatal("stores armed to fail their first write wrote")
				}
				break
			}
			// Still pending: the sweep finds it and runs the end again.
			if all, err := st.Erasures.Pending(ctx); err != nil || len(all) != 1 {
				t.Fatalf("stopped at write %d: pending %+v, %v; want the erasure still pending", n, all, err)
			}
			contract.Must(t, st.Erasures.Finish(ctx, e, f))
			if got, found, _ := st.Erasures.Erased(ctx, "ann"); !found || got != e {
				t.Fatalf("stopped at write %d, then run again: ledger %+v, %v", n, got, found)
			}
			if all, _ := st.Erasures.Farewells(ctx); len(all) != 1 || all[0] != f {
				t.Fatalf("stopped at write %d, then run again: farewells %+v", n, all)
			}
			if all, _ := st.Erasures.Pending(ctx); len(all) != 0 {
				t.Fatalf("stopped at write %d, then run again: pending %+v", n, all)
			}
		}
	})

	t.Run("ATouchKeepsTheLaterUseAndClearsTheWarning", func(t *testing.T) {
		st := open(t)
		contract.Must(t, st.Activity.Touch(ctx, "ann", t0))
		if got, found, err := st.Activity.Get(ctx, "ann"); err != nil || !found || got != (privacy.LastUse{UserID: "ann", LastActiveAt: t0}) {
			t.Fatalf("Get = %+v, %v, %v", got, found, err)
		}
		if ok, err := st.Activity.Warn(ctx, "ann", t0, t0.Add(time.Hour)); err != nil || !ok {
			t.Fatalf("Warn = %v, %v", ok, err)
		}
		if got, _, _ := st.Activity.Get(ctx, "ann"); !got.WarnedAt.Equal(t0.Add(time.Hour)) {
			t.Fatalf("WarnedAt = %v", got.WarnedAt)
		}
		contract.Must(t, st.Activity.Touch(ctx, "ann", t0.Add(-time.Hour))) // an instance behind: a use all the same
		if got, _, _ := st.Activity.Get(ctx, "ann"); got != (privacy.LastUse{UserID: "ann", LastActiveAt: t0}) {
			t.Fatalf("after an earlier touch: %+v; want the later use, not warned", got)
		}
		contract.Must(t, st.Activity.Touch(ctx, "ann", t0.Add(time.Hour)))
		if got, _, _ := st.Activity.Get(ctx, "ann"); !got.LastActiveAt.Equal(t0.Add(time.Hour)) {
			t.Fatalf("after a later touch: %+v", got)
		}
		contract.Must(t, st.Activity.Delete(ctx, "ann"))
		if _, found, err := st.Activity.Get(ctx, "ann"); err != nil || found {
			t.Fatalf("after Delete found %v, %v", found, err)
		}
	})

	t.Run("AWarningIsRecordedOnceAndNotAfterAUse", func(t *testing.T) {
		needsAtomic(t)
		st := open(t)
		contract.Must(t, st.Activity.Touch(ctx, "ann", t0))
		wins := together(t, 12, func(i int) (bool, error) {
			return st.Activity.Warn(ctx, "ann", t0, t0.Add(time.Duration(i)*time.Second))
		})
		if wins != 1 {
			t.Fatalf("%d passes recorded the warning, want 1", wins)
		}
		contract.Must(t, st.Activity.Touch(ctx, "bob", t0))
		contract.Must(t, st.Activity.Touch(ctx, "bob", t0.Add(time.Hour)))
		if ok, err := st.Activity.Warn(ctx, "bob", t0, t0.Add(2*time.Hour)); err != nil || ok {
			t.Fatalf("Warn on a use read before a new one = %v, %v; want false", ok, err)
		}
	})

	t.Run("IdleAccountsArePagedOldestFirst", func(t *testing.T) {
		st := open(t)
		uses := []privacy.LastUse{{UserID: "a", LastActiveAt: t0}, {UserID: "b", LastActiveAt: t0},
			{UserID: "c", LastActiveAt: t0.Add(time.Hour)}, {UserID: "d", LastActiveAt: t0.Add(3 * time.Hour)}}
		contract.Must(t, st.Activity.InsertMany(ctx, uses))
		// Already recorded: left as they are.
		contract.Must(t, st.Activity.InsertMany(ctx, []privacy.LastUse{{UserID: "a", LastActiveAt: t0.Add(time.Minute)}, {UserID: "e", LastActiveAt: t0.Add(2 * time.Hour)}}))
		var ids []string
		var after privacy.LastUse
		for {
			page, err := st.Activity.Idle(ctx, t0.Add(2*time.Hour), after, 2)
			contract.Must(t, err)
			for _, u := range page {
				ids = append(ids, u.UserID)
			}
			if len(page) < 2 {
				break
			}
			after = page[len(page)-1]
		}
		if got, want := fmt.Sprint(ids), "[a b c e]"; got != want {
			t.Fatalf("idle accounts paged = %s, want %s", got, want)
		}
	})

	t.Run("OneOfMetasRepliesTogetherIsRecorded", func(t *testing.T) {
		st := open(t)
		r := privacy.DeletionRequest{Code: "c1", Status: privacy.DeletionNoData, RequestedAt: t0, CompletedAt: t0, ExpiresAt: t0.Add(time.Hour)}
		wins := together(t, 12, func(int) (bool, error) { return st.InstagramDeletions.Record(ctx, r) })
		if wins != 1 {
			t.Fatalf("%d replays recorded, want 1", wins)
		}
		if got, found, err := st.InstagramDeletions.Get(ctx, "c1"); err != nil || !found || got != r {
			t.Fatalf("Get = %+v, %v, %v; want %+v", got, found, err, r)
		}
		contract.Must(t, st.InstagramDeletions.Complete(ctx, "c1", t0.Add(time.Minute)))
		want := r
		want.Status, want.CompletedAt = privacy.DeletionCompleted, t0.Add(time.Minute)
		if got, _, _ := st.InstagramDeletions.Get(ctx, "c1"); got != want {
			t.Fatalf("after Complete = %+v; want %+v", got, want)
		}
		contract.Must(t, st.InstagramDeletions.DeleteExpired(ctx, t0.Add(time.Hour)))
		if _, found, _ := st.InstagramDeletions.Get(ctx, "c1"); !found {
			t.Fatal("deleted at its expiry, want after")
		}
		contract.Must(t, st.InstagramDeletions.DeleteExpired(ctx, t0.Add(time.Hour+time.Second)))
		if _, found, _ := st.InstagramDeletions.Get(ctx, "c1"); found {
			t.Fatal("kept after its expiry")
		}
	})
}

func assertExport(t *testing.T, st privacy.Stores, id string, kept bool) {
	t.Helper()
	ctx := context.Background()
	_, found, err := st.Exports.Get(ctx, id)
	contract.Must(t, err)
	got, err := st.Exports.Parts(ctx, id)
	contract.Must(t, err)
	if found != kept || (len(got) > 0) != kept {
		t.Fatalf("export %s: found %v with %d parts; want kept %v", id, found, len(got), kept)
	}
}
