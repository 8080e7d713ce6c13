package mongostore

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/support"
)

// supportAuditCollection is the support desk's audit log: entries are
// inserted and never changed. This file only inserts and reads (a test in
// engine/support fails if it calls a driver method that changes or removes
// documents); the operator can make that hold for people too with a role
// that has only find and insert on it (docs/support.md). Ids sort as
// times, so the pages walk the _id order backwards.
var supportAuditCollection = collection{name: "support_audit", indexes: []index{
	{name: "newest", keys: bson.D{{Key: "at", Value: -1}, {Key: "_id", Value: -1}}},
	{name: "by_subscriber", keys: bson.D{{Key: "subscriber", Value: 1}, {Key: "at", Value: -1}, {Key: "_id", Value: -1}}},
}}

type auditEntryDoc struct {
	ID         string    `bson:"_id"`
	At         time.Time `bson:"at"`
	Staff      string    `bson:"staff"`
	Action     string    `bson:"action"`
	Subscriber string    `bson:"subscriber"`
	Target     string    `bson:"target,omitempty"`
	Reason     string    `bson:"reason"`
	Detail     string    `bson:"detail,omitempty"`
	Outcome    string    `bson:"outcome"`
	Problem    string    `bson:"problem,omitempty"`
	Intent     string    `bson:"intent,omitempty"`
}

// SupportAudit stores the audit log in MongoDB.
type SupportAudit struct{ coll *mongo.Collection }

// NewSupportAudit returns the audit log's storage on db.
func NewSupportAudit(db *mongo.Database) *SupportAudit {
	return &SupportAudit{coll: db.Collection(supportAuditCollection.name)}
}

var _ support.AuditLog = (*SupportAudit)(nil)

// Append adds an entry, or returns support.ErrEntryExists.
func (s *SupportAudit) Append(ctx context.Context, e support.Entry) error {
	_, err := s.coll.InsertOne(ctx, auditEntryDoc(e))
	if mongo.IsDuplicateKeyError(err) {
		return support.ErrEntryExists
	}
	if err != nil {
		return fmt.Errorf("append audit entry %s: %w", e.ID, err)
	}
	return nil
}

var newestFirst = bson.D{{Key: "at", Value: -1}, {Key: "_id", Value: -1}}

// Newest returns up to limit entries, newest first.
func (s *SupportAudit) Newest(ctx context.Context, limit int) ([]support.Entry, error) {
	return s.find(ctx, bson.D{}, limit)
}

// NewestOf returns up to limit of the subscriber's entries, newest first.
func (s *SupportAudit) NewestOf(ctx context.Context, subscriber string, limit int) ([]support.Entry, error) {
	return s.find(ctx, bson.D{{Key: "subscriber", Value: subscriber}}, limit)
}

func (s *SupportAudit) find(ctx context.Context, filter bson.D, limit int) ([]support.Entry, error) {
	cur, err := s.coll.Find(ctx, filter, options.Find().SetSort(newestFirst).SetLimit(int64(limit)))
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	var docs []auditEntryDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	out := make([]support.Entry, len(docs))
	for i, d := range docs {
		out[i] = support.Entry(d)
		out[i].At = d.At.UTC()
	}
	return out, nil
}
