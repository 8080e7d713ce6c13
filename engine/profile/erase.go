package profile

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// InstagramLinksCollection maps an Instagram account's ids (the app-scoped
// user id Meta's callbacks name, and the professional account id) to the
// subscriber who connected it: "ig:<id>" → user id.
const InstagramLinksCollection = "instagram_links"

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
		cur, err := s.db.Collection(SnapshotsCollection).Find(ctx, bson.M{"userId": userID},
			options.Find().SetProjection(bson.M{"_id": 1}))
		if err != nil {
			return fmt.Errorf("list snapshots: %w", err)
		}
		var snaps []struct {
			ID string `bson:"_id"`
		}
		if err := cur.All(ctx, &snaps); err != nil {
			return fmt.Errorf("list snapshots: %w", err)
		}
		for _, sn := range snaps {
			if err := s.eraseSnapshot(ctx, sn.ID); err != nil {
				return err
			}
		}
		for _, step := range []struct {
			coll   string
			filter bson.M
		}{
			{InstagramLinksCollection, bson.M{"userId": userID}},
			// The key before the profile: a profile left without its key
			// (a failure between the two) is erased again by a rerun.
			{refreshKeysCollection, bson.M{"_id": p.RefreshKey}},
			{ProfilesCollection, bson.M{"_id": userID}},
		} {
			if _, err := s.db.Collection(step.coll).DeleteMany(ctx, step.filter); err != nil {
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
	if _, err := s.db.Collection(ChunksCollection).DeleteMany(ctx,
		bson.M{"_id": bson.M{"$regex": "^" + regexp.QuoteMeta(id) + ":(followers|following):[0-9]+$"}}); err != nil {
		return fmt.Errorf("erase snapshot lists %s: %w", id, err)
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
