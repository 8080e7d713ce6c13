// Package billingtest is the contract every implementation of billing's
// storage keeps, run against each store by its own tests.
package billingtest

import (
	"context"
	"errors"
	"fmt"
	"maps"
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

// Options says what the engine under test guarantees.
type Options struct {
	// Atomic is an engine whose conditional updates are atomic (SQLite,
	// MongoDB; not the FerretDB test server): the subtests whose rule is a
	// conditional update run only then.
	Atomic bool
	// Failing returns a store on a new database whose nth write fails (a
	// process stopped there: on SQLite the transaction rolls back, on
	// MongoDB the writes before it stay), and a store on the same database
	// that does not fail.
	Failing func(t *testing.T, n int) (failing, clean billing.Store)
}

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// Plan returns a main plan bought at t0 with every field set.
func Plan(id, email string) billing.Subscription {
	end := t0.AddDate(0, 1, 0)
	return billing.Subscription{ID: id, Email: email, Emails: []string{"old@example.com", email}, Bundle: "glimpse",
		Brand: "default", PlanCode: "glimpse_monthly", Status: billing.StatusActive, MainPlan: true, Price: billing.USD(1399),
		Provider: "sandbox", StartedAt: t0, CurrentPeriodStart: t0, CurrentPeriodEnd: end,
		PaymentMethod: billing.PaymentMethod{Provider: "sandbox", ID: "pm_1", Customer: "cus_1", Brand: "visa", Last4: "4242"},
		DueAt:         end}
}

// Run runs the contract against stores made by open, one per subtest.
func Run(t *testing.T, open func(t *testing.T) billing.Store, o Options) {
	ctx := context.Background()

	t.Run("ARoundTripKeepsEveryField", func(t *testing.T) {
		subs := open(t).Subscriptions()
		want := Plan("s1", "ann@example.com")
		canceled, resumed, expires := t0.Add(time.Hour), t0.Add(2*time.Hour), t0.AddDate(0, 2, 0)
		want.UserID, want.ExpiresAt, want.CancelAtPeriodEnd, want.CanceledAt, want.ResumedAt = "u1", &expires, true, &canceled, &resumed
		want.FailedAttempts, want.NextPlanCode, want.MainSubscriptionID, want.PaidBy, want.Suspended = 2, "glimpse_yearly", "m1", "h1", true
		want.FreeMonth = &billing.FreeMonth{Key: "k", Base: t0, Target: t0.AddDate(0, 1, 0)}
		want.Erased, want.RetainUntil, want.Extensions = true, t0.AddDate(10, 0, 0), []string{"x1", "x2"}
		got, created, err := subs.Create(ctx, want, billing.Effects{})
		if err != nil || !created || got.Version != 1 {
			t.Fatalf("Create = v%d, %v, %v", got.Version, created, err)
		}
		want.Version = 1
		read, err := subs.Get(ctx, "s1")
		if err != nil || !reflect.DeepEqual(read, want) {
			t.Fatalf("read back\n%+v, %v\nwrote\n%+v", read, err, want)
		}
		// A change that clears every optional field clears it.
		bare := Plan("s1", "ann@example.com")
		bare.Version, bare.Emails, bare.CurrentPeriodStart, bare.CurrentPeriodEnd, bare.DueAt = 1, nil, time.Time{}, time.Time{}, time.Time{}
		if _, err := subs.Apply(ctx, bare, billing.Effects{}); err != nil {
			t.Fatal(err)
		}
		bare.Version = 2
		if read, err = subs.Get(ctx, "s1"); err != nil || !reflect.DeepEqual(read, bare) {
			t.Fatalf("read back\n%+v, %v\nwrote\n%+v", read, err, bare)
		}
		// Put writes as given, version included.
		want.Version = 7
		if err := subs.Put(ctx, want); err != nil {
			t.Fatal(err)
		}
		if read, err = subs.Get(ctx, "s1"); err != nil || !reflect.DeepEqual(read, want) {
			t.Fatalf("put then read\n%+v, %v\nwrote\n%+v", read, err, want)
		}
		if _, err := subs.Get(ctx, "nope"); !errors.Is(err, billing.ErrNoSubscription) {
			t.Fatalf("Get(unknown) = %v, want ErrNoSubscription", err)
		}
	})

	t.Run("OfUserAndByEmailFindThePersonsOldestFirst", func(t *testing.T) {
		subs := open(t).Subscriptions()
		for i, p := range []struct{ id, user, email string }{{"b", "ann", "ann@x"}, {"a", "ann", "ann@x"}, {"c", "bob", "bob@x"}, {"d", "", "ann@x"}} {
			s := Plan(p.id, p.email)
			s.UserID, s.StartedAt = p.user, t0.Add(-time.Duration(i)*time.Hour)
			contract.Must(t, create(ctx, subs, s, billing.Effects{}))
		}
		got, err := subs.OfUser(ctx, "ann")
		if err != nil || ids(got) != "a b" {
			t.Fatalf("OfUser(ann) = %q, %v; want a b", ids(got), err)
		}
		if got, err := subs.OfUser(ctx, ""); err != nil || len(got) != 0 {
			t.Fatalf("OfUser(\"\") = %q, %v; want none", ids(got), err)
		}
		got, err = subs.ByEmail(ctx, "ann@x")
		if err != nil || ids(got) != "d a b" {
			t.Fatalf("ByEmail(ann@x) = %q, %v; want d a b", ids(got), err)
		}
		// The address is the current one: a change of address moves it.
		moved := got[0]
		moved.Email = "new@x"
		if _, err := subs.Apply(ctx, moved, billing.Effects{}); err != nil {
			t.Fatal(err)
		}
		if got, _ := subs.ByEmail(ctx, "ann@x"); ids(got) != "a b" {
			t.Fatalf("ByEmail(ann@x) after the move = %q", ids(got))
		}
		if got, _ := subs.ByEmail(ctx, "new@x"); ids(got) != "d" {
			t.Fatalf("ByEmail(new@x) = %q", ids(got))
		}
	})

	t.Run("CreateIsOnceAndWritesItsEffectsOnce", func(t *testing.T) {
		st := open(t)
		subs := st.Subscriptions()
		s := Plan("s1", "ann@x")
		fx := billing.Effects{Lines: []billing.Change{s.Line("created", t0, billing.Change{Kind: billing.ChangeCreated})},
			Notices: []billing.Notice{{Key: "purchase:s1", To: "ann@x", Kind: billing.NoticePurchase}}}
		if _, created, err := subs.Create(ctx, s, fx); err != nil || !created {
			t.Fatalf("first Create = %v, %v", created, err)
		}
		other := Plan("s1", "bob@x")
		got, created, err := subs.Create(ctx, other, billing.Effects{Notices: []billing.Notice{{Key: "purchase:again", To: "bob@x"}}})
		if err != nil || created || got.Email != "ann@x" {
			t.Fatalf("second Create = %s, %v, %v; want the first, false", got.Email, created, err)
		}
		if h := history(t, subs, "s1"); h != "s1/created" {
			t.Fatalf("history = %q", h)
		}
		if keys := drain(t, st.Notices()); keys != "purchase:s1" {
			t.Fatalf("outbox = %q; want the first's notice only", keys)
		}
	})

	t.Run("AStaleApplyIsRefused", func(t *testing.T) {
		st := open(t)
		subs := st.Subscriptions()
		contract.Must(t, create(ctx, subs, Plan("s1", "ann@x"), billing.Effects{}))
		read, _ := subs.Get(ctx, "s1")
		canceled, fx, _ := read.Cancel(t0, read.CurrentPeriodEnd, "user")
		if _, err := subs.Apply(ctx, canceled, fx); err != nil {
			t.Fatal(err)
		}
		// The same read, decided on again: refused, writing nothing.
		late := read
		late.PlanCode = "glimpse_yearly"
		_, err := subs.Apply(ctx, late, billing.Effects{Lines: []billing.Change{read.Line("late", t0, billing.Change{Kind: "late"})},
			Notices: []billing.Notice{{Key: "late", To: "ann@x"}}})
		if !errors.Is(err, billing.ErrStale) {
			t.Fatalf("stale Apply = %v, want ErrStale", err)
		}
		got, _ := subs.Get(ctx, "s1")
		if got.Status != billing.StatusCanceled || got.PlanCode != "glimpse_monthly" || got.Version != 2 {
			t.Fatalf("after a stale Apply: %s %s v%d", got.Status, got.PlanCode, got.Version)
		}
		if h := history(t, subs, "s1"); h != "s1/canceled" {
			t.Fatalf("history = %q", h)
		}
		if keys := drain(t, st.Notices()); keys != "canceled:s1" {
			t.Fatalf("outbox = %q", keys)
		}
		ghost := Plan("ghost", "x@x")
		if _, err := subs.Apply(ctx, ghost, billing.Effects{}); !errors.Is(err, billing.ErrNoSubscription) {
			t.Fatalf("Apply(unknown) = %v, want ErrNoSubscription", err)
		}
	})

	t.Run("ALineWrittenTwiceIsOneLine", func(t *testing.T) {
		subs := open(t).Subscriptions()
		contract.Must(t, create(ctx, subs, Plan("s1", "ann@x"), billing.Effects{}))
		for range 2 {
			s, _ := subs.Get(ctx, "s1")
			line := s.Line("once", t0, billing.Change{Kind: "x", Detail: fmt.Sprint(s.Version)})
			if _, err := subs.Apply(ctx, s, billing.Effects{Lines: []billing.Change{line}}); err != nil {
				t.Fatal(err)
			}
		}
		h, _ := subs.History(ctx, "s1")
		if len(h) != 1 || h[0].Detail != "1" || h[0].SubscriptionID != "s1" || !h[0].At.Equal(t0) {
			t.Fatalf("history = %+v; want the first line only", h)
		}
	})

	t.Run("HistoryIsOldestFirstAndPerSubscription", func(t *testing.T) {
		subs := open(t).Subscriptions()
		s := Plan("s1", "ann@x")
		contract.Must(t, create(ctx, subs, s, billing.Effects{Lines: []billing.Change{
			s.Line("late", t0.Add(time.Hour), billing.Change{Kind: "b", By: "staff:x", From: "f", To: "t", Detail: "d"}),
			s.Line("early", t0, billing.Change{Kind: "a"})}}))
		o := Plan("s2", "bob@x")
		contract.Must(t, create(ctx, subs, o, billing.Effects{Lines: []billing.Change{o.Line("other", t0, billing.Change{Kind: "a"})}}))
		h, err := subs.History(ctx, "s1")
		if err != nil || len(h) != 2 || h[0].ID != "s1/early" || h[1].ID != "s1/late" {
			t.Fatalf("History = %+v, %v", h, err)
		}
		want := billing.Change{ID: "s1/late", SubscriptionID: "s1", At: t0.Add(time.Hour), By: "staff:x", Kind: "b", From: "f", To: "t", Detail: "d"}
		if h[1] != want {
			t.Fatalf("line read back %+v, wrote %+v", h[1], want)
		}
	})

	t.Run("TheOutboxIsOldestFirstUntilDone", func(t *testing.T) {
		st := open(t)
		subs := st.Subscriptions()
		s := Plan("s1", "ann@x")
		n1 := billing.Notice{Key: "n1", To: "ann@x", Brand: "default", Kind: billing.NoticePurchase, Data: map[string]string{"plan": "Monthly"}, ByCharge: true}
		contract.Must(t, create(ctx, subs, s, billing.Effects{Notices: []billing.Notice{n1, {Key: "n2", To: "ann@x"}}}))
		s, _ = subs.Get(ctx, "s1")
		if _, err := subs.Apply(ctx, s, billing.Effects{Notices: []billing.Notice{{Key: "n3", To: "ann@x"}, {Key: "n1", To: "again"}}}); err != nil {
			t.Fatal(err)
		}
		got, err := st.Notices().Pending(ctx, 2)
		if err != nil || len(got) != 2 || got[0].Key != "n1" || got[1].Key != "n2" {
			t.Fatalf("Pending(2) = %+v, %v", got, err)
		}
		if !reflect.DeepEqual(got[0], n1) {
			t.Fatalf("notice read back %+v, wrote %+v", got[0], n1)
		}
		contract.Must(t, st.Notices().Done(ctx, []string{"n1", "n2"}))
		if keys := drain(t, st.Notices()); keys != "n3" {
			t.Fatalf("after Done: %q", keys)
		}
	})

	t.Run("CancelAndResumeTogetherLandInSomeSerialOrder", func(t *testing.T) {
		if !o.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
		st := open(t)
		subs := st.Subscriptions()
		contract.Must(t, create(ctx, subs, Plan("s1", "ann@x"), billing.Effects{}))
		var clock atomic.Int64
		var won atomic.Int64
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Go(func() {
				err := change(ctx, subs, "s1", func(s billing.Subscription) (billing.Subscription, billing.Effects, bool, error) {
					now := t0.Add(time.Duration(clock.Add(1)) * time.Second)
					if i%2 == 0 {
						next, fx, ok := s.Cancel(now, s.CurrentPeriodEnd, "user")
						return next, fx, ok, nil
					}
					next, fx, ok, err := s.Resume(now, "user", func(billing.Subscription) map[string]string { return nil })
					if errors.Is(err, billing.ErrNotResumable) {
						return s, billing.Effects{}, false, nil
					}
					return next, fx, ok, err
				}, &won)
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got, _ := subs.Get(ctx, "s1")
		h, _ := subs.History(ctx, "s1")
		// Every transition that won is one line, they alternate from a
		// cancel, and the status is the last one's.
		if int64(len(h)) != won.Load() || won.Load() == 0 {
			t.Fatalf("%d lines for %d transitions that won", len(h), won.Load())
		}
		for i, l := range h {
			want := billing.ChangeCanceled
			if i%2 == 1 {
				want = billing.ChangeResumed
			}
			if l.Kind != want {
				t.Fatalf("line %d is %s, want %s: %v", i, l.Kind, want, kinds(h))
			}
		}
		if last := h[len(h)-1]; last.To != got.Status || got.Version != len(h)+1 {
			t.Fatalf("status %s v%d after %d lines ending %s", got.Status, got.Version, len(h), last.To)
		}
		if n := len(strings.Fields(drain(t, st.Notices()))); n != len(h) {
			t.Fatalf("%d mails for %d transitions", n, len(h))
		}
	})

	t.Run("OneOfThirtyAccountsFinalizes", func(t *testing.T) {
		if !o.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
		subs := open(t).Subscriptions()
		contract.Must(t, create(ctx, subs, Plan("s1", "ann@x"), billing.Effects{}))
		var won atomic.Int64
		var owners sync.Map
		var refused atomic.Int64
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Go(func() {
				user := fmt.Sprint("u", i)
				err := change(ctx, subs, "s1", func(s billing.Subscription) (billing.Subscription, billing.Effects, bool, error) {
					return s.Finalize(user, t0)
				}, &won)
				switch {
				case errors.Is(err, billing.ErrAlreadyFinalized):
					refused.Add(1)
				case err != nil:
					t.Error(err)
				default:
					owners.Store(user, true)
				}
			})
		}
		wg.Wait()
		got, _ := subs.Get(ctx, "s1")
		if _, ok := owners.Load(got.UserID); !ok || won.Load() != 1 || refused.Load() != 29 {
			t.Fatalf("owner %q, %d won, %d refused; want one owner that won and 29 refused", got.UserID, won.Load(), refused.Load())
		}
		if h := history(t, subs, "s1"); h != "s1/finalized" {
			t.Fatalf("history = %q", h)
		}
	})

	t.Run("AFreeMonthIsGivenOnce", func(t *testing.T) {
		if !o.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
		subs := open(t).Subscriptions()
		contract.Must(t, create(ctx, subs, Plan("s1", "ann@x"), billing.Effects{}))
		var won, unavailable atomic.Int64
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Go(func() {
				err := change(ctx, subs, "s1", func(s billing.Subscription) (billing.Subscription, billing.Effects, bool, error) {
					return s.GiveFreeMonth(fmt.Sprint("k", i), s.CurrentPeriodEnd, t0, "user")
				}, &won)
				if errors.Is(err, billing.ErrOfferUnavailable) {
					unavailable.Add(1)
				} else if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got, _ := subs.Get(ctx, "s1")
		if want := t0.AddDate(0, 2, 0); won.Load() != 1 || unavailable.Load() != 29 || !got.CurrentPeriodEnd.Equal(want) || !got.DueAt.Equal(want) {
			t.Fatalf("%d won, %d refused, period end %s; want 1, 29, %s", won.Load(), unavailable.Load(), got.CurrentPeriodEnd, want)
		}
		if h, _ := subs.History(ctx, "s1"); len(h) != 1 || h[0].ID != "s1/extended:"+got.FreeMonth.Key {
			t.Fatalf("history = %v", h)
		}
	})

	t.Run("AnExtensionKeyExtendsOnce", func(t *testing.T) {
		if !o.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
		subs := open(t).Subscriptions()
		contract.Must(t, create(ctx, subs, Plan("s1", "ann@x"), billing.Effects{}))
		var won atomic.Int64
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				if err := change(ctx, subs, "s1", func(s billing.Subscription) (billing.Subscription, billing.Effects, bool, error) {
					next, fx, ok := s.Extend("desk-1", 7, s.CurrentPeriodEnd, t0, "staff:x")
					return next, fx, ok, nil
				}, &won); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got, _ := subs.Get(ctx, "s1")
		if want := t0.AddDate(0, 1, 7); won.Load() != 1 || !got.CurrentPeriodEnd.Equal(want) {
			t.Fatalf("%d won, period end %s; want 1, %s", won.Load(), got.CurrentPeriodEnd, want)
		}
		if h := history(t, subs, "s1"); h != "s1/extended:staff:desk-1" {
			t.Fatalf("history = %q", h)
		}
	})

	t.Run("AChangeStoppedBeforeItsMailIsFinishedByTheDrainOrARetry", func(t *testing.T) {
		if o.Failing == nil {
			t.Skip("no failing store")
		}
		// The use case: a cancel, decided on a read and written with its
		// line and mail, then the mail handed over.
		cancel := func(st billing.Store, mailed map[string]int) error {
			err := change(ctx, st.Subscriptions(), "s1", func(s billing.Subscription) (billing.Subscription, billing.Effects, bool, error) {
				next, fx, ok := s.Cancel(t0, s.CurrentPeriodEnd, "user")
				return next, fx, ok, nil
			}, new(atomic.Int64))
			if err != nil {
				return err
			}
			return drainInto(ctx, st.Notices(), mailed)
		}
		setUp := func(t *testing.T, st billing.Store) {
			s := Plan("s1", "ann@x")
			contract.Must(t, create(ctx, st.Subscriptions(), s, billing.Effects{}))
		}
		_, clean := o.Failing(t, 1<<30)
		setUp(t, clean)
		once := map[string]int{}
		contract.Must(t, cancel(clean, once))
		want := dump(t, clean)
		for n := 1; ; n++ {
			st, rerun := failingOn(t, o, n, setUp)
			mailed := map[string]int{}
			err := cancel(st, mailed)
			if err == nil {
				if got := dump(t, rerun); got != want {
					t.Fatalf("a run that did not fail left\n%s\nwant\n%s", got, want)
				}
				break // the use case has fewer than n writes: every stop was tried
			}
			contract.Must(t, cancel(rerun, mailed))
			if got := dump(t, rerun); got != want {
				t.Fatalf("stopped at write %d, then run again:\n%s\nwant\n%s", n, got, want)
			}
			if !sameKeys(mailed, once) {
				t.Fatalf("stopped at write %d: mailed %v, want %v", n, mailed, once)
			}
			if n > 20 {
				t.Fatal("the use case never finished without failing")
			}
		}
	})

	t.Run("KeysBindOnceUntilTheyExpire", func(t *testing.T) {
		keys := open(t).Keys()
		exp := t0.Add(time.Minute)
		if v, err := keys.Bind(ctx, "k", "first", t0, exp); err != nil || v != "first" {
			t.Fatalf("Bind = %q, %v", v, err)
		}
		if v, err := keys.Bind(ctx, "k", "second", t0.Add(time.Second), exp.Add(time.Hour)); err != nil || v != "first" {
			t.Fatalf("Bind again = %q, %v; want first", v, err)
		}
		if v, _ := keys.Bound(ctx, "k", t0); v != "first" {
			t.Fatalf("Bound = %q", v)
		}
		if v, _ := keys.Bound(ctx, "k", exp); v != "" {
			t.Fatalf("Bound once expired = %q", v)
		}
		if v, err := keys.Bind(ctx, "k", "third", exp, exp.Add(time.Minute)); err != nil || v != "third" {
			t.Fatalf("Bind once expired = %q, %v; want third", v, err)
		}
		contract.Must(t, keys.Unbind(ctx, "k"))
		if v, _ := keys.Bound(ctx, "k", exp); v != "" {
			t.Fatalf("Bound after Unbind = %q", v)
		}
		// Bound together, one value wins and every binder is told it.
		var wg sync.WaitGroup
		var mu sync.Mutex
		told := map[string]int{}
		for i := range 20 {
			wg.Go(func() {
				v, err := keys.Bind(ctx, "race", fmt.Sprint("v", i), t0, exp)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				told[v]++
				mu.Unlock()
			})
		}
		wg.Wait()
		if len(told) != 1 {
			t.Fatalf("binders were told %v; want one value", told)
		}
	})

	t.Run("KeysCountToTheirLimitTogether", func(t *testing.T) {
		if !o.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
		keys := open(t).Keys()
		exp := t0.Add(time.Minute)
		var took atomic.Int64
		var wg sync.WaitGroup
		for range 60 {
			wg.Go(func() {
				ok, err := keys.Take(ctx, "tries", 5, t0, exp)
				if err != nil {
					t.Error(err)
				}
				if ok {
					took.Add(1)
				}
			})
		}
		wg.Wait()
		if n, _ := keys.Count(ctx, "tries", t0); took.Load() != 5 || n != 5 {
			t.Fatalf("%d took, count %d; want 5, 5", took.Load(), n)
		}
	})

	t.Run("KeysCountGiveBackAndExpire", func(t *testing.T) {
		keys := open(t).Keys()
		exp := t0.Add(time.Minute)
		for i := range 3 {
			if ok, err := keys.Take(ctx, "tries", 2, t0, exp); err != nil || ok != (i < 2) {
				t.Fatalf("take %d = %v, %v", i, ok, err)
			}
		}
		contract.Must(t, keys.Give(ctx, "tries"))
		if n, _ := keys.Count(ctx, "tries", t0); n != 1 {
			t.Fatalf("count after a give = %d, want 1", n)
		}
		if ok, _ := keys.Take(ctx, "tries", 2, t0, exp); !ok {
			t.Fatal("a take given back is not taken again")
		}
		if ok, _ := keys.Take(ctx, "tries", 0, t0, exp); ok {
			t.Fatal("a limit of 0 took")
		}
		if n, _ := keys.Count(ctx, "tries", exp); n != 0 {
			t.Fatalf("count once expired = %d", n)
		}
		if ok, _ := keys.Take(ctx, "tries", 2, exp, exp.Add(time.Minute)); !ok {
			t.Fatal("an expired count did not start again")
		}
		if n, _ := keys.Count(ctx, "tries", exp); n != 1 {
			t.Fatalf("count restarted = %d, want 1", n)
		}
		_, _ = keys.Bind(ctx, "old", "v", t0, t0.Add(time.Second))
		n, err := keys.DeleteExpired(ctx, t0.Add(time.Second))
		if err != nil || n != 1 {
			t.Fatalf("DeleteExpired = %d, %v; want 1 (tries lives on)", n, err)
		}
		if n, _ := keys.Count(ctx, "tries", exp); n != 1 {
			t.Fatalf("a live key was deleted: count %d", n)
		}
	})

	runRenewals(t, open, o)
}

// failingOn returns a store on a new database whose nth write fails and a
// clean store on the same database, set up by setUp (on the clean store).
func failingOn(t *testing.T, o Options, n int, setUp func(*testing.T, billing.Store)) (billing.Store, billing.Store) {
	failing, clean := o.Failing(t, n)
	setUp(t, clean)
	return failing, clean
}

// change is the service's compare-and-swap loop: read, decide, write over
// the version read; a lost race reads again. won counts the changes made.
func change(ctx context.Context, subs billing.Subscriptions, id string,
	rule func(billing.Subscription) (billing.Subscription, billing.Effects, bool, error), won *atomic.Int64) error {
	for attempt := range 100 {
		s, err := subs.Get(ctx, id)
		if err != nil {
			return err
		}
		next, fx, ok, err := rule(s)
		if err != nil || !ok {
			return err
		}
		if attempt == 0 {
			// Let the other callers read too: the rule must hold when every
			// one of them decided on the same state.
			time.Sleep(2 * time.Millisecond)
		}
		_, err = subs.Apply(ctx, next, fx)
		if errors.Is(err, billing.ErrStale) {
			continue
		}
		if err == nil {
			won.Add(1)
		}
		return err
	}
	return errors.New("100 stale reads in a row")
}

func create(ctx context.Context, subs billing.Subscriptions, s billing.Subscription, fx billing.Effects) error {
	_, created, err := subs.Create(ctx, s, fx)
	if err == nil && !created {
		err = fmt.Errorf("%s existed", s.ID)
	}
	return err
}

// drain hands every pending notice over and returns their keys in order.
func drain(t *testing.T, n billing.Notices) string {
	t.Helper()
	mailed := map[string]int{}
	var keys []string
	for {
		got, err := n.Pending(context.Background(), 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			return strings.Join(keys, " ")
		}
		var done []string
		for _, x := range got {
			keys = append(keys, x.Key)
			done = append(done, x.Key)
			mailed[x.Key]++
		}
		contract.Must(t, n.Done(context.Background(), done))
	}
}

func drainInto(ctx context.Context, n billing.Notices, mailed map[string]int) error {
	for {
		got, err := n.Pending(ctx, 100)
		if err != nil || len(got) == 0 {
			return err
		}
		var done []string
		for _, x := range got {
			mailed[x.Key]++
			done = append(done, x.Key)
		}
		if err := n.Done(ctx, done); err != nil {
			return err
		}
	}
}

// dump writes what the store holds of s1: the subscription, its history
// and the outbox.
func dump(t *testing.T, st billing.Store) string {
	t.Helper()
	ctx := context.Background()
	s, err := st.Subscriptions().Get(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	h, err := st.Subscriptions().History(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.Notices().Pending(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%+v\nhistory %+v\noutbox %+v", s, h, p)
}

func sameKeys(a, b map[string]int) bool {
	return slices.Equal(slices.Sorted(maps.Keys(a)), slices.Sorted(maps.Keys(b)))
}

func history(t *testing.T, subs billing.Subscriptions, id string) string {
	t.Helper()
	h, err := subs.History(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range h {
		out = append(out, c.ID)
	}
	return strings.Join(out, " ")
}

func kinds(h []billing.Change) []string {
	var out []string
	for _, c := range h {
		out = append(out, c.Kind)
	}
	return out
}

func ids(subs []billing.Subscription) string {
	var out []string
	for _, s := range subs {
		out = append(out, s.ID)
	}
	return strings.Join(out, " ")
}
