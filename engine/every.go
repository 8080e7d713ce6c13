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

// PassShare is the share of the wall clock a pass over a whole collection
// may take (EveryAtMost): the renewal pass, the profile refresh, the sweeper.
const PassShare = 0.1

// EveryAtMost calls f as Every does, every d until ctx ends, but keeps f to
// at most share of the wall clock: after a call that took t, the next one
// starts max(d, t/share) after that call started. It is for passes whose
// work grows with the subscriber base (renewals, profile refreshes, sweeps):
// run every minute over a large base, such a pass would take the cores the
// requests need, and with them every page's tail. Over
// a small base nothing changes (its calls take well under share of d); over
// a large one the pass runs less often, so what it finds waits longer. The
// wall clock is the right measure: on a busy machine a call takes longer and
// the pass backs off further.
func EveryAtMost(ctx context.Context, d time.Duration, share float64, f func(ctx context.Context)) {
	atMost(ctx, d, share, f, time.Now, time.After)
}

// atMost is EveryAtMost with its clock and timer given, for tests.
func atMost(ctx context.Context, d time.Duration, share float64, f func(ctx context.Context),
	now func() time.Time, after func(time.Duration) <-chan time.Time) {
	wait := d
	for {
		select {
		case <-ctx.Done():
			return
		case <-after(wait):
		}
		if ctx.Err() != nil {
			return
		}
		start := now()
		f(ctx)
		wait = pauseAfter(d, now().Sub(start), share)
	}
}

// pauseAfter is the wait after a call that took took: the rest of a period
// of at least d in which the call took at most share.
func pauseAfter(d, took time.Duration, share float64) time.Duration {
	period := d
	if share > 0 && share < 1 {
		period = max(d, time.Duration(float64(took)/share))
	}
	return max(period-took, 0)
}
