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
