package analysis

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRadixSort(t *testing.T) {
	t.Parallel()
	random := func(n int, mask uint64) []uint64 {
		r := rand.New(rand.NewPCG(1, uint64(n)))
		a := make([]uint64, n)
		for i := range a {
			a[i] = r.Uint64() & mask
		}
		return a
	}
	tests := []struct {
		name string
		in   []uint64
	}{
		{"empty", nil},
		{"one", []uint64{42}},
		{"two, reversed", []uint64{2, 1}},
		{"all equal", []uint64{7, 7, 7, 7}},
		{"extremes", []uint64{^uint64(0), 0, 1 << 63, 1, ^uint64(0) - 1}},
		{"random", random(10_000, ^uint64(0))},
		{"random, more than one pass", random(300_000, ^uint64(0))},
		{"random, few distinct", random(5_000, 0x7)},
		// Keys that differ only in some bytes make the sort skip passes,
		// which changes which buffer holds the result.
		{"only the low byte varies", random(1_000, 0xff)},
		{"only the middle bytes vary", random(1_000, 0x00ff_ff00_0000)},
		{"only the high byte varies", random(1_000, 0xff00_0000_0000_0000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := slices.Clone(tt.in)
			slices.Sort(want)
			got := slices.Clone(tt.in)
			radixSort(got, make([]uint64, len(got)))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("radixSort (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOverlap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		a, b               hashSet
		onlyA, both, onlyB int
	}{
		{"both empty", nil, nil, 0, 0, 0},
		{"a empty", nil, hashSet{1, 2}, 0, 0, 2},
		{"b empty", hashSet{1, 2}, nil, 2, 0, 0},
		{"equal", hashSet{1, 2, 3}, hashSet{1, 2, 3}, 0, 3, 0},
		{"disjoint, interleaved", hashSet{1, 3, 5}, hashSet{2, 4}, 3, 0, 2},
		// {1 2 5 9} vs {2 3 9 10 11}: only a {1 5}, both {2 9}, only b {3 10 11}
		{"mixed, tails left over", hashSet{1, 2, 5, 9}, hashSet{2, 3, 9, 10, 11}, 2, 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			onlyA, both, onlyB := overlap(tt.a, tt.b)
			if onlyA != tt.onlyA || both != tt.both || onlyB != tt.onlyB {
				t.Errorf("overlap = %d, %d, %d; want %d, %d, %d", onlyA, both, onlyB, tt.onlyA, tt.both, tt.onlyB)
			}
		})
	}
}

// TestSampleMatchesSorting checks the heap against the obvious way: filter,
// sort, take the first names.
func TestSampleMatchesSorting(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	names := make([]string, 5_000)
	for i := range names {
		names[i] = "user" + strconv.Itoa(r.IntN(3_000)) // with duplicates
	}
	h := newHasher()
	var scratch []uint64
	other := h.list(names[:1_000], &scratch).set
	all := h.list(names, &scratch)
	for _, in := range []bool{true, false} {
		for _, limit := range []int{0, 1, 10, 100, 10_000} {
			var want []string
			for _, name := range names {
				if other.contains(h.sum(name)) == in {
					want = append(want, name)
				}
			}
			slices.Sort(want)
			want = slices.Compact(want)
			want = want[:min(limit, len(want))]
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, h.sample(all, other, in, limit)); diff != "" {
				t.Errorf("sample(in=%v, limit=%d) (-want +got):\n%s", in, limit, diff)
			}
		}
	}
}

// TestPrefixSumMatchesBytewise holds the eight-bytes-at-a-time folding and
// prefix to the byte-by-byte way, on every byte value and on random names
// of every length it takes.
func TestPrefixSumMatchesBytewise(t *testing.T) {
	t.Parallel()
	for c := range 256 {
		w := uint64(c) * 0x0101010101010101
		want := byte(c)
		if 'A' <= want && want <= 'Z' {
			want += 'a' - 'A'
		}
		if got := lowerASCII(w); got != uint64(want)*0x0101010101010101 {
			t.Fatalf("lowerASCII(%#x) = %#x, want %#x in every byte", c, got, want)
		}
	}
	h := newHasher()
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := "abcXYZ09._@AZaz\x00\x7f\x80\xc3\xa9\xff["
	for range 20_000 {
		b := make([]byte, r.IntN(shortName+1))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		name := string(b)
		p, hash := h.prefixSum(name)
		if p != prefix(name) || hash != h.longSum(name) {
			t.Fatalf("prefixSum(%q) = %#x, %#x; want %#x, %#x", name, p, hash, prefix(name), h.longSum(name))
		}
	}
}

func TestHashIgnoresASCIICase(t *testing.T) {
	t.Parallel()
	h := newHasher()
	if h.sum("Baker.Joe_1") != h.sum("baker.joe_1") {
		t.Error("hashes of Baker.Joe_1 and baker.joe_1 differ")
	}
	if h.sum("baker.joe") == h.sum("baker.joe1") {
		t.Error("hashes of different names are equal")
	}
}

// BenchmarkRadixSort sorts 1,000,000 random hashes, the size of a follower
// list in BenchmarkAnalyse1M.
func BenchmarkRadixSort(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	keys := make([]uint64, 1_000_000)
	for i := range keys {
		keys[i] = r.Uint64()
	}
	a, buf := make([]uint64, len(keys)), make([]uint64, len(keys))
	for b.Loop() {
		copy(a, keys)
		radixSort(a, buf)
	}
	if !slices.IsSorted(a) {
		b.Fatal("not sorted")
	}
}
