package support

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"glimpse/engine"
)

// ErrEntryExists is an AuditLog's answer to an entry whose id is taken.
var ErrEntryExists = errors.New("support: an audit entry with this id exists")

// AuditLog is the support desk's audit log in storage: one entry per action
// staff took, added and never changed. It has no method to change or remove
// an entry, and its stores refuse to (the SQLite table has triggers that
// abort an UPDATE or DELETE; on MongoDB the operator can give the app a
// role with only find and insert on it, docs/support.md).
type AuditLog interface {
	// Append adds an entry, or returns ErrEntryExists.
	Append(ctx context.Context, e Entry) error
	// Newest returns up to limit entries, newest first (by id).
	Newest(ctx context.Context, limit int) ([]Entry, error)
	// NewestOf returns up to limit of the subscriber's entries, newest
	// first.
	NewestOf(ctx context.Context, subscriber string, limit int) ([]Entry, error)
}

// Outcomes of an audited action.
const (
	OutcomeDone   = "done"
	OutcomeFailed = "failed"
	// OutcomeStarted is the intent an action that moves money or a plan's
	// term writes before it acts; its outcome is an entry of its own that
	// names it (Entry.Intent). An intent with no outcome is an action whose
	// result nobody recorded (a crash, a full disk): the log shows it as
	// unfinished, so staff check the subscriber's state.
	OutcomeStarted = "started"
)

// Entry is one audited action: who, when, what, why and to whom.
type Entry struct {
	// ID orders entries by time: the nanoseconds, zero-padded, and a random
	// tail, so two entries in one nanosecond both insert.
	ID    string
	At    time.Time
	Staff string
	// Action is one of the Action* names.
	Action string
	// Subscriber is the subscriber's email; Target the subscription or
	// charge acted on ("" for the account as a whole).
	Subscriber string
	Target     string
	Reason     string
	// Detail says what was done (an amount, a number of days).
	Detail  string
	Outcome string
	// Problem is why a failed action failed, as staff were told.
	Problem string
	// Intent is the id of the started entry this outcome closes.
	Intent string
}

// auditLog appends to and reads the audit log; it can do nothing else.
type auditLog struct {
	log   AuditLog
	clock engine.Clock
}

func newAuditLog(log AuditLog, clock engine.Clock) *auditLog {
	return &auditLog{log: log, clock: clock}
}

// EntryID returns a new entry's id for an action at t: ids sort as their
// times do.
func EntryID(t time.Time) string {
	var tail [4]byte
	_, _ = rand.Read(tail[:])
	n := strconv.FormatInt(t.UnixNano(), 10)
	for len(n) < 20 {
		n = "0" + n
	}
	return n + "-" + hex.EncodeToString(tail[:])
}

func (l *auditLog) append(ctx context.Context, e Entry) error {
	_, err := l.appendEntry(ctx, e)
	return err
}

// appendEntry writes e and returns its id.
func (l *auditLog) appendEntry(ctx context.Context, e Entry) (string, error) {
	e.ID = EntryID(e.At)
	if err := l.log.Append(ctx, e); err != nil {
		return "", fmt.Errorf("write support audit entry: %w", err)
	}
	return e.ID, nil
}

// newest reads the newest entries (at most limit), newest first; with a
// subscriber, only theirs. Twice limit are read, so that the intents their
// outcomes fold away (closedIntents) still leave a full page.
func (l *auditLog) newest(ctx context.Context, subscriber string, limit int) ([]Entry, error) {
	var out []Entry
	var err error
	if subscriber != "" {
		out, err = l.log.NewestOf(ctx, subscriber, 2*limit)
	} else {
		out, err = l.log.Newest(ctx, 2*limit)
	}
	if err != nil {
		return nil, fmt.Errorf("read support audit log: %w", err)
	}
	out = closedIntents(out)
	return out[:min(len(out), limit)], nil
}

// closedIntents leaves out the started entries whose outcome is among
// entries: the outcome says all they said, and more. A started entry with
// no outcome stays, shown as unfinished.
func closedIntents(entries []Entry) []Entry {
	closed := map[string]bool{}
	for _, e := range entries {
		if e.Intent != "" {
			closed[e.Intent] = true
		}
	}
	out := entries[:0]
	for _, e := range entries {
		if e.Outcome == OutcomeStarted && closed[e.ID] {
			continue
		}
		out = append(out, e)
	}
	return out
}
