package app

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// quickAndText writes r through quickText and through slog's TextHandler.
func quickAndText(t *testing.T, r slog.Record) (quick, text string) {
	t.Helper()
	var q, x bytes.Buffer
	if err := newQuickText(&q, slog.LevelDebug).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if err := slog.NewTextHandler(&x, &slog.HandlerOptions{Level: slog.LevelDebug}).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return q.String(), x.String()
}

func TestQuickTextWritesWhatTextHandlerWrites(t *testing.T) {
	at := time.Date(2026, 11, 22, 21, 16, 48, 123_999_999, time.UTC)
	record := func(level slog.Level, msg string, attrs ...slog.Attr) slog.Record {
		r := slog.NewRecord(at, level, msg, 0)
		r.AddAttrs(attrs...)
		return r
	}
	cases := []slog.Record{
		// The access log's line, as logRequests writes it.
		record(slog.LevelInfo, "request", slog.String("requestId", "a1b2c3d4e5f6-1z"), slog.String("method", "GET"),
			slog.String("path", "/ui/screen"), slog.String("query", "path=%2Fdashboard"), slog.Int("status", 200),
			slog.Duration("duration", 1234567*time.Nanosecond)),
		record(slog.LevelInfo, "request", slog.String("query", "")),                   // empty: quoted
		record(slog.LevelWarn, "slow query", slog.String("collection", "users")),      // a space in the message
		record(slog.LevelError, "failed", slog.Any("error", errors.New("a b"))),       // not a plain kind
		record(slog.LevelInfo, "x", slog.String("note", `say "hi"`)),                  // quotes
		record(slog.LevelInfo, "x", slog.String("k", "a=b")),                          // '='
		record(slog.LevelInfo, "x", slog.String("k", "naïve")),                        // beyond ASCII
		record(slog.LevelInfo, "x", slog.String("k", `C:\path`)),                      // backslash
		record(slog.LevelDebug+1, "x", slog.Bool("ok", true), slog.Uint64("n", 7)),    // a level between names
		record(slog.LevelInfo, "x", slog.Time("at", at.In(time.FixedZone("", 3600)))), // a time with an offset
		record(slog.LevelInfo, "x", slog.Group("g", slog.Int("a", 1))),                // a group
		record(slog.LevelInfo, "x", slog.Float64("f", 0.5)),                           // a float
		slog.NewRecord(time.Time{}, slog.LevelInfo, "no time", 0),                     // no time
	}
	for _, r := range cases {
		quick, text := quickAndText(t, r)
		if quick != text {
			t.Errorf("quickText wrote\n%q\nTextHandler writes\n%q", quick, text)
		}
	}
}

func TestQuickTextMatchesTextHandlerOnRandomRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("aZ09/%_-.~:?&=\" \\\t\n\x00\x7fé€😀")
	randomString := func() string {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 5000 {
		at := time.Unix(rng.Int64N(4e9), rng.Int64N(1e9)).UTC()
		r := slog.NewRecord(at, slog.Level(rng.IntN(20)-8), randomString(), 0)
		for range rng.IntN(5) {
			switch rng.IntN(4) {
			case 0:
				r.AddAttrs(slog.String(randomString(), randomString()))
			case 1:
				r.AddAttrs(slog.Int64(randomString(), rng.Int64()-rng.Int64()))
			case 2:
				r.AddAttrs(slog.Duration(randomString(), time.Duration(rng.Int64N(1e12))))
			case 3:
				r.AddAttrs(slog.Bool(randomString(), rng.IntN(2) == 0))
			}
		}
		quick, text := quickAndText(t, r)
		if quick != text {
			t.Fatalf("quickText wrote\n%q\nTextHandler writes\n%q", quick, text)
		}
	}
}

func TestQuickTextKeepsBoundAttributesAndLevels(t *testing.T) {
	var out bytes.Buffer
	logger := slog.New(newQuickText(&out, slog.LevelInfo))
	logger.Debug("hidden")
	logger.With("component", "billing").Info("renewed", "n", 3)
	logger.WithGroup("g").Info("grouped", "a", 1)
	got := out.String()
	if strings.Contains(got, "hidden") {
		t.Errorf("a debug record passed an info handler: %q", got)
	}
	for _, want := range []string{"msg=renewed component=billing n=3", "msg=grouped g.a=1"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in %q", want, got)
		}
	}
}

func BenchmarkAccessLine(b *testing.B) {
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
	r.AddAttrs(slog.String("requestId", "a1b2c3d4e5f6-1z"), slog.String("method", "GET"),
		slog.String("path", "/ui/screen"), slog.String("query", "path=%2Fdashboard"), slog.Int("status", 200),
		slog.Duration("duration", 1234567*time.Nanosecond))
	var out bytes.Buffer
	for name, h := range map[string]slog.Handler{"quick": newQuickText(&out, slog.LevelInfo), "text": slog.NewTextHandler(&out, nil)} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out.Reset()
				_ = h.Handle(context.Background(), r)
			}
		})
	}
}
