package experiment_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/experiment"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/store/storetest"
)

func newService(t testing.TB) (*experiment.Service, *engine.ManualClock, experiment.Storage) {
	t.Helper()
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	st := sqlstore.NewExperiments(storetest.OpenSQL(t))
	return experiment.NewService(st, clock, nil), clock, st
}

func sum(cs ...experiment.Counts) experiment.Counts {
	var t experiment.Counts
	for _, c := range cs {
		t.Attempts += c.Attempts
		t.Exposures += c.Exposures
		t.Saves += c.Saves
		t.Cancels += c.Cancels
		t.Unsaved += c.Unsaved
	}
	return t
}

func copyExperiment(weights ...int) experiment.Experiment {
	e := experiment.Experiment{Name: "Step 1 headline", Kind: experiment.KindCopy, Key: "unsubscribe.step1.title",
		Hypothesis: "A warmer headline keeps more people", Metric: experiment.MetricSaveRate}
	for i, w := range weights {
		e.Variants = append(e.Variants, experiment.Variant{Value: "Headline " + strconv.Itoa(i), Weight: w})
	}
	e.Variants[0].Value = ""
	return e
}

func TestLifecycleAndPhases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newService(t)
	if _, err := s.Create(ctx, experiment.Experiment{Name: "", Kind: "copy", Key: "signIn.title"}, "t@x"); engine.ErrorCode(err) != engine.CodeInvalid {
		t.Fatalf("an invalid experiment was stored: %v", err)
	}
	e, err := s.Create(ctx, copyExperiment(50, 50), "t@x")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Assignments("u1")) != 0 {
		t.Error("a draft assigns nobody")
	}
	// Editing a draft's weights keeps phase 1.
	in := e
	in.Variants[1].Weight = 30
	if e, err = s.Update(ctx, e.ID, in, "t@x"); err != nil || e.Phase != 1 {
		t.Fatalf("draft edit: phase %d, %v", e.Phase, err)
	}
	if e, err = s.SetStatus(ctx, e.ID, experiment.ActionStart, "t@x"); err != nil || !e.Running() {
		t.Fatalf("start: %v", err)
	}
	other, _ := s.Create(ctx, copyExperiment(1, 1), "t@x")
	if _, err := s.SetStatus(ctx, other.ID, experiment.ActionStart, "t@x"); engine.ErrorCode(err) != engine.CodeConflict {
		t.Errorf("two experiments ran on one key: %v", err)
	}
	if got := s.Assignments("u1"); len(got) != 1 || got[0].Experiment != e.ID {
		t.Fatalf("assignments %+v", got)
	}
	// A weight change after the start begins phase 2; a rename does not.
	in = e
	in.Name = "Renamed"
	if e, _ = s.Update(ctx, e.ID, in, "t@x"); e.Phase != 1 {
		t.Errorf("a rename started phase %d", e.Phase)
	}
	in.Variants[1].Weight = 50
	if e, _ = s.Update(ctx, e.ID, in, "t@x"); e.Phase != 2 {
		t.Errorf("a weight change left phase %d", e.Phase)
	}
	in.Key = "unsubscribe.step2.title"
	if _, err := s.Update(ctx, e.ID, in, "t@x"); engine.ErrorCode(err) != engine.CodeInvalid {
		t.Errorf("the key of a started experiment changed: %v", err)
	}
	if e, _ = s.SetStatus(ctx, e.ID, experiment.ActionPause, "t@x"); e.Status != experiment.StatusPaused || len(s.Assignments("u1")) != 0 {
		t.Errorf("paused: %s, %d assignments", e.Status, len(s.Assignments("u1")))
	}
	if e, _ = s.SetStatus(ctx, e.ID, experiment.ActionStop, "t@x"); e.Status != experiment.StatusStopped {
		t.Errorf("stop: %s", e.Status)
	}
	if _, err := s.SetStatus(ctx, e.ID, experiment.ActionStart, "t@x"); engine.ErrorCode(err) != engine.CodeConflict {
		t.Errorf("a stopped experiment restarted: %v", err)
	}
}

// Exposures count once per subscriber however often and from however many
// goroutines (instances) they are recorded; outcomes count once per exposed
// subscriber; a cancel within 30 days takes a save back.
func TestExposuresAndOutcomes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clock, st := newService(t)
	e, _ := s.Create(ctx, copyExperiment(50, 50), "t@x")
	e, _ = s.SetStatus(ctx, e.ID, experiment.ActionStart, "t@x")
	// A second instance on the same database.
	s2 := experiment.NewService(st, clock, nil)
	if err := s2.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	users := []string{"u1", "u2", "u3", "u4", "u5", "u6"}
	var wg sync.WaitGroup
	for _, svc := range []*experiment.Service{s, s2, s, s2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, u := range users[:4] {
				_, byKey := svc.CopyOverrides(u)
				if err := svc.Expose(ctx, u, byKey[e.Key]); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for _, u := range users {
		_ = s.Record(ctx, u, experiment.EventAttempt)
	}
	_ = s.Record(ctx, "u1", experiment.EventSaved)
	_ = s2.Record(ctx, "u1", experiment.EventSaved) // again, elsewhere
	_ = s.Record(ctx, "u2", experiment.EventSaved)
	_ = s.Record(ctx, "u5", experiment.EventSaved) // never exposed
	clock.Advance(10 * 24 * time.Hour)
	_ = s.Record(ctx, "u2", experiment.EventCanceled) // within 30 days: the save is taken back
	_ = s2.Record(ctx, "u3", experiment.EventCanceled)
	for _, svc := range []*experiment.Service{s, s2} {
		if err := svc.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	r, err := s.Results(ctx, e, 0)
	if err != nil {
		t.Fatal(err)
	}
	var total experiment.Counts
	for _, v := range r.Variants {
		total = sum(total, v.Counts)
	}
	want := experiment.Counts{Attempts: 6, Exposures: 4, Saves: 2, Cancels: 2, Unsaved: 1}
	if total != want {
		t.Errorf("totals %+v, want %+v", total, want)
	}
	// Over time: the exposures and saves on Nov 1, the cancels ten days
	// later; the last day's running totals are the phase's.
	if len(r.Days) != 2 || r.Days[0].Day != "2026-11-01" || r.Days[1].Day != "2026-11-11" {
		t.Fatalf("days %+v", r.Days)
	}
	var first, last experiment.Counts
	for i := range r.Variants {
		first = sum(first, r.Days[0].Cumulative[i])
		last = sum(last, r.Days[1].Cumulative[i])
		if r.Days[1].Cumulative[i] != r.Variants[i].Counts {
			t.Errorf("variant %d: last day %+v, totals %+v", i, r.Days[1].Cumulative[i], r.Variants[i].Counts)
		}
	}
	if first != (experiment.Counts{Attempts: 6, Exposures: 4, Saves: 2}) || last != want {
		t.Errorf("running totals %+v then %+v", first, last)
	}
}

// Many flushes from several instances, sent together, always add up to
// what was counted: each adds to the shared counters atomically.
func TestFlushesFromSeveralInstancesAddUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clock, st := newService(t)
	e, _ := s.Create(ctx, copyExperiment(1, 1), "t@x")
	e, _ = s.SetStatus(ctx, e.ID, experiment.ActionStart, "t@x")
	instances := []*experiment.Service{s, experiment.NewService(st, clock, nil), experiment.NewService(st, clock, nil)}
	for _, svc := range instances[1:] {
		_ = svc.Reload(ctx)
	}
	attempts := int64(0)
	for round := range 6 {
		var wg sync.WaitGroup
		for i, svc := range instances {
			for u := range 10 + i {
				_ = svc.Record(ctx, "user"+strconv.Itoa(u), experiment.EventAttempt)
				attempts++
			}
			wg.Go(func() {
				if err := svc.Flush(ctx); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		r, err := s.Results(ctx, e, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Variants[0].Attempts + r.Variants[1].Attempts; got != attempts {
			t.Fatalf("round %d: results count %d attempts, %d were recorded", round, got, attempts)
		}
		// Each round is a day of its own.
		if len(r.Days) != round+1 {
			t.Fatalf("round %d: %d days", round, len(r.Days))
		}
		if d := r.Days[round].Cumulative; d[0].Attempts+d[1].Attempts != attempts {
			t.Fatalf("round %d: the last day's running total is %d attempts, want %d", round, d[0].Attempts+d[1].Attempts, attempts)
		}
		clock.Advance(24 * time.Hour)
	}
}

func TestSaveKeepsKindAndKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newService(t)
	e, err := s.Save(ctx, "", copyExperiment(50, 50), "t@x")
	if err != nil {
		t.Fatal(err)
	}
	in := copyExperiment(50, 50)
	in.Name, in.Key = "Renamed", "unsubscribe.step2.title"
	got, err := s.Save(ctx, e.ID, in, "t@x")
	if err != nil || got.Name != "Renamed" || got.Key != e.Key || got.Kind != e.Kind {
		t.Fatalf("save: %+v %v", got, err)
	}
}

func TestCopyPageExposesTheKeysRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newService(t)
	e, _ := s.Create(ctx, copyExperiment(50, 50), "t@x")
	e, _ = s.SetStatus(ctx, e.ID, experiment.ActionStart, "t@x")
	exposures := func() int64 {
		t.Helper()
		if err := s.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		res, err := s.Results(ctx, e, e.Phase)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, v := range res.Variants {
			n += v.Exposures
		}
		return n
	}
	page := s.CopyPage("u1")
	if len(page.Assigned) != 1 || page.Assigned[0].Experiment != e.ID {
		t.Fatalf("assigned: %+v", page.Assigned)
	}
	page.Read("signIn.title") // no experiment's key
	if err := page.Expose(ctx); err != nil || exposures() != 0 {
		t.Fatalf("a page that did not read the key exposed: %v", err)
	}
	page.Read(e.Key)
	if err := page.Expose(ctx); err != nil || exposures() != 1 {
		t.Fatalf("a page that read the key: %v", err)
	}
	if got := s.CopyPage(""); len(got.Assigned) != 0 {
		t.Errorf("nobody is assigned: %+v", got.Assigned)
	}
}

// TestForgetPersonDeletesEveryExposureAndOutcome: ForgetPerson deletes the
// person's exposures and outcomes in every phase of every experiment that
// ran, running, paused or stopped, including one created on another
// instance that this one has not loaded; another person's stay.
func TestForgetPersonDeletesEveryExposureAndOutcome(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clock, st := newService(t)
	other := experiment.NewService(st, clock, nil) // another instance, with its own memory
	expose := func(svc *experiment.Service, userID string) {
		t.Helper()
		as := svc.Assignments(userID)
		if len(as) == 0 {
			t.Fatal("no running experiment")
		}
		for _, a := range as {
			if err := svc.Expose(ctx, userID, a); err != nil {
				t.Fatal(err)
			}
		}
	}
	record := func(svc *experiment.Service, userID string, events ...string) {
		t.Helper()
		for _, event := range events {
			if err := svc.Record(ctx, userID, event); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Phase 1, then phase 2 after a weight change; paused at the end.
	e, err := s.Create(ctx, copyExperiment(50, 50), "t@x")
	if err != nil {
		t.Fatal(err)
	}
	if e, err = s.SetStatus(ctx, e.ID, experiment.ActionStart, "t@x"); err != nil {
		t.Fatal(err)
	}
	expose(s, "u1")
	expose(s, "u2")
	record(s, "u1", experiment.EventSaved, experiment.EventCanceled)
	record(s, "u2", experiment.EventSaved)
	in := e
	in.Variants[1].Weight = 20
	if e, err = s.Update(ctx, e.ID, in, "t@x"); err != nil || e.Phase != 2 {
		t.Fatalf("phase %d, %v", e.Phase, err)
	}
	expose(s, "u1")
	record(s, "u1", experiment.EventSaved)
	if _, err := s.SetStatus(ctx, e.ID, experiment.ActionPause, "t@x"); err != nil {
		t.Fatal(err)
	}
	// Run and stopped on the other instance alone.
	offer := experiment.Experiment{Name: "Step 3 offer", Kind: experiment.KindOffer, Key: "offer.step3",
		Hypothesis: "The free month keeps more people", Metric: experiment.MetricSaveRate,
		Variants: []experiment.Variant{{Weight: 1}, {Value: "gift_month", Weight: 1}}}
	o, err := other.Create(ctx, offer, "t@x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.SetStatus(ctx, o.ID, experiment.ActionStart, "t@x"); err != nil {
		t.Fatal(err)
	}
	expose(other, "u1")
	record(other, "u1", experiment.EventCanceled)
	if _, err := other.SetStatus(ctx, o.ID, experiment.ActionStop, "t@x"); err != nil {
		t.Fatal(err)
	}
	// A draft has exposed nobody.
	if _, err := s.Create(ctx, copyExperiment(1, 1), "t@x"); err != nil {
		t.Fatal(err)
	}

	people := func(userID string) []experiment.Mark {
		t.Helper()
		marks, err := s.MarksOf(ctx, userID)
		if err != nil {
			t.Fatal(err)
		}
		return marks
	}
	// Phase 1: an exposure and two outcomes; phase 2: an exposure and two
	// outcomes (the cancel on the other instance counts in every experiment
	// the person saw); the offer: an exposure and an outcome.
	if got := people("u1"); len(got) != 8 {
		t.Fatalf("before: %d documents of u1, want 8: %v", len(got), got)
	}
	if err := s.ForgetPerson(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if got := people("u1"); len(got) != 0 {
		t.Errorf("left after ForgetPerson: %v", got)
	}
	if got := people("u2"); len(got) != 2 {
		t.Errorf("the other person's documents: %v, want an exposure and an outcome", got)
	}
}

// BenchmarkResultsAfterMillionEvents records 1,000,000 events (attempts of
// 100,000 subscribers, ten each, with a flush every 10,000 events as the
// periodic flush would write them) and then times the results of the
// phase: the work is in the few counter rows, not the events.
func BenchmarkResultsAfterMillionEvents(b *testing.B) {
	ctx := context.Background()
	s, _, _ := newService(b)
	e, _ := s.Create(ctx, copyExperiment(50, 50), "bench")
	e, _ = s.SetStatus(ctx, e.ID, experiment.ActionStart, "bench")
	start := time.Now()
	const events = 1_000_000
	for i := range events {
		if err := s.Record(ctx, "subscriber-"+strconv.Itoa(i%100000), experiment.EventAttempt); err != nil {
			b.Fatal(err)
		}
		if (i+1)%10000 == 0 {
			if err := s.Flush(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	recordMS := float64(time.Since(start).Milliseconds())
	b.ResetTimer()
	var r experiment.Results
	for b.Loop() {
		var err error
		if r, err = s.Results(ctx, e, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(recordMS, "record-ms")
	if got := r.Variants[0].Attempts + r.Variants[1].Attempts; got != events {
		b.Fatalf("results count %d events, want %d", got, events)
	}
}

// One experiment runs on a key, even when the other was started on an
// instance that has not loaded it yet: the store's unique key decides.
func TestOneExperimentRunsOnAKeyAcrossInstances(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clock, st := newService(t)
	other := experiment.NewService(st, clock, nil) // never reloaded: its memory knows no experiment
	a, _ := s.Create(ctx, copyExperiment(50, 50), "t@x")
	b, _ := other.Create(ctx, copyExperiment(50, 50), "t@x")
	if _, err := s.SetStatus(ctx, a.ID, experiment.ActionStart, "t@x"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.SetStatus(ctx, b.ID, experiment.ActionStart, "t@x"); engine.ErrorCode(err) != engine.CodeConflict {
		t.Fatalf("a second experiment started on the key: %v", err)
	}
	if _, err := s.SetStatus(ctx, a.ID, experiment.ActionStop, "t@x"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.SetStatus(ctx, b.ID, experiment.ActionStart, "t@x"); err != nil {
		t.Fatalf("the key is free once the first stopped: %v", err)
	}
}

// Edits sent together each either land whole or are refused: none is
// stored over another made from the same revision, so every stored
// change of weights began its own phase.
func TestEditsSentTogetherAreNeverLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newService(t)
	e, _ := s.Create(ctx, copyExperiment(50, 50), "t@x")
	e, _ = s.SetStatus(ctx, e.ID, experiment.ActionStart, "t@x")
	const n = 10
	var wg sync.WaitGroup
	results := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			in := copyExperiment(50, 51+i) // each a change of weights: a new phase
			_, err := s.Update(ctx, e.ID, in, "t@x")
			results <- err
		})
	}
	wg.Wait()
	close(results)
	stored := 0
	for err := range results {
		switch {
		case err == nil:
			stored++
		case engine.ErrorCode(err) != engine.CodeConflict:
			t.Fatal(err)
		}
	}
	got, err := s.Get(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored == 0 || got.Phase != 1+stored || got.Revision != e.Revision+stored {
		t.Fatalf("%d edits stored, phase %d, revision %d: want phase %d, revision %d", stored, got.Phase, got.Revision, 1+stored, e.Revision+stored)
	}
}

// An offer experiment's no-offer holdout: changing its share after a start
// begins a new phase (as a weight does); a subscriber held out takes part in
// no other offer experiment (they see no offer anywhere) but still in copy
// experiments; and the results have the holdout as its own arm, after the
// variants, counted apart.
func TestHoldoutPhasesAssignmentsAndResults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newService(t)
	offer := func(key string, holdout int) experiment.Experiment {
		return experiment.Experiment{Name: "Offer " + key, Kind: experiment.KindOffer, Key: key, Holdout: holdout,
			Hypothesis: "The offer keeps more people than no offer", Metric: experiment.MetricRevenuePerAttempt,
			Variants: []experiment.Variant{{Weight: 1}, {Value: "plan_change", Weight: 1}}}
	}
	held, err := s.Create(ctx, offer("offer.step7", 20), "t@x")
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.Create(ctx, offer("offer.step3", 0), "t@x")
	if err != nil {
		t.Fatal(err)
	}
	headline, err := s.Create(ctx, copyExperiment(1, 1), "t@x")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{held.ID, other.ID, headline.ID} {
		if _, err := s.SetStatus(ctx, id, experiment.ActionStart, "t@x"); err != nil {
			t.Fatal(err)
		}
	}
	var heldUser, freeUser string
	for i := 0; heldUser == "" || freeUser == ""; i++ {
		id := "u" + strconv.Itoa(i)
		if held.InHoldout(id) {
			heldUser = id
		} else {
			freeUser = id
		}
	}
	kinds := func(user string) map[string]string {
		out := map[string]string{}
		for _, a := range s.Assignments(user) {
			out[a.Key] = a.Variant
		}
		return out
	}
	if got := kinds(heldUser); got["offer.step7"] != experiment.HoldoutID || got["offer.step3"] != "" || got["unsubscribe.step1.title"] == "" {
		t.Errorf("held out: assignments %v, want the holdout, no other offer experiment, the copy one", got)
	}
	if got := kinds(freeUser); got["offer.step7"] == experiment.HoldoutID || got["offer.step3"] == "" {
		t.Errorf("not held out: assignments %v, want both offer experiments", got)
	}
	offers, bySlot := s.Offers(heldUser)
	if offers["offer.step7"] != "none" || bySlot["offer.step7"].Variant != experiment.HoldoutID || len(bySlot) != 1 {
		t.Errorf("held out: offers %v, slots %v", offers, bySlot)
	}

	// The holdout's exposure and save count in its own arm.
	if err := s.Expose(ctx, heldUser, bySlot["offer.step7"]); err != nil {
		t.Fatal(err)
	}
	if err := s.Record(ctx, heldUser, experiment.EventSaved); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	e, _ := s.Get(ctx, held.ID)
	res, err := s.Results(ctx, e, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Variants); n != 3 || res.Variants[2].ID != experiment.HoldoutID || res.Variants[2].Name != experiment.HoldoutName {
		t.Fatalf("results arms %+v, want the two variants and the holdout", res.Variants)
	}
	if h := res.Variants[2].Counts; h.Exposures != 1 || h.Saves != 1 {
		t.Errorf("holdout counts %+v, want 1 exposure, 1 save", h)
	}

	// A new holdout share is a new phase; a rename is not.
	in := e
	in.Name = "Renamed"
	if e, err = s.Update(ctx, e.ID, in, "t@x"); err != nil || e.Phase != 1 {
		t.Fatalf("rename: phase %d, %v", e.Phase, err)
	}
	in = e
	in.Holdout = 10
	if e, err = s.Update(ctx, e.ID, in, "t@x"); err != nil || e.Phase != 2 || e.Holdout != 10 {
		t.Fatalf("holdout change: phase %d, holdout %d, %v", e.Phase, e.Holdout, err)
	}
}

// TestRevenueIsHeldAndTakenBack: a save's revenue and its square go to the
// variant's counters; a cancel within the save window takes that amount

// back, a cancel after it does not; a cancel's own revenue is ignored.
func TestRevenueIsHeldAndTakenBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clock, _ := newService(t)
	e, _ := s.Create(ctx, copyExperiment(100, 0), "t@x") // everyone in the control
	e, _ = s.SetStatus(ctx, e.ID, experiment.ActionStart, "t@x")
	for _, u := range []string{"u1", "u2", "u3", "u4"} {
		_, byKey := s.CopyOverrides(u)
		if err := s.Expose(ctx, u, byKey[e.Key]); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.RecordOutcome(ctx, "u1", experiment.EventSaved, 1399))
	must(s.RecordOutcome(ctx, "u1", experiment.EventSaved, 99999)) // once per person and phase
	must(s.RecordOutcome(ctx, "u2", experiment.EventSaved, 1750))
	must(s.RecordOutcome(ctx, "u3", experiment.EventSaved, 0)) // a free month: saved, no revenue
	must(s.RecordOutcome(ctx, "u4", experiment.EventCanceled, 500))
	clock.Advance(10 * 24 * time.Hour)
	must(s.Record(ctx, "u2", experiment.EventCanceled)) // within 30 days: 1,750 taken back
	clock.Advance(30 * 24 * time.Hour)
	must(s.Record(ctx, "u1", experiment.EventCanceled)) // 40 days on: the save held
	must(s.Flush(ctx))
	r, err := s.Results(ctx, e, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Variants[0].Counts
	if c.Revenue != 1399 || c.RevenueSq != 1399*1399 || c.Held() != 2 {
		t.Fatalf("counts %+v: want revenue 1399 (1399²) from 2 held saves", c)
	}
	if got := r.Variants[0].Revenue.Estimate; got != 1399.0/4 {
		t.Errorf("revenue per exposed person %v, want 349.75", got)
	}
}
