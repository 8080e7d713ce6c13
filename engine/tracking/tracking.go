// Package tracking keeps the product's analytics events (the spec's /event
// calls, the log pings and the cancel events) in the events collection for
// a retention period, after which the sweeper deletes them.
package tracking

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/store"
)

// Collection is where events are kept.
const Collection = "events"

// A person's events are listed under their account and the day they were
// recorded (ByUserCollection, store.DatedLists), so that erasing the
// account deletes them by _id: a search by userId decodes every event on
// the embedded store (docs/store.md §10), three million of them at a
// million subscribers. A day's list is erased by a schedule
// (ListExpiryCollection) once its events are past their retention.
const (
	ByUserCollection     = "events_by_user"
	ListExpiryCollection = "event_list_expiry"
)

// listedMarker marks, in the settings collection, that the events recorded
// before the lists existed are listed.
const listedMarker = "events-listed"

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
	byUser    *store.DatedLists
}

// NewStore returns an event store keeping events for retention.
func NewStore(db *mongo.Database, clock engine.Clock, retention time.Duration) *Store {
	return &Store{db: db, clock: clock, retention: retention, byUser: newLists(db, retention)}
}

// Collections lists the collection with its index for the sweeper.
func Collections() map[string][]mongo.IndexModel {
	return map[string][]mongo.IndexModel{Collection: {{Keys: bson.D{{Key: "expiresAt", Value: 1}}}},
		ByUserCollection: nil, ListExpiryCollection: nil}
}

// Record keeps one event.
func (s *Store) Record(ctx context.Context, e Event) error {
	now := s.clock.Now()
	e.ID, e.At, e.ExpiresAt, e.Project = engine.NewID(), now, now.Add(s.retention), Project
	if e.UserID != "" {
		if err := s.byUser.Add(ctx, e.UserID, e.ID, now); err != nil {
			return fmt.Errorf("record event %s: %w", e.Name, err)
		}
	}
	if _, err := s.db.Collection(Collection).InsertOne(ctx, e); err != nil {
		return fmt.Errorf("record event %s: %w", e.Name, err)
	}
	return nil
}

// Sweep deletes events past their retention.
func (s *Store) Sweep(ctx context.Context) (int64, error) {
	now := s.clock.Now()
	n, err := store.DeleteMatching(ctx, s.db.Collection(Collection), bson.M{"expiresAt": bson.M{"$lt": now}})
	if err != nil {
		return n, fmt.Errorf("sweep events: %w", err)
	}
	lists, err := s.byUser.Sweep(ctx, now)
	return n + int64(lists), err
}

// OfUser reads a person's events not yet swept, by _id through their
// lists, oldest day first (the data export lists them).
func (s *Store) OfUser(ctx context.Context, userID string) ([]Event, error) {
	ids, err := s.byUser.Refs(ctx, userID, s.clock.Now())
	if err != nil {
		return nil, fmt.Errorf("events of %s: %w", userID, err)
	}
	out := make([]Event, 0, len(ids))
	for _, id := range ids {
		var e Event
		err := s.db.Collection(Collection).FindOne(ctx, bson.M{"_id": id}).Decode(&e)
		if errors.Is(err, mongo.ErrNoDocuments) {
			continue // swept, or never written
		}
		if err != nil {
			return nil, fmt.Errorf("events of %s: %w", userID, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// EraseUser deletes a person's events, by _id through their lists, and the
// lists.
func (s *Store) EraseUser(ctx context.Context, userID string) error {
	if err := s.byUser.EraseWithDocuments(ctx, userID, s.clock.Now(), s.db.Collection(Collection)); err != nil {
		return fmt.Errorf("erase events of %s: %w", userID, err)
	}
	return nil
}

func newLists(db *mongo.Database, retention time.Duration) *store.DatedLists {
	return store.NewDatedLists(db, ByUserCollection, ListExpiryCollection, retention)
}

// ListExisting lists, once per database, the events recorded before the
// lists existed. It reads every event, so it runs at start: at a million
// subscribers that is millions of events, once.
func ListExisting(ctx context.Context, db *mongo.Database, settings string, retention time.Duration, now time.Time) error {
	return store.OncePerDatabase(ctx, db, settings, listedMarker, func(ctx context.Context) error {
		cur, err := db.Collection(Collection).Find(ctx, bson.M{},
			options.Find().SetProjection(bson.M{"_id": 1, "userId": 1, "at": 1, "expiresAt": 1}))
		if err != nil {
			return fmt.Errorf("list existing events: %w", err)
		}
		defer cur.Close(ctx)
		var refs []store.DatedRef
		for cur.Next(ctx) {
			var e Event
			if err := cur.Decode(&e); err != nil {
				return fmt.Errorf("list existing events: %w", err)
			}
			if e.UserID != "" && e.ExpiresAt.After(now) {
				refs = append(refs, store.DatedRef{Key: e.UserID, Ref: e.ID, At: e.At})
			}
		}
		if err := cur.Err(); err != nil {
			return fmt.Errorf("list existing events: %w", err)
		}
		return SeedLists(ctx, db, retention, now, refs)
	})
}

// SeedLists lists events under their accounts in bulk, for lists that do
// not exist yet.
func SeedLists(ctx context.Context, db *mongo.Database, retention time.Duration, now time.Time, refs []store.DatedRef) error {
	if err := newLists(db, retention).Seed(ctx, now, refs); err != nil {
		return fmt.Errorf("list events: %w", err)
	}
	return nil
}

// MarkListed records that every event is listed, for a writer that listed
// them itself (the scale seed).
func MarkListed(ctx context.Context, db *mongo.Database, settings string) error {
	return store.MarkDone(ctx, db, settings, listedMarker)
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
