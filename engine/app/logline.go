package app

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// quickText writes the common log record (no groups, no attributes bound
// with With, plain values) itself and hands every other record to slog's
// TextHandler, writing exactly the line TextHandler would write for it (a
// test holds both to that). The access log writes such a record per request,
// and TextHandler's general path cost about a tenth of the server's own time
// for a screen request (BenchmarkScreenRequest, docs/benchmarks.md §3).
type quickText struct {
	text  slog.Handler
	out   io.Writer
	level slog.Leveler
}

func newQuickText(out io.Writer, level slog.Leveler) quickText {
	return quickText{text: slog.NewTextHandler(out, &slog.HandlerOptions{Level: level}), out: out, level: level}
}

func (h quickText) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

// WithAttrs and WithGroup give up the quick path: bound attributes come first
// in a line, and only TextHandler knows how it wrote them.
func (h quickText) WithAttrs(attrs []slog.Attr) slog.Handler { return h.text.WithAttrs(attrs) }
func (h quickText) WithGroup(name string) slog.Handler       { return h.text.WithGroup(name) }

const maxPooledLine = 16 << 10

var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func (h quickText) Handle(ctx context.Context, r slog.Record) error {
	bp := lineBuffers.Get().(*[]byte)
	line, ok := appendQuickLine((*bp)[:0], r)
	if cap(line) <= maxPooledLine { // one huge line must not pin its buffer
		*bp = line
		defer lineBuffers.Put(bp)
	}
	if !ok {
		return h.text.Handle(ctx, r)
	}
	_, err := h.out.Write(line)
	return err
}

// appendQuickLine appends r as TextHandler writes it, or reports false for a
// record it does not handle: a message, key or string beyond printable
// ASCII, a group, or a value of another kind than string, integer,
// duration, boolean or time.
func appendQuickLine(b []byte, r slog.Record) ([]byte, bool) {
	if !r.Time.IsZero() {
		b = append(b, "time="...)
		b = appendRFC3339Millis(b, r.Time)
		b = append(b, ' ')
	}
	b = append(b, "level="...)
	b = append(b, r.Level.String()...)
	b = append(b, " msg="...)
	b, ok := appendText(b, r.Message)
	if !ok {
		return b, false
	}
	r.Attrs(func(a slog.Attr) bool {
		b = append(b, ' ')
		if b, ok = appendText(b, a.Key); !ok {
			return false
		}
		b = append(b, '=')
		v := a.Value
		switch v.Kind() {
		case slog.KindString:
			b, ok = appendText(b, v.String())
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindUint64:
			b = strconv.AppendUint(b, v.Uint64(), 10)
		case slog.KindDuration:
			b = append(b, v.Duration().String()...)
		case slog.KindBool:
			b = strconv.AppendBool(b, v.Bool())
		case slog.KindTime:
			b = appendRFC3339Millis(b, v.Time())
		default:
			ok = false
		}
		return ok
	})
	return append(b, '\n'), ok
}

// appendText appends s as TextHandler does when s is printable ASCII: as it
// is, or quoted (strconv.Quote) when it is empty or holds a space, '=' or
// '"'. Anything else is left to TextHandler (false), whose rules for the
// rest of Unicode are its own.
func appendText(b []byte, s string) ([]byte, bool) {
	quote := s == ""
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < ' ' || c >= 0x7f {
			return b, false
		}
		quote = quote || c == ' ' || c == '=' || c == '"'
	}
	if quote {
		return strconv.AppendQuote(b, s), true
	}
	return append(b, s...), true
}

// appendRFC3339Millis is TextHandler's time format: RFC 3339 with exactly
// three fractional digits, truncated (log/slog's own helper of that name).
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}
