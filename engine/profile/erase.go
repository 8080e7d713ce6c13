package profile

import (
	"context"
	"fmt"
)

// LinkInstagram records which subscriber connected the Instagram account
// with these ids (the app-scoped user id Meta's callbacks name, and the
// professional account id), so Meta's deauthorize and data-deletion
// callbacks, which name only the Instagram user, find the data to delete.
// An account is linked to the subscriber who connected it last.
func (s *Service) LinkInstagram(ctx context.Context, userID string, instagramIDs ...string) error {
	for _, id := range instagramIDs {
		if id == "" {
			continue
		}
		if err := s.profiles.Link(ctx, userID, id); err != nil {
			return fmt.Errorf("link instagram account: %w", err)
		}
	}
	return nil
}

// UserOfInstagram returns the subscriber who connected an Instagram
// account, or "" when nobody did (or they disconnected it since).
func (s *Service) UserOfInstagram(ctx context.Context, instagramID string) (string, error) {
	userID, err := s.profiles.UserOf(ctx, instagramID)
	if err != nil {
		return "", fmt.Errorf("find instagram link: %w", err)
	}
	return userID, nil
}

// RevokeCredential forgets a profile's access token (the person removed
// the app on Instagram): the refresh job has nothing to fetch with, and
// what was fetched stays until deleted or retained no longer.
func (s *Service) RevokeCredential(ctx context.Context, userID string) error {
	none := ""
	if _, err := s.profiles.Change(ctx, userID, Change{Credential: &none}); err != nil {
		return fmt.Errorf("revoke credential: %w", err)
	}
	s.summaries.Drop(userID)
	return nil
}

// Disconnect deletes a subscriber's connected profile with everything taken
// from it: the sealed token, every snapshot and its lists, the analysis,
// and the Instagram links still the subscriber's. Running it again changes
// nothing more.
func (s *Service) Disconnect(ctx context.Context, userID string) error {
	err := s.profiles.Delete(ctx, userID)
	s.summaries.Drop(userID)
	if err != nil {
		return fmt.Errorf("disconnect profile: %w", err)
	}
	return nil
}

// Snapshots returns the ids of a subscriber's stored snapshots, oldest
// first (the privacy export reads each with Snapshot).
func (s *Service) Snapshots(ctx context.Context, userID string) ([]SnapshotRef, error) {
	p, err := s.Get(ctx, userID)
	if err != nil {
		return nil, err
	}
	return p.Snapshots, nil
}
