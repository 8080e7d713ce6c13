package library

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The kinds of a word diff's parts.
const (
	DiffEqual  = "equal"
	DiffInsert = "insert"
	DiffDelete = "delete"
)

// DiffPart is one run of a word diff: text both versions share, text only
// the newer one has (insert) or text only the older one had (delete).
type DiffPart struct {
	Op   string
	Text string
}

// maxDiffEdits bounds the edit distance, in tokens, the diff searches; two
// texts further apart than that are shown as the one replaced by the other
// (after their shared start and end), so a diff of two unrelated 100 KiB
// bodies costs bounded time and memory.
const maxDiffEdits = 2000

// WordDiff returns how before became after, word by word: the parts'
// equal and deleted texts joined give before, the equal and inserted ones
// give after (ApplyDiff). A token is a run of letters and digits, a run of
// spaces, or one other character, so a changed word is marked whole and a
// changed comma alone. Adjacent parts of one kind are merged.
//
// It is Myers' O(ND) difference algorithm (E. W. Myers, "An O(ND)
// Difference Algorithm and Its Variations", Algorithmica 1986) on tokens,
// the one `git diff` and Sanity's diff-match-patch based history build on.
func WordDiff(before, after string) []DiffPart {
	a, b := wordTokens(before), wordTokens(after)
	// The shared start and end are equal parts; Myers runs on the middle.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	runs := []tokenRun{{DiffEqual, a[:pre]}}
	runs = append(runs, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	runs = append(runs, tokenRun{DiffEqual, a[len(a)-suf:]})
	var parts []DiffPart
	for _, r := range slide(runs) {
		if len(r.toks) == 0 {
			continue
		}
		text := strings.Join(r.toks, "")
		if n := len(parts); n > 0 && parts[n-1].Op == r.op {
			parts[n-1].Text += text
			continue
		}
		parts = append(parts, DiffPart{Op: r.op, Text: text})
	}
	return tidy(parts)
}

// slide moves an edit that sits alone between equal runs to the right,
// where the same tokens repeat after it, when that ends it at a line's end
// or the text's: the shortest script may mark "words.\nThree" + "." where
// a reader expects "." + "\nThree.", an added line.
func slide(runs []tokenRun) []tokenRun {
	var out []tokenRun
	for _, r := range runs {
		if len(r.toks) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].op == r.op {
			out[n-1].toks = append(slices.Clip(out[n-1].toks), r.toks...)
			continue
		}
		out = append(out, tokenRun{r.op, slices.Clip(r.toks)})
	}
	for i := 0; i+1 < len(out); i++ {
		edit, next := out[i], out[i+1]
		if edit.op == DiffEqual || next.op != DiffEqual || (i > 0 && out[i-1].op != DiffEqual) {
			continue
		}
		n := len(edit.toks)
		best := 0
		for j := 1; j <= len(next.toks) && edit.toks[(j-1)%n] == next.toks[j-1]; j++ {
			last := edit.toks[(j+n-1)%n]
			if j == len(next.toks) && i+2 == len(out) || strings.Contains(last, "\n") {
				best = j
			}
		}
		if best == 0 {
			continue
		}
		moved := make([]string, 0, n)
		for k := range n {
			moved = append(moved, edit.toks[(best+k)%n])
		}
		shifted := next.toks[:best]
		if i > 0 {
			out[i-1].toks = append(slices.Clip(out[i-1].toks), shifted...)
		} else {
			out = slices.Insert(out, 0, tokenRun{DiffEqual, slices.Clone(shifted)})
			i++
		}
		out[i].toks = moved
		out[i+1].toks = next.toks[best:]
	}
	return out
}

// tidy puts a deletion before the insertion that replaces it, so "a b" to
// "a c" reads "a -b +c", and merges the runs that brings together.
func tidy(parts []DiffPart) []DiffPart {
	for i := 0; i+1 < len(parts); i++ {
		if parts[i].Op == DiffInsert && parts[i+1].Op == DiffDelete {
			parts[i], parts[i+1] = parts[i+1], parts[i]
		}
	}
	out := parts[:0]
	for _, p := range parts {
		if n := len(out); n > 0 && out[n-1].Op == p.Op {
			out[n-1].Text += p.Text
			continue
		}
		out = append(out, p)
	}
	return out
}

type tokenRun struct {
	op   string
	toks []string
}

// myers returns the shortest edit script from a to b as runs of tokens, or
// a's deletion and b's insertion when it needs more than maxDiffEdits edits.
func myers(a, b []string) []tokenRun {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return []tokenRun{{DiffDelete, a}, {DiffInsert, b}}
	}
	maxD := min(n+m, maxDiffEdits)
	offset := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	found := -1
	for d := 0; d <= maxD && found < 0; d++ {
		trace = append(trace, append([]int(nil), v...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[offset+k-1] < v[offset+k+1]) {
				x = v[offset+k+1] // down: an insertion
			} else {
				x = v[offset+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[offset+k] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
	}
	if found < 0 {
		return []tokenRun{{DiffDelete, a}, {DiffInsert, b}}
	}
	// Walk the trace back from (n, m), collecting runs in reverse.
	var rev []tokenRun
	push := func(op string, tok string) {
		if l := len(rev); l > 0 && rev[l-1].op == op {
			rev[l-1].toks = append(rev[l-1].toks, tok)
			return
		}
		rev = append(rev, tokenRun{op, []string{tok}})
	}
	x, y := n, m
	for d := found; d > 0; d-- {
		vd := trace[d] // v as it was before step d
		k := x - y
		var prevK int
		if k == -d || (k != d && vd[offset+k-1] < vd[offset+k+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := vd[offset+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			push(DiffEqual, a[x])
		}
		if x == prevX {
			y--
			push(DiffInsert, b[y])
		} else {
			x--
			push(DiffDelete, a[x])
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		push(DiffEqual, a[x])
	}
	out := make([]tokenRun, 0, len(rev))
	for i := len(rev) - 1; i >= 0; i-- {
		toks := rev[i].toks
		for l, r := 0, len(toks)-1; l < r; l, r = l+1, r-1 {
			toks[l], toks[r] = toks[r], toks[l]
		}
		out = append(out, tokenRun{rev[i].op, toks})
	}
	return out
}

// wordTokens splits s into words (letters and digits), runs of spaces and
// single other characters; joined they give s back.
func wordTokens(s string) []string {
	var out []string
	start := -1
	class := 0 // 1 word, 2 space
	classOf := func(r rune) int {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’':
			return 1
		case unicode.IsSpace(r):
			return 2
		}
		return 0
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		c := classOf(r)
		if start >= 0 && (c == 0 || c != class) {
			out = append(out, s[start:i])
			start = -1
		}
		if c == 0 {
			// The bytes themselves: an invalid byte stays as it was.
			out = append(out, s[i:i+size])
		} else if start < 0 {
			start, class = i, c
		}
		i += size
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// ApplyDiff returns the newer text of a diff: its equal and inserted parts.
func ApplyDiff(parts []DiffPart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Op != DiffDelete {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// DiffSource returns the older text of a diff: its equal and deleted parts.
func DiffSource(parts []DiffPart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Op != DiffInsert {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
