package engine

import (
	"context"
	"errors"
	"time"

	"golang.org/x/time/rate"
)

// ErrPastDeadline is WaitLimit's refusal: the limiter's next slot comes after
// the caller's deadline.
var ErrPastDeadline = errors.New("rate limit: the next slot comes after the deadline")

// WaitLimit takes one slot from l and waits for it. now is the time on the
// clock the limiter runs on (an injected Clock, so tests move it); the
// deadline and the wait are on the wall clock. When the slot would come after
// ctx's deadline, WaitLimit gives it back at once and returns ErrPastDeadline:
// a person waiting for a screen is better told "try later" than kept waiting
// past the deadline. If ctx ends during the wait, the slot is given back and
// WaitLimit returns ctx's cause. wait is how far away the slot was.
func WaitLimit(ctx context.Context, l *rate.Limiter, now time.Time) (wait time.Duration, err error) {
	r := l.ReserveN(now, 1)
	wait = r.DelayFrom(now)
	if deadline, ok := ctx.Deadline(); !r.OK() || ok && wait > time.Until(deadline) {
		r.CancelAt(now)
		return wait, ErrPastDeadline
	}
	if wait == 0 {
		return 0, nil
	}
	start := time.Now()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return wait, nil
	case <-ctx.Done():
		// The limiter's clock is taken to have moved as the wall clock did.
		r.CancelAt(now.Add(time.Since(start)))
		return wait, context.Cause(ctx)
	}
}
