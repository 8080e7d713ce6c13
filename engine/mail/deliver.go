package mail

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
)

// Sender delivers one rendered mail.
type Sender interface {
	Send(ctx context.Context, m Mail) error
}

// SenderFunc adapts a function to Sender.
type SenderFunc func(ctx context.Context, m Mail) error

// Send calls f.
func (f SenderFunc) Send(ctx context.Context, m Mail) error { return f(ctx, m) }

// Backoff is the wait after each failed attempt; after the last one the mail
// is failed. So a mail is tried len(Backoff)+1 times over about 2.6 hours.
var Backoff = []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour}

// lease is how long one attempt's claim keeps other workers off. An attempt
// is bounded by the sender's timeouts (well under a minute), so a claim still
// held after its lease belongs to a worker that died; its attempt then counts
// as failed and the next attempt's claim is taken.
const lease = 5 * time.Minute

// Run delivers due mail every interval until ctx ends. Every instance may
// run it: each attempt of each mail is claimed by one worker.
func (o *Outbox) Run(ctx context.Context, sender Sender, every time.Duration) {
	deliver := func(ctx context.Context) {
		if n, err := o.DeliverDue(ctx, sender); err != nil && ctx.Err() == nil {
			o.logger.Error("deliver mail", "error", err)
		} else if n > 0 {
			o.logger.Info("mail delivered", "count", n)
		}
	}
	deliver(ctx)
	engine.Every(ctx, every, deliver)
}

// DeliverDue makes one pass over the pending mail whose time has come and
// returns how many were sent. A failed attempt is not an error (it is
// recorded on the mail and retried later); err is a database failure.
func (o *Outbox) DeliverDue(ctx context.Context, sender Sender) (sent int, err error) {
	now := o.clock.Now()
	// The queue holds only pending mail, so this scan stays small however
	// much mail was ever sent.
	cur, err := o.queue.Find(ctx, bson.M{"due": bson.M{"$lte": now}}, options.Find().SetSort(bson.D{{Key: "due", Value: 1}}).SetLimit(500))
	if err != nil {
		return 0, fmt.Errorf("mail: find due: %w", err)
	}
	var due []queueEntry
	if err := cur.All(ctx, &due); err != nil {
		return 0, fmt.Errorf("mail: find due: %w", err)
	}
	for _, e := range due {
		if ctx.Err() != nil {
			return sent, ctx.Err()
		}
		ok, err := o.deliver(ctx, sender, e)
		if err != nil {
			return sent, err
		}
		if ok {
			sent++
		}
	}
	return sent, nil
}

func claimID(id string, attempt int) string { return "mail:" + id + ":" + strconv.Itoa(attempt) }

// deliver attempts one pending mail under its attempt's claim and reports
// whether it was sent.
func (o *Outbox) deliver(ctx context.Context, sender Sender, e queueEntry) (bool, error) {
	attempt, ok, err := o.claim(ctx, e)
	if err != nil || !ok {
		return false, err
	}
	// Re-read under the claim: another worker may have finished this mail
	// or moved it on since the queue was listed.
	var cur queueEntry
	err = o.queue.FindOne(ctx, bson.M{"_id": e.ID}).Decode(&cur)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("mail: read queue entry %q: %w", e.ID, err)
	}
	if cur.Attempt > attempt {
		return false, nil
	}
	m, err := o.Get(ctx, e.ID)
	if err != nil || m.Status != StatusQueued {
		if err != nil {
			// The mail is gone (or never written): nothing to send.
			o.logger.Warn("mail queue entry without a queued mail", "id", e.ID, "error", err)
		}
		return false, o.dequeue(ctx, e.ID)
	}
	sendCtx, cancel := context.WithTimeout(ctx, time.Minute)
	sendErr := sender.Send(sendCtx, m)
	cancel()
	now := o.clock.Now()
	// Only this attempt's claim holder writes these, so a plain $set by _id
	// is enough (docs/store.md §1).
	if sendErr == nil {
		if _, err := o.mail.UpdateOne(ctx, bson.M{"_id": m.ID}, bson.M{"$set": bson.M{"status": StatusSent,
			"attempts": attempt + 1, "sentAt": now, "lastError": ""}}); err != nil {
			return false, fmt.Errorf("mail: mark %q sent: %w", m.ID, err)
		}
		return true, o.dequeue(ctx, m.ID)
	}
	o.logger.Warn("mail attempt failed", "id", m.ID, "attempt", attempt+1, "error", sendErr)
	if attempt >= len(Backoff) {
		if _, err := o.mail.UpdateOne(ctx, bson.M{"_id": m.ID}, bson.M{"$set": bson.M{"status": StatusFailed,
			"attempts": attempt + 1, "lastError": sendErr.Error()}}); err != nil {
			return false, fmt.Errorf("mail: mark %q failed: %w", m.ID, err)
		}
		o.logger.Error("mail failed for good", "id", m.ID, "to", m.To, "error", sendErr)
		return false, o.dequeue(ctx, m.ID)
	}
	next := now.Add(Backoff[attempt])
	if _, err := o.mail.UpdateOne(ctx, bson.M{"_id": m.ID}, bson.M{"$set": bson.M{"attempts": attempt + 1,
		"nextAttemptAt": next, "lastError": sendErr.Error()}}); err != nil {
		return false, fmt.Errorf("mail: record attempt of %q: %w", m.ID, err)
	}
	if _, err := o.queue.UpdateOne(ctx, bson.M{"_id": m.ID}, bson.M{"$set": bson.M{"due": next, "attempt": attempt + 1}}); err != nil {
		return false, fmt.Errorf("mail: requeue %q: %w", m.ID, err)
	}
	return false, nil
}

// claim takes the claim of the entry's attempt. A claim held past its lease
// belongs to a worker that died mid-attempt: that attempt counts as spent
// and the next one's claim is tried, which, being a new _id, again has
// exactly one winner. It returns the attempt claimed.
func (o *Outbox) claim(ctx context.Context, e queueEntry) (int, bool, error) {
	now := o.clock.Now()
	for attempt := e.Attempt; attempt <= len(Backoff); attempt++ {
		ok, err := o.claims.Take(ctx, claimID(e.ID, attempt), o.owner, now.Add(lease))
		if err != nil || ok {
			return attempt, ok, err
		}
		var held struct {
			ExpiresAt time.Time `bson:"expiresAt"`
		}
		err = o.claimsC.FindOne(ctx, bson.M{"_id": claimID(e.ID, attempt)}).Decode(&held)
		if errors.Is(err, mongo.ErrNoDocuments) {
			return attempt, false, nil // released meanwhile; the next pass tries again
		}
		if err != nil {
			return attempt, false, fmt.Errorf("mail: read claim: %w", err)
		}
		if now.Before(held.ExpiresAt) {
			return attempt, false, nil // another worker is on it
		}
	}
	// Every attempt's claim lapsed: the mail cannot be tried again.
	// Read, then written by _id alone: a filter beside _id scans every mail
	// on the embedded store (docs/store.md §10).
	var m Mail
	if err := o.mail.FindOne(ctx, bson.M{"_id": e.ID}, options.FindOne().SetProjection(bson.M{"status": 1})).Decode(&m); err != nil {
		return 0, false, fmt.Errorf("mail: read %q: %w", e.ID, err)
	}
	if m.Status != StatusQueued {
		return 0, false, o.dequeue(ctx, e.ID)
	}
	if _, err := o.mail.UpdateOne(ctx, bson.M{"_id": e.ID}, bson.M{"$set": bson.M{
		"status": StatusFailed, "lastError": "every attempt's worker stopped"}}); err != nil {
		return 0, false, fmt.Errorf("mail: mark %q failed: %w", e.ID, err)
	}
	return 0, false, o.dequeue(ctx, e.ID)
}

func (o *Outbox) dequeue(ctx context.Context, id string) error {
	if _, err := o.queue.DeleteOne(ctx, bson.M{"_id": id}); err != nil {
		return fmt.Errorf("mail: dequeue %q: %w", id, err)
	}
	return nil
}
