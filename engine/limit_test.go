package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

func TestWaitLimit(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	gone := errors.New("the person left")
	tests := []struct {
		name string
		// used is how many slots are taken at t0 before the call; the
		// limiter gives one an hour with a burst of one.
		used int
		// at is the limiter's time of the call, after t0.
		at time.Duration
		// deadline is from the wall clock's now; zero is none. cancel
		// ends the context with gone during the wait.
		deadline time.Duration
		cancel   bool
		wantWait time.Duration
		wantErr  error
		// wantBack is whether the slot was given back: whether the next
		// caller at the same time would wait the same.
		wantBack bool
	}{
		{name: "a free slot is taken at once", used: 0},
		{name: "a slot soon is waited for", used: 1, at: time.Hour - 5*time.Millisecond, deadline: time.Minute,
			wantWait: 5 * time.Millisecond},
		{name: "without a deadline the wait is not bounded", used: 1, at: time.Hour - 5*time.Millisecond,
			wantWait: 5 * time.Millisecond},
		{name: "a slot past the deadline is refused at once and given back", used: 1, deadline: time.Minute,
			wantWait: time.Hour, wantErr: ErrPastDeadline, wantBack: true},
		{name: "a deadline already past refuses even a free slot", used: 0, deadline: -time.Second,
			wantErr: ErrPastDeadline, wantBack: true},
		{name: "an ended wait gives the slot back", used: 1, at: time.Hour - time.Minute, cancel: true,
			wantWait: time.Minute, wantErr: gone, wantBack: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := rate.NewLimiter(rate.Every(time.Hour), 1)
			for range tt.used {
				l.ReserveN(t0, 1)
			}
			ctx, cancel := context.WithCancelCause(t.Context())
			defer cancel(nil)
			if tt.deadline != 0 {
				var stop context.CancelFunc
				ctx, stop = context.WithDeadline(ctx, time.Now().Add(tt.deadline))
				defer stop()
			}
			if tt.cancel {
				// The wait is a minute long; it ends long before.
				time.AfterFunc(time.Millisecond, func() { cancel(gone) })
			}
			now := t0.Add(tt.at)
			wait, err := WaitLimit(ctx, l, now)
			if wait != tt.wantWait || !errors.Is(err, tt.wantErr) {
				t.Errorf("WaitLimit = %v, %v; want %v, %v", wait, err, tt.wantWait, tt.wantErr)
			}
			// Whether the slot was kept shows in the next caller's wait.
			next := l.ReserveN(now, 1).DelayFrom(now)
			if back := next <= tt.wantWait+time.Second; back != tt.wantBack {
				t.Errorf("slot given back = %v (next caller waits %v), want %v", back, next, tt.wantBack)
			}
		})
	}
}
