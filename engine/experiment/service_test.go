package experiment

import (
	"context"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

func newService(t testing.TB) (*Service, *engine.ManualClock) {
	t.Helper()
	st := storetest.Open(t)
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	return NewService(st.DB(), clock, nil), clock
}

func copyExperiment(weights ...int) Experiment {
	e := Experiment{Name: "Step 1 headline", Kind: KindCopy, Key: "unsubscribe.step1.title"}
	for i, w := range weights {
		e.Variants = append(e.Variants, Variant{Value: "Headline " + strconv.Itoa(i), Weight: w})
	}
	e.Variants[0].Value = ""
	return e
}

func TestLifecycleAndPhases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newService(t)
	if _, err := s.Create(ctx, Experiment{Name: "", Kind: "copy", Key: "signIn.title"}, "t@x"); engine.ErrorCode(err) != engine.CodeInvalid {
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
	if e, err = s.SetStatus(ctx, e.ID, ActionStart, "t@x"); err != nil || !e.Running() {
		t.Fatalf("start: %v", err)
	}
	other, _ := s.Create(ctx, copyExperiment(1, 1), "t@x")
	if _, err := s.SetStatus(ctx, other.ID, ActionStart, "t@x"); engine.ErrorCode(err) != engine.CodeConflict {
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
	if e, _ = s.SetStatus(ctx, e.ID, ActionPause, "t@x"); e.Status != StatusPaused || len(s.Assignments("u1")) != 0 {
		t.Errorf("paused: %s, %d assignments", e.Status, len(s.Assignments("u1")))
	}
	if e, _ = s.SetStatus(ctx, e.ID, ActionStop, "t@x"); e.Status != StatusStopped {
		t.Errorf("stop: %s", e.Status)
	}
	if _, err := s.SetStatus(ctx, e.ID, ActionStart, "t@x"); engine.ErrorCode(err) != engine.CodeConflict {
		t.Errorf("a stopped experiment restarted: %v", err)
	}
}

// Exposures count once per subscriber however often and from however many
// goroutines (instances) they are recorded; outcomes count once per exposed
// subscriber; a cancel within 30 days takes a save back.
func TestExposuresAndOutcomes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clock := newService(t)
	e, _ := s.Create(ctx, copyExperiment(50, 50), "t@x")
	e, _ = s.SetStatus(ctx, e.ID, ActionStart, "t@x")
	// A second instance on the same database.
	s2 := NewService(s.db, clock, nil)
	if err := s2.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	users := []string{"u1", "u2", "u3", "u4", "u5", "u6"}
	var wg sync.WaitGroup
	for _, svc := range []*Service{s, s2, s, s2} {
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
		_ = s.Record(ctx, u, EventAttempt)
	}
	_ = s.Record(ctx, "u1", EventSaved)
	_ = s2.Record(ctx, "u1", EventSaved) // again, elsewhere
	_ = s.Record(ctx, "u2", EventSaved)
	_ = s.Record(ctx, "u5", EventSaved) // never exposed
	clock.Advance(10 * 24 * time.Hour)
	_ = s.Record(ctx, "u2", EventCanceled) // within 30 days: the save is taken back
	_ = s2.Record(ctx, "u3", EventCanceled)
	for _, svc := range []*Service{s, s2} {
		if err := svc.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	r, err := s.Results(ctx, e, 0)
	if err != nil {
		t.Fatal(err)
	}
	var total Counts
	for _, v := range r.Variants {
		total.plus(v.Counts)
	}
	want := Counts{Attempts: 6, Exposures: 4, Saves: 2, Cancels: 2, Unsaved: 1}
	if total != want {
		t.Errorf("totals %+v, want %+v", total, want)
	}
	// Over time: the exposures and saves on Nov 1, the cancels ten days
	// later; the last day's running totals are the phase's.
	if len(r.Days) != 2 || r.Days[0].Day != "2026-11-01" || r.Days[1].Day != "2026-11-11" {
		t.Fatalf("days %+v", r.Days)
	}
	var first, last Counts
	for i := range r.Variants {
		first.plus(r.Days[0].Cumulative[i])
		last.plus(r.Days[1].Cumulative[i])
		if r.Days[1].Cumulative[i] != r.Variants[i].Counts {
			t.Errorf("variant %d: last day %+v, totals %+v", i, r.Days[1].Cumulative[i], r.Variants[i].Counts)
		}
	}
	if first != (Counts{Attempts: 6, Exposures: 4, Saves: 2}) || last != want {
		t.Errorf("running totals %+v then %+v", first, last)
	}
}

// Many flushes from several instances, compacted between them, always add
// up to what was counted, and compaction leaves few documents.
func TestFlushAndCompact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, clock := newService(t)
	e, _ := s.Create(ctx, copyExperiment(1, 1), "t@x")
	e, _ = s.SetStatus(ctx, e.ID, ActionStart, "t@x")
	instances := []*Service{s, NewService(s.db, clock, nil), NewService(s.db, clock, nil)}
	for _, svc := range instances[1:] {
		_ = svc.Reload(ctx)
	}
	attempts := int64(0)
	for round := range 12 {
		for i, svc := range instances {
			for u := range 10 + i {
				_ = svc.Record(ctx, "user"+strconv.Itoa(u), EventAttempt)
				attempts++
			}
			if err := svc.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if round%3 == 2 {
			// Two instances compact at once; one roll-up wins.
			var wg sync.WaitGroup
			for _, svc := range instances[:2] {
				wg.Add(1)
				go func() { defer wg.Done(); _ = svc.Compact(ctx, e.ID, e.Phase) }()
			}
			wg.Wait()
		}
		r, err := s.Results(ctx, e, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Variants[0].Attempts + r.Variants[1].Attempts; got != attempts {
			t.Fatalf("round %d: results count %d attempts, %d were recorded", round, got, attempts)
		}
		// Each round is a day of its own: the days survive the roll-ups.
		if len(r.Days) != round+1 {
			t.Fatalf("round %d: %d days", round, len(r.Days))
		}
		if d := r.Days[round].Cumulative; d[0].Attempts+d[1].Attempts != attempts {
			t.Fatalf("round %d: the last day's running total is %d attempts, want %d", round, d[0].Attempts+d[1].Attempts, attempts)
		}
		clock.Advance(24 * time.Hour)
	}
	n, _ := s.counts().CountDocuments(ctx, map[string]any{"exp": e.ID})
	// What remains: the newest roll-up and the one before it, the flushes
	// since the one before (deleted a round late, for readers in flight):
	// two rounds of three compactions' worth of three flushes.
	if n > 2+2*9 {
		t.Errorf("%d count documents remain after compaction", n)
	}
}
