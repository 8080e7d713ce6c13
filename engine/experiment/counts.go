package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine"
	"glimpse/engine/store"
)

// Counts are the tallies of one variant in one phase.
type Counts struct {
	Attempts  int64 `bson:"attempts"`
	Exposures int64 `bson:"exposures"`
	Saves     int64 `bson:"saves"`
	Cancels   int64 `bson:"cancels"`
	// Unsaved counts saves taken back by a cancel within SaveWindow.
	Unsaved int64 `bson:"unsaved"`
}

func (c *Counts) plus(o Counts) {
	c.Attempts += o.Attempts
	c.Exposures += o.Exposures
	c.Saves += o.Saves
	c.Cancels += o.Cancels
	c.Unsaved += o.Unsaved
}

// Held is the saves that held: recorded saves less those taken back.
func (c Counts) Held() int64 { return c.Saves - c.Unsaved }

// countDoc is one flush of one instance's counts for one phase
// ("<exp>:<phase>:<instance>:<seq>"), or a roll-up of flushes
// ("<exp>:<phase>:roll:<n>") whose UpTo says, per instance, the last flush it
// holds.
type countDoc struct {
	ID       string            `bson:"_id"`
	Exp      string            `bson:"exp"`
	Phase    int               `bson:"phase"`
	Instance string            `bson:"instance,omitempty"`
	Seq      int64             `bson:"seq,omitempty"`
	Roll     int64             `bson:"roll,omitempty"`
	UpTo     map[string]int64  `bson:"upTo,omitempty"`
	Counts   map[string]Counts `bson:"counts"`
	// Days splits Counts by the UTC day the events happened on (DayLayout)
	// and variant, for the results' save rate over time.
	Days map[string]map[string]Counts `bson:"days,omitempty"`
	At   time.Time                    `bson:"at"`
}

// DayLayout names a day in count documents and results: "2006-01-02", UTC.
const DayLayout = "2006-01-02"

// dayVariant is where an event is counted in memory: its day and variant.
type dayVariant struct{ Day, Variant string }

// addDays adds one document's days into sum.
func addDays(sum map[string]map[string]Counts, days map[string]map[string]Counts) {
	for day, byVariant := range days {
		if sum[day] == nil {
			sum[day] = map[string]Counts{}
		}
		for v, c := range byVariant {
			t := sum[day][v]
			t.plus(c)
			sum[day][v] = t
		}
	}
}

// add counts in memory, on today's date; Flush writes it.
func (s *Service) add(k phaseKey, variant string, c Counts) {
	s.addOn(k, dayVariant{Day: s.now().Format(DayLayout), Variant: variant}, c)
}

func (s *Service) addOn(k phaseKey, at dayVariant, c Counts) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.pending[k]
	if m == nil {
		m = map[dayVariant]*Counts{}
		s.pending[k] = m
	}
	if m[at] == nil {
		m[at] = &Counts{}
	}
	m[at].plus(c)
}

// Flush writes this instance's counts since the last flush: one document per
// phase with a new _id (instance and sequence number), so no write ever
// updates a shared counter ($inc is not atomic on the embedded FerretDB). A
// failed insert puts its counts back for the next flush.
func (s *Service) Flush(ctx context.Context) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.Lock()
	pending := s.pending
	s.pending = map[phaseKey]map[dayVariant]*Counts{}
	s.mu.Unlock()
	var firstErr error
	for k, m := range pending {
		s.seq++
		d := countDoc{ID: k.Exp + ":" + strconv.Itoa(k.Phase) + ":" + s.instance + ":" + strconv.FormatInt(s.seq, 10),
			Exp: k.Exp, Phase: k.Phase, Instance: s.instance, Seq: s.seq, Counts: map[string]Counts{},
			Days: map[string]map[string]Counts{}, At: s.now()}
		for at, c := range m {
			sum := d.Counts[at.Variant]
			sum.plus(*c)
			d.Counts[at.Variant] = sum
			addDays(d.Days, map[string]map[string]Counts{at.Day: {at.Variant: *c}})
		}
		if _, err := s.counts().InsertOne(ctx, d); err != nil {
			for at, c := range m {
				s.addOn(k, at, *c)
			}
			if firstErr == nil {
				firstErr = fmt.Errorf("flush experiment counts: %w", err)
			}
		}
	}
	return firstErr
}

// tally is what the documents of one phase add up to.
type tally struct {
	latest  *countDoc   // the newest roll-up, if any
	flushes []*countDoc // flushes the newest roll-up does not hold
	stale   []string    // documents the newest roll-up's predecessor held
	total   map[string]Counts
	days    map[string]map[string]Counts
}

// readPhase sums one phase: the newest roll-up plus every flush it does not
// hold. One query returns the phase's few documents.
func (s *Service) readPhase(ctx context.Context, exp string, phase int) (tally, error) {
	cur, err := s.counts().Find(ctx, bson.M{"exp": exp, "phase": phase})
	if err != nil {
		return tally{}, fmt.Errorf("read experiment counts: %w", err)
	}
	var docs []*countDoc
	if err := cur.All(ctx, &docs); err != nil {
		return tally{}, fmt.Errorf("read experiment counts: %w", err)
	}
	t := tally{total: map[string]Counts{}, days: map[string]map[string]Counts{}}
	for _, d := range docs {
		if d.Roll > 0 && (t.latest == nil || d.Roll > t.latest.Roll) {
			t.latest = d
		}
	}
	var prev *countDoc // the roll-up before the newest
	for _, d := range docs {
		if d.Roll > 0 && d != t.latest && (prev == nil || d.Roll > prev.Roll) {
			prev = d
		}
	}
	if t.latest != nil {
		for v, c := range t.latest.Counts {
			t.total[v] = c
		}
		addDays(t.days, t.latest.Days)
	}
	for _, d := range docs {
		switch {
		case d.Roll > 0:
			if d != t.latest && d != prev {
				t.stale = append(t.stale, d.ID)
			}
		case t.latest != nil && d.Seq <= t.latest.UpTo[d.Instance]:
			// Held by the newest roll-up. Delete it only once a newer
			// roll-up exists, so a reader that read the roll-up before it
			// and the flushes after it still finds it.
			if prev != nil && d.Seq <= prev.UpTo[d.Instance] {
				t.stale = append(t.stale, d.ID)
			}
		default:
			t.flushes = append(t.flushes, d)
			addDays(t.days, d.Days)
			for v, c := range d.Counts {
				sum := t.total[v]
				sum.plus(c)
				t.total[v] = sum
			}
		}
	}
	if prev != nil {
		t.stale = append(t.stale, prev.ID)
	}
	return t, nil
}

// Compact rolls the flushes of one phase into a new roll-up so that the
// documents to read stay few. Roll-up numbers are claimed by inserting
// "<exp>:<phase>:roll:<n>", so of two compacting instances one wins and the
// other's work is dropped; flushes and roll-ups are deleted only after a
// later roll-up holds them and one more round has passed.
func (s *Service) Compact(ctx context.Context, exp string, phase int) error {
	t, err := s.readPhase(ctx, exp, phase)
	if err != nil {
		return err
	}
	if len(t.stale) > 0 {
		if _, err := s.counts().DeleteMany(ctx, bson.M{"_id": bson.M{"$in": t.stale}}); err != nil {
			return fmt.Errorf("compact experiment counts: %w", err)
		}
	}
	if len(t.flushes) < 2 {
		return nil
	}
	next := countDoc{Exp: exp, Phase: phase, Roll: 1, UpTo: map[string]int64{}, Counts: t.total, Days: t.days, At: s.now()}
	if t.latest != nil {
		next.Roll = t.latest.Roll + 1
		for k, v := range t.latest.UpTo {
			next.UpTo[k] = v
		}
	}
	for _, d := range t.flushes {
		next.UpTo[d.Instance] = max(next.UpTo[d.Instance], d.Seq)
	}
	next.ID = exp + ":" + strconv.Itoa(phase) + ":roll:" + strconv.FormatInt(next.Roll, 10)
	if _, err := s.counts().InsertOne(ctx, next); err != nil && !store.IsDuplicateKey(err) {
		return fmt.Errorf("compact experiment counts: %w", err)
	}
	return nil
}

// Run flushes every interval and compacts the running experiments' phases
// every ten flushes, until ctx ends; it flushes once more on the way out.
func (s *Service) Run(ctx context.Context, every time.Duration) {
	flushes := 0
	engine.Every(ctx, every, func(ctx context.Context) {
		_ = s.Flush(ctx) // a failed flush keeps its counts for the next
		if flushes++; flushes%10 == 0 {
			for _, e := range s.List() {
				if e.Status == StatusRunning || e.Status == StatusPaused {
					_ = s.Compact(ctx, e.ID, e.Phase)
				}
			}
		}
	})
	// ctx has ended: the last counts get a moment of their own.
	done, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.Flush(done)
}

// VariantResult is one variant's counts and statistics.
type VariantResult struct {
	Variant
	Counts
	// SaveRate is held saves over exposures, with its fixed-sample and
	// always-valid 95% intervals.
	SaveRate, SaveRateAlways Interval
	// Diff is the save rate minus the control's (zero for the control).
	Diff, DiffAlways Interval
	// Significant: the always-valid interval of the difference excludes 0.
	Significant bool
	// MoreNeeded is about how many more exposures (all variants together)
	// the always-valid interval needs to tell this variant from the
	// control, if the rates hold; MoreKnown is false when no number will do
	// (MoreNeeded in stats.go). Zero for the control.
	MoreNeeded int64
	MoreKnown  bool
}

// Day is the counts by variant (in the experiment's order) of everything up
// to the end of one UTC day: the save rate over time reads them.
type Day struct {
	Day        string // DayLayout
	Cumulative []Counts
}

// Results are one phase's numbers.
type Results struct {
	Experiment Experiment
	Phase      int
	Variants   []VariantResult
	// SRM is the p-value of the exposures against the weights; Mismatch
	// is set when it is under SRMThreshold.
	SRMChi2, SRMP float64
	Mismatch      bool
	// SRMReadable: every variant expects SRMMinExpected exposures, so the
	// test's p-value may be read.
	SRMReadable bool
	// Days are the phase's days with events, oldest first.
	Days []Day
	// PlannedN is n*, the total the always-valid interval is tuned to.
	PlannedN float64
}

// ErrNoPhase is returned for a phase the experiment never had.
var ErrNoPhase = errors.New("experiment: no such phase")

// Results sums the flushed counts of a phase (0 for the current one) and
// computes the statistics. Counts still in an instance's memory (up to one
// flush interval) are not in them.
func (s *Service) Results(ctx context.Context, e Experiment, phase int) (Results, error) {
	if phase == 0 {
		phase = e.Phase
	}
	if phase < 1 || phase > e.Phase {
		return Results{}, ErrNoPhase
	}
	t, err := s.readPhase(ctx, e.ID, phase)
	if err != nil {
		return Results{}, err
	}
	r := Compute(e, phase, t.total, DefaultPlannedN)
	r.Days = Cumulative(e, t.days)
	return r, nil
}

// SRMMinExpected is the fewest exposures the weights must lead every
// variant to expect before the chi-squared test may raise a mismatch:
// below about five its p-value is far from the truth (Cochran's rule), and
// two people under 1:9999 weights are not a broken assignment.
const SRMMinExpected = 5

// srmReadable reports whether every weighted variant expects at least
// SRMMinExpected of the exposures.
func srmReadable(observed []int64, weights []int) bool {
	var total int64
	wsum := 0
	for i, o := range observed {
		if weights[i] > 0 {
			total += o
			wsum += weights[i]
		}
	}
	for _, w := range weights {
		if w > 0 && float64(total)*float64(w)/float64(wsum) < SRMMinExpected {
			return false
		}
	}
	return true
}

// Cumulative turns counts by day and variant into running totals by day,
// oldest first, in the experiment's variant order.
func Cumulative(e Experiment, days map[string]map[string]Counts) []Day {
	keys := make([]string, 0, len(days))
	for d := range days {
		keys = append(keys, d)
	}
	slices.Sort(keys) // DayLayout sorts as time does
	running := make([]Counts, len(e.Variants))
	out := make([]Day, 0, len(keys))
	for _, d := range keys {
		for i, v := range e.Variants {
			running[i].plus(days[d][v.ID])
		}
		out = append(out, Day{Day: d, Cumulative: slices.Clone(running)})
	}
	return out
}

// Compute turns counts by variant id into results.
func Compute(e Experiment, phase int, counts map[string]Counts, plannedN float64) Results {
	r := Results{Experiment: e, Phase: phase, PlannedN: plannedN}
	exposures := make([]int64, len(e.Variants))
	for i, v := range e.Variants {
		c := counts[v.ID]
		exposures[i] = c.Exposures
		vr := VariantResult{Variant: v, Counts: c}
		vr.SaveRate, vr.SaveRateAlways = Rate(c.Held(), c.Exposures, plannedN)
		if i > 0 {
			c0 := counts[e.Variants[0].ID]
			vr.Diff, vr.DiffAlways = Difference(c.Held(), c.Exposures, c0.Held(), c0.Exposures, plannedN)
			vr.Significant = c.Exposures > 0 && c0.Exposures > 0 && vr.DiffAlways.Excludes(0)
			vr.MoreNeeded, vr.MoreKnown = MoreNeeded(c.Held(), c.Exposures, c0.Held(), c0.Exposures, plannedN)
		}
		r.Variants = append(r.Variants, vr)
	}
	r.SRMChi2, r.SRMP = SRM(exposures, e.Weights())
	r.SRMReadable = srmReadable(exposures, e.Weights())
	r.Mismatch = r.SRMP < SRMThreshold && r.SRMReadable
	return r
}

// What a verdict says, in plain words on the results screen.
const (
	// VerdictMismatch: the exposures do not match the weights; nothing
	// here should be read.
	VerdictMismatch = "mismatch"
	// VerdictNoData: the control or every other variant has nobody exposed.
	VerdictNoData = "noData"
	// VerdictBetter and VerdictWorse: a variant's always-valid interval of
	// the difference excludes 0, above or below the control.
	VerdictBetter = "better"
	VerdictWorse  = "worse"
	// VerdictWait: no difference is certain yet; More is about how many
	// more exposures would settle the likeliest one, if the rates hold, or
	// (Planned) how many are left to the planned size when no difference
	// shows yet.
	VerdictWait = "wait"
	// VerdictSame: the planned size is reached, no difference shows, and
	// none the flow's traffic could show (MoreNeeded has no answer).
	VerdictSame = "same"
)

// Verdict is the one-line reading of a phase's results.
type Verdict struct {
	Kind string
	// Variant is the index of the variant it is about (0 for none).
	Variant int
	More    int64
	// Planned: More counts to the planned size, not to a difference seen.
	Planned bool
}

// Verdict reads the results: a mismatch first (nothing else may be read),
// then no data, then the variant whose difference from the control is
// certain (the largest), then the variant closest to being settled.
func (r Results) Verdict() Verdict {
	if r.Mismatch {
		return Verdict{Kind: VerdictMismatch}
	}
	if len(r.Variants) < 2 || r.Variants[0].Exposures == 0 {
		return Verdict{Kind: VerdictNoData}
	}
	best, wait := Verdict{}, Verdict{Kind: VerdictSame}
	anyData := false
	for i, v := range r.Variants[1:] {
		i++
		if v.Exposures == 0 {
			continue
		}
		anyData = true
		if v.Significant && (best.Kind == "" || abs(v.Diff.Estimate) > abs(r.Variants[best.Variant].Diff.Estimate)) {
			best = Verdict{Kind: VerdictBetter, Variant: i}
			if v.Diff.Estimate < 0 {
				best.Kind = VerdictWorse
			}
		}
		if v.MoreKnown && (wait.Kind == VerdictSame || v.MoreNeeded < wait.More) {
			wait = Verdict{Kind: VerdictWait, Variant: i, More: v.MoreNeeded}
		}
	}
	switch {
	case !anyData:
		return Verdict{Kind: VerdictNoData}
	case best.Kind != "":
		return best
	case wait.Kind == VerdictWait:
		return wait
	}
	// No difference shows, or none the traffic could settle: before the
	// planned size that is too early to say (a few people often tie).
	var n int64
	for _, v := range r.Variants {
		n += v.Exposures
	}
	if left := int64(math.Ceil(r.PlannedN)) - n; left > 0 {
		return Verdict{Kind: VerdictWait, More: left, Planned: true}
	}
	return wait
}

func abs(x float64) float64 { return max(x, -x) }
