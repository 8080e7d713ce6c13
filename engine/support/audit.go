package support

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
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
}

// Collections declares the audit log for EnsureCollections.
func Collections() map[string][]mongo.IndexModel {
	return map[string][]mongo.IndexModel{AuditCollection: nil}
}

// auditLog appends to and reads the audit log; it can do nothing else.
type auditLog struct{ coll *mongo.Collection }

func newAuditLog(db *mongo.Database) auditLog { return auditLog{coll: db.Collection(AuditCollection)} }

func (l auditLog) append(ctx context.Context, e Entry) error {
	var tail [4]byte
	_, _ = rand.Read(tail[:])
	n := strconv.FormatInt(e.At.UnixNano(), 10)
	for len(n) < 20 {
		n = "0" + n
	}
	e.ID = n + "-" + hex.EncodeToString(tail[:])
	if _, err := l.coll.InsertOne(ctx, e); err != nil {
		return fmt.Errorf("write support audit entry: %w", err)
	}
	return nil
}

// newest reads the newest entries (at most limit), newest first; with a
// subscriber, only theirs.
func (l auditLog) newest(ctx context.Context, subscriber string, limit int) ([]Entry, error) {
	filter := bson.M{}
	if subscriber != "" {
		filter["subscriber"] = subscriber
	}
	cur, err := l.coll.Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "_id", Value: -1}}).SetLimit(int64(limit)))
	if err != nil {
		return nil, fmt.Errorf("read support audit log: %w", err)
	}
	var out []Entry
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("read support audit log: %w", err)
	}
	return out, nil
}
