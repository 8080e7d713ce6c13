package librarytest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine/library"
	"glimpse/engine/store/contract"
)

// RunSchedules runs the contract of library.Schedules against stores made
// by open, one per call.
func RunSchedules(t *testing.T, open func(t *testing.T) library.Schedules, opts Options) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	ctx := context.Background()
	sched := func(id string, at time.Time) library.Schedule {
		return library.Schedule{ID: id, Kind: library.KindNews, Slug: "launch", At: at, By: "ann@example.com",
			CreatedAt: t0.Add(-time.Hour), State: library.ScheduleScheduled, ChangedAt: t0.Add(-time.Hour), ChangedBy: "ann@example.com"}
	}
	skipUnlessAtomic := func(t *testing.T) {
		if !opts.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
	}

	t.Run("ARoundTripKeepsEveryField", func(t *testing.T) {
		s := open(t)
		want := sched("s1", t0)
		contract.Must(t, s.Add(ctx, want))
		got, err := s.Get(ctx, "s1")
		contract.Must(t, err)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("read back (-wrote +read):\n%s", diff)
		}
		if err := s.Add(ctx, want); !errors.Is(err, library.ErrScheduleExists) {
			t.Fatalf("second Add = %v, want ErrScheduleExists", err)
		}
		if _, err := s.Get(ctx, "nope"); !errors.Is(err, library.ErrNoSchedule) {
			t.Fatalf("Get of a missing schedule = %v, want ErrNoSchedule", err)
		}
	})

	t.Run("ClaimTakesOnlyADueScheduleOnce", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.Add(ctx, sched("s1", t0)))
		stale := t0.Add(-5 * time.Minute)
		if ok, err := s.Claim(ctx, "s1", t0.Add(-time.Second), stale); err != nil || ok {
			t.Fatalf("claim before its time = %v, %v; want false", ok, err)
		}
		if ok, err := s.Claim(ctx, "s1", t0, stale); err != nil || !ok {
			t.Fatalf("claim at its time = %v, %v; want true", ok, err)
		}
		if ok, err := s.Claim(ctx, "s1", t0.Add(time.Second), stale.Add(time.Second)); err != nil || ok {
			t.Fatalf("second claim = %v, %v; want false", ok, err)
		}
		if ok, err := s.Cancel(ctx, "s1", "bob", t0); err != nil || ok {
			t.Fatalf("cancel of a claimed schedule = %v, %v; want false", ok, err)
		}
		got, err := s.Get(ctx, "s1")
		contract.Must(t, err)
		if got.State != library.SchedulePublishing || !got.ChangedAt.Equal(t0) {
			t.Fatalf("after the claim: %+v", got)
		}
		// Stale: the claimer died; a claim after staleness takes it over,
		// and then the first claimer may not finish it.
		later := t0.Add(10 * time.Minute)
		if ok, err := s.Claim(ctx, "s1", later, later.Add(-5*time.Minute)); err != nil || !ok {
			t.Fatalf("claim of a stale claim = %v, %v; want true", ok, err)
		}
		if ok, err := s.Finish(ctx, "s1", t0, later); err != nil || ok {
			t.Fatalf("finish by the first claimer = %v, %v; want false", ok, err)
		}
		if ok, err := s.Finish(ctx, "s1", later, later); err != nil || !ok {
			t.Fatalf("finish by the second claimer = %v, %v; want true", ok, err)
		}
		got, err = s.Get(ctx, "s1")
		contract.Must(t, err)
		if got.State != library.SchedulePublished {
			t.Fatalf("after finishing: %+v", got)
		}
		pending, err := s.Pending(ctx)
		contract.Must(t, err)
		if len(pending) != 0 {
			t.Fatalf("pending after publishing: %+v", pending)
		}
	})

	t.Run("CancelAndPending", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.Add(ctx, sched("s1", t0)))
		contract.Must(t, s.Add(ctx, sched("s2", t0.Add(time.Hour))))
		if ok, err := s.Cancel(ctx, "s1", "bob@example.com", t0.Add(-time.Minute)); err != nil || !ok {
			t.Fatalf("cancel = %v, %v; want true", ok, err)
		}
		if ok, err := s.Cancel(ctx, "s1", "bob@example.com", t0); err != nil || ok {
			t.Fatalf("second cancel = %v, %v; want false", ok, err)
		}
		if ok, err := s.Claim(ctx, "s1", t0, t0.Add(-5*time.Minute)); err != nil || ok {
			t.Fatalf("claim of a cancelled schedule = %v, %v; want false", ok, err)
		}
		got, err := s.Get(ctx, "s1")
		contract.Must(t, err)
		if got.State != library.ScheduleCancelled || got.ChangedBy != "bob@example.com" || !got.ChangedAt.Equal(t0.Add(-time.Minute)) {
			t.Fatalf("after cancelling: %+v", got)
		}
		pending, err := s.Pending(ctx)
		contract.Must(t, err)
		if len(pending) != 1 || pending[0].ID != "s2" {
			t.Fatalf("pending = %+v, want s2 alone", pending)
		}
	})

	// TwoClaimsTogetherOneWins: every instance's runner claims a due
	// schedule at once; exactly one may publish it.
	t.Run("TwoClaimsTogetherOneWins", func(t *testing.T) {
		skipUnlessAtomic(t)
		s := open(t)
		for round := range 20 {
			id := "s" + string(rune('a'+round))
			contract.Must(t, s.Add(ctx, sched(id, t0)))
			wins := race(t, 8, func(int) (bool, error) { return s.Claim(ctx, id, t0, t0.Add(-5*time.Minute)) })
			if wins != 1 {
				t.Fatalf("round %d: %d claims won, want 1", round, wins)
			}
		}
	})

	// CancelAgainstClaimOneWins: an editor cancels as an instance claims;
	// either the publish runs or the cancel holds, never both.
	t.Run("CancelAgainstClaimOneWins", func(t *testing.T) {
		skipUnlessAtomic(t)
		s := open(t)
		for round := range 20 {
			id := "c" + string(rune('a'+round))
			contract.Must(t, s.Add(ctx, sched(id, t0)))
			wins := race(t, 2, func(i int) (bool, error) {
				if i == 0 {
					return s.Cancel(ctx, id, "bob", t0)
				}
				return s.Claim(ctx, id, t0, t0.Add(-5*time.Minute))
			})
			if wins != 1 {
				t.Fatalf("round %d: %d of cancel and claim won, want 1", round, wins)
			}
			got, err := s.Get(ctx, id)
			contract.Must(t, err)
			if got.State != library.ScheduleCancelled && got.State != library.SchedulePublishing {
				t.Fatalf("round %d: state %q", round, got.State)
			}
		}
	})
}

// race runs f n times at once, released together, and counts the calls
// that report true.
func race(t *testing.T, n int, f func(i int) (bool, error)) int {
	t.Helper()
	var wg sync.WaitGroup
	start := make(chan struct{})
	results := make([]bool, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			<-start
			results[i], errs[i] = f(i)
		})
	}
	close(start)
	wg.Wait()
	wins := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if results[i] {
			wins++
		}
	}
	return wins
}
