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
// the same experiment, subscriber and weights.
func (e Experiment) Assign(userID string) Variant {
	weights := make([]int, len(e.Variants))
	for i, v := range e.Variants {
		weights[i] = v.Weight
	}
	return e.Variants[Choose(Hash(e.ID, userID), weights)]
}
