package experiment

import (
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

// By hand: 300 saves of 1,000 exposures: p = 0.3, se = sqrt(0.21/1000) =
// 0.0144914, so the 95% interval is 0.3 ± 1.959964·0.0144914 = 0.3 ± 0.028403.
//
// The confidence sequence with α = 0.05, n* = 5,000: −2 ln α = 5.991465,
// ρ² = (5.991465 + ln 6.991465)/5000 = (5.991465 + 1.944691)/5000 = 0.00158723.
// At n = 1,000: nρ² = 1.58723; 2(nρ²+1)/(n²ρ²) = 5.17446/1587.23 = 0.00326007;
// ln(sqrt(2.58723)/0.05) = ln(32.1697) = 3.47103; product 0.0113158, root
// 0.106376; times σ̂ = sqrt(0.21) = 0.458258 → radius 0.048748.
func TestRateIntervals(t *testing.T) {
	fixed, always := Rate(300, 1000, DefaultPlannedN)
	near(t, "estimate", fixed.Estimate, 0.3, 1e-12)
	near(t, "fixed half-width", fixed.High-0.3, 0.028403, 2e-6)
	near(t, "always-valid half-width", always.High-0.3, 0.048748, 2e-5)
	if always.Low > fixed.Low || always.High < fixed.High {
		t.Error("the always-valid interval must be the wider")
	}
	if f, a := Rate(0, 0, DefaultPlannedN); f != (Interval{}) || a != (Interval{}) {
		t.Error("no exposures give no interval")
	}
}

// By hand: control 300/1,000, treatment 360/1,000. d = 0.06;
// Var = 0.3·0.7/1000 + 0.36·0.64/1000 = 0.00021 + 0.0002304 = 0.0004404;
// se = 0.0209857; fixed half-width 1.959964·0.0209857 = 0.041131, so the
// fixed interval [0.018869, 0.101131] excludes 0.
// Always valid: n = 2,000, σ̂ = sqrt(0.0004404·2000) = 0.938510; nρ² =
// 3.17446; 2(4.17446)/(4,000,000·0.00158723) = 8.34892/6348.92 = 0.00131502;
// ln(sqrt(4.17446)/0.05) = ln(40.8630) = 3.71021; product 0.00487901, root
// 0.0698499; radius 0.938510·0.0698499 = 0.065555, so [−0.005555, 0.125555]
// still includes 0.
func TestDifferenceIntervals(t *testing.T) {
	fixed, always := Difference(360, 1000, 300, 1000, DefaultPlannedN)
	near(t, "difference", fixed.Estimate, 0.06, 1e-12)
	near(t, "fixed half-width", fixed.High-0.06, 0.041131, 2e-6)
	near(t, "always-valid half-width", always.High-0.06, 0.065555, 2e-5)
	if !fixed.Excludes(0) || always.Excludes(0) {
		t.Errorf("fixed %+v should exclude 0 and always-valid %+v should not", fixed, always)
	}
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
