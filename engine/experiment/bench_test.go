package experiment

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// BenchmarkResultsAfterMillionEvents records 1,000,000 events (attempts of
// 100,000 subscribers, ten each, with a flush every 10,000 events as the
// periodic flush would write them and a compaction every ten flushes, as
// Run does) and then times the results of the phase: the work is in the
// few count documents, not the events.
func BenchmarkResultsAfterMillionEvents(b *testing.B) {
	ctx := context.Background()
	s, _ := newService(b)
	e, _ := s.Create(ctx, copyExperiment(50, 50), "bench")
	e, _ = s.SetStatus(ctx, e.ID, ActionStart, "bench")
	start := time.Now()
	const events = 1_000_000
	flushes := 0
	for i := range events {
		if err := s.Record(ctx, "subscriber-"+strconv.Itoa(i%100000), EventAttempt); err != nil {
			b.Fatal(err)
		}
		if (i+1)%10000 == 0 {
			if err := s.Flush(ctx); err != nil {
				b.Fatal(err)
			}
			flushes++
			if flushes%10 == 0 {
				if err := s.Compact(ctx, e.ID, e.Phase); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	recordMS := float64(time.Since(start).Milliseconds())
	b.ResetTimer()
	var r Results
	for b.Loop() {
		var err error
		if r, err = s.Results(ctx, e, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(recordMS, "record-ms")
	if got := r.Variants[0].Attempts + r.Variants[1].Attempts; got != events {
		b.Fatalf("results count %d events, want %d", got, events)
	}
}
