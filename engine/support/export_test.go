package support

import (
	"context"
	"time"

	"glimpse/engine"
)

// AppendAt writes an entry at its At through the desk's audit log, as an
// action does, and returns its id.
func AppendAt(ctx context.Context, log AuditLog, e Entry) (string, error) {
	return newAuditLog(log, engine.NewManualClock(e.At)).appendEntry(ctx, e)
}

// NewestPage is the page of the log the desk shows: at most limit entries,
// newest first, intents their outcomes close folded away.
func NewestPage(ctx context.Context, log AuditLog, now time.Time, subscriber string, limit int) ([]Entry, error) {
	return newAuditLog(log, engine.NewManualClock(now)).newest(ctx, subscriber, limit)
}
