package billingtest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/store/contract"
)

// renewed is a renewal decided on s as claimed: the charge made, the next
// period, its line and its mail, over the version read.
func renewed(s billing.Subscription) billing.Renewal {
	next := s
	next.CurrentPeriodStart, next.CurrentPeriodEnd = s.CurrentPeriodEnd, s.CurrentPeriodEnd.AddDate(0, 1, 0)
	next.DueAt, next.FailedAttempts = next.CurrentPeriodEnd, 0
	period := s.CurrentPeriodEnd.Format(time.DateOnly)
	return billing.Renewal{Next: next, Charge: renewalCharge(s), Fx: billing.Effects{
		Lines:   []billing.Change{s.Line("renewed:"+period, s.CurrentPeriodEnd, billing.Change{By: "renewal", Kind: billing.ChangeRenewed})},
		Notices: []billing.Notice{{Key: "renewed:" + s.ID + ":" + period, To: s.Email, Kind: billing.NoticeReceipt}},
	}}
}

// renewalCharge is the charge of s's renewal at its period end.
func renewalCharge(s billing.Subscription) billing.Charge {
	period := s.CurrentPeriodEnd.Format(time.DateOnly)
	return Charge("renew:"+s.ID+":"+period, s.ID, "pi_"+s.ID+"_"+period, s.CurrentPeriodEnd)
}

// charges lists the keys of the charges of ids, oldest first.
func charges(t *testing.T, st billing.Store, ids ...string) string {
	t.Helper()
	chs, err := st.Ledger().OfSubscriptions(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, len(chs))
	for i, ch := range chs {
		keys[i] = ch.Key
	}
	slices.Sort(keys)
	return strings.Join(keys, " ")
}

// runRenewals is the renewal pass's half of the contract: the claim by
// lease, the renewal over the version and the lease, the release, and
// seed-scale's bulk insert.
func runRenewals(t *testing.T, open func(t *testing.T) billing.Store, o Options) {
	ctx := context.Background()
	due := t0.AddDate(0, 1, 0) // Plan's period end

	t.Run("ClaimDueLeasesWhatIsDueOnceUntilTheLeaseLapses", func(t *testing.T) {
		subs := open(t).Subscriptions()
		later := Plan("s2", "bob@x")
		later.DueAt = due.Add(time.Hour)
		never := Plan("s3", "cy@x")
		never.DueAt = time.Time{}
		first := Plan("s0", "di@x")
		first.DueAt = due.Add(-time.Hour)
		for _, s := range []billing.Subscription{Plan("s1", "ann@x"), later, never, first} {
			contract.Must(t, create(ctx, subs, s, billing.Effects{}))
		}
		got, err := subs.ClaimDue(ctx, due, "w1", time.Minute, 10)
		if err != nil || ids(got) != "s0 s1" {
			t.Fatalf("ClaimDue = %q, %v; want the two due, earliest first", ids(got), err)
		}
		want := billing.Lease{Owner: "w1", Until: due.Add(time.Minute)}
		if got[1].Lease != want || got[1].Version != 1 || got[1].Email != "ann@x" {
			t.Fatalf("claimed %+v, want it whole with lease %+v", got[1], want)
		}
		if stored, _ := subs.Get(ctx, "s1"); stored.Lease != want {
			t.Fatalf("stored lease %+v, want %+v", stored.Lease, want)
		}
		if again, err := subs.ClaimDue(ctx, due.Add(30*time.Second), "w2", time.Minute, 10); err != nil || len(again) != 0 {
			t.Fatalf("a leased subscription was claimed again: %q, %v", ids(again), err)
		}
		if one, err := subs.ClaimDue(ctx, due.Add(2*time.Minute), "w2", time.Minute, 1); err != nil || ids(one) != "s0" {
			t.Fatalf("after the lease lapsed, a limit of 1 claimed %q, %v; want s0", ids(one), err)
		}
	})

	t.Run("ARenewalLandsOnlyOverTheVersionAndTheLease", func(t *testing.T) {
		st := open(t)
		subs := st.Subscriptions()
		contract.Must(t, create(ctx, subs, Plan("s1", "ann@x"), billing.Effects{}))
		contract.Must(t, create(ctx, subs, Plan("s2", "bob@x"), billing.Effects{}))
		claimed, err := subs.ClaimDue(ctx, due, "w1", time.Minute, 10)
		if err != nil || len(claimed) != 2 {
			t.Fatalf("ClaimDue = %q, %v", ids(claimed), err)
		}
		// s2's lease lapses and another worker claims it.
		taken, err := subs.ClaimDue(ctx, due.Add(2*time.Minute), "w2", time.Minute, 10)
		if err != nil || ids(taken) != "s1 s2" {
			t.Fatalf("lapsed leases claimed %q, %v", ids(taken), err)
		}
		contract.Must(t, subs.Release(ctx, "w2", []string{"s1"}))
		errs, err := subs.Renew(ctx, "w1", []billing.Renewal{renewed(claimed[0]), renewed(claimed[1])})
		if err != nil {
			t.Fatal(err)
		}
		// s1 is free again, but a lease w1 lost is not w1's: both refused.
		if !errors.Is(errs[0], billing.ErrStale) || !errors.Is(errs[1], billing.ErrStale) {
			t.Fatalf("renewals without the lease: %v", errs)
		}
		// Their charges were made: recorded all the same (to be given back).
		if got := charges(t, st, "s1", "s2"); got != "renew:s1:2026-12-01 renew:s2:2026-12-01" {
			t.Fatalf("charges of refused renewals: %q", got)
		}
		errs, err = subs.Renew(ctx, "w2", []billing.Renewal{renewed(taken[1])})
		if err != nil || errs[0] != nil {
			t.Fatalf("the lease holder's renewal: %v, %v", errs, err)
		}
		// The same charge again (the lease holder's renewal): still one.
		if got := charges(t, st, "s2"); got != "renew:s2:2026-12-01" {
			t.Fatalf("charges of s2: %q", got)
		}
		got, _ := subs.Get(ctx, "s2")
		want := renewed(taken[1]).Next
		want.Version, want.Lease = 2, billing.Lease{}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("renewed\n%+v\nwant\n%+v", got, want)
		}
		if h := history(t, subs, "s2"); h != "s2/renewed:2026-12-01" {
			t.Fatalf("history %q", h)
		}
		if keys := drain(t, st.Notices()); keys != "renewed:s2:2026-12-01" {
			t.Fatalf("outbox %q", keys)
		}
		if h := history(t, subs, "s1"); h != "" {
			t.Fatalf("a refused renewal wrote %q", h)
		}
		// Renewed, s2 is due a month on; s1, released, is due now.
		if next, _ := subs.ClaimDue(ctx, due.Add(3*time.Minute), "w3", time.Minute, 10); ids(next) != "s1" {
			t.Fatalf("after the pass, claimed %q; want s1", ids(next))
		}
		// A stale version is refused even with the lease.
		stale := renewed(claimed[0])
		errs, err = subs.Renew(ctx, "w3", []billing.Renewal{stale})
		if err != nil || errs[0] != nil {
			t.Fatalf("w3 renews s1 read at v1: %v, %v", errs, err)
		}
		if _, err := subs.ClaimDue(ctx, due.AddDate(0, 1, 0), "w4", time.Minute, 10); err != nil {
			t.Fatal(err)
		}
		errs, err = subs.Renew(ctx, "w4", []billing.Renewal{stale})
		if err != nil || !errors.Is(errs[0], billing.ErrStale) {
			t.Fatalf("a renewal over an old version: %v, %v", errs, err)
		}
	})

	t.Run("TwoWorkersClaimDisjointSets", func(t *testing.T) {
		if !o.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
		subs := open(t).Subscriptions()
		for i := range 40 {
			contract.Must(t, create(ctx, subs, Plan(fmt.Sprintf("s%02d", i), "ann@x"), billing.Effects{}))
		}
		var mu sync.Mutex
		seen := map[string]string{}
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				owner := fmt.Sprintf("w%d", w)
				got, err := subs.ClaimDue(ctx, due, owner, time.Hour, 10)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				for _, s := range got {
					if other, ok := seen[s.ID]; ok {
						t.Errorf("%s claimed by %s and %s", s.ID, other, owner)
					}
					if s.Lease.Owner != owner {
						t.Errorf("%s returned to %s with lease %+v", s.ID, owner, s.Lease)
					}
					seen[s.ID] = owner
				}
			})
		}
		wg.Wait()
		if len(seen) != 40 {
			t.Fatalf("%d of 40 claimed", len(seen))
		}
	})

	t.Run("ACancelDuringARenewalIsNeverRenewedOver", func(t *testing.T) {
		if !o.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
		var renewedFirst, canceledFirst int
		for round := range 30 {
			subs := open(t).Subscriptions()
			contract.Must(t, create(ctx, subs, Plan("s1", "ann@x"), billing.Effects{}))
			claimed, err := subs.ClaimDue(ctx, due, "w1", time.Hour, 1)
			if err != nil || len(claimed) != 1 {
				t.Fatalf("ClaimDue = %q, %v", ids(claimed), err)
			}
			var renewErr error
			var wg sync.WaitGroup
			wg.Go(func() {
				// Staggered against the cancel's read (which waits 2ms before
				// writing), so both orders happen.
				time.Sleep(time.Duration(round%5) * time.Millisecond)
				errs, err := subs.Renew(ctx, "w1", []billing.Renewal{renewed(claimed[0])})
				if err != nil {
					t.Error(err)
					return
				}
				renewErr = errs[0]
			})
			wg.Go(func() {
				err := change(ctx, subs, "s1", func(s billing.Subscription) (billing.Subscription, billing.Effects, bool, error) {
					next, fx, ok := s.Cancel(due.Add(time.Minute), s.CurrentPeriodEnd, "user")
					return next, fx, ok, nil
				}, new(atomic.Int64))
				if err != nil {
					t.Error(err)
				}
			})
			wg.Wait()
			got, _ := subs.Get(ctx, "s1")
			h, _ := subs.History(ctx, "s1")
			if got.Status != billing.StatusCanceled {
				t.Fatalf("round %d: the cancel was lost: %+v, history %v", round, got, kinds(h))
			}
			switch {
			case renewErr == nil:
				// Renewed, then canceled at the renewed period's end.
				renewedFirst++
				if !slices.Equal(kinds(h), []string{billing.ChangeRenewed, billing.ChangeCanceled}) ||
					!got.ExpiresAt.Equal(due.AddDate(0, 1, 0)) {
					t.Fatalf("round %d: renewed first, then %+v, history %v", round, got, kinds(h))
				}
			case errors.Is(renewErr, billing.ErrStale):
				// Canceled first: the renewal is refused and writes nothing.
				canceledFirst++
				if !slices.Equal(kinds(h), []string{billing.ChangeCanceled}) || !got.ExpiresAt.Equal(due) {
					t.Fatalf("round %d: canceled first, then %+v, history %v", round, got, kinds(h))
				}
			default:
				t.Fatalf("round %d: Renew: %v", round, renewErr)
			}
		}
		t.Logf("renewed first %d, canceled first %d", renewedFirst, canceledFirst)
		if canceledFirst == 0 {
			t.Error("the cancel never came first: the race was not exercised")
		}
	})

	t.Run("ARenewalStoppedHalfWayIsFinishedByARerunAndTheDrain", func(t *testing.T) {
		if o.Failing == nil {
			t.Skip("no failing store")
		}
		// The use case: renew what was claimed, then hand the mails over.
		// A rerun renews again what the stop left (SQLite: all of it, the
		// transaction rolled back) or finds it renewed (ErrStale; MongoDB:
		// the drain copies out what the stop left pending).
		renew := func(st billing.Store, claimed []billing.Subscription, mailed map[string]int) error {
			rs := make([]billing.Renewal, len(claimed))
			for i, s := range claimed {
				rs[i] = renewed(s)
			}
			errs, err := st.Subscriptions().Renew(ctx, "w1", rs)
			if err != nil {
				return err
			}
			for _, e := range errs {
				if e != nil && !errors.Is(e, billing.ErrStale) {
					return e
				}
			}
			return drainInto(ctx, st.Notices(), mailed)
		}
		var claimed []billing.Subscription
		setUp := func(t *testing.T, st billing.Store) {
			contract.Must(t, create(ctx, st.Subscriptions(), Plan("s1", "ann@x"), billing.Effects{}))
			contract.Must(t, create(ctx, st.Subscriptions(), Plan("s2", "bob@x"), billing.Effects{}))
			var err error
			if claimed, err = st.Subscriptions().ClaimDue(ctx, due, "w1", time.Hour, 10); err != nil || len(claimed) != 2 {
				t.Fatalf("ClaimDue = %q, %v", ids(claimed), err)
			}
		}
		both := func(st billing.Store) string {
			return dump(t, st) + "\n" + history(t, st.Subscriptions(), "s2") + "\ncharges " + charges(t, st, "s1", "s2")
		}
		_, clean := o.Failing(t, 1<<30)
		setUp(t, clean)
		once := map[string]int{}
		contract.Must(t, renew(clean, claimed, once))
		want := both(clean)
		for n := 1; ; n++ {
			st, rerun := failingOn(t, o, n, setUp)
			mailed := map[string]int{}
			if err := renew(st, claimed, mailed); err == nil {
				if got := both(rerun); got != want {
					t.Fatalf("a run that did not fail left\n%s\nwant\n%s", got, want)
				}
				break
			}
			contract.Must(t, renew(rerun, claimed, mailed))
			if got := both(rerun); got != want {
				t.Fatalf("stopped at write %d, then run again:\n%s\nwant\n%s", n, got, want)
			}
			if !sameKeys(mailed, once) {
				t.Fatalf("stopped at write %d: mailed %v, want %v", n, mailed, once)
			}
			if n > 30 {
				t.Fatal("the use case never finished without failing")
			}
		}
	})

	t.Run("InsertManyWritesEachOnceWithItsLinesAndCharges", func(t *testing.T) {
		st := open(t)
		subs := st.Subscriptions()
		var seeded []billing.Seeded
		for i := range 3 {
			s := Plan(fmt.Sprintf("s%d", i), fmt.Sprintf("p%d@x", i))
			s.UserID = fmt.Sprintf("u%d", i)
			seeded = append(seeded, billing.Seeded{Sub: s, Lines: []billing.Change{
				s.Line("created", t0, billing.Change{By: "seed", Kind: billing.ChangeCreated, To: s.PlanCode}),
			}, Charges: []billing.Charge{Charge("checkout:"+s.ID, s.ID, "pi_"+s.ID, t0)}})
		}
		contract.Must(t, subs.InsertMany(ctx, seeded))
		// A batch written again (a seeding stopped half-way) writes nothing twice.
		contract.Must(t, subs.InsertMany(ctx, seeded))
		for _, x := range seeded {
			want := x.Sub
			want.Version = 1
			got, err := subs.OfUser(ctx, want.UserID)
			if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], want) {
				t.Fatalf("OfUser(%s) = %+v, %v; want %+v", want.UserID, got, err, want)
			}
			if h := history(t, subs, want.ID); h != want.ID+"/created" {
				t.Fatalf("history of %s: %q", want.ID, h)
			}
			if got, err := st.Ledger().ByKey(ctx, "checkout:"+want.ID); err != nil || !reflect.DeepEqual(got, x.Charges[0]) {
				t.Fatalf("seeded charge of %s: %+v, %v; want %+v", want.ID, got, err, x.Charges[0])
			}
			if got := charges(t, st, want.ID); got != "checkout:"+want.ID {
				t.Fatalf("charges of %s: %q", want.ID, got)
			}
		}
		if due, _ := subs.ClaimDue(ctx, due, "w", time.Minute, 10); !strings.HasPrefix(ids(due), "s0 s1 s2") {
			t.Fatalf("seeded subscriptions are not due: %q", ids(due))
		}
	})

	t.Run("EraseLinesStripsThePersonOnce", func(t *testing.T) {
		st := open(t)
		subs := st.Subscriptions()
		s := Plan("s1", "ann@x")
		fx := billing.Effects{Lines: []billing.Change{
			s.Line("created", t0, billing.Change{By: "checkout", Kind: billing.ChangeCreated, To: "glimpse_monthly", Detail: "Visa ••4242"}),
			s.Line("finalized", t0.Add(time.Minute), billing.Change{By: "user:u1", Kind: billing.ChangeFinalized, To: "u1"}),
			s.Line("email", t0.Add(2*time.Minute), billing.Change{By: "checkout", Kind: "email", From: "a•••@x", To: "ann@x"}),
		}}
		contract.Must(t, create(ctx, subs, s, fx))
		contract.Must(t, create(ctx, subs, Plan("s2", "bob@x"), billing.Effects{Lines: []billing.Change{
			Plan("s2", "bob@x").Line("created", t0, billing.Change{By: "checkout", Kind: billing.ChangeCreated, Detail: "kept"})}}))
		for range 2 { // run again, it changes nothing more
			contract.Must(t, subs.EraseLines(ctx, "s1", []string{"u1", "ann@x"}))
		}
		h, err := subs.History(ctx, "s1")
		if err != nil || len(h) != 3 {
			t.Fatalf("history %v, %v", h, err)
		}
		want := []billing.Change{
			{ID: "s1/created", SubscriptionID: "s1", At: t0, By: "erased", Kind: billing.ChangeCreated, To: "glimpse_monthly"},
			{ID: "s1/finalized", SubscriptionID: "s1", At: t0.Add(time.Minute), By: "erased", Kind: billing.ChangeFinalized},
			{ID: "s1/email", SubscriptionID: "s1", At: t0.Add(2 * time.Minute), By: "erased", Kind: "email", From: "a•••@x"},
		}
		if !reflect.DeepEqual(h, want) {
			t.Fatalf("erased history\n%+v\nwant\n%+v", h, want)
		}
		if other, _ := subs.History(ctx, "s2"); len(other) != 1 || other[0].Detail != "kept" {
			t.Fatalf("another subscription's history was erased: %+v", other)
		}
	})

	t.Run("RetainedAndPurgeTakeOnlyWhatsRetentionEnded", func(t *testing.T) {
		subs := open(t).Subscriptions()
		ended, running := Plan("s1", "erased"), Plan("s2", "erased")
		ended.Erased, ended.RetainUntil = true, t0.Add(time.Hour)
		running.Erased, running.RetainUntil = true, t0.AddDate(1, 0, 0)
		for _, s := range []billing.Subscription{ended, running, Plan("s3", "cy@x")} {
			contract.Must(t, create(ctx, subs, s, billing.Effects{Lines: []billing.Change{s.Line("created", t0, billing.Change{Kind: billing.ChangeCreated})}}))
		}
		now := t0.Add(2 * time.Hour)
		kept, err := subs.Retained(ctx, now, 10)
		if err != nil || ids(kept) != "s1" {
			t.Fatalf("Retained = %q, %v; want s1", ids(kept), err)
		}
		for _, id := range []string{"s2", "s3"} {
			if purged, err := subs.Purge(ctx, id, now); err != nil || purged {
				t.Fatalf("Purge(%s) = %v, %v; its retention has not ended", id, purged, err)
			}
		}
		if purged, err := subs.Purge(ctx, "s1", now); err != nil || !purged {
			t.Fatalf("Purge(s1) = %v, %v", purged, err)
		}
		if _, err := subs.Get(ctx, "s1"); !errors.Is(err, billing.ErrNoSubscription) {
			t.Fatalf("s1 after the purge: %v", err)
		}
		if h := history(t, subs, "s1"); h != "" {
			t.Fatalf("s1's history after the purge: %q", h)
		}
		if purged, err := subs.Purge(ctx, "s1", now); err != nil || purged {
			t.Fatalf("a second purge: %v, %v", purged, err)
		}
		if h := history(t, subs, "s2"); h != "s2/created" {
			t.Fatalf("s2's history: %q", h)
		}
		if kept, err := subs.Retained(ctx, now, 10); err != nil || len(kept) != 0 {
			t.Fatalf("Retained after the purge = %q, %v", ids(kept), err)
		}
	})
}
