package mail

import (
	"context"
	"errors"
	"fmt"
	"time"

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
// is bounded by the sender's timeouts (a minute at most, sendTimeout), so a
// claim still held after its lease belongs to a worker that died; its
// attempt then counts as spent and the mail is claimed again, as its next
// attempt.
const lease = 5 * time.Minute

// sendTimeout bounds one attempt.
const sendTimeout = time.Minute

// claimBatch is how many mails a worker claims at once: few enough that it
// sends them all within their lease even if each takes sendTimeout.
const claimBatch = 4

// passLimit bounds the mails one pass sends, so a long queue is shared
// between passes (and instances) rather than held by one.
const passLimit = 500

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

// DeliverDue makes one pass over the queued mail whose time has come and
// returns how many were sent. A failed attempt is not an error (it is
// recorded on the mail and retried later); err is a database failure.
func (o *Outbox) DeliverDue(ctx context.Context, sender Sender) (sent int, err error) {
	for claimed := 0; claimed < passLimit; {
		if ctx.Err() != nil {
			return sent, ctx.Err()
		}
		due, err := o.mails.ClaimDue(ctx, o.clock.Now(), lease, min(claimBatch, passLimit-claimed))
		if err != nil {
			return sent, fmt.Errorf("mail: claim due: %w", err)
		}
		if len(due) == 0 {
			return sent, nil
		}
		claimed += len(due)
		for _, m := range due {
			ok, err := o.deliver(ctx, sender, m)
			if err != nil {
				return sent, err
			}
			if ok {
				sent++
			}
		}
	}
	return sent, nil
}

// deliver attempts one claimed mail and records the outcome; it reports
// whether the mail was sent.
func (o *Outbox) deliver(ctx context.Context, sender Sender, m Mail) (bool, error) {
	var sendErr error
	if m.Attempts > len(Backoff)+1 {
		// Every attempt's worker stopped before recording it.
		sendErr = errWorkersStopped
	} else {
		sendCtx, cancel := context.WithTimeout(ctx, sendTimeout)
		sendErr = sender.Send(sendCtx, m)
		cancel()
	}
	done := m.attempted(o.clock.Now(), sendErr)
	recorded, err := o.mails.Record(ctx, done)
	if err != nil {
		return false, fmt.Errorf("mail: record attempt %d of %q: %w", m.Attempts, m.ID, err)
	}
	if !recorded {
		// The lease lapsed and another worker claimed the mail meanwhile:
		// its outcome is that worker's to record.
		o.logger.Warn("mail attempt outlived its lease", "id", m.ID, "attempt", m.Attempts)
	}
	switch done.Status {
	case StatusSent:
		return true, nil
	case StatusFailed:
		o.logger.Error("mail failed for good", "id", m.ID, "to", m.To, "error", sendErr)
	default:
		o.logger.Warn("mail attempt failed", "id", m.ID, "attempt", m.Attempts, "error", sendErr)
	}
	return false, nil
}

var errWorkersStopped = errors.New("every attempt's worker stopped")

// attempted is m after its claimed attempt (m.Attempts) ended with sendErr
// at now: sent, retried after its backoff, or, after the last attempt,
// failed for good.
func (m Mail) attempted(now time.Time, sendErr error) Mail {
	switch {
	case sendErr == nil:
		m.Status, m.SentAt, m.NextAttemptAt, m.LastError = StatusSent, now, time.Time{}, ""
	case m.Attempts > len(Backoff):
		m.Status, m.NextAttemptAt, m.LastError = StatusFailed, time.Time{}, sendErr.Error()
	default:
		m.NextAttemptAt, m.LastError = now.Add(Backoff[m.Attempts-1]), sendErr.Error()
	}
	return m
}
