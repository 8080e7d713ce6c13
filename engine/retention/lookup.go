package retention

import (
	"context"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// OfUser returns a subscriber's cancel attempts with what happened in each
// (answers, offers, outcome), newest first, for the support desk.
func (s *Service) OfUser(ctx context.Context, userID string) ([]Summary, error) {
	cur, err := s.db.Collection(AttemptsCollection).Find(ctx, bson.M{"userId": userID})
	if err != nil {
		return nil, fmt.Errorf("cancel attempts of %s: %w", userID, err)
	}
	var attempts []Attempt
	if err := cur.All(ctx, &attempts); err != nil {
		return nil, fmt.Errorf("cancel attempts of %s: %w", userID, err)
	}
	slices.SortFunc(attempts, func(a, b Attempt) int { return b.StartedAt.Compare(a.StartedAt) })
	return s.summaries(ctx, attempts)
}
