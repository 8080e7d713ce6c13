package support

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/store"
)

// AuditCollection is the support desk's audit log: one document per action
// staff took, inserted and never changed. This file is the only code that
// touches it, and it has no update, replace or delete (audit_test.go fails
// if one appears, here or anywhere else that names the collection). On a
// MongoDB deployment the operator can make that hold for people too: a role
// with only find and insert on it (docs/support.md).
const AuditCollection = "support_audit"

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
	ID    string    `bson:"_id"`
	At    time.Time `bson:"at"`
	Staff string    `bson:"staff"`
	// Action is one of the Action* names.
	Action string `bson:"action"`
	// Subscriber is the subscriber's email; Target the subscription or
	// charge acted on ("" for the account as a whole).
	Subscriber string `bson:"subscriber"`
	Target     string `bson:"target,omitempty"`
	Reason     string `bson:"reason"`
	// Detail says what was done (an amount, a number of days).
	Detail  string `bson:"detail,omitempty"`
	Outcome string `bson:"outcome"`
	// Problem is why a failed action failed, as staff were told.
	Problem string `bson:"problem,omitempty"`
	// Intent is the id of the started entry this outcome closes.
	Intent string `bson:"intent,omitempty"`
}

// The audit log's lists (store.Lists), so that its pages are read by _id
// rather than by scanning the log (docs/store.md §10): each month's
// entries, and each subscriber's. Like the log they are only added to.
const (
	AuditByMonthCollection      = "support_audit_by_month"
	AuditBySubscriberCollection = "support_audit_by_subscriber"
)

// auditMonths is how far back the newest page looks: ten years of months,
// each a read by _id when empty.
const auditMonths = 120

// Collections declares the audit log and its lists for EnsureCollections.
func Collections() map[string][]mongo.IndexModel {
	return map[string][]mongo.IndexModel{AuditCollection: nil, AuditByMonthCollection: nil, AuditBySubscriberCollection: nil}
}

// auditLog appends to and reads the audit log; it can do nothing else.
type auditLog struct {
	coll                  *mongo.Collection
	byMonth, bySubscriber *store.Lists
	clock                 engine.Clock

	// monthBound is where this process last found a month's first free
	// slot: a month's list grows with every action staff take, so an
	// append reads from there rather than from slot 0. Slots are never
	// deleted, so a bound is never past a free slot.
	mu         sync.Mutex
	monthBound map[string]int
}

func newAuditLog(db *mongo.Database, clock engine.Clock) *auditLog {
	return &auditLog{coll: db.Collection(AuditCollection), byMonth: store.NewLists(db, AuditByMonthCollection),
		bySubscriber: store.NewLists(db, AuditBySubscriberCollection), clock: clock, monthBound: map[string]int{}}
}

func auditMonth(t time.Time) string { return t.UTC().Format("2006-01") }

func (l *auditLog) append(ctx context.Context, e Entry) error {
	_, err := l.appendEntry(ctx, e)
	return err
}

// appendEntry writes e and returns its id.
func (l *auditLog) appendEntry(ctx context.Context, e Entry) (string, error) {
	var tail [4]byte
	_, _ = rand.Read(tail[:])
	n := strconv.FormatInt(e.At.UnixNano(), 10)
	for len(n) < 20 {
		n = "0" + n
	}
	e.ID = n + "-" + hex.EncodeToString(tail[:])
	// Listed before written: a crash in between leaves a slot the pages
	// skip, never an entry no page shows.
	month := auditMonth(e.At)
	l.mu.Lock()
	from := l.monthBound[month]
	l.mu.Unlock()
	bound, err := l.byMonth.AddFrom(ctx, month, e.ID, from)
	if err != nil {
		return "", fmt.Errorf("list support audit entry: %w", err)
	}
	l.mu.Lock()
	l.monthBound[month] = max(l.monthBound[month], bound)
	l.mu.Unlock()
	if e.Subscriber != "" {
		if err := l.bySubscriber.Add(ctx, e.Subscriber, e.ID); err != nil {
			return "", fmt.Errorf("list support audit entry: %w", err)
		}
	}
	if _, err := l.coll.InsertOne(ctx, e); err != nil {
		return "", fmt.Errorf("write support audit entry: %w", err)
	}
	return e.ID, nil
}

// newest reads the newest entries (at most limit), newest first; with a
// subscriber, only theirs. Every read is by _id: the subscriber's list, or
// the months' lists from this one back until limit entries are found.
func (l *auditLog) newest(ctx context.Context, subscriber string, limit int) ([]Entry, error) {
	var out []Entry
	if subscriber != "" {
		refs, err := l.bySubscriber.Refs(ctx, subscriber)
		if err != nil {
			return nil, fmt.Errorf("read support audit log: %w", err)
		}
		if out, err = l.entries(ctx, refs); err != nil {
			return nil, err
		}
	} else {
		now := l.clock.Now().UTC()
		month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
		// A month's entries are all newer than an earlier month's, so
		// once the months read hold limit entries the earlier ones cannot
		// be among the newest.
		for i := 0; i < auditMonths && len(out) < limit; i++ {
			refs, err := l.byMonth.Refs(ctx, auditMonth(month.AddDate(0, -i, 0)))
			if err != nil {
				return nil, fmt.Errorf("read support audit log: %w", err)
			}
			found, err := l.entries(ctx, refs)
			if err != nil {
				return nil, err
			}
			out = append(out, found...)
		}
	}
	// Entry ids sort by time.
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(b.ID, a.ID) })
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

// entries reads the entries ids name, each by _id, skipping one listed and
// then never written (docs/store.md §10).
func (l *auditLog) entries(ctx context.Context, ids []string) ([]Entry, error) {
	out := make([]Entry, 0, len(ids))
	for _, id := range ids {
		var e Entry
		err := l.coll.FindOne(ctx, bson.M{"_id": id}).Decode(&e)
		if errors.Is(err, mongo.ErrNoDocuments) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read support audit log: %w", err)
		}
		out = append(out, e)
	}
	return out, nil
}

// auditListedMarker is the settings document saying the entries written
// before the audit log had its lists are listed.
const auditListedMarker = "support-audit-listed"

// ListExistingAudit lists, once per database, the audit entries written
// before the log had its lists. It reads the log whole, so it runs at start
// (app.Open) and then marks itself done.
func ListExistingAudit(ctx context.Context, db *mongo.Database, settings string) error {
	return store.OncePerDatabase(ctx, db, settings, auditListedMarker, func(ctx context.Context) error {
		cur, err := db.Collection(AuditCollection).Find(ctx, bson.M{},
			options.Find().SetProjection(bson.M{"_id": 1, "at": 1, "subscriber": 1}))
		if err != nil {
			return fmt.Errorf("list support audit log: %w", err)
		}
		var entries []Entry
		if err := cur.All(ctx, &entries); err != nil {
			return fmt.Errorf("list support audit log: %w", err)
		}
		byMonth, bySubscriber := store.NewLists(db, AuditByMonthCollection), store.NewLists(db, AuditBySubscriberCollection)
		for _, e := range entries {
			if err := byMonth.Add(ctx, auditMonth(e.At), e.ID); err != nil {
				return fmt.Errorf("list support audit log: %w", err)
			}
			if e.Subscriber != "" {
				if err := bySubscriber.Add(ctx, e.Subscriber, e.ID); err != nil {
					return fmt.Errorf("list support audit log: %w", err)
				}
			}
		}
		return nil
	})
}
