package app

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is the sink's output as a test reads it while the periodic
// flush may write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestLogSinkHoldsInfoLinesUntilFlushAndWritesWarningsAtOnce(t *testing.T) {
	var out lockedBuffer
	// An hour: the periodic flush never runs during the test.
	sink := newLogSink(&out, time.Hour)
	logger := newLogger("info", sink)

	logger.Info("request", "path", "/dashboard")
	if got := out.String(); got != "" {
		t.Fatalf("an info line was written before any flush: %q", got)
	}
	logger.Warn("slow database")
	got := out.String()
	if !strings.Contains(got, "path=/dashboard") || !strings.Contains(got, "slow database") {
		t.Fatalf("a warning did not write out itself and the lines before it, in order: %q", got)
	}
	if strings.Index(got, "/dashboard") > strings.Index(got, "slow database") {
		t.Fatalf("lines out of order: %q", got)
	}

	logger.Debug("not at this level")
	logger.With("component", "billing").Info("renewed")
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	got = out.String()
	if !strings.Contains(got, "component=billing msg=renewed") && !strings.Contains(got, "msg=renewed component=billing") {
		t.Fatalf("Close did not write out the last line with its attributes: %q", got)
	}
	if strings.Contains(got, "not at this level") {
		t.Fatalf("a debug line passed an info logger: %q", got)
	}
}

func TestLogSinkFlushesPeriodically(t *testing.T) {
	var out lockedBuffer
	sink := newLogSink(&out, time.Millisecond)
	defer sink.Close()
	slog.New(slog.NewTextHandler(sink, nil)).Info("request")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "msg=request") {
		if time.Now().After(deadline) {
			t.Fatal("a buffered line never reached the output")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestLogSinkKeepsConcurrentLinesWhole(t *testing.T) {
	var out lockedBuffer
	sink := newLogSink(&out, time.Millisecond)
	logger := newLogger("info", sink)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 500 {
				logger.Info("request", "worker", w, "n", i, "pad", strings.Repeat("x", 200))
			}
		})
	}
	wg.Wait()
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 8*500 {
		t.Fatalf("%d lines, want %d", len(lines), 8*500)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "time=") || !strings.HasSuffix(l, strings.Repeat("x", 200)) {
			t.Fatalf("a line was torn: %q", l)
		}
	}
}
