package app

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"

	"glimpse/engine"
)

// logSink batches log lines into few writes. The access log writes a line
// per request; a write(2) for each cost about a twentieth of the server's CPU
// under load (docs/benchmarks.md §3), while batching costs nothing but the
// delay: lines reach the output within flushEvery, and at once for a warning
// or an error (see flushOnWarn), so what explains a crash is never held back.
type logSink struct {
	mu   sync.Mutex
	out  *bufio.Writer
	stop context.CancelFunc
	done chan struct{}
}

// logSinkBuffer holds a few hundred access lines: big enough that a busy
// second needs only a handful of writes, small enough to be nothing in memory.
const logSinkBuffer = 64 << 10

func newLogSink(out io.Writer, flushEvery time.Duration) *logSink {
	ctx, stop := context.WithCancel(context.Background())
	s := &logSink{out: bufio.NewWriterSize(out, logSinkBuffer), stop: stop, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		engine.Every(ctx, flushEvery, func(context.Context) {
			_ = s.Flush() // a failing stderr has nowhere to be reported
		})
	}()
	return s
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Write(p)
}

// Flush writes out everything buffered.
func (s *logSink) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Flush()
}

// Close stops the periodic flush and writes out what is left. It is called
// once, when the command ends.
func (s *logSink) Close() error {
	s.stop()
	<-s.done
	return s.Flush()
}

// flushOnWarn writes the sink out after every record at warning level or
// above, so that problems are seen at once and survive a crash that follows.
type flushOnWarn struct {
	slog.Handler
	sink *logSink
}

func (h flushOnWarn) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := h.sink.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

func (h flushOnWarn) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushOnWarn{Handler: h.Handler.WithAttrs(attrs), sink: h.sink}
}

func (h flushOnWarn) WithGroup(name string) slog.Handler {
	return flushOnWarn{Handler: h.Handler.WithGroup(name), sink: h.sink}
}
