package mail

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// pendingRetriesRead bounds how many retried mails Pending reads the
// creation time of: the earliest-due ones, which include the oldest unless
// the queue is very long (and then the age is already an alert).
const pendingRetriesRead = 50

// Pending returns how many mails wait to be sent (first attempts and
// retries) and when the oldest of them was queued (zero when none waits),
// for the outbox's depth and age metrics. It reads the queue, which holds
// only pending mail, and the stored mail of at most pendingRetriesRead
// retries, by _id.
func (o *Outbox) Pending(ctx context.Context) (depth int, oldest time.Time, err error) {
	cur, err := o.queue.Find(ctx, bson.M{}, options.Find().SetProjection(bson.M{"due": 1, "attempt": 1}))
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("mail: read queue: %w", err)
	}
	var entries []queueEntry
	if err := cur.All(ctx, &entries); err != nil {
		return 0, time.Time{}, fmt.Errorf("mail: read queue: %w", err)
	}
	var retries []queueEntry
	for _, e := range entries {
		if e.Attempt > 0 {
			retries = append(retries, e)
			continue
		}
		// A first attempt is due from the moment it was queued.
		if oldest.IsZero() || e.Due.Before(oldest) {
			oldest = e.Due
		}
	}
	slices.SortFunc(retries, func(a, b queueEntry) int { return a.Due.Compare(b.Due) })
	for _, e := range retries[:min(len(retries), pendingRetriesRead)] {
		var m Mail
		if err := o.mail.FindOne(ctx, bson.M{"_id": e.ID}, options.FindOne().SetProjection(bson.M{"createdAt": 1})).Decode(&m); err != nil {
			continue // sent or dropped meanwhile
		}
		if !m.CreatedAt.IsZero() && (oldest.IsZero() || m.CreatedAt.Before(oldest)) {
			oldest = m.CreatedAt
		}
	}
	return len(entries), oldest, nil
}
