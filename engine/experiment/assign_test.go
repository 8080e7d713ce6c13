package experiment

import (
	"math"
	"strconv"
	"testing"
)

// FNV-1a 32-bit reference values (Fowler, Noll and Vo's test suite).
func TestFNV1a32(t *testing.T) {
	for in, want := range map[string]uint32{"": 0x811C9DC5, "a": 0xE40C292C, "ab": 0x4D2505CA, "foobar": 0xBF9CF968} {
		if got := fnv1a32(in); got != want {
			t.Errorf("fnv1a32(%q) = %#x, want %#x", in, got, want)
		}
	}
}

// Hash version 2 of GrowthBook's SDKs: these seed/value pairs and results
// are the hash cases of GrowthBook's shared SDK test suite (cases.json).
func TestHashMatchesGrowthBookV2(t *testing.T) {
	for _, c := range []struct {
		seed, id string
		want     float64
	}{
		{"seed", "a", 0.0505}, {"seed", "b", 0.2696}, {"foo", "ab", 0.2575}, {"foo", "def", 0.2019},
		{"89123klj", "8952klfjas09ujkasdf", 0.124}, {"90850943850283058242805", "123", 0.7516},
		{"()**(%$##$%#$#", `___)((*":&`, 0.0128},
	} {
		if got := Hash(c.seed, c.id); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Hash(%q, %q) = %v, want %v", c.seed, c.id, got, c.want)
		}
	}
}

func TestChooseRanges(t *testing.T) {
	for _, c := range []struct {
		x       float64
		weights []int
		want    int
	}{
		{0, []int{50, 50}, 0}, {0.4999, []int{50, 50}, 0}, {0.5, []int{50, 50}, 1}, {0.9999, []int{50, 50}, 1},
		{0.1999, []int{20, 80}, 0}, {0.2, []int{20, 80}, 1},
		{0.3, []int{0, 1, 1}, 1}, {0.7, []int{1, 0, 1}, 2}, {0.5, []int{0, 0}, 0},
	} {
		if got := Choose(c.x, c.weights); got != c.want {
			t.Errorf("Choose(%v, %v) = %d, want %d", c.x, c.weights, got, c.want)
		}
	}
}

func testExperiment(id string, weights ...int) Experiment {
	e := Experiment{ID: id, Kind: KindCopy, Key: "unsubscribe.step1.title", Status: StatusRunning, Phase: 1}
	for i, w := range weights {
		e.Variants = append(e.Variants, Variant{ID: string(rune('a' + i)), Weight: w, Value: "text " + strconv.Itoa(i)})
	}
	return e
}

// The same subscriber always gets the same variant; another experiment
// (another seed) buckets them independently.
func TestAssignIsStable(t *testing.T) {
	e := testExperiment("exp1", 50, 50)
	other := testExperiment("exp2", 50, 50)
	agree := 0
	for i := range 10000 {
		id := "user-" + strconv.Itoa(i)
		first := e.Assign(id)
		for range 3 {
			if again := e.Assign(id); again.ID != first.ID {
				t.Fatalf("%s got %s then %s", id, first.ID, again.ID)
			}
		}
		if other.Assign(id).ID == first.ID {
			agree++
		}
	}
	// Independent 50/50 buckets agree about half the time.
	if agree < 4800 || agree > 5200 {
		t.Errorf("two experiments agree for %d of 10,000 subscribers, want about 5,000", agree)
	}
}

// Over 100,000 ids each variant's share is within 1 percentage point of its
// weight (the binomial standard deviation at n = 100,000 is at most 0.16
// points, so 1 point is over six of them).
func TestAssignProportions(t *testing.T) {
	for _, weights := range [][]int{{50, 50}, {20, 80}, {1, 1, 2}} {
		e := testExperiment("prop-"+strconv.Itoa(len(weights))+"-"+strconv.Itoa(weights[0]), weights...)
		n := 100000
		got := make([]int, len(weights))
		for i := range n {
			got[Choose(Hash(e.ID, "subscriber-"+strconv.Itoa(i)), weights)]++
		}
		total := 0
		for _, w := range weights {
			total += w
		}
		for i, w := range weights {
			share, want := float64(got[i])/float64(n), float64(w)/float64(total)
			if math.Abs(share-want) > 0.01 {
				t.Errorf("weights %v: variant %d has %.4f, want %.4f ± 0.01", weights, i, share, want)
			}
		}
		// The counts also pass the SRM check they will be held to.
		obs := make([]int64, len(got))
		for i, g := range got {
			obs[i] = int64(g)
		}
		if _, p := SRM(obs, weights); p < SRMThreshold {
			t.Errorf("weights %v: assignment fails the SRM check, p = %g", weights, p)
		}
	}
}

// The no-offer holdout of an offer experiment: over 100,000 ids it holds
// its share within 1 point, the variants share the rest by their weights
// (each within 1 point of its share of all ids), the counts pass the SRM
// check against the arms' weights (Experiment.Arms), and the holdout's hash
// is independent of the variants': a subscriber outside the holdout keeps
// the variant they had without one, and the holdout takes about its share
// of every variant's people.
func TestHoldoutProportions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		holdout int
		weights []int
	}{{10, []int{50, 50}}, {20, []int{1, 1, 2}}, {5, []int{20, 80}}} {
		e := testExperiment("hold-"+strconv.Itoa(tc.holdout), tc.weights...)
		e.Kind, e.Key, e.Holdout = KindOffer, "offer.step3", tc.holdout
		without := e
		without.Holdout = 0
		arms := e.Arms()
		if len(arms) != len(tc.weights)+1 || arms[len(arms)-1].ID != HoldoutID {
			t.Fatalf("arms %+v, want the variants then the holdout", arms)
		}
		n := 100000
		index := map[string]int{}
		for i, a := range arms {
			index[a.ID] = i
		}
		got := make([]int64, len(arms))
		heldFrom := make([]int, len(tc.weights))
		for i := range n {
			id := "subscriber-" + strconv.Itoa(i)
			v, base := e.Assign(id), without.Assign(id)
			got[index[v.ID]]++
			if v.ID == HoldoutID {
				heldFrom[index[base.ID]]++
				continue
			}
			if v.ID != base.ID {
				t.Fatalf("holdout %d%%: %s moved from %s to %s", tc.holdout, id, base.ID, v.ID)
			}
		}
		total := 0
		for _, w := range tc.weights {
			total += w
		}
		h := float64(tc.holdout) / 100
		for i, a := range arms {
			want := h
			if a.ID != HoldoutID {
				want = (1 - h) * float64(tc.weights[i]) / float64(total)
			}
			if share := float64(got[i]) / float64(n); math.Abs(share-want) > 0.01 {
				t.Errorf("holdout %d%%: arm %s has %.4f, want %.4f ± 0.01", tc.holdout, a.ID, share, want)
			}
		}
		if _, p := SRM(got, e.WithArms().Weights()); p < SRMThreshold {
			t.Errorf("holdout %d%%: the arms fail the SRM check, p = %g", tc.holdout, p)
		}
		// Independent hashes: the holdout takes its share of each variant.
		for i, w := range tc.weights {
			people := float64(n) * float64(w) / float64(total)
			if share := float64(heldFrom[i]) / people; math.Abs(share-h) > 0.01 {
				t.Errorf("holdout %d%%: holds %.4f of variant %d's people, want %.4f ± 0.01", tc.holdout, share, i, h)
			}
		}
	}
}

// A copy experiment has no holdout, whatever its field says, and its arms
// are its variants.
func TestNoHoldoutOnCopy(t *testing.T) {
	t.Parallel()
	e := testExperiment("copy-hold", 50, 50)
	e.Holdout = 20
	for i := range 1000 {
		if e.Assign("u"+strconv.Itoa(i)).ID == HoldoutID {
			t.Fatal("a copy experiment held someone out")
		}
	}
	if len(e.Arms()) != 2 {
		t.Errorf("arms %+v", e.Arms())
	}
}
