package analysis

import (
	"hash/maphash"
	"slices"
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
			if name == "" {
				continue
			}
			hashes = append(hashes, h.sum(name))
			l.prefixes[start+i] = prefix(name)
		}
	}
	if cap(*scratch) < len(hashes) {
		*scratch = make([]uint64, len(hashes))
	}
	radixSort(hashes, (*scratch)[:len(hashes)])
	l.set = slices.Compact(hashes)
	return l
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

// radixSort sorts a in place with an LSD radix sort on bytes: eight stable
// counting passes, each reading and writing memory in order, which beats a
// comparison sort by several times at a million keys. buf must be as long as
// a.
func radixSort(a, buf []uint64) {
	if len(a) < 2 {
		return
	}
	var counts [8][256]int
	for _, v := range a {
		for d := range counts {
			counts[d][byte(v>>(8*d))]++
		}
	}
	src, dst := a, buf
	for d := range counts {
		c := &counts[d]
		shift := 8 * d
		if c[byte(src[0]>>shift)] == len(a) {
			continue // every key has the same byte here: the pass would not move anything
		}
		offset := 0
		for i, n := range c {
			c[i] = offset
			offset += n
		}
		for _, v := range src {
			k := byte(v >> shift)
			dst[c[k]] = v
			c[k]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
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
