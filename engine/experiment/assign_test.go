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
