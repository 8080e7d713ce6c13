package analysis

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"runtime"
	"slices"
	"sync"
)

// Audience groups are set operations over lists of up to millions of
// usernames. Go maps of strings cost about 100 bytes and a cache miss per
// name, so instead each list becomes a sorted slice of 64-bit hashes (8 bytes
// a name, sorted by radix in a few linear passes) and the groups are counted
// by walking two sorted slices side by side. On a 2-core VM this took 0.45 s
// against 0.73–1.2 s for maps on 2 × 1,000,000 names (docs/benchmarks.md §2).
//
// Counts are exact unless two different usernames share a hash. With n names
// the chance of any such collision is about n²/2⁶⁵: 1e-7 for 2,000,000 names.
// The seed is random per Analyse call, so a collision is neither repeatable
// nor something a chosen username can force. The listed usernames are
// resolved from the original strings, never from hashes.
//
// A million usernames sit all over the heap, so reading one is usually a
// cache miss, and that, not the arithmetic, is what costs. Each name is
// therefore read once: when it is hashed, its first eight bytes are kept as a
// number beside it, and picking the sample names compares those numbers
// instead of reading the strings again.

// hasher hashes usernames case-insensitively. Instagram usernames are ASCII
// (letters, digits, "." and "_"), so folding ASCII letters is enough, and it
// needs no allocation for the usual all-lower-case name.
type hasher struct {
	seed    maphash.Seed
	buf     []byte
	touched byte
}

func newHasher() *hasher { return &hasher{seed: maphash.MakeSeed()} }

func (h *hasher) sum(name string) uint64 {
	if len(name) <= shortName {
		_, hash := h.prefixSum(name)
		return hash
	}
	return h.longSum(name)
}

// shortName is the longest name prefixSum takes; Instagram allows 30
// characters.
const shortName = 32

// prefixSum returns prefix(name) and the hash of a name of at most
// shortName bytes, reading the name once: it is copied to the stack, its
// first eight bytes taken as the prefix, and its letters folded eight bytes
// at a time.
func (h *hasher) prefixSum(name string) (uint64, uint64) {
	var buf [shortName]byte
	n := copy(buf[:], name)
	p := binary.BigEndian.Uint64(buf[:8])
	for i := 0; i < n; i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], lowerASCII(binary.LittleEndian.Uint64(buf[i:])))
	}
	return p, maphash.Bytes(h.seed, buf[:n])
}

// lowerASCII folds the ASCII capitals among the eight bytes of w to lower
// case and leaves every other byte alone: a byte is a capital when its low
// seven bits are 'A' to 'Z' and its top bit is clear, which adding to each
// byte's low seven bits reveals in the byte's top bit, with no carry
// between bytes.
func lowerASCII(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	low := w &^ highs
	atLeastA := low + ones*(0x80-'A')
	aboveZ := low + ones*(0x80-'Z'-1)
	upper := atLeastA &^ aboveZ &^ w & highs
	return w | upper>>2
}

func (h *hasher) longSum(name string) uint64 {
	if !hasUpperASCII(name) {
		return maphash.String(h.seed, name)
	}
	h.buf = append(h.buf[:0], name...)
	for i, c := range h.buf {
		if 'A' <= c && c <= 'Z' {
			h.buf[i] = c + 'a' - 'A'
		}
	}
	return maphash.Bytes(h.seed, h.buf)
}

func hasUpperASCII(s string) bool {
	for i := range len(s) {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// hashSet is a sorted slice of distinct username hashes.
type hashSet []uint64

// list is one username list ready for set operations.
type list struct {
	names []string
	// prefixes[i] is the first eight bytes of names[i], big-endian and padded
	// with zeros, so prefixes[i] < prefixes[j] implies names[i] < names[j].
	prefixes []uint64
	set      hashSet
}

// list hashes names (skipping empty ones) into a list. scratch is reused
// across calls for the radix sort and grows as needed.
func (h *hasher) list(names []string, scratch *[]uint64) list {
	l := list{names: names, prefixes: make([]uint64, len(names))}
	hashes := make([]uint64, 0, len(names))
	const batch = 16
	for start := 0; start < len(names); start += batch {
		block := names[start:min(start+batch, len(names))]
		// Touch every name of the block before hashing any: the loads do not
		// depend on each other, so the CPU waits for their cache misses
		// together rather than one after another.
		for _, name := range block {
			if name != "" {
				h.touched ^= name[0]
			}
		}
		for i, name := range block {
			switch {
			case name == "":
				continue
			case len(name) <= shortName:
				p, hash := h.prefixSum(name)
				hashes = append(hashes, hash)
				l.prefixes[start+i] = p
			default:
				hashes = append(hashes, h.longSum(name))
				l.prefixes[start+i] = prefix(name)
			}
		}
	}
	if cap(*scratch) < len(hashes) {
		*scratch = make([]uint64, len(hashes))
	}
	radixSort(hashes, (*scratch)[:len(hashes)])
	l.set = slices.Compact(hashes)
	return l
}

// lists hashes each of names into a list. Hashing is most of Analyse's
// work and the lists do not depend on each other, so they are shared out
// among as many goroutines as there are processors, each with a hasher (same
// seed) and a radix scratch of its own that it reuses from list to list.
func (h *hasher) lists(names ...[]string) []list {
	out := make([]list, len(names))
	next := make(chan int, len(names))
	for i := range names {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(names)) {
		wg.Go(func() {
			w := &hasher{seed: h.seed}
			var scratch []uint64
			for i := range next {
				out[i] = w.list(names[i], &scratch)
			}
		})
	}
	wg.Wait()
	return out
}

func prefix(name string) uint64 {
	var p uint64
	for i := range 8 {
		p <<= 8
		if i < len(name) {
			p |= uint64(name[i])
		}
	}
	return p
}

// radixSort sorts a in place. The keys are hashes, spread evenly, so only
// their top bits need a radix sort: LSD passes on 11-bit digits (2,048
// buckets, each pass reading and writing memory in order) over at least
// the top bits.Len(n)+1 bits leave at most one key in two sharing those bits
// with another, on average, and an insertion sort orders those in one more
// pass. For a million keys that is two passes instead of the eight a full
// radix sort of 64-bit keys takes. Keys that are not spread evenly stay correct: a run
// longer than a few keys is sorted with slices.Sort. buf must be as long
// as a.
func radixSort(a, buf []uint64) {
	if len(a) < 2 {
		return
	}
	const digit = 11
	passes := min((bits.Len(uint(len(a)))+1+digit-1)/digit, (64+digit-1)/digit)
	// The lowest digit sorted; the top digit ends at bit 63.
	low := max(64-passes*digit, 0)
	var counts [(64 + digit - 1) / digit][1 << digit]int
	for _, v := range a {
		for d := range passes {
			counts[d][(v>>(low+d*digit))&(1<<digit-1)]++
		}
	}
	src, dst := a, buf
	for d := range passes {
		c := &counts[d]
		shift := low + d*digit
		if c[(src[0]>>shift)&(1<<digit-1)] == len(a) {
			continue // every key has the same digit here: the pass would not move anything
		}
		offset := 0
		for i, n := range c {
			c[i] = offset
			offset += n
		}
		for _, v := range src {
			k := (v >> shift) & (1<<digit - 1)
			dst[c[k]] = v
			c[k]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
	if low == 0 {
		return
	}
	// Order each run of keys that share the sorted top bits.
	for i := 0; i < len(a); {
		j := i + 1
		for j < len(a) && a[j]>>low == a[i]>>low {
			j++
		}
		if run := a[i:j]; len(run) > 16 {
			slices.Sort(run)
		} else {
			for k := 1; k < len(run); k++ {
				for m := k; m > 0 && run[m] < run[m-1]; m-- {
					run[m], run[m-1] = run[m-1], run[m]
				}
			}
		}
		i = j
	}
}

// overlap counts the hashes only in a, in both, and only in b, by walking the
// two sorted sets side by side.
func overlap(a, b hashSet) (onlyA, both, onlyB int) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			onlyA++
			i++
		case a[i] > b[j]:
			onlyB++
			j++
		default:
			both++
			i++
			j++
		}
	}
	return onlyA + len(a) - i, both, onlyB + len(b) - j
}

func (s hashSet) contains(hash uint64) bool {
	_, found := slices.BinarySearch(s, hash)
	return found
}

// sample returns the first limit names of l in byte order, without
// duplicates, among those whose hash is (in == true) or is not (in == false)
// in other.
//
// It keeps the best names so far in a max-heap. A name is read only when its
// prefix could put it in the heap, and hashed and looked up in other only
// when it would enter: a pass over a million names reads a million numbers in
// order and about limit × ln(n/limit) names.
func (h *hasher) sample(l list, other hashSet, in bool, limit int) []string {
	type entry struct {
		name   string
		prefix uint64
		hash   uint64
	}
	if limit <= 0 {
		return []string{}
	}
	heap := make([]entry, 0, limit)
	less := func(i, j int) bool { return heap[i].name < heap[j].name }
	for i, p := range l.prefixes {
		full := len(heap) == limit
		if full && p > heap[0].prefix {
			continue
		}
		name := l.names[i]
		if name == "" || (full && name >= heap[0].name) {
			continue
		}
		hash := h.sum(name)
		if other.contains(hash) != in || slices.ContainsFunc(heap, func(e entry) bool { return e.hash == hash }) {
			continue
		}
		if !full {
			heap = append(heap, entry{name, p, hash})
			for c := len(heap) - 1; c > 0 && less((c-1)/2, c); c = (c - 1) / 2 {
				heap[c], heap[(c-1)/2] = heap[(c-1)/2], heap[c]
			}
			continue
		}
		heap[0] = entry{name, p, hash}
		for parent := 0; ; {
			largest := parent
			for _, child := range [2]int{2*parent + 1, 2*parent + 2} {
				if child < len(heap) && less(largest, child) {
					largest = child
				}
			}
			if largest == parent {
				break
			}
			heap[parent], heap[largest] = heap[largest], heap[parent]
			parent = largest
		}
	}
	sample := make([]string, len(heap))
	for i, e := range heap {
		sample[i] = e.name
	}
	slices.Sort(sample)
	return sample
}
