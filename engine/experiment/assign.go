package experiment

import "strconv"

// FNV-1a, 32 bits (offset basis 2166136261, prime 16777619).
func fnv1a32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// Hash places a subscriber in [0, 1) for one experiment, as GrowthBook's
// SDKs do with hash version 2: the FNV-1a hash of seed+id, hashed again as
// its decimal string, modulo 10,000, over 10,000. The seed is the
// experiment's id, so one person's places in two experiments are
// independent.
func Hash(seed, id string) float64 {
	n := fnv1a32(seed + id)
	return float64(fnv1a32(strconv.FormatUint(uint64(n), 10))%10000) / 10000
}

// Choose returns the index of the variant whose range holds x: variants own
// contiguous ranges of [0, 1) in order, each as wide as its share of the
// total weight. Weights of zero own nothing.
func Choose(x float64, weights []int) int {
	total := 0
	for _, w := range weights {
		total += max(w, 0)
	}
	if total == 0 {
		return 0
	}
	end := 0.0
	last := 0
	for i, w := range weights {
		if w <= 0 {
			continue
		}
		end += float64(w) / float64(total)
		last = i
		if x < end {
			return i
		}
	}
	return last // rounding at the very top of [0, 1)
}

// Assign returns the variant a subscriber sees in e: the same every time for
// the same experiment, subscriber and weights; the holdout's arm
// (HoldoutID) for a subscriber in the holdout of an offer experiment.
func (e Experiment) Assign(userID string) Variant {
	if e.InHoldout(userID) {
		return holdoutArm()
	}
	weights := make([]int, len(e.Variants))
	for i, v := range e.Variants {
		weights[i] = v.Weight
	}
	return e.Variants[Choose(Hash(e.ID, userID), weights)]
}

// HoldoutName names the holdout's arm, as normalise names an unnamed
// variant.
const HoldoutName = "Holdout (no offer)"

// InHoldout reports whether a subscriber is in e's no-offer holdout. The
// holdout is drawn first, by a hash of its own (seed: the experiment's id
// and "holdout"), independent of the variants' hash: everyone outside it
// keeps the variant the weights give them, so the variants keep their
// shares among the rest, and a change of the holdout moves nobody from one
// variant to another.
func (e Experiment) InHoldout(userID string) bool {
	return e.Kind == KindOffer && e.Holdout > 0 && Hash(e.ID+HoldoutID, userID) < float64(e.Holdout)/100
}

// holdoutArm is the holdout as an arm: its value is the flow's "no offer"
// (retention.OfferSkip).
func holdoutArm() Variant { return Variant{ID: HoldoutID, Name: HoldoutName, Value: "none"} }

// Arms are what the results compare: the variants and, with a holdout,
// the holdout last, each weighted by its share of all assigned people (the
// variants' weights times 100 − holdout, the holdout the variants' total
// times the holdout), so the sample ratio check expects every arm's true
// share.
func (e Experiment) Arms() []Variant {
	if e.Kind != KindOffer || e.Holdout <= 0 {
		return e.Variants
	}
	arms := make([]Variant, 0, len(e.Variants)+1)
	total := 0
	for _, v := range e.Variants {
		total += max(v.Weight, 0)
		v.Weight *= 100 - e.Holdout
		arms = append(arms, v)
	}
	h := holdoutArm()
	h.Weight = total * e.Holdout
	return append(arms, h)
}

// WithArms is e with its Arms as its variants: the experiment the results
// are computed over.
func (e Experiment) WithArms() Experiment {
	e.Variants = e.Arms()
	return e
}
