package billing

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/store"
)

// userSubscriptionsCollection files each subscription under its account:
// documents "<userId>#0", "<userId>#1", … holding a subscription id. The
// embedded database finds documents without a scan only by _id equality
// (docs/store.md §6), and "the subscriptions of this account" is on every
// signed-in request's path; with a million subscriptions a find by userId
// read them all. Slots are unique inserts, so two purchases by one account
// at once each get their own.
const userSubscriptionsCollection = "user_subscriptions"

// UserSlot is the document filing subscription subID under an account in
// slot i, as the service writes it (the scale seed writes the same).
func UserSlot(userID string, i int, subID string) bson.M {
	return bson.M{"_id": userID + "#" + strconv.Itoa(i), "subscriptionId": subID}
}

// EmailSlot is the document filing subscription subID under a normalised
// email in slot i (indexEmail's document).
func EmailSlot(email string, i int, subID string) bson.M {
	return bson.M{"_id": email + "#" + strconv.Itoa(i), "subscriptionId": subID}
}

// UserSubscriptionsCollection is exported for the scale seed, which fills
// it in batches, and for privacy's fates (erase.go lists the others).
const UserSubscriptionsCollection = userSubscriptionsCollection

// indexUser files subID under userID unless it is there. Callers file it
// before the subscription names the account, so a crash in between leaves a
// slot that reading skips, never a subscription no slot leads to.
func indexUser(ctx context.Context, db *mongo.Database, userID, subID string) error {
	if userID == "" {
		return nil
	}
	if err := accountLists(db).Add(ctx, userID, subID); err != nil {
		return fmt.Errorf("index subscription of user: %w", err)
	}
	return nil
}

// accountLists is the accounts' slots as store.Lists (their reference
// field named as UserSlot writes it).
func accountLists(db *mongo.Database) *store.Lists {
	return store.NewListsIn(db, userSubscriptionsCollection, "subscriptionId")
}

func idsByUser(ctx context.Context, db *mongo.Database, userID string) ([]string, error) {
	ids, err := accountLists(db).Slots(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("subscriptions of user %s: %w", userID, err)
	}
	return ids, nil
}

// SubscriptionsOfUser returns an account's subscriptions through its slots,
// each read by _id. A slot whose subscription does not (yet) name the
// account is skipped. auth reads it too, to authorise requests.
func SubscriptionsOfUser(ctx context.Context, db *mongo.Database, userID string) ([]Subscription, error) {
	ids, err := idsByUser(ctx, db, userID)
	if err != nil {
		return nil, err
	}
	out := make([]Subscription, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		var sub Subscription
		err := db.Collection(SubscriptionsCollection).FindOne(ctx, bson.M{"_id": id}).Decode(&sub)
		if errors.Is(err, mongo.ErrNoDocuments) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("subscriptions of user %s: %w", userID, err)
		}
		if sub.UserID == userID {
			out = append(out, sub)
		}
	}
	return out, nil
}

// ForgetAccount deletes the slots filing subscriptions under a deleted
// account: their ids name it.
func ForgetAccount(ctx context.Context, db *mongo.Database, userID string) error {
	if userID == "" {
		return nil
	}
	if err := accountLists(db).Erase(ctx, userID); err != nil {
		return fmt.Errorf("forget the subscriptions of %s: %w", userID, err)
	}
	return nil
}

// PutSubscription creates or replaces a subscription (idempotent by _id),
// filed first: the writer of subscriptions outside billing's use cases
// (tests and seeds, through auth's PutSubscription).
func PutSubscription(ctx context.Context, db *mongo.Database, sub Subscription) error {
	if err := FileSubscription(ctx, db, sub); err != nil {
		return err
	}
	_, err := db.Collection(SubscriptionsCollection).ReplaceOne(ctx, bson.M{"_id": sub.ID}, sub,
		options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("put subscription %s: %w", sub.ID, err)
	}
	return nil
}

// FileSubscription files a subscription under its account and its due time
// in the renewal schedule, for a writer outside this package that stores
// one (auth's PutSubscription, used by tests).
func FileSubscription(ctx context.Context, db *mongo.Database, sub Subscription) error {
	if err := indexUser(ctx, db, sub.UserID, sub.ID); err != nil {
		return err
	}
	if sub.DueAt.IsZero() {
		return nil
	}
	// Filed under the due time's own bucket: this writer has no clock.
	if err := newRenewalSchedule(db).File(ctx, sub.DueAt, store.ScheduleEntry{Ref: sub.ID, At: sub.DueAt}); err != nil {
		return fmt.Errorf("schedule the renewal of %s: %w", sub.ID, err)
	}
	return nil
}

// userIndexMarker is the settings document saying every subscription
// written before the slots existed has been filed.
const userIndexMarker = "user-subscriptions-filed"

// FileExistingSubscriptions files, once per database, the subscriptions
// stored before accounts' slots existed. It reads the whole collection, so
// it runs at start and then marks itself done in settings.
func FileExistingSubscriptions(ctx context.Context, db *mongo.Database, settings string) error {
	return store.OncePerDatabase(ctx, db, settings, userIndexMarker, func(ctx context.Context) error {
		return fileExistingSubscriptions(ctx, db)
	})
}

func fileExistingSubscriptions(ctx context.Context, db *mongo.Database) error {
	cur, err := db.Collection(SubscriptionsCollection).Find(ctx, bson.M{},
		options.Find().SetProjection(bson.M{"_id": 1, "userId": 1}))
	if err != nil {
		return fmt.Errorf("file subscriptions under accounts: %w", err)
	}
	var subs []Subscription
	if err := cur.All(ctx, &subs); err != nil {
		return fmt.Errorf("file subscriptions under accounts: %w", err)
	}
	byUser := map[string][]string{}
	for _, sub := range subs {
		if sub.UserID != "" {
			byUser[sub.UserID] = append(byUser[sub.UserID], sub.ID)
		}
	}
	// Accounts keep no bound of their slots (their lists stay short), so
	// the bounds insertSlots returns are not needed.
	if _, err := insertSlots(ctx, db.Collection(userSubscriptionsCollection), byUser, nil, func(userID string, n int, subID string) any {
		return UserSlot(userID, n, subID)
	}, func(userID, subID string) (int, error) { return 0, indexUser(ctx, db, userID, subID) }); err != nil {
		return fmt.Errorf("file subscriptions under accounts: %w", err)
	}
	return nil
}

// MarkSubscriptionsFiled records that every subscription is filed under its
// account, for a writer that filed them itself (the scale seed).
func MarkSubscriptionsFiled(ctx context.Context, db *mongo.Database, settings string) error {
	return store.MarkDone(ctx, db, settings, userIndexMarker)
}

// ForgetAccount deletes the slots of a deleted account (ForgetAccount).
func (s *Service) ForgetAccount(ctx context.Context, userID string) error {
	return ForgetAccount(ctx, s.db, userID)
}
