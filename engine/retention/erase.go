package retention

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/store"
)

// EraseOf deletes a subscriber's cancel attempts, every event recorded in
// them (reasons, stars, review text) and their list, each by _id: a filter on
// userId or subscriptionId reads every attempt and step on the embedded
// store (docs/store.md §10).
//
// The subscriber's list (AttemptsByUserCollection) names all of their
// attempts. The flow starts an attempt only for the signed-in member, on
// their own main subscription (Flow.Start, behind the app's protected
// routes), so every attempt has a userId; and a subscription is linked to one
// account once (billing.Finalize), so an attempt on one of the person's
// subscriptions is theirs. Attempts written before the lists were listed at
// start (ListExistingAttempts). Each attempt's events are numbered from 0
// under it (StepID).
//
// Running it again after a failure finishes the work: the list goes last,
// so every attempt is found again, and the events of one already deleted are
// still looked for.
func EraseOf(ctx context.Context, db *mongo.Database, userID string) error {
	ids, err := AttemptIDsOf(ctx, db, userID)
	if err != nil {
		return fmt.Errorf("erase: %w", err)
	}
	for _, id := range ids {
		var a Attempt
		err := db.Collection(AttemptsCollection).FindOne(ctx, bson.M{"_id": id},
			options.FindOne().SetProjection(bson.M{"userId": 1})).Decode(&a)
		switch {
		case errors.Is(err, mongo.ErrNoDocuments):
			// Deleted by an erasure that stopped before its events went, or
			// listed by a start that stopped before writing it.
		case err != nil:
			return fmt.Errorf("erase cancel attempts of %s: %w", userID, err)
		case a.UserID != userID:
			continue // not theirs: a slot the list's rule says to skip
		}
		// The attempt first: the flow reads it before recording anything
		// (Flow.load), so no event is added once it is gone.
		if _, err := db.Collection(AttemptsCollection).DeleteOne(ctx, bson.M{"_id": id}); err != nil {
			return fmt.Errorf("erase cancel attempts of %s: %w", userID, err)
		}
		if err := eraseSteps(ctx, db, id); err != nil {
			return fmt.Errorf("erase cancel attempts of %s: %w", userID, err)
		}
	}
	if err := store.NewLists(db, AttemptsByUserCollection).Erase(ctx, userID); err != nil {
		return fmt.Errorf("erase cancel attempts of %s: %w", userID, err)
	}
	return nil
}

// AttemptIDsOf are the ids on a subscriber's list of cancel attempts (the
// data export reads each; an attempt whose userId is another's is not
// theirs).
func AttemptIDsOf(ctx context.Context, db *mongo.Database, userID string) ([]string, error) {
	ids, err := store.NewLists(db, AttemptsByUserCollection).Refs(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("cancel attempts of %s: %w", userID, err)
	}
	return ids, nil
}

// StepIDsOf are the ids of an attempt's events: numbered from 0 with no gap
// (Record takes the first free number), counted up to the first missing.
func StepIDsOf(ctx context.Context, db *mongo.Database, attemptID string) ([]string, error) {
	var ids []string
	for n := 0; ; n++ {
		err := db.Collection(StepsCollection).FindOne(ctx, bson.M{"_id": StepID(attemptID, n)},
			options.FindOne().SetProjection(bson.M{"_id": 1})).Err()
		if errors.Is(err, mongo.ErrNoDocuments) {
			return ids, nil
		}
		if err != nil {
			return nil, fmt.Errorf("count the steps of %s: %w", attemptID, err)
		}
		ids = append(ids, StepID(attemptID, n))
	}
}

// eraseSteps deletes an attempt's events. They are numbered from 0 with no
// gap (Record takes the first free number), so they are counted up to the
// first missing one and deleted from the highest down: an erasure stopped
// part way leaves numbers 0 … k, which the next one finds.
func eraseSteps(ctx context.Context, db *mongo.Database, attemptID string) error {
	ids, err := StepIDsOf(ctx, db, attemptID)
	if err != nil {
		return err
	}
	for n := len(ids) - 1; n >= 0; n-- {
		if _, err := db.Collection(StepsCollection).DeleteOne(ctx, bson.M{"_id": ids[n]}); err != nil {
			return fmt.Errorf("delete the steps of %s: %w", attemptID, err)
		}
	}
	return nil
}
