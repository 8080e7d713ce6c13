package store

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// FerretDB's logger drops what is below Error, derives nothing for the
// records it drops, and writes a passing record with every attribute and
// group its logger was derived with, each logger its own.
func TestMinLevelHandler(t *testing.T) {
	var out bytes.Buffer
	derived := 0
	base := countingHandler{Handler: slog.NewTextHandler(&out, nil), derived: &derived}
	logger := slog.New(minLevelHandler{base: base, min: slog.LevelError}).With("component", "ferretdb")
	conn := logger.With("conn", "1").WithGroup("cmd")
	other := logger.With("conn", "2")
	conn.Info("connection accepted")
	conn.Warn("duplicate key")
	if out.Len() != 0 || derived != 0 {
		t.Fatalf("below Error: wrote %q and derived %d handlers", out.String(), derived)
	}
	conn.Error("cut", "reason", "panic")
	line := out.String()
	for _, want := range []string{"level=ERROR", "msg=cut", "component=ferretdb", "conn=1", "cmd.reason=panic"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
	out.Reset()
	other.Error("cut")
	if line := out.String(); !strings.Contains(line, "conn=2") || strings.Contains(line, "conn=1") || strings.Contains(line, "cmd.") {
		t.Errorf("a sibling logger wrote %q", line)
	}
	if !conn.Enabled(context.Background(), slog.LevelError) || conn.Enabled(context.Background(), slog.LevelWarn) {
		t.Error("Enabled does not follow the floor")
	}
}

// countingHandler counts the handlers derived from it.
type countingHandler struct {
	slog.Handler
	derived *int
}

func (h countingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	*h.derived++
	return countingHandler{Handler: h.Handler.WithAttrs(attrs), derived: h.derived}
}

func (h countingHandler) WithGroup(name string) slog.Handler {
	*h.derived++
	return countingHandler{Handler: h.Handler.WithGroup(name), derived: h.derived}
}
