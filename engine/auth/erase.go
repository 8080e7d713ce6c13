package auth

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// User returns an account by id.
func (s *Service) User(ctx context.Context, id string) (User, error) { return s.userByID(ctx, id) }

// Close shuts an account being erased: every session and link ends and
// nobody can sign in again, while the rest of the erasure runs (and, if it
// fails, until the sweep finishes it). One write by _id; an account already
// gone is no error.
func (s *Service) Close(ctx context.Context, userID string) error {
	if _, err := s.db.Collection(UsersCollection).UpdateOne(ctx, bson.M{"_id": userID},
		bson.M{"$set": bson.M{"disabled": true}, "$inc": bson.M{"sessionEpoch": 1}}); err != nil {
		return fmt.Errorf("close account %s: %w", userID, err)
	}
	s.sessions.DropWhere(func(e sessionEntry) bool { return e.user.ID == userID })
	s.subs.Drop(userID)
	return nil
}

// EraseUser deletes an account for good: every session (this instance
// forgets them at once, others within the cache's TTL), its sign-in and
// reset links, the activation keys of its subscriptions, its email index and
// the account itself. The address can then buy and create an account anew.
// Running it again changes nothing more.
func (s *Service) EraseUser(ctx context.Context, u User, subscriptionIDs []string) error {
	if err := s.SignOutAll(ctx, u.ID); err != nil {
		return err
	}
	// Each is deleted by _id, found through the lists that name it: a
	// search by account scans the collection on the embedded store.
	if err := s.sessionLists.EraseWithDocuments(ctx, u.ID, s.clock.Now(), s.db.Collection(SessionsCollection)); err != nil {
		return fmt.Errorf("erase user %s: sessions: %w", u.ID, err)
	}
	links := []struct{ coll, owner string }{{LoginLinksCollection, loginLinkOwner(u.ID)}, {PasswordResetsCollection, resetOwner(u.ID)}}
	for _, subID := range subscriptionIDs {
		links = append(links, struct{ coll, owner string }{ActivationKeysCollection, activationKeyOwner(subID)})
	}
	for _, l := range links {
		if err := s.eraseLinks(ctx, l.coll, l.owner); err != nil {
			return fmt.Errorf("erase user %s: %w", u.ID, err)
		}
	}
	// The address's index, if it is still this account's.
	var idx struct {
		ID     string `bson:"_id"`
		UserID string `bson:"userId"`
	}
	err := s.db.Collection(UserEmailsCollection).FindOne(ctx, bson.M{"_id": NormaliseEmail(u.Email)}).Decode(&idx)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return fmt.Errorf("erase user %s: email index: %w", u.ID, err)
	}
	if err == nil && idx.UserID == u.ID {
		if _, err := s.db.Collection(UserEmailsCollection).DeleteOne(ctx, bson.M{"_id": idx.ID}); err != nil {
			return fmt.Errorf("erase user %s: email index: %w", u.ID, err)
		}
	}
	if _, err := s.db.Collection(UsersCollection).DeleteOne(ctx, bson.M{"_id": u.ID}); err != nil {
		return fmt.Errorf("erase user %s: %w", u.ID, err)
	}
	s.subs.Drop(u.ID)
	return nil
}
