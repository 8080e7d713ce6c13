package mail

import (
	"context"
	"fmt"
	"time"
)

// Pending returns how many mails wait to be sent (first attempts and
// retries) and when the oldest of them was queued (zero when none waits),
// for the outbox's depth and age metrics.
func (o *Outbox) Pending(ctx context.Context) (depth int, oldest time.Time, err error) {
	depth, oldest, err = o.mails.Queued(ctx)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("mail: read queue: %w", err)
	}
	return depth, oldest, nil
}
