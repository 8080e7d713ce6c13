package experiment

import "math"

// Alpha is the error rate of every interval and test here: 95% intervals.
const Alpha = 0.05

// z95 is the standard normal quantile at 1 − α/2 = 0.975.
const z95 = 1.959963984540054

// DefaultPlannedN is n*, the total sample size the always-valid interval is
// tightest at (GrowthBook's default tuning).
const DefaultPlannedN = 5000

// SRMThreshold is the p-value under which a sample ratio mismatch is raised.
const SRMThreshold = 0.001

// Interval is an estimate with its lower and upper bounds.
type Interval struct {
	Estimate, Low, High float64
}

// Excludes reports whether x lies outside the interval.
func (i Interval) Excludes(x float64) bool { return x < i.Low || x > i.High }

// bernoulliVariance is the per-observation variance of s successes in n
// trials, estimated with one success and one failure added (Agresti and
// Caffo, 2000). The plain estimate p̂(1−p̂) is zero at 0% and 100%, which
// would give a zero-width interval after one or two attempts (2 of 2 saved
// against 0 of 2 read as certain); the added pair keeps it honest there and
// changes little once n is in the hundreds.
func bernoulliVariance(s, n int64) float64 {
	p := (float64(s) + 1) / (float64(n) + 2)
	return p * (1 - p)
}

// clamp bounds an interval to [low, high], the values the quantity can take:
// a rate lies in [0, 1] and a difference of two rates in [−1, 1], so an
// interval reaching past them says nothing more than the bound does. The
// estimate lies in the range, so the clamped interval still holds it.
func clamp(i Interval, low, high float64) Interval {
	return Interval{Estimate: i.Estimate, Low: max(i.Low, low), High: min(i.High, high)}
}

// Rate is a proportion with its fixed-sample 95% interval, Wilson's score
// interval, and its always-valid 95% interval: successes of n, with n* the
// planned size. Both lie within [0, 1]; with no trials both are the whole
// of it.
func Rate(successes, n int64, plannedN float64) (fixed, always Interval) {
	if n <= 0 {
		return Interval{0, 0, 1}, Interval{0, 0, 1}
	}
	p := float64(successes) / float64(n)
	variance := bernoulliVariance(successes, n) // per observation
	fixed = wilson(successes, n)
	r := CSRadius(math.Sqrt(variance), float64(n), Alpha, plannedN)
	always = clamp(Interval{p, p - r, p + r}, 0, 1)
	return fixed, always
}

// wilson is the Wilson score interval of s successes in n trials (Wilson,
// 1927; Newcombe, 1998, method 3): the rates p whose test |p̂ − p| ≤
// z·sqrt(p(1−p)/n) does not reject,
//
//	(p̂ + z²/2n ± z·sqrt(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n).
//
// Unlike p̂ ± z·se it never leaves [0, 1] and is not pinned to 0 by a few
// trials: 3 saves in 12 attempts is 25% in [8.9%, 53.2%], where the normal
// approximation gave [0.0%, 50.6%].
func wilson(s, n int64) Interval {
	p, nf := float64(s)/float64(n), float64(n)
	z2 := z95 * z95
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := z95 * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / (1 + z2/nf)
	// The bounds hold p̂ (exactly 0 at no success, 1 at all): rounding at a
	// million trials can leave a lower bound of 0 a hair above it.
	return clamp(Interval{p, min(centre-half, p), max(centre+half, p)}, 0, 1)
}

// Difference is treatment's rate minus control's with both intervals, each
// within [−1, 1]; while an arm has no trials both are the whole of it. The
// variance of the difference is p̃₁(1−p̃₁)/n₁ + p̃₀(1−p̃₀)/n₀ (bernoulliVariance);
// the always-valid interval treats it as σ̂²/n with n = n₀ + n₁
// observations, so σ̂ = sqrt(n·Var), as GrowthBook's sequential engine does.
func Difference(s1, n1, s0, n0 int64, plannedN float64) (fixed, always Interval) {
	if n1 <= 0 || n0 <= 0 {
		return Interval{0, -1, 1}, Interval{0, -1, 1}
	}
	p1, p0 := float64(s1)/float64(n1), float64(s0)/float64(n0)
	d := p1 - p0
	v := differenceVariance(s1, n1, s0, n0)
	se := math.Sqrt(v)
	fixed = clamp(Interval{d, d - z95*se, d + z95*se}, -1, 1)
	n := float64(n1 + n0)
	r := CSRadius(math.Sqrt(v*n), n, Alpha, plannedN)
	always = clamp(Interval{d, d - r, d + r}, -1, 1)
	return fixed, always
}

// differenceVariance is the variance of p₁ − p₀ (bernoulliVariance per arm).
func differenceVariance(s1, n1, s0, n0 int64) float64 {
	return bernoulliVariance(s1, n1)/float64(n1) + bernoulliVariance(s0, n0)/float64(n0)
}

// MaxMoreNeeded bounds MoreNeeded's search: past it a difference is too
// small for the flow's traffic to show.
const MaxMoreNeeded = 10_000_000

// MoreNeeded estimates how many more observations (both arms together, in
// their present proportions) the always-valid interval of the difference
// needs before it excludes 0, if the rates stay as they are: the smallest
// total N whose radius, with the per-observation deviation seen so far, is
// under |d|, less the n observed. ok is false when no number will do: no
// difference so far, no trials in an arm, or more than MaxMoreNeeded.
func MoreNeeded(s1, n1, s0, n0 int64, plannedN float64) (more int64, ok bool) {
	if n1 <= 0 || n0 <= 0 {
		return 0, false
	}
	d := math.Abs(float64(s1)/float64(n1) - float64(s0)/float64(n0))
	n := n1 + n0
	return moreNeeded(d, math.Sqrt(differenceVariance(s1, n1, s0, n0)*float64(n)), n, plannedN)
}

// MeanMoreNeeded is MoreNeeded for a difference of means (retained revenue
// per attempt): the per-observation deviation is MeanDifference's,
// sqrt(n·Var(d)) with meanVariance per arm.
func MeanMoreNeeded(sum1, sq1, n1, sum0, sq0, n0 int64, pad float64, plannedN float64) (more int64, ok bool) {
	if n1 <= 0 || n0 <= 0 {
		return 0, false
	}
	d := math.Abs(float64(sum1)/float64(n1) - float64(sum0)/float64(n0))
	n := n1 + n0
	v := meanVariance(sum1, sq1, n1, pad)/float64(n1) + meanVariance(sum0, sq0, n0, pad)/float64(n0)
	return moreNeeded(d, math.Sqrt(v*float64(n)), n, plannedN)
}

// moreNeeded is the search both share: the smallest total N ≥ n whose
// confidence-sequence radius with deviation sigma is under d, less n.
func moreNeeded(d, sigma float64, n int64, plannedN float64) (more int64, ok bool) {
	if d == 0 {
		return 0, false
	}
	enough := func(total int64) bool { return CSRadius(sigma, float64(total), Alpha, plannedN) < d }
	if enough(n) {
		return 0, true
	}
	if !enough(n + MaxMoreNeeded) {
		return 0, false
	}
	// The radius falls as n grows, so the first total that is enough is
	// found by halving.
	low, high := n, n+MaxMoreNeeded
	for high-low > 1 {
		mid := low + (high-low)/2
		if enough(mid) {
			high = mid
		} else {
			low = mid
		}
	}
	return high - n, true
}

// CSRadius is the half-width of the two-sided asymptotic confidence sequence
// of Waudby-Smith et al. (2024) after n observations with per-observation
// standard deviation sigma:
//
//	sigma · sqrt( 2(nρ² + 1) / (n²ρ²) · ln( sqrt(nρ² + 1) / α ) ),
//	ρ² = (−2 ln α + ln(−2 ln α + 1)) / n*.
//
// It holds at every n at once, so the interval may be read every day.
func CSRadius(sigma, n, alpha, plannedN float64) float64 {
	if n <= 0 {
		return math.Inf(1)
	}
	if plannedN <= 0 {
		plannedN = DefaultPlannedN
	}
	l := -2 * math.Log(alpha)
	rho2 := (l + math.Log(l+1)) / plannedN
	return sigma * math.Sqrt(2*(n*rho2+1)/(n*n*rho2)*math.Log(math.Sqrt(n*rho2+1)/alpha))
}

// SRM is Pearson's chi-squared goodness-of-fit test of observed counts
// against the shares the weights give, with k − 1 degrees of freedom. It
// returns the statistic and its p-value; with no observations the p-value
// is 1.
func SRM(observed []int64, weights []int) (chi2, p float64) {
	var total int64
	wsum := 0
	k := 0
	for i, o := range observed {
		if weights[i] > 0 {
			total += o
			wsum += weights[i]
			k++
		}
	}
	if total == 0 || k < 2 {
		return 0, 1
	}
	for i, o := range observed {
		if weights[i] <= 0 {
			continue
		}
		e := float64(total) * float64(weights[i]) / float64(wsum)
		d := float64(o) - e
		chi2 += d * d / e
	}
	return chi2, ChiSquaredSurvival(chi2, float64(k-1))
}

// ChiSquaredSurvival is P(X > x) for X chi-squared with df degrees of
// freedom: the regularized upper incomplete gamma function Q(df/2, x/2).
func ChiSquaredSurvival(x, df float64) float64 {
	if x <= 0 {
		return 1
	}
	return gammaQ(df/2, x/2)
}

// gammaQ is the regularized upper incomplete gamma function Q(a, x), by its
// power series when x < a+1 and by its continued fraction (modified Lentz)
// otherwise, as in Numerical Recipes §6.2.
func gammaQ(a, x float64) float64 {
	if x < a+1 {
		return 1 - gammaPSeries(a, x)
	}
	return gammaQFraction(a, x)
}

const (
	gammaEps   = 1e-15
	gammaIters = 1000
)

func logGammaPrefix(a, x float64) float64 {
	lg, _ := math.Lgamma(a)
	return a*math.Log(x) - x - lg
}

// gammaPSeries is P(a, x) = e^−x x^a / Γ(a) · Σ x^n / (a(a+1)…(a+n)).
func gammaPSeries(a, x float64) float64 {
	sum := 1 / a
	term := sum
	ap := a
	for range gammaIters {
		ap++
		term *= x / ap
		sum += term
		if math.Abs(term) < math.Abs(sum)*gammaEps {
			break
		}
	}
	return sum * math.Exp(logGammaPrefix(a, x))
}

// gammaQFraction is Q(a, x) = e^−x x^a / Γ(a) · 1/(x+1−a− 1·(1−a)/(x+3−a− …)).
func gammaQFraction(a, x float64) float64 {
	const tiny = 1e-300
	b := x + 1 - a
	c := 1 / tiny
	d := 1 / b
	h := d
	for i := 1; i <= gammaIters; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < gammaEps {
			break
		}
	}
	return math.Exp(logGammaPrefix(a, x)) * h
}

// ProbBeats is P(p_B > p_A) for p_A ~ Beta(αA, βA) and p_B ~ Beta(αB, βB)
// with integer αB (Evan Miller, "Formulas for Bayesian A/B Testing",
// evanmiller.org/bayesian-ab-testing.html):
//
//	Σ_{i=0}^{αB−1} B(αA+i, βB+βA) / ((βB+i) · B(1+i, βB) · B(αA, βA)),
//
// each term in log space (lgamma), so counts in the thousands neither
// overflow nor underflow. The sum has αB terms; by symmetry
// (P(p_B > p_A) = 1 − P(p_A > p_B) for continuous posteriors) it runs over
// the smaller of αA and αB. Past maxBetaTerms terms (a million saves in
// both arms) the posteriors are normal to many decimals and their normal
// approximation answers.
func ProbBeats(alphaA, betaA, alphaB, betaB float64) float64 {
	if alphaA < alphaB {
		return clamp01(1 - ProbBeats(alphaB, betaB, alphaA, betaA))
	}
	if alphaB > maxBetaTerms {
		ma, mb := alphaA/(alphaA+betaA), alphaB/(alphaB+betaB)
		va := alphaA * betaA / ((alphaA + betaA) * (alphaA + betaA) * (alphaA + betaA + 1))
		vb := alphaB * betaB / ((alphaB + betaB) * (alphaB + betaB) * (alphaB + betaB + 1))
		return 0.5 * math.Erfc(-(mb-ma)/math.Sqrt(2*(va+vb)))
	}
	lbAA := logBeta(alphaA, betaA)
	total := 0.0
	for i := 0.0; i < alphaB; i++ {
		total += math.Exp(logBeta(alphaA+i, betaB+betaA) - math.Log(betaB+i) - logBeta(1+i, betaB) - lbAA)
	}
	return clamp01(total)
}

// maxBetaTerms bounds ProbBeats's sum (see there).
const maxBetaTerms = 1_000_000

func logBeta(a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return la + lb - lab
}

func clamp01(x float64) float64 { return min(max(x, 0), 1) }

// ChanceToBeat is the probability that a variant's true save rate is above
// the control's, given s₁ held saves of n₁ and s₀ of n₀, under a uniform
// Beta(1, 1) prior on each rate: the posteriors are Beta(s+1, n−s+1)
// (ProbBeats). With nobody exposed in an arm it is ½: nothing is known.
func ChanceToBeat(s1, n1, s0, n0 int64) float64 {
	if n1 <= 0 || n0 <= 0 {
		return 0.5
	}
	s1, s0 = min(max(s1, 0), n1), min(max(s0, 0), n0)
	return ProbBeats(float64(s0+1), float64(n0-s0+1), float64(s1+1), float64(n1-s1+1))
}

// Mean is a per-person average (retained revenue per exposed person, in
// minor units) with its fixed-sample and always-valid 95% intervals, from
// n people whose values sum to sum with squares summing to sumSq. The
// per-person variance is the sample's with one value of pad and one of 0
// added (meanVariance): with no spread seen yet (every value 0, or one
// person) the interval is not a point. The lower bounds stop at 0 (revenue
// is never negative).
func Mean(sum, sumSq, n int64, pad float64, plannedN float64) (fixed, always Interval) {
	if n <= 0 {
		return Interval{}, Interval{High: math.Inf(1)}
	}
	m := float64(sum) / float64(n)
	v := meanVariance(sum, sumSq, n, pad)
	se := math.Sqrt(v / float64(n))
	fixed = Interval{m, max(m-z95*se, 0), m + z95*se}
	r := CSRadius(math.Sqrt(v), float64(n), Alpha, plannedN)
	always = Interval{m, max(m-r, 0), m + r}
	return fixed, always
}

// meanVariance is the per-person variance of n values (sum, sumSq) with one
// value of pad and one of 0 added, as Agresti and Caffo add a success and a
// failure to a rate: for revenue pad is the average revenue of a held save
// across the arms, and when every save brings the same amount r the result
// is r²·p̃(1−p̃), bernoulliVariance scaled by r². It is the variance of the
// n + 2 values about their own mean (the population form, as p̃(1−p̃) is).
func meanVariance(sum, sumSq, n int64, pad float64) float64 {
	k := float64(n) + 2
	m := (float64(sum) + pad) / k
	return max((float64(sumSq)+pad*pad)/k-m*m, 0)
}

// MeanDifference is treatment's mean minus control's with both intervals:
// Var(d) = σ̂₁²/n₁ + σ̂₀²/n₀ (meanVariance per arm), the fixed-sample
// interval d ± z·sqrt(Var(d)), and the always-valid one with the confidence
// sequence's radius for n = n₀ + n₁ and σ̂ = sqrt(n·Var(d)), as Difference
// does for rates. While an arm has nobody both are unbounded.
func MeanDifference(sum1, sq1, n1, sum0, sq0, n0 int64, pad float64, plannedN float64) (fixed, always Interval) {
	if n1 <= 0 || n0 <= 0 {
		return Interval{Low: math.Inf(-1), High: math.Inf(1)}, Interval{Low: math.Inf(-1), High: math.Inf(1)}
	}
	d := float64(sum1)/float64(n1) - float64(sum0)/float64(n0)
	v := meanVariance(sum1, sq1, n1, pad)/float64(n1) + meanVariance(sum0, sq0, n0, pad)/float64(n0)
	se := math.Sqrt(v)
	fixed = Interval{d, d - z95*se, d + z95*se}
	n := float64(n1 + n0)
	r := CSRadius(math.Sqrt(v*n), n, Alpha, plannedN)
	always = Interval{d, d - r, d + r}
	return fixed, always
}
