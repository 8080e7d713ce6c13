package export

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"slices"
)

// decodeListFast is decodeList for the shapes Instagram actually writes,
// without reflection and without an allocation per account: encoding/json
// spent nine tenths of a large import finding struct fields, and a string
// per username and link cost as much again in allocation and collection. It
// appends the accounts it reads to *list and reports ok = false, having
// perhaps appended some, as soon as the file holds anything it does not
// handle exactly as decodeList would: a syntax error, null or a wrongly
// typed field, a duplicate or case-folded key, a bare entry at the root, a
// non-object entry. The caller then discards what was appended and decodes
// the file again with decodeList, which also produces the error.
// FuzzDecodeListFast holds the two to the same results.
//
// size is the most the file can decompress to (see entryReader.bound); once
// a sixteenth of it has been read, *list is grown once to the number of
// entries the rest should hold, so a list of a million accounts is not
// copied again and again as it grows.
func decodeListFast(r io.Reader, m *markers, list *[]Account, size int64) (skipped int, ok bool) {
	s := &fastScanner{r: r, buf: make([]byte, 64<<10)}
	l := &fastSink{markers: m, list: list, first: len(*list), size: size, stage: make([]byte, 0, stageBytes)}
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
	l.flush(s)
	return l.skipped, true
}

// stageBytes is the size of the buffer in which fastSink gathers the text
// of the accounts read, to make one string of many: a million links then
// cost a few hundred allocations instead of a million.
const stageBytes = 512 << 10

// fastSink receives the entries fastScanner reads. Entries in the usual
// form (a plain ASCII username that needs no cleaning) wait in stage, link
// and username side by side, until stage is full; flush then turns stage
// into one string and appends their accounts, whose strings are slices of
// it. Any other entry goes through entry.account, as in decodeList, after a
// flush, so the order of the list is kept.
type fastSink struct {
	markers *markers
	list    *[]Account
	first   int   // len(*list) before this file
	size    int64 // the bound on the file's decompressed bytes
	grown   bool  // whether *list has been grown to the estimate
	skipped int
	stage   []byte
	pending []stagedAccount
}

// stagedAccount is an account whose strings are in fastSink.stage.
type stagedAccount struct {
	href, name span
	time       int64
}

// span is a piece of a byte buffer, [from, to).
type span struct{ from, to int }

// fastEntry is what an entry holds that an account can come from: the
// decoded strings are spans of fastScanner.decoded, and only the first item of
// string_list_data is kept, since only it counts (entry.account).
type fastEntry struct {
	title       span
	items       int // the length of string_list_data
	href, value span
	itemTime    int64
	labels      []labelValue
	timestamp   int64
}

// add turns an entry into an account, as entry.account does.
func (l *fastSink) add(s *fastScanner, e *fastEntry) {
	text := s.decoded
	title := text[e.title.from:e.title.to]
	var href, value []byte
	var ts int64
	if e.items > 0 {
		href, value, ts = text[e.href.from:e.href.to], text[e.value.from:e.value.to], e.itemTime
	}
	if len(e.labels) == 0 {
		name, fromTitle := value, false
		if len(name) == 0 {
			name, fromTitle = title, true
		}
		if plainName(name) {
			if fromTitle {
				l.markers.titleOnly = true
			}
			if bytes.Contains(href, []byte("/_u/")) {
				l.markers.uHref = true
			}
			if ts == 0 {
				ts = e.timestamp
			}
			l.stageAccount(s, href, name, ts)
			return
		}
	}
	full := entry{Title: string(title), LabelValues: e.labels, Timestamp: e.timestamp}
	if e.items > 0 {
		full.StringListData = []stringItem{{Href: string(href), Value: string(value), Timestamp: e.itemTime}}
	}
	a, ok := full.account(l.markers)
	if !ok {
		l.skipped++
		return
	}
	l.flush(s)
	*l.list = append(*l.list, a)
}

// plainName reports whether cleanName would return name unchanged: it is
// printable ASCII (no white space to trim, nothing for RepairMojibake), not
// empty, and does not start with "@".
func plainName(name []byte) bool {
	if len(name) == 0 || name[0] == '@' {
		return false
	}
	for _, c := range name {
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// stageAccount queues an account whose cleaned username is name. As in
// entry.account, a username that ends its link shares the link's bytes.
func (l *fastSink) stageAccount(s *fastScanner, href, name []byte, ts int64) {
	shared := bytes.HasSuffix(href, name)
	need := len(href)
	if !shared {
		need += len(name)
	}
	if len(l.stage)+need > cap(l.stage) {
		l.flush(s)
		if need > cap(l.stage) {
			// Longer than the stage: a string of its own.
			h := string(href)
			a := Account{Href: h, Username: string(name), FollowedAt: unix(ts)}
			if shared {
				a.Username = h[len(h)-len(name):]
			}
			*l.list = append(*l.list, a)
			return
		}
	}
	p := stagedAccount{time: ts, href: span{len(l.stage), len(l.stage) + len(href)}}
	l.stage = append(l.stage, href...)
	if shared {
		p.name = span{p.href.to - len(name), p.href.to}
	} else {
		p.name = span{len(l.stage), len(l.stage) + len(name)}
		l.stage = append(l.stage, name...)
	}
	l.pending = append(l.pending, p)
}

// flush appends the staged accounts to the list.
func (l *fastSink) flush(s *fastScanner) {
	if len(l.pending) == 0 {
		return
	}
	l.grow(s)
	text := string(l.stage)
	for _, p := range l.pending {
		*l.list = append(*l.list, Account{
			Username: text[p.name.from:p.name.to], Href: text[p.href.from:p.href.to], FollowedAt: unix(p.time),
		})
	}
	l.stage, l.pending = l.stage[:0], l.pending[:0]
}

// grow makes room in the list, once, for the entries the rest of the file
// should hold at the rate of those read so far (with a sixteenth to spare),
// after a sixteenth of the file's bound has been read. It waits that long
// so that an estimate can only multiply by about sixteen the memory the
// entries already read take, whatever a forged size claims.
func (l *fastSink) grow(s *fastScanner) {
	read := s.offset()
	if l.grown || read < max(1<<20, l.size/16) {
		return
	}
	l.grown = true
	entries := int64(len(*l.list) - l.first + len(l.pending))
	if entries == 0 || read >= l.size {
		return
	}
	rest := (l.size - read) * entries / read
	*l.list = slices.Grow(*l.list, int(rest+rest/16)+len(l.pending))
}

// fastScanner reads JSON from r through buf. Every method returns false
// when the input is not in the subset decodeListFast handles.
type fastScanner struct {
	r        io.Reader
	buf      []byte
	pos, end int
	dropped  int64 // bytes of input before buf[0]
	err      error // a read error other than io.EOF
	eof      bool
	depth    int
	num      []byte // the text of the number being read
	decoded  []byte // the decoded strings of the entry being read
}

// offset is how many bytes of input have been consumed.
func (s *fastScanner) offset() int64 { return s.dropped + int64(s.pos) }

// fill reads more input, keeping buf[keep:end]; it returns false at the end.
func (s *fastScanner) fill(keep int) bool {
	if s.eof || s.err != nil {
		return false
	}
	n := copy(s.buf, s.buf[keep:s.end])
	s.dropped += int64(keep)
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
// false at the end of input. Each byte of a run of white space is looked at
// once and none is kept, so any run costs linear time and no memory. It is
// split so that the usual case, no white space, is inlined.
func (s *fastScanner) peek() (byte, bool) {
	if s.pos < s.end {
		if c := s.buf[s.pos]; c > ' ' {
			return c, true
		}
	}
	return s.peekSpace()
}

func (s *fastScanner) peekSpace() (byte, bool) {
	for {
		buf, i := s.buf[:s.end], s.pos
		for ; i < len(buf); i++ {
			switch c := buf[i]; c {
			case ' ', '\t', '\n', '\r':
			default:
				s.pos = i
				return c, true
			}
		}
		s.pos = i
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

// stringStop marks the bytes that end the plain run of a string: the
// closing quote, a backslash, a control byte and every non-ASCII byte.
var stringStop = func() (t [256]bool) {
	for c := range t {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80
	}
	return t
}()

// stopsRun reports whether any of the eight bytes in w is one stringStop
// marks, with the usual bit tricks: a byte is below 0x20 when subtracting
// 0x20 borrows from its top bit, and equal to c when w^c has a zero byte.
func stopsRun(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	return (w|zero(w^(ones*'"'))|zero(w^(ones*'\\'))|(w-ones*0x20)&^w)&highs != 0
}

// scan consumes a string and returns where its text lies in buf, between
// the quotes: buf[from:to], valid until the next read. plain means it has no
// escape and no byte ≥ 0x80, so those bytes are its value.
func (s *fastScanner) scan() (from, to int, plain, ok bool) {
	if !s.expect('"') {
		return 0, 0, false, false
	}
	return s.scanRest()
}

// scanRest is scan once the opening quote has been consumed.
func (s *fastScanner) scanRest() (from, to int, plain, ok bool) {
	start, plain := s.pos, true
	for {
		buf, i := s.buf[:s.end], s.pos
		for i < len(buf) {
			// Eight bytes at a time while none of them can end the run.
			for i+8 <= len(buf) && !stopsRun(binary.LittleEndian.Uint64(buf[i:])) {
				i += 8
			}
			if i == len(buf) {
				break
			}
			c := buf[i]
			if !stringStop[c] {
				i++
				continue
			}
			switch {
			case c == '"':
				s.pos = i + 1
				return start, i, plain, true
			case c < 0x20:
				return 0, 0, false, false
			case c == '\\':
				plain = false
				// An escape must be one JSON allows (encoding/json refuses
				// the rest, "\0" say, even in a value it skips): the
				// escaped byte, and for \u its four hex digits, are read
				// first, however the input is cut.
				var escapeOK bool
				if buf, i, escapeOK = s.haveAhead(&start, i, 2); !escapeOK {
					return 0, 0, false, false
				}
				switch buf[i+1] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
					i += 2
				case 'u':
					if buf, i, escapeOK = s.haveAhead(&start, i, 6); !escapeOK || !hex4(buf[i+2:i+6]) {
						return 0, 0, false, false
					}
					i += 6
				default:
					return 0, 0, false, false
				}
			default:
				plain = false
				i++
			}
		}
		s.pos = min(i, len(buf))
		if s.pos-start > maxStringBytes {
			return 0, 0, false, false
		}
		if !s.refill(&start) {
			return 0, 0, false, false
		}
	}
}

// haveAhead makes sure n bytes from i are in the buffer, reading more when
// needed; it returns the buffer and i as they are after any read, and false
// when the input ends (or fails) first.
func (s *fastScanner) haveAhead(start *int, i, n int) ([]byte, int, bool) {
	for i+n > s.end {
		s.pos = i
		if !s.refill(start) {
			return nil, 0, false
		}
		i = s.pos
	}
	return s.buf[:s.end], i, true
}

func hex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// refill reads more input keeping everything from the opening quote before
// *start on, and moves *start with it.
func (s *fastScanner) refill(start *int) bool {
	keep := *start - 1
	if !s.fill(keep) {
		return false
	}
	*start -= keep
	return true
}

// str reads a string. Plain ASCII is taken as it is; anything with an
// escape or a non-ASCII byte is handed to encoding/json, so that escapes and
// invalid UTF-8 come out exactly as decodeList has them.
func (s *fastScanner) str() (string, bool) {
	from, to, plain, ok := s.scan()
	switch {
	case !ok:
		return "", false
	case plain:
		return string(s.buf[from:to]), true
	}
	var v string
	if err := json.Unmarshal(s.buf[from-1:to+1], &v); err != nil {
		return "", false
	}
	return v, true
}

// text reads a string field into s.decoded; anything else (null included,
// which encoding/json would skip) is declined.
func (s *fastScanner) text(dst *span) bool {
	if c, ok := s.peek(); !ok || c != '"' {
		return false
	}
	s.pos++
	from, to, plain, ok := s.scanRest()
	if !ok {
		return false
	}
	dst.from = len(s.decoded)
	if plain {
		s.decoded = append(s.decoded, s.buf[from:to]...)
	} else {
		var v string
		if err := json.Unmarshal(s.buf[from-1:to+1], &v); err != nil {
			return false
		}
		s.decoded = append(s.decoded, v...)
	}
	dst.to = len(s.decoded)
	return true
}

// textString is text for a field kept as a string.
func (s *fastScanner) textString(dst *string) bool {
	if c, ok := s.peek(); !ok || c != '"' {
		return false
	}
	v, ok := s.str()
	*dst = v
	return ok
}

// integer reads a number that must be a JSON integer fitting int64.
func (s *fastScanner) integer() (int64, bool) {
	// The usual case: a few digits, all in the buffer, then a delimiter.
	buf, i := s.buf[:s.end], s.pos
	neg := i < len(buf) && buf[i] == '-'
	if neg {
		i++
	}
	start := i
	var n int64
	for i < len(buf) && i-start < 18 && '0' <= buf[i] && buf[i] <= '9' {
		n = n*10 + int64(buf[i]-'0')
		i++
	}
	digits := i - start
	if i < len(buf) && digits > 0 && digits < 18 && !(digits > 1 && buf[start] == '0') && !numberByte(buf[i]) {
		s.pos = i
		if neg {
			n = -n
		}
		return n, true
	}
	return s.slowInteger()
}

func numberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// slowInteger is integer for a number that runs to the end of the buffer,
// is long, or is not a plain integer.
func (s *fastScanner) slowInteger() (int64, bool) {
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
	s.num = s.num[:0]
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			if !numberByte(c) {
				return s.checkNumber()
			}
			s.num = append(s.num, c)
			s.pos++
			if len(s.num) > 64 {
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
	b := s.num
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
		_, _, _, ok = s.scan()
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
	if _, _, _, ok := s.scan(); !ok {
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
// for another key. Only plain ASCII keys are taken; keys that encoding/json
// would match to a struct field only by folding case, and repeated keys
// (where it keeps the last value), are declined.
func (s *fastScanner) member(names []string, seen *int) (int, bool) {
	i, ok := s.knownKey(names)
	if !ok {
		var from, to int
		var plain bool
		from, to, plain, ok = s.scan()
		if !ok || !plain {
			return 0, false
		}
		if i, ok = fieldIndex(names, s.buf[from:to]); !ok {
			return 0, false
		}
	}
	if s.pos < s.end && s.buf[s.pos] == ':' {
		s.pos++
	} else if !s.expect(':') {
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

// knownKey consumes the next key if it is one of names, quotes included,
// and returns its index: the usual case, compared in place without
// scanning. ok is false, with nothing consumed, for any other key.
func (s *fastScanner) knownKey(names []string) (int, bool) {
	c, ok := s.peek()
	if !ok || c != '"' {
		return 0, false
	}
	rest := s.buf[s.pos+1 : s.end]
	for i, name := range names {
		if len(rest) > len(name) && rest[len(name)] == '"' && string(rest[:len(name)]) == name {
			s.pos += len(name) + 2
			return i, true
		}
	}
	return 0, false
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
func (s *fastScanner) entries(l *fastSink) bool {
	empty, ok := s.open('[', ']')
	if !ok || empty {
		return ok
	}
	for {
		var e fastEntry
		if !s.entry(&e) {
			return false
		}
		l.add(s, &e)
		more, ok := s.next(']')
		if !ok || !more {
			return ok
		}
	}
}

// entry reads an entry, which must be an object.
func (s *fastScanner) entry(e *fastEntry) bool {
	s.decoded = s.decoded[:0]
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
			ok = s.text(&e.title)
		case 1:
			ok = s.stringItems(e)
		case 2:
			ok = objectList(s, &e.labels, labelNames, func(i int, lv *labelValue) bool {
				switch i {
				case 0:
					return s.textString(&lv.Label)
				case 1:
					return s.textString(&lv.Value)
				case 2:
					return s.textString(&lv.Href)
				}
				return s.skip()
			})
		case 3:
			e.timestamp, ok = s.timestamp()
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

// stringItems reads string_list_data, keeping its first item.
func (s *fastScanner) stringItems(e *fastEntry) bool {
	empty, ok := s.open('[', ']')
	if !ok || empty {
		return ok
	}
	for {
		var href, value span
		var ts int64
		empty, ok := s.open('{', '}')
		if !ok {
			return false
		}
		if !empty {
			seen := 0
			for more := true; more; {
				i, ok := s.member(itemNames, &seen)
				if !ok {
					return false
				}
				switch i {
				case 0:
					ok = s.text(&href)
				case 1:
					ok = s.text(&value)
				case 2:
					ts, ok = s.timestamp()
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
		}
		if e.items == 0 {
			e.href, e.value, e.itemTime = href, value, ts
		}
		e.items++
		more, ok := s.next(']')
		if !ok || !more {
			return ok
		}
	}
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

func (s *fastScanner) timestamp() (int64, bool) {
	if c, ok := s.peek(); !ok || c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	return s.integer()
}

// wrapper reads the rest of a root object whose '{' has been consumed: the
// array-valued members are lists, other values are skipped. A root that is
// itself an entry is left to decodeList.
func (s *fastScanner) wrapper(l *fastSink) bool {
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
