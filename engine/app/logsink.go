package app

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// logSink batches log lines into few writes. The access log writes a line
// per request; a write(2) for each cost about a twentieth of the server's CPU
// under load (docs/benchmarks.md §3), while batching costs nothing but the
// delay: lines reach the output within flushEvery, and at once for a warning
// or an error (see flushOnWarn), so what explains a crash is never held back.
type logSink struct {
	mu   sync.Mutex
	out  *bufio.Writer
	stop chan struct{}
	done chan struct{}
}

// logSinkBuffer holds a few hundred access lines: big enough that a busy
// second needs only a handful of writes, small enough to be nothing in memory.
const logSinkBuffer = 64 << 10

func newLogSink(out io.Writer, flushEvery time.Duration) *logSink {
	s := &logSink{out: bufio.NewWriterSize(out, logSinkBuffer), stop: make(chan struct{}), done: make(chan struct{})}
	go s.flushPeriodically(flushEvery)
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
	close(s.stop)
	<-s.done
	return s.Flush()
}

func (s *logSink) flushPeriodically(every time.Duration) {
	defer close(s.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			_ = s.Flush() // a failing stderr has nowhere to be reported
		}
	}
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
