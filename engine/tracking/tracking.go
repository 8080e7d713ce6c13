// Package tracking keeps the product's analytics events (the spec's /event
// calls, the log pings and the cancel events) in the events collection for
// a retention period, after which the sweeper deletes them.
package tracking

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine"
	"glimpse/engine/store"
)

// Collection is where events are kept.
const Collection = "events"

// DefaultRetention is how long an event is kept: long enough to compare a
// season with the last, and far inside the 24 months the privacy policy
// allows for usage data.
const DefaultRetention = 180 * 24 * time.Hour

// Event is one recorded event. Props are the client's (already bounded by
// the action's rules); the server adds who and where. No email address is
// stored: the user id identifies a subscriber.
type Event struct {
	ID             string         `bson:"_id"`
	Name           string         `bson:"name"`
	Props          map[string]any `bson:"props,omitempty"`
	Brand          string         `bson:"brand"`
	Host           string         `bson:"host,omitempty"`
	Project        string         `bson:"project"`
	UserID         string         `bson:"userId,omitempty"`
	SubscriptionID string         `bson:"subscriptionId,omitempty"`
	UserAgent      string         `bson:"userAgent,omitempty"`
	At             time.Time      `bson:"at"`
	ExpiresAt      time.Time      `bson:"expiresAt"`
}

// Project is the fixed project tag the spec's cancel events carry.
const Project = "glimpse-web"

// Store records events.
type Store struct {
	db        *mongo.Database
	clock     engine.Clock
	retention time.Duration
}

// NewStore returns an event store keeping events for retention.
func NewStore(db *mongo.Database, clock engine.Clock, retention time.Duration) *Store {
	return &Store{db: db, clock: clock, retention: retention}
}

// Collections lists the collection with its index for the sweeper.
func Collections() map[string][]mongo.IndexModel {
	return map[string][]mongo.IndexModel{Collection: {{Keys: bson.D{{Key: "expiresAt", Value: 1}}}}}
}

// Record keeps one event.
func (s *Store) Record(ctx context.Context, e Event) error {
	now := s.clock.Now()
	e.ID, e.At, e.ExpiresAt, e.Project = engine.NewID(), now, now.Add(s.retention), Project
	if _, err := s.db.Collection(Collection).InsertOne(ctx, e); err != nil {
		return fmt.Errorf("record event %s: %w", e.Name, err)
	}
	return nil
}

// Sweep deletes events past their retention.
func (s *Store) Sweep(ctx context.Context) (int64, error) {
	n, err := store.DeleteMatching(ctx, s.db.Collection(Collection), bson.M{"expiresAt": bson.M{"$lt": s.clock.Now()}})
	if err != nil {
		return n, fmt.Errorf("sweep events: %w", err)
	}
	return n, nil
}

// Recent returns up to limit events named name, newest first (for tests and
// support).
func (s *Store) Recent(ctx context.Context, name string, limit int) ([]Event, error) {
	cur, err := s.db.Collection(Collection).Find(ctx, bson.M{"name": name})
	if err != nil {
		return nil, fmt.Errorf("recent events: %w", err)
	}
	var out []Event
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("recent events: %w", err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
