package auth

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/store"
)

// One-time links (sign-in links, password resets, activation keys) are
// stored under the hash of their token, which their owner's erasure cannot
// know, and finding them by owner scans the collection on the embedded
// store (docs/store.md §10). So each is listed, when minted, under its
// owner and day (LinksByOwnerCollection, store.DatedLists): an account for
// sign-in links and resets, a subscription for activation keys.
const (
	LinksByOwnerCollection   = "auth_links_by_owner"
	LinkListExpiryCollection = "auth_link_list_expiry"
)

// linksListedMarker marks, in the settings collection, that the links
// minted before the lists existed are listed.
const linksListedMarker = "auth-links-listed"

// linkListLifetime is the longest a listed link lives.
const linkListLifetime = ActivationKeyLifetime

// A link's list key names its kind and owner.
func loginLinkOwner(userID string) string    { return "login:" + userID }
func resetOwner(userID string) string        { return "reset:" + userID }
func activationKeyOwner(subID string) string { return "activation:" + subID }

func newLinkLists(db *mongo.Database) *store.DatedLists {
	return store.NewDatedLists(db, LinksByOwnerCollection, LinkListExpiryCollection, linkListLifetime)
}

// listLink lists a link under its owner before it is written.
func (s *Service) listLink(ctx context.Context, owner, id string, at time.Time) error {
	if err := s.linkLists.Add(ctx, owner, id, at); err != nil {
		return fmt.Errorf("list a one-time link: %w", err)
	}
	return nil
}

// eraseLinks deletes an owner's live links of one collection, by _id, and
// their lists.
func (s *Service) eraseLinks(ctx context.Context, coll, owner string) error {
	if err := s.linkLists.EraseWithDocuments(ctx, owner, s.clock.Now(), s.db.Collection(coll)); err != nil {
		return fmt.Errorf("erase links: %w", err)
	}
	return nil
}

// ListExistingLinks lists, once per database, the live links minted before
// the lists existed. It reads every link, so it runs at start; links live
// minutes (activation keys two weeks), so there are few.
func ListExistingLinks(ctx context.Context, db *mongo.Database, settings string, now time.Time) error {
	return store.OncePerDatabase(ctx, db, settings, linksListedMarker, func(ctx context.Context) error {
		var refs []store.DatedRef
		for _, kind := range []struct {
			coll, field string
			owner       func(string) string
		}{
			{LoginLinksCollection, "userId", loginLinkOwner},
			{PasswordResetsCollection, "userId", resetOwner},
			{ActivationKeysCollection, "subscriptionId", activationKeyOwner},
		} {
			cur, err := db.Collection(kind.coll).Find(ctx, bson.M{},
				options.Find().SetProjection(bson.M{"_id": 1, kind.field: 1, "expiresAt": 1}))
			if err != nil {
				return fmt.Errorf("list existing links: %w", err)
			}
			var docs []bson.M
			if err := cur.All(ctx, &docs); err != nil {
				return fmt.Errorf("list existing links: %w", err)
			}
			for _, d := range docs {
				id, _ := d["_id"].(string)
				owner, _ := d[kind.field].(string)
				expires, _ := d["expiresAt"].(bson.DateTime)
				if id == "" || owner == "" || !expires.Time().After(now) {
					continue // an expired one is as good as swept
				}
				// Listed under today: the list then outlives the link, as
				// a list must.
				refs = append(refs, store.DatedRef{Key: kind.owner(owner), Ref: id, At: now})
			}
		}
		return newLinkLists(db).Seed(ctx, now, refs)
	})
}
