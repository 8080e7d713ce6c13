package retention

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/store"
)

// OfUser returns a subscriber's cancel attempts with what happened in each
// (answers, offers, outcome), newest first, for the support desk: the
// attempts their list names, each read by _id.
func (s *Service) OfUser(ctx context.Context, userID string) ([]Summary, error) {
	ids, err := s.byUser.Refs(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("cancel attempts of %s: %w", userID, err)
	}
	attempts := make([]Attempt, 0, len(ids))
	for _, id := range ids {
		var a Attempt
		err := s.db.Collection(AttemptsCollection).FindOne(ctx, bson.M{"_id": id}).Decode(&a)
		if errors.Is(err, mongo.ErrNoDocuments) || (err == nil && a.UserID != userID) {
			continue // listed by a start that stopped before writing it
		}
		if err != nil {
			return nil, fmt.Errorf("cancel attempts of %s: %w", userID, err)
		}
		attempts = append(attempts, a)
	}
	slices.SortFunc(attempts, func(a, b Attempt) int { return b.StartedAt.Compare(a.StartedAt) })
	return s.summaries(ctx, attempts)
}

// listedMarker is the settings document saying the attempts written before
// AttemptsByUserCollection existed are listed.
const listedMarker = "cancel-attempts-listed"

// ListExistingAttempts lists, once per database, the attempts written
// before each subscriber's attempts were listed. It reads the attempts
// whole, so it runs at start (app.Open) and then marks itself done.
func ListExistingAttempts(ctx context.Context, db *mongo.Database, settings string) error {
	return store.OncePerDatabase(ctx, db, settings, listedMarker, func(ctx context.Context) error {
		cur, err := db.Collection(AttemptsCollection).Find(ctx, bson.M{},
			options.Find().SetProjection(bson.M{"_id": 1, "userId": 1}))
		if err != nil {
			return fmt.Errorf("list cancel attempts: %w", err)
		}
		var attempts []Attempt
		if err := cur.All(ctx, &attempts); err != nil {
			return fmt.Errorf("list cancel attempts: %w", err)
		}
		lists := store.NewLists(db, AttemptsByUserCollection)
		for _, a := range attempts {
			if a.UserID == "" {
				continue
			}
			if err := lists.Add(ctx, a.UserID, a.ID); err != nil {
				return fmt.Errorf("list cancel attempts: %w", err)
			}
		}
		return nil
	})
}

// MarkAttemptsListed records that every attempt is listed, for a writer
// that listed them itself (the scale seed).
func MarkAttemptsListed(ctx context.Context, db *mongo.Database, settings string) error {
	return store.MarkDone(ctx, db, settings, listedMarker)
}
