package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"glimpse/engine"
)

// Counts are the tallies of one variant in one phase.
type Counts struct {
	Attempts  int64
	Exposures int64
	Saves     int64
	Cancels   int64
	// Unsaved counts saves taken back by a cancel within SaveWindow.
	Unsaved int64
	// Revenue and RevenueSq are the sum and the sum of squares of the
	// held saves' revenue over SaveWindow (RecordOutcome), in minor units
	// (cents): a save taken back takes its amount back. With Exposures
	// they give the mean and variance of revenue per exposed person.
	Revenue, RevenueSq int64
	// RevenueMax is the largest revenue one save brought: no person's
	// revenue is known to exceed it, so the revenue intervals stay within
	// [0, RevenueMax] (a difference within ±RevenueMax), as a rate's stay
	// within [0, 1]. Added as a maximum, not a sum.
	RevenueMax int64
}

func (c *Counts) plus(o Counts) {
	c.Attempts += o.Attempts
	c.Exposures += o.Exposures
	c.Saves += o.Saves
	c.Cancels += o.Cancels
	c.Unsaved += o.Unsaved
	c.Revenue += o.Revenue
	c.RevenueSq += o.RevenueSq
	c.RevenueMax = max(c.RevenueMax, o.RevenueMax)
}

// Held is the saves that held: recorded saves less those taken back.
func (c Counts) Held() int64 { return c.Saves - c.Unsaved }

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

// Flush adds this instance's counts since the last flush to the stored
// counters: one atomic addition per day and variant (Storage.Add), so
// instances flushing together lose nothing. A failed addition puts its
// counts back for the next flush.
func (s *Service) Flush(ctx context.Context) error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.mu.Lock()
	pending := s.pending
	s.pending = map[phaseKey]map[dayVariant]*Counts{}
	s.mu.Unlock()
	var firstErr error
	for k, m := range pending {
		for at, c := range m {
			if err := s.store.Add(ctx, k.Exp, k.Phase, Tally{Day: at.Day, Variant: at.Variant, Counts: *c}); err != nil {
				s.addOn(k, at, *c)
				if firstErr == nil {
					firstErr = fmt.Errorf("flush experiment counts: %w", err)
				}
			}
		}
	}
	return firstErr
}

// Run flushes every interval until ctx ends; it flushes once more on the
// way out.
func (s *Service) Run(ctx context.Context, every time.Duration) {
	engine.Every(ctx, every, func(ctx context.Context) {
		_ = s.Flush(ctx) // a failed flush keeps its counts for the next
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
	// ChanceToBeat is the probability that this variant's true save rate
	// is above the baseline's (ChanceToBeat in stats.go; ½ for the
	// baseline itself).
	ChanceToBeat float64
	// Revenue is retained revenue per exposed person over SaveWindow, in
	// minor units, with its fixed-sample and always-valid 95% intervals
	// (Mean); RevenueDiff and RevenueDiffAlways its difference from the
	// baseline's (MeanDifference; zero for the baseline).
	Revenue, RevenueAlways         Interval
	RevenueDiff, RevenueDiffAlways Interval
	// RevenueSignificant: the always-valid interval of the revenue
	// difference excludes 0.
	RevenueSignificant bool
	// RevenueMoreNeeded and RevenueMoreKnown are MoreNeeded for the
	// revenue difference (MeanMoreNeeded).
	RevenueMoreNeeded int64
	RevenueMoreKnown  bool
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
	// Baseline is the index of the arm every difference is taken from:
	// the control (0) unless CompareTo named another (a no-offer
	// holdout).
	Baseline int
}

// ErrNoPhase is returned for a phase the experiment never had.
var ErrNoPhase = errors.New("experiment: no such phase")

// Results sums the flushed counts of a phase (0 for the current one) and
// computes the statistics. Counts still in an instance's memory (up to one
// flush interval) are not in them.
func (s *Service) Results(ctx context.Context, e Experiment, phase int) (Results, error) {
	return s.ResultsAgainst(ctx, e, phase, "")
}

// ResultsAgainst is Results with every difference taken from the arm whose
// variant id is baseline (CompareTo; the control when "").
func (s *Service) ResultsAgainst(ctx context.Context, e Experiment, phase int, baseline string) (Results, error) {
	if phase == 0 {
		phase = e.Phase
	}
	if phase < 1 || phase > e.Phase {
		return Results{}, ErrNoPhase
	}
	tallies, err := s.store.Tallies(ctx, e.ID, phase)
	if err != nil {
		return Results{}, fmt.Errorf("read experiment counts: %w", err)
	}
	total, days := map[string]Counts{}, map[string]map[string]Counts{}
	for _, t := range tallies {
		sum := total[t.Variant]
		sum.plus(t.Counts)
		total[t.Variant] = sum
		addDays(days, map[string]map[string]Counts{t.Day: {t.Variant: t.Counts}})
	}
	// The holdout is an arm of the results, after the variants.
	e = e.WithArms()
	r := CompareTo(e, phase, total, DefaultPlannedN, baseline)
	r.Days = Cumulative(e, days)
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

// Compute turns counts by variant id into results, every difference taken
// from the control.
func Compute(e Experiment, phase int, counts map[string]Counts, plannedN float64) Results {
	return CompareTo(e, phase, counts, plannedN, "")
}

// CompareTo is Compute with the differences, the chance to beat and the
// verdict taken from the arm whose variant id is baseline (the control
// when "" or unknown): an offer experiment's no-offer holdout is compared
// against as the control is.
func CompareTo(e Experiment, phase int, counts map[string]Counts, plannedN float64, baseline string) Results {
	r := Results{Experiment: e, Phase: phase, PlannedN: plannedN}
	for i, v := range e.Variants {
		if v.ID == baseline {
			r.Baseline = i
		}
	}
	exposures := make([]int64, len(e.Variants))
	// The revenue variance's added pair (meanVariance) pads with the
	// average revenue of a held save over every arm.
	var held, revenue, most int64
	for _, v := range e.Variants {
		held += counts[v.ID].Held()
		revenue += counts[v.ID].Revenue
		most = max(most, counts[v.ID].RevenueMax)
	}
	pad := 0.0
	if held > 0 {
		pad = float64(revenue) / float64(held)
	}
	c0 := Counts{}
	if len(e.Variants) > 0 {
		c0 = counts[e.Variants[r.Baseline].ID]
	}
	for i, v := range e.Variants {
		c := counts[v.ID]
		exposures[i] = c.Exposures
		vr := VariantResult{Variant: v, Counts: c, ChanceToBeat: 0.5}
		vr.SaveRate, vr.SaveRateAlways = Rate(c.Held(), c.Exposures, plannedN)
		vr.Revenue, vr.RevenueAlways = Mean(c.Revenue, c.RevenueSq, c.Exposures, pad, plannedN)
		vr.Revenue, vr.RevenueAlways = clampRevenue(vr.Revenue, 0, most), clampRevenue(vr.RevenueAlways, 0, most)
		if i != r.Baseline {
			vr.Diff, vr.DiffAlways = Difference(c.Held(), c.Exposures, c0.Held(), c0.Exposures, plannedN)
			vr.Significant = c.Exposures > 0 && c0.Exposures > 0 && vr.DiffAlways.Excludes(0)
			vr.MoreNeeded, vr.MoreKnown = MoreNeeded(c.Held(), c.Exposures, c0.Held(), c0.Exposures, plannedN)
			vr.ChanceToBeat = ChanceToBeat(c.Held(), c.Exposures, c0.Held(), c0.Exposures)
			vr.RevenueDiff, vr.RevenueDiffAlways = MeanDifference(c.Revenue, c.RevenueSq, c.Exposures,
				c0.Revenue, c0.RevenueSq, c0.Exposures, pad, plannedN)
			top := float64(most)
			vr.RevenueDiff, vr.RevenueDiffAlways = clampRevenue(vr.RevenueDiff, -top, most), clampRevenue(vr.RevenueDiffAlways, -top, most)
			vr.RevenueSignificant = c.Exposures > 0 && c0.Exposures > 0 && vr.RevenueDiffAlways.Excludes(0)
			vr.RevenueMoreNeeded, vr.RevenueMoreKnown = MeanMoreNeeded(c.Revenue, c.RevenueSq, c.Exposures,
				c0.Revenue, c0.RevenueSq, c0.Exposures, pad, plannedN)
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
	// Revenue: the verdict reads retained revenue per attempt, the
	// experiment's primary metric, instead of the save rate.
	Revenue bool
}

// Verdict reads the results: a mismatch first (nothing else may be read),
// then no data, then the variant whose difference from the control in the
// primary metric is certain (the largest), then the variant closest to
// being settled.
func (r Results) Verdict() Verdict {
	if r.Mismatch {
		return Verdict{Kind: VerdictMismatch}
	}
	if len(r.Variants) < 2 || r.Variants[r.Baseline].Exposures == 0 {
		return Verdict{Kind: VerdictNoData}
	}
	// The tester's primary metric decides: the save rate, or retained
	// revenue per attempt.
	revenue := r.Experiment.Metric == MetricRevenuePerAttempt
	primary := func(v VariantResult) (diff float64, significant bool, more int64, known bool) {
		if revenue {
			return v.RevenueDiff.Estimate, v.RevenueSignificant, v.RevenueMoreNeeded, v.RevenueMoreKnown
		}
		return v.Diff.Estimate, v.Significant, v.MoreNeeded, v.MoreKnown
	}
	best, wait := Verdict{Revenue: revenue}, Verdict{Kind: VerdictSame, Revenue: revenue}
	bestDiff := 0.0
	anyData := false
	for i, v := range r.Variants {
		if i == r.Baseline || v.Exposures == 0 {
			continue
		}
		anyData = true
		diff, significant, more, known := primary(v)
		if significant && (best.Kind == "" || abs(diff) > abs(bestDiff)) {
			best, bestDiff = Verdict{Kind: VerdictBetter, Variant: i, Revenue: revenue}, diff
			if diff < 0 {
				best.Kind = VerdictWorse
			}
		}
		if known && (wait.Kind == VerdictSame || more < wait.More) {
			wait = Verdict{Kind: VerdictWait, Variant: i, More: more, Revenue: revenue}
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
		return Verdict{Kind: VerdictWait, More: left, Planned: true, Revenue: revenue}
	}
	return wait
}

func abs(x float64) float64 { return max(x, -x) }

// clampRevenue keeps a revenue interval within [low, most], what a mean (or
// a difference of means) of per-person revenues of at most most can be;
// with no revenue seen yet (most 0) there is no bound to keep to.
func clampRevenue(i Interval, low float64, most int64) Interval {
	if most <= 0 {
		return i
	}
	return clamp(i, low, float64(most))
}
