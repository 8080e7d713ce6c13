package profile_test

import (
	"context"
	"log/slog"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine"
	"glimpse/engine/profile"
	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

// TestDisconnectFindsEverythingByKey: disconnecting deletes the profile's
// snapshots with their lists and the subscriber's Instagram links, a link
// written before the lists existed included (listed once at start), each
// found by _id; a link another subscriber has taken over since stays.
func TestDisconnectFindsEverythingByKey(t *testing.T) {
	t.Parallel()
	st := storetest.Open(t)
	ctx := context.Background()
	var specs []store.CollectionSpec
	for name, idx := range profile.Collections() {
		specs = append(specs, store.CollectionSpec{Name: name, Indexes: idx})
	}
	if err := st.EnsureCollections(ctx, specs); err != nil {
		t.Fatal(err)
	}
	db := st.DB()
	svc := profile.NewService(db, engine.NewManualClock(start), slog.New(slog.DiscardHandler))
	if _, err := db.Collection(profile.InstagramLinksCollection).InsertOne(ctx, bson.M{"_id": "ig:old", "userId": "ann"}); err != nil {
		t.Fatal(err)
	}
	if err := profile.ListExistingLinks(ctx, db, "test_settings"); err != nil {
		t.Fatal(err)
	}
	if err := svc.SeedDemo(ctx, "ann", 42); err != nil {
		t.Fatal(err)
	}
	if err := svc.LinkInstagram(ctx, "ann", "1", "2"); err != nil {
		t.Fatal(err)
	}
	if err := svc.LinkInstagram(ctx, "bob", "2"); err != nil {
		t.Fatal(err)
	}
	count := func(coll string, filter bson.M) int64 {
		t.Helper()
		n, err := db.Collection(coll).CountDocuments(ctx, filter)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	annChunks := bson.M{"_id": bson.M{"$regex": "^ann:"}}
	if count(profile.SnapshotsCollection, bson.M{"userId": "ann"}) == 0 || count(profile.ChunksCollection, annChunks) == 0 {
		t.Fatal("the demo profile has no snapshot lists to erase")
	}
	if err := svc.Disconnect(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	if n := count(profile.SnapshotsCollection, bson.M{"userId": "ann"}); n != 0 {
		t.Errorf("%d snapshots left", n)
	}
	if n := count(profile.ChunksCollection, annChunks); n != 0 {
		t.Errorf("%d snapshot list chunks left", n)
	}
	if n := count(profile.InstagramLinksCollection, bson.M{"userId": "ann"}); n != 0 {
		t.Errorf("%d of ann's links left", n)
	}
	if n := count(profile.InstagramLinksCollection, bson.M{"_id": "ig:2", "userId": "bob"}); n != 1 {
		t.Errorf("bob's link is gone")
	}
	if n := count(profile.InstagramLinksByUserCollection, bson.M{"_id": bson.M{"$regex": "^ann#"}}); n != 0 {
		t.Errorf("%d slots of ann's list left", n)
	}
}
