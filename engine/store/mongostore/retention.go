package mongostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/retention"
	"glimpse/engine/store"
)

// attemptsCollection holds cancel attempts. openKey is the subscription
// while the attempt has no outcome and the attempt's own id once it ends:
// always present and unique, so the unique index allows one open attempt
// per subscription without a partial index (which FerretDB lacks).
var attemptsCollection = collection{name: "cancel_attempts", indexes: []index{
	{name: "by_user", keys: bson.D{{Key: "userId", Value: 1}, {Key: "startedAt", Value: -1}}},
	{name: "open", keys: bson.D{{Key: "openKey", Value: 1}}, unique: true},
}}

// stepsCollection holds the events of the attempts, each with its
// attempt's user.
var stepsCollection = collection{name: "cancel_steps", indexes: []index{
	{name: "by_attempt", keys: bson.D{{Key: "attemptId", Value: 1}, {Key: "at", Value: 1}, {Key: "_id", Value: 1}}},
	{name: "by_user", keys: bson.D{{Key: "userId", Value: 1}}},
}}

type attemptDoc struct {
	ID             string    `bson:"_id"`
	UserID         string    `bson:"userId"`
	SubscriptionID string    `bson:"subscriptionId"`
	OpenKey        string    `bson:"openKey"`
	Brand          string    `bson:"brand"`
	PlanCode       string    `bson:"planCode"`
	Entry          string    `bson:"entry"`
	Return         string    `bson:"return"`
	StartedAt      time.Time `bson:"startedAt"`
}

func (d attemptDoc) attempt() retention.Attempt {
	return retention.Attempt{ID: d.ID, UserID: d.UserID, SubscriptionID: d.SubscriptionID, Brand: d.Brand,
		PlanCode: d.PlanCode, Entry: d.Entry, Return: d.Return, StartedAt: d.StartedAt.UTC()}
}

func newAttemptDoc(a retention.Attempt, open bool) attemptDoc {
	d := attemptDoc{ID: a.ID, UserID: a.UserID, SubscriptionID: a.SubscriptionID, OpenKey: a.ID, Brand: a.Brand,
		PlanCode: a.PlanCode, Entry: a.Entry, Return: a.Return, StartedAt: a.StartedAt}
	if open && a.SubscriptionID != "" {
		d.OpenKey = a.SubscriptionID
	}
	return d
}

type stepDoc struct {
	ID             string    `bson:"_id"`
	AttemptID      string    `bson:"attemptId"`
	UserID         string    `bson:"userId"`
	SubscriptionID string    `bson:"subscriptionId"`
	At             time.Time `bson:"at"`
	Kind           string    `bson:"kind"`
	Step           int       `bson:"step"`
	Reason         string    `bson:"reason,omitempty"`
	Stars          int       `bson:"stars,omitempty"`
	Review         string    `bson:"review,omitempty"`
	Offer          string    `bson:"offer,omitempty"`
	Outcome        string    `bson:"outcome,omitempty"`
	Exit           string    `bson:"exit,omitempty"`
}

// Attempts stores cancel attempts and their events in MongoDB.
type Attempts struct{ attempts, steps *mongo.Collection }

// NewAttempts returns retention's storage on db.
func NewAttempts(db *mongo.Database) *Attempts {
	return &Attempts{attempts: db.Collection(attemptsCollection.name), steps: db.Collection(stepsCollection.name)}
}

var _ retention.Attempts = (*Attempts)(nil)

// openTries bounds Open's rounds against attempts opened together; each
// round but a lost race ends it.
const openTries = 5

// Open resumes the subscription's open attempt or stores a. The unique
// openKey decides between Opens sent together (a unique insert has one
// winner on every server); the losers read the winner's attempt.
func (s *Attempts) Open(ctx context.Context, a retention.Attempt) (retention.Attempt, bool, error) {
	if a.SubscriptionID == "" {
		if _, err := s.attempts.InsertOne(ctx, newAttemptDoc(a, false)); err != nil {
			return retention.Attempt{}, false, fmt.Errorf("open cancel attempt: %w", err)
		}
		return a, true, nil
	}
	for range openTries {
		var open attemptDoc
		err := s.attempts.FindOne(ctx, bson.D{{Key: "openKey", Value: a.SubscriptionID}}).Decode(&open)
		switch {
		case errors.Is(err, mongo.ErrNoDocuments):
		case err != nil:
			return retention.Attempt{}, false, fmt.Errorf("open cancel attempt: %w", err)
		case open.attempt().Resumable(a.StartedAt):
			return open.attempt(), false, nil
		default: // abandoned long ago: no longer the open one
			if _, err := s.attempts.UpdateOne(ctx, bson.D{{Key: "_id", Value: open.ID}},
				bson.D{{Key: "$set", Value: bson.D{{Key: "openKey", Value: open.ID}}}}); err != nil {
				return retention.Attempt{}, false, fmt.Errorf("close stale cancel attempt: %w", err)
			}
		}
		_, err = s.attempts.InsertOne(ctx, newAttemptDoc(a, true))
		if err == nil {
			return a, true, nil
		}
		if !store.IsDuplicateKey(err) {
			return retention.Attempt{}, false, fmt.Errorf("open cancel attempt: %w", err)
		}
	}
	return retention.Attempt{}, false, fmt.Errorf("open cancel attempt on %s: still contended after %d tries", a.SubscriptionID, openTries)
}

// InsertMany stores finished attempts and their events, unordered.
func (s *Attempts) InsertMany(ctx context.Context, attempts []retention.Attempt, events []retention.Event) error {
	if len(attempts) > 0 {
		docs := make([]attemptDoc, len(attempts))
		for i, a := range attempts {
			docs[i] = newAttemptDoc(a, false)
		}
		if _, err := s.attempts.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
			return fmt.Errorf("insert cancel attempts: %w", err)
		}
	}
	if len(events) > 0 {
		docs := make([]stepDoc, len(events))
		for i, e := range events {
			docs[i] = stepDoc(e)
		}
		if _, err := s.steps.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
			return fmt.Errorf("insert cancel steps: %w", err)
		}
	}
	return nil
}

// Get returns an attempt.
func (s *Attempts) Get(ctx context.Context, id string) (retention.Attempt, error) {
	var d attemptDoc
	err := s.attempts.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return retention.Attempt{}, retention.ErrNoAttempt
	}
	if err != nil {
		return retention.Attempt{}, fmt.Errorf("cancel attempt %s: %w", id, err)
	}
	return d.attempt(), nil
}

// OfUser returns the person's attempts, newest first, and their events.
func (s *Attempts) OfUser(ctx context.Context, userID string) ([]retention.Attempt, []retention.Event, error) {
	cur, err := s.attempts.Find(ctx, bson.D{{Key: "userId", Value: userID}}, options.Find().SetSort(bson.D{{Key: "startedAt", Value: -1}}))
	if err != nil {
		return nil, nil, fmt.Errorf("cancel attempts of %s: %w", userID, err)
	}
	var docs []attemptDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, nil, fmt.Errorf("cancel attempts of %s: %w", userID, err)
	}
	if len(docs) == 0 {
		return nil, nil, nil
	}
	attempts := make([]retention.Attempt, len(docs))
	for i, d := range docs {
		attempts[i] = d.attempt()
	}
	events, err := s.findSteps(ctx, bson.D{{Key: "userId", Value: userID}}, nil)
	if err != nil {
		return nil, nil, err
	}
	return attempts, events, nil
}

// Events returns an attempt's events, oldest first.
func (s *Attempts) Events(ctx context.Context, attemptID string) ([]retention.Event, error) {
	return s.findSteps(ctx, bson.D{{Key: "attemptId", Value: attemptID}},
		options.Find().SetSort(bson.D{{Key: "at", Value: 1}, {Key: "_id", Value: 1}}))
}

// Record stores a new event, once per id.
func (s *Attempts) Record(ctx context.Context, e retention.Event) error {
	if _, err := s.steps.InsertOne(ctx, stepDoc(e)); err != nil && !store.IsDuplicateKey(err) {
		return fmt.Errorf("insert cancel step %s: %w", e.ID, err)
	}
	return nil
}

// End closes the attempt, then records its outcome. Closed first: a crash
// in between leaves an attempt without an outcome that no Open resumes (an
// abandoned one, as it looks), never an ended attempt still open; the
// request run again closes it again (a no-op) and records the outcome.
func (s *Attempts) End(ctx context.Context, e retention.Event) error {
	if _, err := s.attempts.UpdateOne(ctx, bson.D{{Key: "_id", Value: e.AttemptID}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "openKey", Value: e.AttemptID}}}}); err != nil {
		return fmt.Errorf("close cancel attempt %s: %w", e.AttemptID, err)
	}
	return s.Record(ctx, e)
}

// DeleteUser deletes the person's attempts, then their events: the flow
// reads the attempt before it records an event, so none is added once the
// attempts are gone, and a run stopped in between is completed by the next
// (the events are found by their user, not their attempts).
func (s *Attempts) DeleteUser(ctx context.Context, userID string) (int64, error) {
	res, err := s.attempts.DeleteMany(ctx, bson.D{{Key: "userId", Value: userID}})
	if err != nil {
		return 0, fmt.Errorf("delete cancel attempts of %s: %w", userID, err)
	}
	if _, err := s.steps.DeleteMany(ctx, bson.D{{Key: "userId", Value: userID}}); err != nil {
		return 0, fmt.Errorf("delete cancel steps of %s: %w", userID, err)
	}
	return res.DeletedCount, nil
}

func (s *Attempts) findSteps(ctx context.Context, filter bson.D, opts *options.FindOptionsBuilder) ([]retention.Event, error) {
	var cur *mongo.Cursor
	var err error
	if opts != nil {
		cur, err = s.steps.Find(ctx, filter, opts)
	} else {
		cur, err = s.steps.Find(ctx, filter)
	}
	if err != nil {
		return nil, fmt.Errorf("cancel steps: %w", err)
	}
	var docs []stepDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("cancel steps: %w", err)
	}
	out := make([]retention.Event, len(docs))
	for i, d := range docs {
		out[i] = retention.Event(d)
		out[i].At = d.At.UTC()
	}
	return out, nil
}
