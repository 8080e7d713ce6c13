package library

import (
	"context"
	"time"
)

// WatchReady is Repo.Watch with a call once the baseline is set, for the
// external tests.
func WatchReady(r *Repo, ctx context.Context, every time.Duration, onChange func(version int64), ready func()) {
	r.watch(ctx, every, onChange, ready)
}
