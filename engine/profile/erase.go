package profile

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

// InstagramLinksCollection maps an Instagram account's ids (the app-scoped
// user id Meta's callbacks name, and the professional account id) to the
// subscriber who connected it: "ig:<id>" → user id.
const InstagramLinksCollection = "instagram_links"

// InstagramLinksByUserCollection lists each subscriber's links
// ("<user id>#n" → "ig:<id>", store.Lists), so that disconnecting deletes
// them by _id: a search by userId scans every link on the embedded store
// (docs/store.md §10).
const InstagramLinksByUserCollection = "instagram_links_by_user"

// linksListedMarker marks, in the settings collection, that the links
// written before the lists existed are listed.
const linksListedMarker = "instagram-links-listed"

// ListExistingLinks lists, once per database, the Instagram links written
// before the lists existed. It reads every link, so it runs at start.
func ListExistingLinks(ctx context.Context, db *mongo.Database, settings string) error {
	return store.OncePerDatabase(ctx, db, settings, linksListedMarker, func(ctx context.Context) error {
		cur, err := db.Collection(InstagramLinksCollection).Find(ctx, bson.M{})
		if err != nil {
			return fmt.Errorf("list existing instagram links: %w", err)
		}
		var links []instagramLink
		if err := cur.All(ctx, &links); err != nil {
			return fmt.Errorf("list existing instagram links: %w", err)
		}
		byUser := map[string][]string{}
		var users []string
		for _, l := range links {
			if _, ok := byUser[l.UserID]; !ok {
				users = append(users, l.UserID)
			}
			byUser[l.UserID] = append(byUser[l.UserID], l.ID)
		}
		return store.NewLists(db, InstagramLinksByUserCollection).SeedLists(ctx, users, byUser)
	})
}

type instagramLink struct {
	ID     string `bson:"_id"`
	UserID string `bson:"userId"`
}

// LinkInstagram records which subscriber connected the Instagram account
// with these ids, so Meta's deauthorize and data-deletion callbacks, which
// name only the Instagram user, find the data to delete.
func (s *Service) LinkInstagram(ctx context.Context, userID string, instagramIDs ...string) error {
	for _, id := range instagramIDs {
		if id == "" {
			continue
		}
		doc := instagramLink{ID: "ig:" + id, UserID: userID}
		// Listed first: a crash in between leaves a slot the erasure
		// skips, never a link it cannot find.
		if err := s.linksByUser.Add(ctx, userID, doc.ID); err != nil {
			return fmt.Errorf("link instagram account: %w", err)
		}
		if _, err := s.db.Collection(InstagramLinksCollection).ReplaceOne(ctx, bson.M{"_id": doc.ID}, doc,
			options.Replace().SetUpsert(true)); err != nil {
			return fmt.Errorf("link instagram account: %w", err)
		}
	}
	return nil
}

// UserOfInstagram returns the subscriber who connected an Instagram
// account, or "" when nobody did (or they disconnected it since).
func (s *Service) UserOfInstagram(ctx context.Context, instagramID string) (string, error) {
	var l instagramLink
	err := s.db.Collection(InstagramLinksCollection).FindOne(ctx, bson.M{"_id": "ig:" + instagramID}).Decode(&l)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("find instagram link: %w", err)
	}
	return l.UserID, nil
}

// RevokeCredential forgets a profile's access token (the person removed
// the app on Instagram): the refresh job has nothing to fetch with, and
// what was fetched stays until deleted or retained no longer.
func (s *Service) RevokeCredential(ctx context.Context, userID string) error {
	if _, err := s.db.Collection(ProfilesCollection).UpdateOne(ctx, bson.M{"_id": userID},
		bson.M{"$unset": bson.M{"credential": ""}}); err != nil {
		return fmt.Errorf("revoke credential: %w", err)
	}
	s.summaries.Drop(userID)
	return nil
}

// Disconnect deletes a subscriber's connected profile with everything taken
// from it: the sealed token, every snapshot and its lists, the analysis,
// and the Instagram links. Running it again changes nothing more.
func (s *Service) Disconnect(ctx context.Context, userID string) error {
	return s.exclusively(ctx, userID, func() error {
		p, err := s.Get(ctx, userID)
		if err != nil {
			return err
		}
		// Each is deleted by _id, found through the profile and the
		// user's list of links: a search by userId scans the collection on
		// the embedded store (docs/store.md §10).
		for _, sn := range p.Snapshots {
			if err := s.eraseSnapshot(ctx, sn.ID); err != nil {
				return err
			}
		}
		links, err := s.linksByUser.Refs(ctx, userID)
		if err != nil {
			return fmt.Errorf("disconnect profile: %w", err)
		}
		for _, id := range links {
			// Only while it is still this subscriber's: another may have
			// connected the Instagram account since.
			var l instagramLink
			err := s.db.Collection(InstagramLinksCollection).FindOne(ctx, bson.M{"_id": id}).Decode(&l)
			if errors.Is(err, mongo.ErrNoDocuments) || (err == nil && l.UserID != userID) {
				continue
			}
			if err != nil {
				return fmt.Errorf("disconnect profile: instagram link: %w", err)
			}
			if _, err := s.db.Collection(InstagramLinksCollection).DeleteOne(ctx, bson.M{"_id": id}); err != nil {
				return fmt.Errorf("disconnect profile: instagram link: %w", err)
			}
		}
		if err := s.linksByUser.Erase(ctx, userID); err != nil {
			return fmt.Errorf("disconnect profile: %w", err)
		}
		// The key before the profile: a profile left without its key (a
		// failure between the two) is erased again by a rerun.
		for _, step := range []struct {
			coll string
			id   string
		}{{refreshKeysCollection, p.RefreshKey}, {ProfilesCollection, userID}} {
			if _, err := s.db.Collection(step.coll).DeleteOne(ctx, bson.M{"_id": step.id}); err != nil {
				return fmt.Errorf("disconnect profile from %s: %w", step.coll, err)
			}
		}
		s.summaries.Drop(userID)
		return nil
	})
}

// eraseSnapshot deletes a snapshot's list chunks, then the snapshot. Unlike
// deleteSnapshot (old snapshots trimmed in passing) it reports failures:
// an erasure must not end half done without saying so.
func (s *Service) eraseSnapshot(ctx context.Context, id string) error {
	var d snapshotDoc
	err := s.db.Collection(SnapshotsCollection).FindOne(ctx, bson.M{"_id": id}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("erase snapshot %s: %w", id, err)
	}
	for list, n := range map[string]int{"followers": d.FollowerChunks, "following": d.FollowingChunk} {
		for i := range n {
			if _, err := s.db.Collection(ChunksCollection).DeleteOne(ctx, bson.M{"_id": id + ":" + list + ":" + strconv.Itoa(i)}); err != nil {
				return fmt.Errorf("erase snapshot lists %s: %w", id, err)
			}
		}
	}
	if _, err := s.db.Collection(SnapshotsCollection).DeleteOne(ctx, bson.M{"_id": id}); err != nil {
		return fmt.Errorf("erase snapshot %s: %w", id, err)
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
