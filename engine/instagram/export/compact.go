package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Bounds on the JSON a file may hold, checked by compactReader. Instagram's
// files nest five levels at most and their longest strings are links of a
// few hundred bytes; the bounds are far above that and far below what would
// cost memory.
const (
	// maxDepth bounds nesting: json.Decoder.Token keeps one stack entry per
	// open bracket with no limit of its own, so a file of 80 MB of "[" would
	// otherwise cost 640 MB of stack.
	maxDepth = 256
	// maxStringBytes bounds one string (key or value, as written, escapes
	// included): json.Decoder holds a whole token in memory.
	maxStringBytes = 1 << 20
)

// errJSONBound is the class of compactReader's refusals, so that the
// importer can tell them from syntax errors.
var errJSONBound = errors.New("JSON beyond the bounds of an export")

// compactReader passes JSON through with every run of white space outside
// strings collapsed to one space, and refuses nesting deeper than maxDepth or
// strings longer than maxStringBytes.
//
// Collapsing is what keeps decoding linear: json.Decoder skips white space
// between tokens without advancing its scan position and rescans the whole
// run after every refill, so a file of "[" and N bytes of spaces costs
// O(N²) (an 80 MB run took 95 s) and holds the run in memory. White space
// outside strings only separates tokens, so one space means the same as
// many, and a document is valid after collapsing exactly when it was before:
// the string state tracked here is JSON's own, and wherever the decoder
// would see a syntax error it sees the same byte after collapsing.
type compactReader struct {
	r        io.Reader
	inString bool // inside a string literal
	escaped  bool // the previous byte was a backslash inside a string
	space    bool // the last byte passed on outside a string was white space
	depth    int  // open brackets and braces
	strLen   int  // bytes of the current string so far
	err      error
}

// newDecoder returns a json.Decoder over r through a compactReader.
func newDecoder(r io.Reader) *json.Decoder {
	return json.NewDecoder(&compactReader{r: r})
}

func (c *compactReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	for {
		n, err := c.r.Read(p)
		w, berr := c.compact(p[:n])
		if berr != nil {
			c.err = berr
			return 0, berr
		}
		// A buffer of nothing but white space yields nothing; read on
		// rather than return 0, nil, which callers may treat as no progress.
		if w > 0 || err != nil || n == 0 {
			return w, err
		}
	}
}

// compact rewrites b in place and returns how many bytes it kept. It writes
// at w ≤ i, so it never overwrites a byte it has yet to read.
func (c *compactReader) compact(b []byte) (int, error) {
	w := 0
	for i := 0; i < len(b); i++ {
		ch := b[i]
		if c.inString {
			// Copy up to the next quote or backslash in one step: most
			// bytes of an export are inside strings.
			j := i
			if !c.escaped {
				for j < len(b) && b[j] != '"' && b[j] != '\\' {
					j++
				}
			}
			if c.strLen += j - i; c.strLen > maxStringBytes {
				return 0, fmt.Errorf("%w: a string longer than %d bytes", errJSONBound, maxStringBytes)
			}
			w += copy(b[w:], b[i:j])
			if j == len(b) {
				return w, nil
			}
			i, ch = j, b[j]
			c.strLen++
			switch {
			case c.escaped:
				c.escaped = false
			case ch == '\\':
				c.escaped = true
			case ch == '"':
				c.inString = false
			}
			b[w] = ch
			w++
			continue
		}
		switch ch {
		case ' ', '\t', '\n', '\r':
			if !c.space {
				c.space = true
				b[w] = ' '
				w++
			}
			continue
		case '"':
			c.inString, c.strLen = true, 0
		case '[', '{':
			if c.depth++; c.depth > maxDepth {
				return 0, fmt.Errorf("%w: nested deeper than %d", errJSONBound, maxDepth)
			}
		case ']', '}':
			c.depth--
		}
		c.space = false
		b[w] = ch
		w++
	}
	return w, nil
}
