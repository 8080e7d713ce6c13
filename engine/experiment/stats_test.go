package experiment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6f, want %.6f ± %g", what, got, want, tol)
	}
}

// For two degrees of freedom the survival function is exactly e^(−x/2); for
// one it is erfc(sqrt(x/2)). The 0.001 critical values are 10.828 (1 df),
// 13.816 (2 df) and 16.266 (3 df) in every chi-squared table.
func TestChiSquaredSurvival(t *testing.T) {
	for _, x := range []float64{0.1, 1, 3.84, 10.83, 25, 60} {
		near(t, "Q(2 df)", ChiSquaredSurvival(x, 2), math.Exp(-x/2), 1e-12)
		near(t, "Q(1 df)", ChiSquaredSurvival(x, 1), math.Erfc(math.Sqrt(x/2)), 1e-12)
	}
	near(t, "Q(10.828, 1)", ChiSquaredSurvival(10.828, 1), 0.001, 2e-6)
	near(t, "Q(13.816, 2)", ChiSquaredSurvival(13.816, 2), 0.001, 2e-6)
	near(t, "Q(16.266, 3)", ChiSquaredSurvival(16.266, 3), 0.001, 2e-6)
	near(t, "Q(3.841, 1)", ChiSquaredSurvival(3.841, 1), 0.05, 2e-5)
	// 4 df: Q = e^(−x/2)(1 + x/2); at x = 6, e^−3 · 4 = 0.199148.
	near(t, "Q(6, 4)", ChiSquaredSurvival(6, 4), 4*math.Exp(-3), 1e-12)
	if ChiSquaredSurvival(0, 3) != 1 {
		t.Error("Q(0) must be 1")
	}
}

// By hand: 50/50 weights, 5,100 and 4,900 exposures. Expected 5,000 each;
// χ² = 100²/5000 + 100²/5000 = 4; p = erfc(sqrt(2)) = 0.0455: no alarm.
// 5,200 / 4,800: χ² = 200²/5000 · 2 = 16; p = erfc(sqrt(8)) = 6.3e-5: alarm.
// 20/80 with 2,000 / 8,000: χ² = 0.
func TestSRM(t *testing.T) {
	chi2, p := SRM([]int64{5100, 4900}, []int{50, 50})
	near(t, "chi2", chi2, 4, 1e-9)
	near(t, "p", p, 0.0455003, 1e-6)
	chi2, p = SRM([]int64{5200, 4800}, []int{50, 50})
	near(t, "chi2", chi2, 16, 1e-9)
	near(t, "p", p, 6.334248e-5, 1e-9)
	if chi2, _ := SRM([]int64{2000, 8000}, []int{20, 80}); chi2 != 0 {
		t.Errorf("exact 20/80 gives χ² %v", chi2)
	}
	// Three arms 1:1:2 with 300, 250, 450 of 1,000: expected 250, 250, 500;
	// χ² = 2500/250 + 0 + 2500/500 = 15; p = Q(15, 2 df) = e^−7.5 = 5.53e-4.
	chi2, p = SRM([]int64{300, 250, 450}, []int{1, 1, 2})
	near(t, "chi2 (3 arms)", chi2, 15, 1e-9)
	near(t, "p (3 arms)", p, math.Exp(-7.5), 1e-12)
	if _, p := SRM([]int64{0, 0}, []int{1, 1}); p != 1 {
		t.Error("no exposures must not raise an alarm")
	}
}

// By hand: 300 saves of 1,000 exposures: p = 0.3; the variance adds one save
// and one loss (bernoulliVariance): p̃ = 301/1002 = 0.300399, σ̂² = p̃(1 − p̃)
// = 0.210160, se = sqrt(0.210160/1000) = 0.0144969, so the 95% interval is
// 0.3 ± 1.959964·0.0144969 = 0.3 ± 0.028413.
//
// The confidence sequence with α = 0.05, n* = 5,000: −2 ln α = 5.991465,
// ρ² = (5.991465 + ln 6.991465)/5000 = (5.991465 + 1.944691)/5000 = 0.00158723.
// At n = 1,000: nρ² = 1.58723; 2(nρ²+1)/(n²ρ²) = 5.17446/1587.23 = 0.00326007;
// ln(sqrt(2.58723)/0.05) = ln(32.1697) = 3.47103; product 0.0113158, root
// 0.106376; times σ̂ = sqrt(0.210160) = 0.458432 → radius 0.048766.
func TestRateIntervals(t *testing.T) {
	fixed, always := Rate(300, 1000, DefaultPlannedN)
	near(t, "estimate", fixed.Estimate, 0.3, 1e-12)
	// Wilson at 300/1,000: centre (0.3 + 3.841459/2000)/(1 + 3.841459/1000)
	// = 0.300765, half-width 1.959964·sqrt(0.00021 + 0.00000096)/1.003841
	// = 0.028359: [0.272407, 0.329124].
	near(t, "fixed low", fixed.Low, 0.272407, 2e-6)
	near(t, "fixed high", fixed.High, 0.329124, 2e-6)
	near(t, "always-valid half-width", always.High-0.3, 0.048766, 2e-5)
	if always.Low > fixed.Low || always.High < fixed.High {
		t.Error("the always-valid interval must be the wider")
	}
	if f, a := Rate(0, 0, DefaultPlannedN); f != (Interval{0, 0, 1}) || a != (Interval{0, 0, 1}) {
		t.Errorf("no exposures must give the whole range, got %+v and %+v", f, a)
	}
}

// By hand: control 300/1,000, treatment 360/1,000. d = 0.06;
// p̃₁ = 361/1002, p̃₀ = 301/1002; Var = 0.230478/1000 + 0.210160/1000 =
// 0.000440638; se = 0.0209914; fixed half-width 1.959964·0.0209914 =
// 0.041142, so the fixed interval [0.018858, 0.101142] excludes 0.
// Always valid: n = 2,000, σ̂ = sqrt(0.000440638·2000) = 0.938763; nρ² =
// 3.17446; 2(4.17446)/(4,000,000·0.00158723) = 8.34892/6348.92 = 0.00131502;
// ln(sqrt(4.17446)/0.05) = ln(40.8630) = 3.71021; product 0.00487901, root
// 0.0698499; radius 0.938763·0.0698499 = 0.065572, so [−0.005572, 0.125572]
// still includes 0.
func TestDifferenceIntervals(t *testing.T) {
	fixed, always := Difference(360, 1000, 300, 1000, DefaultPlannedN)
	near(t, "difference", fixed.Estimate, 0.06, 1e-12)
	near(t, "fixed half-width", fixed.High-0.06, 0.041142, 2e-6)
	near(t, "always-valid half-width", always.High-0.06, 0.065572, 2e-5)
	if !fixed.Excludes(0) || always.Excludes(0) {
		t.Errorf("fixed %+v should exclude 0 and always-valid %+v should not", fixed, always)
	}
}

// The results screen read 'Always valid (95%): +33.3 pts [-805.8, +872.5]':
// at a handful of attempts the confidence sequence's radius is many times
// the width of the range (it is valid for every n at once, so it knows
// little at n = 2), and a difference of two rates can only lie in [−1, 1].
// And at 0% or 100% the plain variance is 0, which made 2 of 2 saves
// against 0 of 2 a zero-width, "significant" interval.
//
// By hand, 2/2 against 0/2: p̃₁ = 3/4, p̃₀ = 1/4, Var = 0.1875/2 + 0.1875/2 =
// 0.1875; at n = 4 the sequence's radius is sqrt(0.75)·sqrt(2(4ρ²+1)/(16ρ²)
// · ln(sqrt(4ρ²+1)/0.05)) = 13.35, so the interval is the whole [−1, 1].
// 1/1 against 0/1: Var = 4/9; radius 29.0 at n = 2: the whole range.
func TestIntervalsAtSmallCountsAndBounds(t *testing.T) {
	whole := Interval{0, -1, 1}
	for _, c := range []struct{ s1, n1, s0, n0 int64 }{{0, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 1}, {3, 5, 0, 0}} {
		if f, a := Difference(c.s1, c.n1, c.s0, c.n0, DefaultPlannedN); f != whole || a != whole {
			t.Errorf("%+v: an arm without exposures gives %+v, %+v; want the whole range", c, f, a)
		}
	}
	// The issue's own numbers: 1 of 1 against 2 of 3 read +33.3 [−805.8, +872.5].
	_, always := Difference(1, 1, 2, 3, DefaultPlannedN)
	if always.Low != -1 || always.High != 1 || math.Abs(always.Estimate-1.0/3) > 1e-12 {
		t.Errorf("1/1 against 2/3: %+v, want +1/3 in [−1, 1]", always)
	}
	_, always = Difference(2, 2, 0, 2, DefaultPlannedN)
	if always != (Interval{1, -1, 1}) {
		t.Errorf("2/2 against 0/2: %+v, want +1 in the whole range [−1, 1]", always)
	}
	_, always = Difference(1, 1, 0, 1, DefaultPlannedN)
	if always != (Interval{1, -1, 1}) {
		t.Errorf("1/1 against 0/1: %+v, want +1 in the whole range", always)
	}
	_, always = Difference(1, 2, 0, 1, DefaultPlannedN)
	if always.Low != -1 || always.High != 1 || always.Estimate != 0.5 {
		t.Errorf("1/2 against 0/1: %+v", always)
	}
	// The same counts with the rates the other way: 0% and 100% are as
	// honest as 50%. 0/2 saved: Wilson's upper bound is
	// (z²/4 + z·sqrt(z²/16))/(1 + z²/2) = (z²/2)/(1 + z²/2) = 0.657620;
	// always-valid radius 13.33: [0, 1].
	fixed, always := Rate(0, 2, DefaultPlannedN)
	near(t, "0/2 fixed high", fixed.High, 0.657620, 2e-6)
	if fixed.Low != 0 || always != (Interval{0, 0, 1}) {
		t.Errorf("0 of 2: fixed %+v, always %+v", fixed, always)
	}
	fixed, always = Rate(2, 2, DefaultPlannedN)
	near(t, "2/2 fixed low", fixed.Low, 1-0.657620, 2e-6)
	if fixed.High != 1 || always != (Interval{1, 0, 1}) {
		t.Errorf("2 of 2: fixed %+v, always %+v", fixed, always)
	}
	// At 0% of 1,000 the interval is narrow but not empty: p̃ = 1/1002,
	// σ̂ = 0.0315755, radius 0.106376·0.0315755 = 0.0033589.
	_, always = Rate(0, 1000, DefaultPlannedN)
	near(t, "0/1000 always high", always.High, 0.0033588, 2e-6)
	// Everybody saved against nobody, 1,000 each: certain, and it says so.
	_, always = Difference(1000, 1000, 0, 1000, DefaultPlannedN)
	if !always.Excludes(0) || always.High != 1 || always.Low > 0.996 || always.Low < 0.99 {
		t.Errorf("1000/1000 against 0/1000: %+v", always)
	}
}

// MoreNeeded answers "how many more cancel attempts": at 300/1,000 against
// 360/1,000 the radius (0.0656) is still above the 0.06 seen; the first total
// whose radius is under it is found by search, and is checked here from
// both sides against the radius itself.
func TestMoreNeeded(t *testing.T) {
	more, ok := MoreNeeded(360, 1000, 300, 1000, DefaultPlannedN)
	if !ok || more <= 0 {
		t.Fatalf("more = %d, %v", more, ok)
	}
	sigma := math.Sqrt(differenceVariance(360, 1000, 300, 1000) * 2000)
	if r := CSRadius(sigma, float64(2000+more), Alpha, DefaultPlannedN); r >= 0.06 {
		t.Errorf("after %d more the radius %.5f is still ≥ 0.06", more, r)
	}
	if r := CSRadius(sigma, float64(2000+more-1), Alpha, DefaultPlannedN); r < 0.06 {
		t.Errorf("%d more is not the least: one fewer gives %.5f", more, r)
	}
	if _, ok := MoreNeeded(300, 1000, 300, 1000, DefaultPlannedN); ok {
		t.Error("no difference can never be told apart")
	}
	if _, ok := MoreNeeded(1, 1, 0, 0, DefaultPlannedN); ok {
		t.Error("an empty control gives no estimate")
	}
	if more, ok := MoreNeeded(1000, 1000, 0, 1000, DefaultPlannedN); !ok || more != 0 {
		t.Errorf("a settled result needs no more, got %d, %v", more, ok)
	}
	// 301/1000 vs 300/1000: 0.1 points is beyond the flow's traffic.
	if more, ok := MoreNeeded(301, 1000, 300, 1000, DefaultPlannedN); ok {
		t.Errorf("0.1 points should need more than %d, got %d", MaxMoreNeeded, more)
	}
}

// MeanMoreNeeded is the same search for retained revenue: 300 of 1,000
// keeping $13.99 each against 250 of 1,000 keeping $17.50 (a mean of $4.197
// against $4.375 a person) needs the least total whose radius, with the
// deviation MeanDifference uses, is under the $0.178 seen; and 0 once the
// always-valid interval already excludes 0.
func TestMeanMoreNeeded(t *testing.T) {
	const a, b = 1399, 1750
	sum1, sq1, sum0, sq0 := int64(300*a), int64(300*a*a), int64(250*b), int64(250*b*b)
	pad := float64(sum1+sum0) / 550
	more, ok := MeanMoreNeeded(sum1, sq1, 1000, sum0, sq0, 1000, pad, DefaultPlannedN)
	if !ok || more <= 0 {
		t.Fatalf("more = %d, %v", more, ok)
	}
	d := math.Abs(float64(sum1)/1000 - float64(sum0)/1000)
	v := meanVariance(sum1, sq1, 1000, pad)/1000 + meanVariance(sum0, sq0, 1000, pad)/1000
	sigma := math.Sqrt(v * 2000)
	if r := CSRadius(sigma, float64(2000+more), Alpha, DefaultPlannedN); r >= d {
		t.Errorf("after %d more the radius %.3f is still ≥ %.3f", more, r, d)
	}
	if r := CSRadius(sigma, float64(2000+more-1), Alpha, DefaultPlannedN); r < d {
		t.Errorf("%d more is not the least: one fewer gives %.3f", more, r)
	}
	_, always := MeanDifference(sum1, sq1, 1000, sum0, sq0, 1000, pad, DefaultPlannedN)
	if always.Excludes(0) {
		t.Fatalf("the interval %+v already excludes 0", always)
	}
	if _, ok := MeanMoreNeeded(sum1, sq1, 1000, sum1, sq1, 1000, pad, DefaultPlannedN); ok {
		t.Error("no difference can never be told apart")
	}
	if more, ok := MeanMoreNeeded(1000*a, 1000*a*a, 1000, 0, 0, 1000, a, DefaultPlannedN); !ok || more != 0 {
		t.Errorf("a settled result needs no more, got %d, %v", more, ok)
	}
}

// The radius falls as n grows (MoreNeeded's search relies on it).
func TestRadiusFalls(t *testing.T) {
	prev := math.Inf(1)
	for n := 1.0; n < 2e7; n *= 1.1 {
		r := CSRadius(1, math.Floor(n), Alpha, DefaultPlannedN)
		if r > prev {
			t.Fatalf("radius rose at n = %v", math.Floor(n))
		}
		prev = r
	}
}

// Whatever the counts, each interval holds its estimate and lies within the
// range the quantity can take: [0, 1] for a rate, [−1, 1] for a difference.
func FuzzIntervals(f *testing.F) {
	f.Add(int64(0), int64(0), int64(0), int64(0))
	f.Add(int64(1), int64(1), int64(0), int64(1))
	f.Add(int64(2), int64(2), int64(0), int64(2))
	f.Add(int64(1), int64(3), int64(2), int64(3))
	f.Add(int64(360), int64(1000), int64(300), int64(1000))
	f.Add(int64(0), int64(1000000), int64(1000000), int64(1000000))
	f.Add(int64(0), int64(999988), int64(999908), int64(999932)) // Wilson's lower bound a hair above 0 by rounding
	f.Fuzz(func(t *testing.T, s1, n1, s0, n0 int64) {
		// Counts as the flow makes them: saves between 0 and exposures.
		n1, n0 = n1%10_000_000, n0%10_000_000
		if n1 < 0 || n0 < 0 || s1 < 0 || s0 < 0 || s1 > n1 || s0 > n0 {
			t.Skip()
		}
		holds := func(what string, i Interval, low, high float64) {
			if math.IsNaN(i.Low) || math.IsNaN(i.High) || i.Low < low || i.High > high || i.Low > i.Estimate || i.Estimate > i.High {
				t.Fatalf("%s of %d/%d vs %d/%d: %+v not within [%v, %v] around its estimate", what, s1, n1, s0, n0, i, low, high)
			}
		}
		f1, a1 := Rate(s1, n1, DefaultPlannedN)
		holds("rate", f1, 0, 1)
		holds("always-valid rate", a1, 0, 1)
		fd, ad := Difference(s1, n1, s0, n0, DefaultPlannedN)
		holds("difference", fd, -1, 1)
		holds("always-valid difference", ad, -1, 1)
		if ad.Low > fd.Low+1e-12 || ad.High < fd.High-1e-12 {
			t.Fatalf("always-valid %+v narrower than fixed %+v", ad, fd)
		}
		// The chance to beat is a probability, and ½ at equal counts.
		if c := ChanceToBeat(s1, n1, s0, n0); math.IsNaN(c) || c < 0 || c > 1 || (s1 == s0 && n1 == n0 && math.Abs(c-0.5) > 1e-9) {
			t.Fatalf("chance to beat of %d/%d vs %d/%d: %v", s1, n1, s0, n0, c)
		}
		// Revenue: the held saves each bring 1,399 cents; the arms' results
		// keep to [0, 1399] and ±1399 around their estimates.
		e := Experiment{Variants: []Variant{{ID: "a", Weight: 1}, {ID: "b", Weight: 1}}}
		arm := func(s, n int64) Counts {
			return Counts{Exposures: n, Saves: s, Revenue: 1399 * s, RevenueSq: 1399 * 1399 * s, RevenueMax: 1399 * min(s, 1)}
		}
		r := Compute(e, 1, map[string]Counts{"a": arm(s0, n0), "b": arm(s1, n1)}, DefaultPlannedN)
		if s0+s1 > 0 && n0 > 0 && n1 > 0 {
			b := r.Variants[1]
			holds("revenue", Interval{b.Revenue.Estimate / 1399, b.Revenue.Low / 1399, b.Revenue.High / 1399}, 0, 1)
			holds("always-valid revenue", Interval{b.RevenueAlways.Estimate / 1399, b.RevenueAlways.Low / 1399, b.RevenueAlways.High / 1399}, 0, 1)
			d := b.RevenueDiffAlways
			holds("always-valid revenue difference", Interval{d.Estimate / 1399, d.Low / 1399, d.High / 1399}, -1, 1)
		}
	})
}

// The point of the always-valid interval: under no effect (both arms save
// 30%), an analyst who reads the interval of the difference every day for 60
// days and stops at the first that excludes 0 is wrong in about α or less of
// experiments with it, and far more often with the fixed-sample interval.
// 2,000 seeded experiments of 50 exposures per arm per day.
func TestPeekingSimulation(t *testing.T) {
	const (
		experiments = 2000
		days        = 60
		perDay      = 50
		rate        = 0.3
	)
	rng := rand.New(rand.NewPCG(11, 2026))
	threshold := uint64(float64(rate) * (1 << 63))
	var fixedWrong, alwaysWrong int
	for range experiments {
		var s0, s1, n int64
		fixedHit, alwaysHit := false, false
		for range days {
			for range perDay {
				if rng.Uint64()>>1 < threshold {
					s0++
				}
				if rng.Uint64()>>1 < threshold {
					s1++
				}
			}
			n += perDay
			fixed, always := Difference(s1, n, s0, n, DefaultPlannedN)
			fixedHit = fixedHit || fixed.Excludes(0)
			alwaysHit = alwaysHit || always.Excludes(0)
		}
		if fixedHit {
			fixedWrong++
		}
		if alwaysHit {
			alwaysWrong++
		}
	}
	fixedRate := float64(fixedWrong) / experiments
	alwaysRate := float64(alwaysWrong) / experiments
	t.Logf("false positives after 60 daily looks: fixed-sample %.3f, always-valid %.3f", fixedRate, alwaysRate)
	// α = 0.05; the binomial sd at 2,000 runs is 0.005, so 0.06 leaves room.
	if alwaysRate > 0.06 {
		t.Errorf("the always-valid interval rejects in %.3f of null experiments, want ≤ about %.2f", alwaysRate, Alpha)
	}
	if fixedRate < 3*Alpha {
		t.Errorf("the fixed-sample interval rejects in only %.3f of null experiments; peeking should inflate it far above %.2f", fixedRate, Alpha)
	}
}

// The verdict reads a mismatch before anything, then missing data, then a
// certain difference, then how long to wait.
func TestVerdict(t *testing.T) {
	e := Experiment{Variants: []Variant{{ID: "a", Weight: 1}, {ID: "b", Weight: 1}, {ID: "c", Weight: 1}}}
	verdict := func(counts map[string]Counts) Verdict { return Compute(e, 1, counts, DefaultPlannedN).Verdict() }
	if v := verdict(nil); v.Kind != VerdictNoData {
		t.Errorf("no counts: %+v", v)
	}
	if v := verdict(map[string]Counts{"a": {Exposures: 5}}); v.Kind != VerdictNoData {
		t.Errorf("only the control: %+v", v)
	}
	// 2,000 / 1,000 / 1,000 of equal weights: χ² = 333, a mismatch whatever the rates.
	if v := verdict(map[string]Counts{"a": {Exposures: 2000, Saves: 600}, "b": {Exposures: 1000, Saves: 600}, "c": {Exposures: 1000}}); v.Kind != VerdictMismatch {
		t.Errorf("mismatch: %+v", v)
	}
	// Two people under 1:9999 weights: χ² is huge, but the test cannot be
	// read with expected counts under five.
	e2 := Experiment{Variants: []Variant{{ID: "a", Weight: 1}, {ID: "b", Weight: 9999}}}
	if r := Compute(e2, 1, map[string]Counts{"a": {Exposures: 1}, "b": {Exposures: 1}}, DefaultPlannedN); r.SRMP >= SRMThreshold || r.Mismatch {
		t.Errorf("1 and 1 under 1:9999: p %v, mismatch %v", r.SRMP, r.Mismatch)
	}
	// c saves 45% against 30% at 2,000 each: certain, and above; b is not.
	v := verdict(map[string]Counts{"a": {Exposures: 2000, Saves: 600}, "b": {Exposures: 2000, Saves: 640}, "c": {Exposures: 2000, Saves: 900}})
	if v.Kind != VerdictBetter || v.Variant != 2 {
		t.Errorf("better: %+v", v)
	}
	v = verdict(map[string]Counts{"a": {Exposures: 2000, Saves: 900}, "b": {Exposures: 2000, Saves: 890}, "c": {Exposures: 2000, Saves: 600}})
	if v.Kind != VerdictWorse || v.Variant != 2 {
		t.Errorf("worse: %+v", v)
	}
	// 36% and 31% against 30% at 1,000 each: neither certain; c's larger
	// difference settles sooner.
	v = verdict(map[string]Counts{"a": {Exposures: 1000, Saves: 300}, "b": {Exposures: 1000, Saves: 310}, "c": {Exposures: 1000, Saves: 360}})
	if v.Kind != VerdictWait || v.Variant != 2 || v.More <= 0 {
		t.Errorf("wait: %+v", v)
	}
	// A tie of a few people says nothing yet: wait for the planned 5,000.
	v = verdict(map[string]Counts{"a": {Exposures: 1, Saves: 1}, "b": {Exposures: 1, Saves: 1}, "c": {Exposures: 1, Saves: 1}})
	if v.Kind != VerdictWait || !v.Planned || v.More != DefaultPlannedN-3 {
		t.Errorf("an early tie: %+v", v)
	}
	v = verdict(map[string]Counts{"a": {Exposures: 2000, Saves: 600}, "b": {Exposures: 2000, Saves: 600}, "c": {Exposures: 2000, Saves: 600}})
	if v.Kind != VerdictSame {
		t.Errorf("same: %+v", v)
	}
}

// TestWilsonAgainstNewcombe checks the fixed interval of a rate against the
// Wilson score intervals published by Newcombe (1998), "Two-sided confidence
// intervals for the single proportion: comparison of seven methods",
// Statistics in Medicine 17, Table I (method 3), and the 3 saves in 12 the
// experiments page showed as 25.0% [0.0%, 50.6%].
func TestWilsonAgainstNewcombe(t *testing.T) {
	for _, c := range []struct {
		s, n      int64
		low, high float64
	}{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0, 0.1611},
		{1, 29, 0.0061, 0.1718},
		{3, 12, 0.0889, 0.5323},
	} {
		fixed, _ := Rate(c.s, c.n, DefaultPlannedN)
		near(t, fmt.Sprintf("%d/%d low", c.s, c.n), fixed.Low, c.low, 5e-5)
		near(t, fmt.Sprintf("%d/%d high", c.s, c.n), fixed.High, c.high, 5e-5)
	}
}
