package export

import (
	"encoding/json"
	"io"
)

// decodeListFast is decodeList for the shapes Instagram actually writes,
// without reflection: encoding/json spent nine tenths of a large import
// finding struct fields. It reports ok = false, having perhaps emitted some
// accounts, as soon as the file holds anything it does not handle exactly as
// decodeList would: a syntax error, null or a wrongly typed field, a
// duplicate or case-folded key, a bare entry at the root, a non-object entry.
// The caller then discards what was emitted and decodes the file again with
// decodeList, which also produces the error. FuzzDecodeListFast holds the two
// to the same results.
func decodeListFast(r io.Reader, m *markers, emit func(Account)) (skipped int, ok bool) {
	s := &fastScanner{r: r, buf: make([]byte, 64<<10)}
	l := &listDecoder{markers: m, emit: emit}
	c, ok := s.peek()
	if !ok {
		return 0, false
	}
	switch c {
	case '[':
		ok = s.entries(l)
	case '{':
		s.pos++
		ok = s.wrapper(l)
	default:
		return 0, false
	}
	if !ok {
		return 0, false
	}
	// Only white space may follow; reading to the end also has archive/zip
	// verify the checksum.
	if _, more := s.peek(); more || s.err != nil {
		return 0, false
	}
	return l.skipped, true
}

// fastScanner reads JSON from r through buf. Every method returns false
// when the input is not in the subset decodeListFast handles.
type fastScanner struct {
	r        io.Reader
	buf      []byte
	pos, end int
	err      error // a read error other than io.EOF
	eof      bool
	depth    int
	scratch  []byte
}

// fill reads more input, keeping buf[keep:end]; it returns false at the end.
func (s *fastScanner) fill(keep int) bool {
	if s.eof || s.err != nil {
		return false
	}
	n := copy(s.buf, s.buf[keep:s.end])
	s.pos -= keep
	s.end = n
	if s.end == len(s.buf) {
		s.buf = append(s.buf, make([]byte, len(s.buf))...)
	}
	for {
		k, err := s.r.Read(s.buf[s.end:])
		s.end += k
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			s.err = err
		}
		if k > 0 {
			return true
		}
		if err != nil {
			return false
		}
	}
}

// peek skips white space and returns the next byte without consuming it;
// false at the end of input.
func (s *fastScanner) peek() (byte, bool) {
	for {
		for s.pos < s.end {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t', '\n', '\r':
				s.pos++
			default:
				return c, true
			}
		}
		if !s.fill(s.pos) {
			return 0, false
		}
	}
}

// expect consumes the next non-space byte if it is c.
func (s *fastScanner) expect(c byte) bool {
	got, ok := s.peek()
	if !ok || got != c {
		return false
	}
	s.pos++
	return true
}

// next consumes one of the two bytes that may follow a member: a comma
// (true, true) or close (false, true).
func (s *fastScanner) next(close byte) (more, ok bool) {
	c, ok := s.peek()
	switch {
	case !ok:
		return false, false
	case c == ',':
		s.pos++
		return true, true
	case c == close:
		s.pos++
		return false, true
	}
	return false, false
}

// str reads a string. Plain ASCII is taken as it is; anything with an
// escape or a non-ASCII byte is handed to encoding/json, so that escapes and
// invalid UTF-8 come out exactly as decodeList has them.
func (s *fastScanner) str() (string, bool) {
	if !s.expect('"') {
		return "", false
	}
	start, plain := s.pos, true
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			switch {
			case c == '"' && plain:
				v := string(s.buf[start:s.pos])
				s.pos++
				return v, true
			case c == '"':
				s.pos++
				return s.unquote(start - 1)
			case c < 0x20:
				return "", false
			case c == '\\':
				plain = false
				s.pos++ // the escaped byte, whatever it is, cannot end the string
				if s.pos == s.end && !s.refill(&start) {
					return "", false
				}
			case c >= 0x80:
				plain = false
			}
			s.pos++
			if s.pos-start > maxStringBytes {
				return "", false
			}
		}
		if !s.refill(&start) {
			return "", false
		}
	}
}

// refill reads more input keeping everything from *start on, and moves
// *start with it.
func (s *fastScanner) refill(start *int) bool {
	keep := *start - 1 // the opening quote, for unquote
	if !s.fill(keep) {
		return false
	}
	*start -= keep
	return true
}

// unquote decodes buf[from:pos], a whole quoted string, with encoding/json.
func (s *fastScanner) unquote(from int) (string, bool) {
	var v string
	if err := json.Unmarshal(s.buf[from:s.pos], &v); err != nil {
		return "", false
	}
	return v, true
}

// integer reads a number that must be a JSON integer fitting int64.
func (s *fastScanner) integer() (int64, bool) {
	text, ok := s.number()
	if !ok {
		return 0, false
	}
	neg := text[0] == '-'
	if neg {
		text = text[1:]
	}
	var n uint64
	for _, c := range text {
		if c < '0' || c > '9' || n > (1<<63)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	switch {
	case neg && n <= 1<<63:
		return int64(-n), true
	case !neg && n < 1<<63:
		return int64(n), true
	}
	return 0, false
}

// number reads a number in JSON's grammar and returns its text, valid until
// the next read.
func (s *fastScanner) number() ([]byte, bool) {
	if _, ok := s.peek(); !ok {
		return nil, false
	}
	s.scratch = s.scratch[:0]
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
				return s.checkNumber()
			}
			s.scratch = append(s.scratch, c)
			s.pos++
			if len(s.scratch) > 64 {
				return nil, false
			}
		}
		if !s.fill(s.pos) {
			if s.err != nil {
				return nil, false
			}
			return s.checkNumber()
		}
	}
}

func (s *fastScanner) checkNumber() ([]byte, bool) {
	b := s.scratch
	i := 0
	digits := func() bool {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	if i != len(b) {
		return nil, false
	}
	return b, true
}

// literal consumes word (true, false or null).
func (s *fastScanner) literal(word string) bool {
	for i := 0; i < len(word); i++ {
		if s.pos == s.end && !s.fill(s.pos) {
			return false
		}
		if s.buf[s.pos] != word[i] {
			return false
		}
		s.pos++
	}
	return true
}

// skip consumes any value, checking its syntax.
func (s *fastScanner) skip() bool {
	c, ok := s.peek()
	if !ok {
		return false
	}
	switch {
	case c == '"':
		_, ok = s.str()
		return ok
	case c == '{' || c == '[':
		if s.depth++; s.depth > maxDepth {
			return false
		}
		defer func() { s.depth-- }()
		s.pos++
		close := byte(']')
		if c == '{' {
			close = '}'
		}
		if d, ok := s.peek(); ok && d == close {
			s.pos++
			return true
		}
		for more := true; more; {
			if c == '{' && !s.skipKey() {
				return false
			}
			if !s.skip() {
				return false
			}
			if more, ok = s.next(close); !ok {
				return false
			}
		}
		return true
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	_, ok = s.number()
	return ok
}

// skipKey consumes an object key, whatever it holds, and its colon.
func (s *fastScanner) skipKey() bool {
	if _, ok := s.str(); !ok {
		return false
	}
	return s.expect(':')
}

// open consumes the '{' or '[' that must be next, and the matching close
// at once if the container is empty.
func (s *fastScanner) open(c, close byte) (empty, ok bool) {
	if !s.expect(c) {
		return false, false
	}
	if d, ok := s.peek(); ok && d == close {
		s.pos++
		return true, true
	}
	return false, true
}

// member reads a key and its colon and returns the key's index in names, -1
// for another key. Keys that encoding/json would match to a struct field
// only by folding case, and repeated keys (where it keeps the last value),
// are declined.
func (s *fastScanner) member(names []string, seen *int) (int, bool) {
	i, ok := s.key(names)
	if !ok || !s.expect(':') {
		return 0, false
	}
	switch {
	case i >= 0 && *seen&(1<<i) != 0:
		return 0, false
	case i >= 0:
		*seen |= 1 << i
	}
	return i, true
}

// key reads an object key and returns its index in names, -1 for a key
// that matches none. Only plain ASCII keys are taken, without allocating; a
// key with an escape or a non-ASCII byte, or one that encoding/json would
// match to a name only by folding case, is declined.
func (s *fastScanner) key(names []string) (int, bool) {
	if !s.expect('"') {
		return 0, false
	}
	start := s.pos
	for {
		for s.pos < s.end {
			switch c := s.buf[s.pos]; {
			case c == '"':
				key := s.buf[start:s.pos]
				s.pos++
				return fieldIndex(names, key)
			case c < 0x20 || c == '\\' || c >= 0x80:
				return 0, false
			}
			if s.pos++; s.pos-start > maxStringBytes {
				return 0, false
			}
		}
		if !s.refill(&start) {
			return 0, false
		}
	}
}

// fieldIndex returns the index of the ASCII key in names, or -1; ok is false
// for a key equal to a name but for case.
func fieldIndex(names []string, key []byte) (int, bool) {
	for i, name := range names {
		if string(key) == name {
			return i, true
		}
	}
	for _, name := range names {
		if len(name) == len(key) && asciiEqualFold(key, name) {
			return 0, false
		}
	}
	return -1, true
}

func asciiEqualFold(a []byte, b string) bool {
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

var (
	entryNames = []string{"title", "string_list_data", "label_values", "timestamp"}
	itemNames  = []string{"href", "value", "timestamp"}
	labelNames = []string{"label", "value", "href"}
)

// entries reads a list of entries whose '[' is next.
func (s *fastScanner) entries(l *listDecoder) bool {
	empty, ok := s.open('[', ']')
	if !ok || empty {
		return ok
	}
	for {
		var e entry
		if !s.entry(&e) {
			return false
		}
		l.add(&e)
		more, ok := s.next(']')
		if !ok || !more {
			return ok
		}
	}
}

// entry reads an entry, which must be an object.
func (s *fastScanner) entry(e *entry) bool {
	empty, ok := s.open('{', '}')
	if !ok || empty {
		return ok
	}
	seen := 0
	for {
		i, ok := s.member(entryNames, &seen)
		if !ok {
			return false
		}
		switch i {
		case -1:
			ok = s.skip()
		case 0:
			ok = s.text(&e.Title)
		case 1:
			ok = s.stringItems(&e.StringListData)
		case 2:
			ok = s.labelValues(&e.LabelValues)
		case 3:
			e.Timestamp, ok = s.timestamp()
		}
		if !ok {
			return false
		}
		more, ok := s.next('}')
		if !ok || !more {
			return ok
		}
	}
}

func (s *fastScanner) stringItems(dst *[]stringItem) bool {
	return objectList(s, dst, itemNames, func(i int, it *stringItem) bool {
		switch i {
		case 0:
			return s.text(&it.Href)
		case 1:
			return s.suffixText(&it.Value, it.Href)
		case 2:
			var ok bool
			it.Timestamp, ok = s.timestamp()
			return ok
		}
		return s.skip()
	})
}

func (s *fastScanner) labelValues(dst *[]labelValue) bool {
	return objectList(s, dst, labelNames, func(i int, lv *labelValue) bool {
		switch i {
		case 0:
			return s.text(&lv.Label)
		case 1:
			return s.text(&lv.Value)
		case 2:
			return s.text(&lv.Href)
		}
		return s.skip()
	})
}

// objectList reads an array of objects into dst (an empty slice, not nil,
// for [] as encoding/json gives). For each member, field gets the index of
// its name in names, or -1 for an unknown one (which it must skip).
func objectList[T any](s *fastScanner, dst *[]T, names []string, field func(i int, v *T) bool) bool {
	*dst = []T{}
	empty, ok := s.open('[', ']')
	if !ok || empty {
		return ok
	}
	for {
		var v T
		if empty, ok := s.open('{', '}'); !ok {
			return false
		} else if !empty {
			seen := 0
			for more := true; more; {
				i, ok := s.member(names, &seen)
				if !ok || !field(i, &v) {
					return false
				}
				if more, ok = s.next('}'); !ok {
					return false
				}
			}
		}
		*dst = append(*dst, v)
		more, ok := s.next(']')
		if !ok || !more {
			return ok
		}
	}
}

// text reads a string field; anything else (null included, which
// encoding/json would skip) is declined.
func (s *fastScanner) text(dst *string) bool {
	if c, ok := s.peek(); !ok || c != '"' {
		return false
	}
	v, ok := s.str()
	*dst = v
	return ok
}

// suffixText reads a string field like text, but when the string is plain
// and ends href, as a username ends its profile link, it shares href's
// bytes instead of allocating: account() keeps the href's copy anyway.
func (s *fastScanner) suffixText(dst *string, href string) bool {
	if c, ok := s.peek(); !ok || c != '"' {
		return false
	}
	s.pos++
	start := s.pos
	for s.pos < s.end {
		switch c := s.buf[s.pos]; {
		case c == '"':
			if v := s.buf[start:s.pos]; len(v) > 0 && len(v) <= len(href) && string(v) == href[len(href)-len(v):] {
				*dst = href[len(href)-len(v):]
				s.pos++
				return true
			}
			s.pos = start - 1
			return s.text(dst)
		case c < 0x20 || c == '\\' || c >= 0x80:
			s.pos = start - 1
			return s.text(dst)
		}
		s.pos++
	}
	// The string runs past the buffer: rare, and text handles it.
	s.pos = start - 1
	return s.text(dst)
}

func (s *fastScanner) timestamp() (int64, bool) {
	if c, ok := s.peek(); !ok || c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	return s.integer()
}

// wrapper reads the rest of a root object whose '{' has been consumed: the
// array-valued members are lists, other values are skipped. A root that is
// itself an entry is left to decodeList.
func (s *fastScanner) wrapper(l *listDecoder) bool {
	if c, ok := s.peek(); ok && c == '}' {
		s.pos++
		return true
	}
	for more := true; more; {
		key, ok := s.str()
		if !ok || !s.expect(':') || entryFields[key] {
			return false
		}
		c, ok := s.peek()
		switch {
		case !ok:
			return false
		case c == '[':
			ok = s.entries(l)
		default:
			ok = s.skip()
		}
		if !ok {
			return false
		}
		if more, ok = s.next('}'); !ok {
			return false
		}
	}
	return true
}
