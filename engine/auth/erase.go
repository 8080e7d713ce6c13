package auth

import (
	"context"
	"fmt"
)

// User returns an account by id.
func (s *Service) User(ctx context.Context, id string) (User, error) { return s.userByID(ctx, id) }

// EachUserID calls fn with the id of every account, in pages read in order
// of the id, until fn returns an error.
func (s *Service) EachUserID(ctx context.Context, fn func(id string) error) error {
	const page = 1000
	after := ""
	for {
		ids, err := s.users.IDs(ctx, after, page)
		if err != nil {
			return fmt.Errorf("account ids: %w", err)
		}
		for _, id := range ids {
			if err := fn(id); err != nil {
				return err
			}
		}
		if len(ids) < page {
			return nil
		}
		after = ids[len(ids)-1]
	}
}

// Close shuts an account being erased: every session and link ends and
// nobody can sign in again, while the rest of the erasure runs (and, if it
// fails, until the sweep finishes it). One write to the account; an account
// already gone is no error.
func (s *Service) Close(ctx context.Context, userID string) error {
	if err := s.users.Disable(ctx, userID); err != nil {
		return fmt.Errorf("close account %s: %w", userID, err)
	}
	s.cache.DropWhere(func(e sessionEntry) bool { return e.user.ID == userID })
	s.subs.Drop(userID)
	return nil
}

// EraseUser deletes an account for good: every session (this instance
// forgets them at once, others within the cache's TTL), its sign-in and
// reset links, the activation keys of its subscriptions and the account
// itself, which frees its address to buy and create an account anew. Each
// step deletes what is left, so a run stopped between two steps and run
// again leaves what one run leaves; the account goes last, so a rerun still
// finds it.
func (s *Service) EraseUser(ctx context.Context, u User, subscriptionIDs []string) error {
	if err := s.SignOutAll(ctx, u.ID); err != nil {
		return err
	}
	if _, err := s.sessions.DeleteUser(ctx, u.ID); err != nil {
		return fmt.Errorf("erase user %s: sessions: %w", u.ID, err)
	}
	owned := []struct {
		kind  LinkKind
		owner string
	}{{LoginLinkKind, u.ID}, {PasswordResetKind, u.ID}}
	for _, subID := range subscriptionIDs {
		owned = append(owned, struct {
			kind  LinkKind
			owner string
		}{ActivationKeyKind, subID})
	}
	for _, o := range owned {
		if _, err := s.links.DeleteOwner(ctx, o.kind, o.owner); err != nil {
			return fmt.Errorf("erase user %s: %s links: %w", u.ID, o.kind, err)
		}
	}
	if err := s.users.Delete(ctx, u.ID); err != nil {
		return fmt.Errorf("erase user %s: %w", u.ID, err)
	}
	s.subs.Drop(u.ID)
	return nil
}
