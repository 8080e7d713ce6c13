package engine

import (
	"context"
	"testing"
	"time"
)

func TestOnTicks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// ticks are sent before the context ends; with endWithTick one more
		// is sent after it has.
		ticks       int
		endWithTick bool
		want        int
	}{
		{"no tick, no call", 0, false, 0},
		{"one call per tick", 3, false, 3},
		{"no call once the context has ended", 2, true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			ticks := make(chan time.Time, 1)
			calls := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				onTicks(ctx, ticks, func(ctx context.Context) {
					if ctx.Err() != nil {
						t.Error("f called with an ended context")
					}
					calls <- struct{}{}
				})
			}()
			got := 0
			for range tt.ticks {
				ticks <- time.Time{}
				<-calls // f ran before the next tick is sent
				got++
			}
			cancel()
			if tt.endWithTick {
				ticks <- time.Time{} // waiting beside the ended context
			}
			for ended := false; !ended; {
				select {
				case <-calls:
					got++
				case <-done:
					ended = true
				}
			}
			if got != tt.want {
				t.Errorf("f called %d times, want %d", got, tt.want)
			}
		})
	}
}

func TestEveryStopsWithItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		Every(ctx, time.Nanosecond, func(context.Context) { t.Error("f called after the context ended") })
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Every did not return once its context had ended")
	}
}

func TestPauseAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		d, took   time.Duration
		share     float64
		wantPause time.Duration
	}{
		{"a quick call waits out the period", time.Minute, 2 * time.Second, 0.1, 58 * time.Second},
		{"a call at exactly its share waits out the period", time.Minute, 6 * time.Second, 0.1, 54 * time.Second},
		{"a slow call stretches the period to keep its share", time.Minute, 30 * time.Second, 0.1, 270 * time.Second},
		{"a call longer than the period still pauses", time.Minute, 2 * time.Minute, 0.5, 2 * time.Minute},
		{"no share: the period only", time.Minute, 2 * time.Minute, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := pauseAfter(tt.d, tt.took, tt.share); got != tt.wantPause {
				t.Errorf("pauseAfter(%s, %s, %v) = %s, want %s", tt.d, tt.took, tt.share, got, tt.wantPause)
			}
		})
	}
}

// TestAtMostWaitsForItsShare: each wait atMost asks for follows from how
// long the call before took, and no call comes once the context has ended.
func TestAtMostWaitsForItsShare(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	clock := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	took := []time.Duration{time.Second, 40 * time.Second, time.Second}
	var waits []time.Duration
	calls := 0
	atMost(ctx, time.Minute, 0.1, func(context.Context) {
		clock = clock.Add(took[calls])
		calls++
		if calls == len(took) {
			cancel()
		}
	}, func() time.Time { return clock }, func(d time.Duration) <-chan time.Time {
		waits = append(waits, d)
		ch := make(chan time.Time, 1)
		ch <- clock
		return ch
	})
	want := []time.Duration{time.Minute, 59 * time.Second, 360 * time.Second, 59 * time.Second}
	if calls != len(took) || len(waits) != len(want) {
		t.Fatalf("%d calls and waits %v, want %d calls and waits %v", calls, waits, len(took), want)
	}
	for i := range want {
		if waits[i] != want[i] {
			t.Errorf("wait %d: %s, want %s (all: %v)", i, waits[i], want[i], waits)
		}
	}
}
