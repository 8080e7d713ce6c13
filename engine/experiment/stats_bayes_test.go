package experiment

import (
	"math"
	"testing"
)

// TestProbBeatsAgainstCprior checks Evan Miller's closed form against the
// published reference values of the cprior library's test suite
// (Navas-Palencia, github.com/guillermo-navas-palencia/cprior,
// tests/test_beta.py: beta_cprior(a0, b0, a1, b1) = P(X1 > X0) for
// X0 ~ Beta(a0, b0), X1 ~ Beta(a1, b1), computed there to 1e-8 relative).
func TestProbBeatsAgainstCprior(t *testing.T) {
	for _, c := range []struct{ a0, b0, a1, b1, want float64 }{
		{10, 50, 60, 250, 0.7088919200},
		{600, 550, 52, 60, 0.1223144258},
		{1000, 900, 1200, 1000, 0.8898254504},
		{1000, 900, 1200, 800, 0.9999982656},
		{100, 90, 100, 90, 0.5},
	} {
		got := ProbBeats(c.a0, c.b0, c.a1, c.b1)
		if math.Abs(got-c.want) > 1e-8*c.want {
			t.Errorf("ProbBeats(%v, %v, %v, %v) = %.10f, want %.10f", c.a0, c.b0, c.a1, c.b1, got, c.want)
		}
	}
}

// betaByIntegration is P(p_B > p_A) = ∫₀¹ f_B(x)·F_A(x) dx, integrated
// numerically on a grid (the densities from lgamma, F_A by the trapezoid
// rule as it goes): a computation independent of the closed form.
func betaByIntegration(aA, bA, aB, bB float64) float64 {
	const n = 400_000
	h := 1.0 / n
	dens := func(a, b, x float64) float64 {
		if x <= 0 || x >= 1 {
			if (x <= 0 && a == 1) || (x >= 1 && b == 1) {
				return math.Exp(-logBeta(a, b))
			}
			return 0
		}
		return math.Exp((a-1)*math.Log(x) + (b-1)*math.Log1p(-x) - logBeta(a, b))
	}
	cdfA, prevA, prevB, total := 0.0, dens(aA, bA, 0), dens(aB, bB, 0), 0.0
	for i := 1; i <= n; i++ {
		x := float64(i) * h
		fa, fb := dens(aA, bA, x), dens(aB, bB, x)
		next := cdfA + (prevA+fa)*h/2
		total += (prevB*cdfA + fb*next) * h / 2
		cdfA, prevA, prevB = next, fa, fb
	}
	return total
}

// TestChanceToBeatAgainstIntegration checks the chance to beat the control
// (uniform prior: Beta(s+1, n−s+1) posteriors) against numerical
// integration, at the small counts the results screen shows first and at
// a few hundred.
func TestChanceToBeatAgainstIntegration(t *testing.T) {
	for _, c := range []struct{ s1, n1, s0, n0 int64 }{
		{1, 1, 0, 1},   // Beta(2,1) vs Beta(1,2): exactly 5/6
		{3, 12, 1, 12}, // Newcombe's 3 in 12 against 1 in 12
		{2, 3, 1, 3},
		{0, 2, 2, 2},
		{36, 100, 30, 100},
		{360, 1000, 300, 1000},
	} {
		got := ChanceToBeat(c.s1, c.n1, c.s0, c.n0)
		want := betaByIntegration(float64(c.s0+1), float64(c.n0-c.s0+1), float64(c.s1+1), float64(c.n1-c.s1+1))
		if math.Abs(got-want) > 1e-6 {
			t.Errorf("ChanceToBeat(%d/%d vs %d/%d) = %.8f, integration %.8f", c.s1, c.n1, c.s0, c.n0, got, want)
		}
	}
	// P(Beta(2,1) > Beta(1,2)) = ∫ 2x · (1 − (1−x)²) dx = 1 − ∫2x(1−x)² dx = 1 − 1/6.
	if got := ChanceToBeat(1, 1, 0, 1); math.Abs(got-5.0/6) > 1e-12 {
		t.Errorf("1 of 1 vs 0 of 1: %v, want 5/6", got)
	}
	if got := ChanceToBeat(5, 10, 5, 10); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("equal counts: %v, want 1/2", got)
	}
	if got := ChanceToBeat(0, 0, 5, 10); got != 0.5 {
		t.Errorf("nobody exposed: %v, want 1/2", got)
	}
	// Symmetry, and the sum over the smaller shape: both orders agree.
	a, b := ChanceToBeat(700, 1000, 300, 1000), ChanceToBeat(300, 1000, 700, 1000)
	if math.Abs(a+b-1) > 1e-12 || a < 0.999999 {
		t.Errorf("700 vs 300 of 1000: %v and %v", a, b)
	}
	// Past the closed form's bound the normal approximation answers, and
	// agrees with the sum where both apply.
	if got := ProbBeats(2_000_001, 3_000_001, 2_010_001, 2_990_001); got < 0.9999 {
		t.Errorf("a million saves: %v", got)
	}
}

// TestRevenueByHand checks the mean, variance and intervals of retained
// revenue per person against computations written out here.
func TestRevenueByHand(t *testing.T) {
	near := func(name string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.6f, want %.6f", name, got, want)
		}
	}
	// Five people, two held saves of $13.99 (1,399 cents), pad 1,399:
	// with the pair added the values are 1399, 1399, 1399, 0×4 (k = 7):
	// mean' = 4197/7 = 599.571429, E[x²]' = 3·1399²/7 = 838800.428571,
	// σ̂² = 838800.428571 − 599.571429² = 479314.530612 = 1399²·(3/7)(4/7).
	near("variance", meanVariance(2798, 2*1399*1399, 5, 1399), 479314.530612, 1e-5)
	near("r²·p̃(1−p̃)", meanVariance(2798, 2*1399*1399, 5, 1399), 1399*1399*bernoulliVariance(2, 5), 1e-6)
	// mean 559.6, se = sqrt(479314.530612/5) = 309.617354,
	// fixed = 559.6 ± 1.959964·309.617354 = [−47.24 → 0, 1166.438864].
	fixed, always := Mean(2798, 2*1399*1399, 5, 1399, DefaultPlannedN)
	near("mean", fixed.Estimate, 559.6, 1e-9)
	near("fixed low", fixed.Low, 0, 0)
	near("fixed high", fixed.High, 1166.438864, 1e-5)
	// Always valid: radius CSRadius(692.325, 5) = 8546.524625.
	near("always high", always.High, 559.6+8546.524625, 1e-4)

	// 1,000 people in B: 200 saves at $13.99 and 100 plan changes at
	// $17.50 (1,750); 1,000 in A: 250 saves at $13.99. Pad: all revenue
	// over all held saves, (200·1399 + 100·1750 + 250·1399)/550 = 1462.818182.
	sB, qB := int64(200*1399+100*1750), int64(200*1399*1399+100*1750*1750)
	sA, qA := int64(250*1399), int64(250*1399*1399)
	pad := float64(sA+sB) / 550
	near("pad", pad, 1462.818182, 1e-5)
	// σ̂²_B = (qB + pad²)/1002 − ((sB + pad)/1002)² = 491087.623009;
	// σ̂²_A likewise = 367600.650547.
	near("var B", meanVariance(sB, qB, 1000, pad), 491087.623009, 1e-4)
	near("var A", meanVariance(sA, qA, 1000, pad), 367600.650547, 1e-4)
	// B: mean 454.8, fixed 454.8 ± 1.959964·sqrt(491087.623/1000) = [411.366224, 498.233776];
	// always-valid radius CSRadius(sqrt(491087.623), 1000) = 74.545424.
	fixed, always = Mean(sB, qB, 1000, pad, DefaultPlannedN)
	near("B low", fixed.Low, 411.366224, 1e-5)
	near("B high", fixed.High, 498.233776, 1e-5)
	near("B always", always.High-always.Estimate, 74.545424, 1e-5)
	// d = 454.8 − 349.75 = 105.05, Var = (491087.623 + 367600.651)/1000,
	// fixed [47.616424, 162.483576]; always-valid radius at n = 2000 with
	// σ̂ = sqrt(2000·Var) = 91.537296: [13.51, 196.59], excludes 0.
	fixed, always = MeanDifference(sB, qB, 1000, sA, qA, 1000, pad, DefaultPlannedN)
	near("d", fixed.Estimate, 105.05, 1e-9)
	near("d low", fixed.Low, 47.616424, 1e-5)
	near("d high", fixed.High, 162.483576, 1e-5)
	near("d radius", always.High-always.Estimate, 91.537296, 1e-5)
	if !always.Excludes(0) {
		t.Errorf("the revenue difference should be settled: %+v", always)
	}
	// Nobody exposed: nothing is known.
	if _, a := Mean(0, 0, 0, 0, DefaultPlannedN); !math.IsInf(a.High, 1) {
		t.Errorf("no people: %+v", a)
	}
}

// TestCompareToBaseline checks that the arm compared against is a
// parameter: a holdout named as the baseline gets the control's place.
func TestCompareToBaseline(t *testing.T) {
	e := Experiment{ID: "x", Variants: []Variant{{ID: "a", Weight: 1}, {ID: "b", Weight: 1}, {ID: "holdout", Weight: 1}}}
	counts := map[string]Counts{"a": {Exposures: 100, Saves: 30}, "b": {Exposures: 100, Saves: 40}, "holdout": {Exposures: 100, Saves: 10}}
	r := CompareTo(e, 1, counts, DefaultPlannedN, "holdout")
	if r.Baseline != 2 {
		t.Fatalf("baseline %d, want 2", r.Baseline)
	}
	if d := r.Variants[0].Diff.Estimate; math.Abs(d-0.2) > 1e-12 {
		t.Errorf("control vs holdout: %v, want +0.20", d)
	}
	if r.Variants[2].ChanceToBeat != 0.5 || r.Variants[2].Diff != (Interval{}) {
		t.Errorf("the baseline itself: %+v", r.Variants[2])
	}
	if got := r.Variants[1].ChanceToBeat; got < 0.9999 {
		t.Errorf("40 vs 10 of 100: chance %v", got)
	}
	if v := r.Verdict(); v.Kind != VerdictBetter || v.Variant != 1 {
		t.Errorf("verdict %+v, want b better than the holdout", v)
	}
	if c := Compute(e, 1, counts, DefaultPlannedN); c.Baseline != 0 || c.Variants[1].Diff.Estimate < 0.099 {
		t.Errorf("default baseline: %+v", c.Baseline)
	}
}

// TestRevenueIntervalsStayWithinWhatRevenueCanBe: at two people the
// confidence sequence's radius is many times any revenue (as it was many
// times 100 points for rates); the intervals keep to [0, the largest
// revenue a save brought] per arm and ± it for a difference.
func TestRevenueIntervalsStayWithinWhatRevenueCanBe(t *testing.T) {
	e := Experiment{ID: "x", Variants: []Variant{{ID: "a", Weight: 1}, {ID: "b", Weight: 1}}}
	one := Counts{Exposures: 1, Saves: 1, Revenue: 429, RevenueSq: 429 * 429, RevenueMax: 429}
	r := Compute(e, 1, map[string]Counts{"a": one, "b": one}, DefaultPlannedN)
	b := r.Variants[1]
	if b.RevenueDiffAlways != (Interval{0, -429, 429}) {
		t.Errorf("difference %+v, want 0 in [-429, 429]", b.RevenueDiffAlways)
	}
	if b.RevenueAlways != (Interval{429, 0, 429}) {
		t.Errorf("always-valid mean %+v, want 429 in [0, 429]", b.RevenueAlways)
	}
	// The fixed interval of one arm, [32.63, 825.37] unclamped (TestRevenueByHand's way: σ̂² = 40898), keeps to 429.
	if b.Revenue.High != 429 || math.Abs(b.Revenue.Low-32.63) > 0.01 {
		t.Errorf("fixed mean %+v", b.Revenue)
	}
	if b.RevenueSignificant {
		t.Error("two people settled the revenue")
	}
}

// TestCSRadiusAgainstGrowthBook checks the confidence sequence's radius
// against the published expected intervals of GrowthBook's statistics
// engine (github.com/growthbook/growthbook, packages/stats/tests/frequentist/
// test_tests.py, TestSequentialTTest: test_sequential_test_runs with n* =
// 1000 and test_sequential_test_runs_prop with the default n* = 5000). Both
// are relative lifts (B − A)/A whose variance is the delta method's,
// σ²_B/(μ_A² n_B) + σ²_A μ_B²/(μ_A⁴ n_A), computed here as GrowthBook does
// (sample variance with n − 1 for means, p(1 − p) for proportions); the
// radius is CSRadius(sqrt(N·Var), N) with N = n_A + n_B, as in stats.go.
func TestCSRadiusAgainstGrowthBook(t *testing.T) {
	relative := func(ma, va, na, mb, vb, nb float64) (d, v float64) {
		return (mb - ma) / ma, vb/(ma*ma*nb) + va*mb*mb/(ma*ma*ma*ma*na)
	}
	sampleVar := func(sum, sumSq, n float64) float64 { return (sumSq - sum*sum/n) / (n - 1) }
	for _, c := range []struct {
		name                     string
		ma, va, na, mb, vb, nb   float64
		plannedN                 float64
		wantD, wantLow, wantHigh float64
	}{
		{"means, n* = 1000", 1396.87 / 3000, sampleVar(1396.87, 52377.9767, 3000), 3000,
			2422.7 / 3461, sampleVar(2422.7, 134698.29, 3461), 3461, 1000, 0.50336, -0.55844, 1.56516},
		{"proportions, n* = 5000", 1396.0 / 3000, (1396.0 / 3000) * (1 - 1396.0/3000), 3000,
			2422.0 / 3461, (2422.0 / 3461) * (1 - 2422.0/3461), 3461, 5000, 0.50386, 0.40098, 0.60675},
	} {
		d, v := relative(c.ma, c.va, c.na, c.mb, c.vb, c.nb)
		n := c.na + c.nb
		r := CSRadius(math.Sqrt(v*n), n, Alpha, c.plannedN)
		// GrowthBook rounds its expected values to five places.
		for _, x := range []struct {
			what      string
			got, want float64
		}{
			{"estimate", d, c.wantD}, {"low", d - r, c.wantLow}, {"high", d + r, c.wantHigh}} {
			if math.Abs(x.got-x.want) > 0.5e-5 {
				t.Errorf("%s: %s %.6f, GrowthBook %.5f", c.name, x.what, x.got, x.want)
			}
		}
	}
}

// BenchmarkComputeAtAMillionPeople: the chance to beat sums one term per
// held save of the smaller arm, so a phase of a million exposed people
// with 30% saved is its costliest case (about 300,000 terms).
func BenchmarkComputeAtAMillionPeople(b *testing.B) {
	e := Experiment{ID: "x", Variants: []Variant{{ID: "a", Weight: 1}, {ID: "b", Weight: 1}}}
	counts := map[string]Counts{
		"a": {Exposures: 500_000, Saves: 150_000, Revenue: 150_000 * 1399, RevenueSq: 150_000 * 1399 * 1399, RevenueMax: 1399},
		"b": {Exposures: 500_000, Saves: 151_000, Revenue: 151_000 * 1399, RevenueSq: 151_000 * 1399 * 1399, RevenueMax: 1399},
	}
	for b.Loop() {
		Compute(e, 1, counts, DefaultPlannedN)
	}
}
