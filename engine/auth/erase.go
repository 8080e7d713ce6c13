package auth

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// User returns an account by id.
func (s *Service) User(ctx context.Context, id string) (User, error) { return s.userByID(ctx, id) }

// EraseUser deletes an account for good: every session (this instance
// forgets them at once, others within the cache's TTL), its sign-in and
// reset links, the activation keys of its subscriptions, its email index and
// the account itself. The address can then buy and create an account anew.
// Running it again changes nothing more.
func (s *Service) EraseUser(ctx context.Context, u User, subscriptionIDs []string) error {
	if err := s.SignOutAll(ctx, u.ID); err != nil {
		return err
	}
	// The epoch ends the sessions; they are deleted too, since each names
	// the account (a scan by userId: deletion is rare and off the request
	// path, storetest.Periodic).
	for _, step := range []struct {
		coll   string
		filter bson.M
	}{
		{SessionsCollection, bson.M{"userId": u.ID}},
		{LoginLinksCollection, bson.M{"userId": u.ID}},
		{PasswordResetsCollection, bson.M{"userId": u.ID}},
		{ActivationKeysCollection, bson.M{"subscriptionId": bson.M{"$in": append([]string{}, subscriptionIDs...)}}},
		{UserEmailsCollection, bson.M{"userId": u.ID}},
		{UsersCollection, bson.M{"_id": u.ID}},
	} {
		if _, err := s.db.Collection(step.coll).DeleteMany(ctx, step.filter); err != nil {
			return fmt.Errorf("erase user %s from %s: %w", u.ID, step.coll, err)
		}
	}
	// The lists of its sessions by day (signins.go): those the schedule
	// has not erased yet, of the days a session can have opened on since.
	now := s.clock.Now()
	for _, owner := range sessionListOwners(u.ID, now.Add(-24*time.Hour-s.lifetime-sweepSlack), now) {
		if err := s.sessionLists.Erase(ctx, owner); err != nil {
			return fmt.Errorf("erase user %s: %w", u.ID, err)
		}
	}
	s.subs.Drop(u.ID)
	return nil
}
