package engine

import (
	"context"
	"time"
)

// Every calls f every d until ctx ends, for the work an instance repeats in
// the background (delivering mail, renewing, sweeping, polling). The first
// call comes after d, as a ticker's first tick does; a loop that should also
// run at once calls f itself before. A call that overruns d delays the next
// one rather than queueing more (time.Ticker drops ticks no one takes), and
// once ctx has ended f is not called again. Every blocks, so run it in its
// own goroutine; d must be positive.
//
// The ticks are the wall clock's, not a Clock's: what runs is timed by the
// Clock it reads, and tests call f's work directly rather than wait for it.
func Every(ctx context.Context, d time.Duration, f func(ctx context.Context)) {
	t := time.NewTicker(d)
	defer t.Stop()
	onTicks(ctx, t.C, f)
}

// onTicks calls f for every tick until ctx ends; tests feed it ticks by
// hand.
func onTicks(ctx context.Context, ticks <-chan time.Time, f func(ctx context.Context)) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
		}
		// When a tick and the end arrive together select picks either.
		if ctx.Err() != nil {
			return
		}
		f(ctx)
	}
}
