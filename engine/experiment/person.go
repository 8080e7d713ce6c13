package experiment

import (
	"context"
	"fmt"
)

// MarksOf returns a subscriber's exposures and outcomes in every experiment
// (the data export).
func (s *Service) MarksOf(ctx context.Context, userID string) ([]Mark, error) {
	marks, err := s.store.MarksOf(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("experiments of %s: %w", userID, err)
	}
	return marks, nil
}

// ForgetPerson deletes a subscriber's exposures and outcomes in every phase
// of every experiment (account deletion). The counters keep their totals,
// which name nobody.
func (s *Service) ForgetPerson(ctx context.Context, userID string) error {
	if _, err := s.store.DeleteMarks(ctx, userID); err != nil {
		return fmt.Errorf("forget %s in experiments: %w", userID, err)
	}
	return nil
}
