// Package experimenttest is the contract every implementation of
// experiment.Storage keeps, run against each store by its own tests.
package experimenttest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"glimpse/engine/experiment"
	"glimpse/engine/store/contract"
)

// Options says what the store under test guarantees.
type Options = contract.Options

// Run runs the contract against stores made by open, one per subtest.
func Run(t *testing.T, open func(t *testing.T) experiment.Storage, opts Options) {
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	ctx := context.Background()
	exp := func(id string, created time.Time) experiment.Experiment {
		return experiment.Experiment{ID: id, Name: "Step 1 headline", Kind: experiment.KindCopy, Key: "unsubscribe.step1.title",
			Variants: []experiment.Variant{{ID: "a", Name: "Control", Weight: 50}, {ID: "b", Name: "B", Value: "Wait", Weight: 50}},
			Status:   experiment.StatusDraft, Phase: 1, Revision: 1, CreatedBy: "t@x", CreatedAt: created, UpdatedBy: "t@x", UpdatedAt: created,
			Hypothesis: "A warmer headline keeps more people", Metric: experiment.MetricSaveRate}
	}
	// saved is e saved once more: its next revision.
	saved := func(e experiment.Experiment) experiment.Experiment {
		e.Revision++
		e.Variants = append([]experiment.Variant(nil), e.Variants...)
		return e
	}
	running := func(e experiment.Experiment) experiment.Experiment {
		e = saved(e)
		e.Status, e.Started = experiment.StatusRunning, true
		return e
	}
	mark := func(user, event string, at time.Time) experiment.Mark {
		return experiment.Mark{Experiment: "x1", Phase: 1, UserID: user, Event: event, Variant: "b", At: at}
	}

	t.Run("ARoundTripKeepsEveryField", func(t *testing.T) {
		s := open(t)
		want := exp("x1", t0)
		contract.Must(t, s.Insert(ctx, want))
		got, err := s.Get(ctx, "x1")
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("Get = %+v, %v; want %+v", got, err, want)
		}
		want = saved(want)
		want.Status, want.Started, want.Phase, want.PhaseStartedAt = experiment.StatusRunning, true, 2, t0.Add(time.Hour)
		want.UpdatedBy, want.UpdatedAt, want.Variants[1].Weight = "u@x", t0.Add(time.Hour), 20
		// The questions of issue #34 and an offer experiment's holdout.
		want.Kind, want.Key, want.Variants[1].Value, want.Holdout = experiment.KindOffer, "offer.step3", "gift_month", 15
		want.Hypothesis, want.Metric = "The free month keeps more revenue than no offer", experiment.MetricRevenuePerAttempt
		contract.Must(t, s.Replace(ctx, want))
		if got, err = s.Get(ctx, "x1"); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("after Replace: %+v, %v; want %+v", got, err, want)
		}
		if _, err := s.Get(ctx, "none"); !errors.Is(err, experiment.ErrNoExperiment) {
			t.Fatalf("Get(unknown) = %v, want ErrNoExperiment", err)
		}
		m := mark("ann", experiment.MarkExposure, t0.Add(time.Minute))
		if stored, err := s.Mark(ctx, m); err != nil || !stored {
			t.Fatalf("Mark = %v, %v", stored, err)
		}
		if got, found, err := s.MarkOf(ctx, "x1", 1, "ann", experiment.MarkExposure); err != nil || !found || got != m {
			t.Fatalf("MarkOf = %+v, %v, %v; want %+v", got, found, err, m)
		}
		tally := experiment.Tally{Day: "2026-11-01", Variant: "b", Counts: experiment.Counts{Attempts: 1, Exposures: 2, Saves: 3, Cancels: 4, Unsaved: 5,
			Revenue: 1399, RevenueSq: 1399 * 1399, RevenueMax: 1399}}
		contract.Must(t, s.Add(ctx, "x1", 1, tally))
		if got, err := s.Tallies(ctx, "x1", 1); err != nil || len(got) != 1 || got[0] != tally {
			t.Fatalf("Tallies = %+v, %v; want %+v", got, err, tally)
		}
	})

	// A save's mark keeps its revenue (the amount a cancel within the save
	// window takes back), and a take-back's negative amounts add like the
	// rest.
	t.Run("RevenueIsKeptAndAdded", func(t *testing.T) {
		s := open(t)
		m := mark("ann", experiment.EventSaved, t0)
		m.Revenue = 1750
		if stored, err := s.Mark(ctx, m); err != nil || !stored {
			t.Fatalf("Mark = %v, %v", stored, err)
		}
		if got, found, err := s.MarkOf(ctx, "x1", 1, "ann", experiment.EventSaved); err != nil || !found || got != m {
			t.Fatalf("MarkOf = %+v, %v, %v; want %+v", got, found, err, m)
		}
		if got, err := s.MarksOf(ctx, "ann"); err != nil || len(got) != 1 || got[0].Revenue != 1750 {
			t.Fatalf("MarksOf = %+v, %v", got, err)
		}
		day := func(c experiment.Counts) experiment.Tally {
			return experiment.Tally{Day: "2026-11-01", Variant: "a", Counts: c}
		}
		contract.Must(t, s.Add(ctx, "x1", 1, day(experiment.Counts{Saves: 2, Revenue: 1750 + 1399, RevenueSq: 1750*1750 + 1399*1399, RevenueMax: 1750})))
		contract.Must(t, s.Add(ctx, "x1", 1, day(experiment.Counts{Unsaved: 1, Revenue: -1750, RevenueSq: -1750 * 1750})))
		contract.Must(t, s.Add(ctx, "x1", 1, day(experiment.Counts{Saves: 1, Revenue: 429, RevenueSq: 429 * 429, RevenueMax: 429})))
		// The maximum is a maximum: 429 after 1,750 leaves 1,750.
		want := experiment.Counts{Saves: 3, Unsaved: 1, Revenue: 1399 + 429, RevenueSq: 1399*1399 + 429*429, RevenueMax: 1750}
		if got, err := s.Tallies(ctx, "x1", 1); err != nil || len(got) != 1 || got[0].Counts != want {
			t.Fatalf("Tallies = %+v, %v; want %+v", got, err, want)
		}
	})

	t.Run("AllIsNewestFirst", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.Insert(ctx, exp("old", t0)))
		contract.Must(t, s.Insert(ctx, exp("new", t0.Add(time.Hour))))
		contract.Must(t, s.Insert(ctx, exp("tie-b", t0.Add(time.Minute))))
		contract.Must(t, s.Insert(ctx, exp("tie-a", t0.Add(time.Minute))))
		all, err := s.All(ctx)
		var got []string
		for _, e := range all {
			got = append(got, e.ID)
		}
		if err != nil || fmt.Sprint(got) != "[new tie-a tie-b old]" {
			t.Fatalf("All = %v, %v; want [new tie-a tie-b old]", got, err)
		}
	})

	// A save made from a revision another save replaced is refused, not
	// stored over it.
	t.Run("ASaveFromAStaleRevisionIsRefused", func(t *testing.T) {
		s := open(t)
		first := exp("x1", t0)
		contract.Must(t, s.Insert(ctx, first))
		mine, theirs := saved(first), saved(first)
		mine.Name, theirs.Name = "Mine", "Theirs"
		contract.Must(t, s.Replace(ctx, mine))
		if err := s.Replace(ctx, theirs); !errors.Is(err, experiment.ErrStale) {
			t.Fatalf("a save of a replaced revision: %v, want ErrStale", err)
		}
		if got, _ := s.Get(ctx, "x1"); got.Name != "Mine" || got.Revision != 2 {
			t.Fatalf("stored %q revision %d, want Mine at 2", got.Name, got.Revision)
		}
		if err := s.Replace(ctx, saved(exp("none", t0))); !errors.Is(err, experiment.ErrNoExperiment) {
			t.Fatalf("Replace(unknown) = %v, want ErrNoExperiment", err)
		}
	})

	t.Run("SavesOfOneRevisionSentTogetherHaveOneWinner", func(t *testing.T) {
		if !opts.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
		s := open(t)
		first := exp("x1", t0)
		contract.Must(t, s.Insert(ctx, first))
		const n = 20
		var wg sync.WaitGroup
		results := make(chan error, n)
		for i := range n {
			wg.Go(func() {
				e := saved(first)
				e.Name = fmt.Sprint("edit ", i)
				results <- s.Replace(ctx, e)
			})
		}
		wg.Wait()
		close(results)
		won := 0
		for err := range results {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, experiment.ErrStale):
				t.Fatal(err)
			}
		}
		if won != 1 {
			t.Fatalf("%d of %d saves of one revision were stored; want 1", won, n)
		}
	})

	t.Run("OneExperimentRunsOnAKey", func(t *testing.T) {
		s := open(t)
		a, b := exp("xa", t0), exp("xb", t0)
		contract.Must(t, s.Insert(ctx, a))
		contract.Must(t, s.Insert(ctx, b))
		a = running(a)
		contract.Must(t, s.Replace(ctx, a))
		if err := s.Replace(ctx, running(b)); !errors.Is(err, experiment.ErrKeyRunning) {
			t.Fatalf("a second running experiment on the key: %v, want ErrKeyRunning", err)
		}
		other := running(b)
		other.Key = "unsubscribe.step2.title"
		contract.Must(t, s.Replace(ctx, other)) // another key is free
		paused := saved(a)
		paused.Status = experiment.StatusPaused
		contract.Must(t, s.Replace(ctx, paused))
		c := exp("xc", t0)
		contract.Must(t, s.Insert(ctx, c))
		contract.Must(t, s.Replace(ctx, running(c))) // the key is free again
	})

	// Experiments started together on one key: one runs.
	t.Run("StartsOnOneKeySentTogetherHaveOneWinner", func(t *testing.T) {
		s := open(t)
		const n = 10
		var drafts []experiment.Experiment
		for i := range n {
			e := exp(fmt.Sprint("x", i), t0)
			contract.Must(t, s.Insert(ctx, e))
			drafts = append(drafts, e)
		}
		var wg sync.WaitGroup
		results := make(chan error, n)
		for _, e := range drafts {
			wg.Go(func() { results <- s.Replace(ctx, running(e)) })
		}
		wg.Wait()
		close(results)
		won := 0
		for err := range results {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, experiment.ErrKeyRunning):
				t.Fatal(err)
			}
		}
		all, err := s.All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		runs := 0
		for _, e := range all {
			if e.Running() {
				runs++
			}
		}
		if won != 1 || runs != 1 {
			t.Fatalf("%d starts succeeded, %d experiments run on the key; want 1", won, runs)
		}
	})

	t.Run("AMarkIsStoredOncePerPersonPhaseAndEvent", func(t *testing.T) {
		s := open(t)
		first := mark("ann", experiment.MarkExposure, t0)
		if stored, err := s.Mark(ctx, first); err != nil || !stored {
			t.Fatalf("first Mark = %v, %v", stored, err)
		}
		again := first
		again.Variant, again.At = "a", t0.Add(time.Hour)
		if stored, err := s.Mark(ctx, again); err != nil || stored {
			t.Fatalf("second Mark = %v, %v; want refused", stored, err)
		}
		if got, _, _ := s.MarkOf(ctx, "x1", 1, "ann", experiment.MarkExposure); got != first {
			t.Fatalf("the second mark replaced the first: %+v", got)
		}
		// Another event, phase, experiment or person is another mark.
		for _, m := range []experiment.Mark{mark("ann", experiment.EventSaved, t0), {Experiment: "x1", Phase: 2, UserID: "ann", Event: experiment.MarkExposure},
			{Experiment: "x2", Phase: 1, UserID: "ann", Event: experiment.MarkExposure}, mark("bob", experiment.MarkExposure, t0)} {
			if stored, err := s.Mark(ctx, m); err != nil || !stored {
				t.Fatalf("Mark(%+v) = %v, %v", m, stored, err)
			}
		}
		if _, found, err := s.MarkOf(ctx, "x1", 1, "cid", experiment.MarkExposure); err != nil || found {
			t.Fatalf("MarkOf(nobody) found %v, %v", found, err)
		}
	})

	t.Run("MarksSentTogetherHaveOneWinner", func(t *testing.T) {
		s := open(t)
		const n = 30
		var wg sync.WaitGroup
		stored := make(chan bool, n)
		for i := range n {
			wg.Go(func() {
				ok, err := s.Mark(ctx, mark("ann", experiment.MarkExposure, t0.Add(time.Duration(i)*time.Millisecond)))
				if err != nil {
					t.Error(err)
				}
				stored <- ok
			})
		}
		wg.Wait()
		close(stored)
		winners := 0
		for ok := range stored {
			if ok {
				winners++
			}
		}
		if winners != 1 {
			t.Fatalf("%d of %d concurrent marks were stored; want 1", winners, n)
		}
	})

	t.Run("MarksOfAndDeleteMarksAreThePersons", func(t *testing.T) {
		s := open(t)
		for _, m := range []experiment.Mark{mark("ann", experiment.MarkExposure, t0), mark("ann", experiment.EventSaved, t0),
			{Experiment: "x2", Phase: 3, UserID: "ann", Event: experiment.MarkExposure, At: t0}, mark("bob", experiment.MarkExposure, t0)} {
			if _, err := s.Mark(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := s.MarksOf(ctx, "ann"); err != nil || len(got) != 3 {
			t.Fatalf("MarksOf(ann) = %+v, %v; want 3", got, err)
		}
		if n, err := s.DeleteMarks(ctx, "ann"); err != nil || n != 3 {
			t.Fatalf("DeleteMarks = %d, %v; want 3", n, err)
		}
		if got, err := s.MarksOf(ctx, "ann"); err != nil || len(got) != 0 {
			t.Fatalf("left: %+v, %v", got, err)
		}
		if got, err := s.MarksOf(ctx, "bob"); err != nil || len(got) != 1 {
			t.Fatalf("bob's: %+v, %v", got, err)
		}
	})

	t.Run("TalliesArePerPhaseDayAndVariant", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.Add(ctx, "x1", 1, experiment.Tally{Day: "2026-11-01", Variant: "a", Counts: experiment.Counts{Attempts: 2}}))
		contract.Must(t, s.Add(ctx, "x1", 1, experiment.Tally{Day: "2026-11-01", Variant: "a", Counts: experiment.Counts{Attempts: 3, Saves: 1}}))
		contract.Must(t, s.Add(ctx, "x1", 1, experiment.Tally{Day: "2026-11-02", Variant: "a", Counts: experiment.Counts{Exposures: 1}}))
		contract.Must(t, s.Add(ctx, "x1", 1, experiment.Tally{Day: "2026-11-01", Variant: "b", Counts: experiment.Counts{Cancels: 1}}))
		contract.Must(t, s.Add(ctx, "x1", 2, experiment.Tally{Day: "2026-11-01", Variant: "a", Counts: experiment.Counts{Attempts: 7}}))
		contract.Must(t, s.Add(ctx, "x2", 1, experiment.Tally{Day: "2026-11-01", Variant: "a", Counts: experiment.Counts{Attempts: 9}}))
		got, err := s.Tallies(ctx, "x1", 1)
		if err != nil {
			t.Fatal(err)
		}
		byKey := map[string]experiment.Counts{}
		for _, tl := range got {
			byKey[tl.Day+"/"+tl.Variant] = tl.Counts
		}
		want := map[string]experiment.Counts{"2026-11-01/a": {Attempts: 5, Saves: 1}, "2026-11-02/a": {Exposures: 1}, "2026-11-01/b": {Cancels: 1}}
		if !reflect.DeepEqual(byKey, want) {
			t.Fatalf("Tallies(x1, 1) = %+v, want %+v", byKey, want)
		}
	})

	// No increment is lost: additions sent together all count. A store
	// that read the counter and wrote it back would lose some here.
	t.Run("AdditionsSentTogetherAllCount", func(t *testing.T) {
		if !opts.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
		s := open(t)
		const n = 40
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				if err := s.Add(ctx, "x1", 1, experiment.Tally{Day: "2026-11-01", Variant: "a",
					Counts: experiment.Counts{Attempts: 1, Exposures: 1, Saves: 1, Cancels: 1, Unsaved: 1, Revenue: 1399, RevenueSq: 1399 * 1399, RevenueMax: 1399}}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got, err := s.Tallies(ctx, "x1", 1)
		want := experiment.Counts{Attempts: n, Exposures: n, Saves: n, Cancels: n, Unsaved: n, Revenue: n * 1399, RevenueSq: n * 1399 * 1399, RevenueMax: 1399}
		if err != nil || len(got) != 1 || got[0].Counts != want {
			t.Fatalf("Tallies = %+v, %v; want one row of %+v", got, err, want)
		}
	})
}
