package mongostore

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/tracking"
)

// eventsCollection holds usage events. MongoDB deletes each once its
// expiresAt has passed (a TTL index, expireAfterSeconds 0,
// https://www.mongodb.com/docs/manual/core/index-ttl/); DeleteExpired does
// the same at once, for the sweeper and for servers without TTL.
var eventsCollection = collection{name: "events", indexes: []index{
	{name: "by_user", keys: bson.D{{Key: "userId", Value: 1}, {Key: "at", Value: 1}}},
	{name: "by_name", keys: bson.D{{Key: "name", Value: 1}, {Key: "at", Value: -1}}},
	{name: "expiry", keys: bson.D{{Key: "expiresAt", Value: 1}}, expires: true},
}}

type eventDoc struct {
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

// Events stores usage events in MongoDB.
type Events struct{ coll *mongo.Collection }

// NewEvents returns tracking's storage on db.
func NewEvents(db *mongo.Database) *Events {
	return &Events{coll: db.Collection(eventsCollection.name)}
}

var _ tracking.Events = (*Events)(nil)

// Insert stores a new event.
func (s *Events) Insert(ctx context.Context, e tracking.Event) error {
	_, err := s.coll.InsertOne(ctx, eventDoc(e))
	if err != nil {
		return fmt.Errorf("insert event %s: %w", e.ID, err)
	}
	return nil
}

// InsertMany stores new events in one round trip.
func (s *Events) InsertMany(ctx context.Context, events []tracking.Event) error {
	docs := make([]eventDoc, len(events))
	for i, e := range events {
		docs[i] = eventDoc(e)
	}
	if _, err := s.coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
		return fmt.Errorf("insert events: %w", err)
	}
	return nil
}

// OfUser returns the person's unexpired events, oldest first.
func (s *Events) OfUser(ctx context.Context, userID string, now time.Time) ([]tracking.Event, error) {
	return s.find(ctx, bson.D{{Key: "userId", Value: userID}, {Key: "expiresAt", Value: bson.D{{Key: "$gt", Value: now}}}},
		options.Find().SetSort(bson.D{{Key: "at", Value: 1}}))
}

// Named returns up to limit unexpired events called name, newest first.
func (s *Events) Named(ctx context.Context, name string, limit int, now time.Time) ([]tracking.Event, error) {
	return s.find(ctx, bson.D{{Key: "name", Value: name}, {Key: "expiresAt", Value: bson.D{{Key: "$gt", Value: now}}}},
		options.Find().SetSort(bson.D{{Key: "at", Value: -1}}).SetLimit(int64(limit)))
}

// DeleteUser deletes every event of the person.
func (s *Events) DeleteUser(ctx context.Context, userID string) (int64, error) {
	res, err := s.coll.DeleteMany(ctx, bson.D{{Key: "userId", Value: userID}})
	if err != nil {
		return 0, fmt.Errorf("delete events of %s: %w", userID, err)
	}
	return res.DeletedCount, nil
}

// DeleteExpired deletes the events expired by now.
func (s *Events) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	res, err := s.coll.DeleteMany(ctx, bson.D{{Key: "expiresAt", Value: bson.D{{Key: "$lte", Value: now}}}})
	if err != nil {
		return 0, fmt.Errorf("delete expired events: %w", err)
	}
	return res.DeletedCount, nil
}

func (s *Events) find(ctx context.Context, filter bson.D, opts *options.FindOptionsBuilder) ([]tracking.Event, error) {
	cur, err := s.coll.Find(ctx, filter, opts)
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	var docs []eventDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	out := make([]tracking.Event, len(docs))
	for i, d := range docs {
		out[i] = tracking.Event(d)
		out[i].At, out[i].ExpiresAt = d.At.UTC(), d.ExpiresAt.UTC()
	}
	return out, nil
}
