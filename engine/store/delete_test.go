package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

// TestDeleteMatchingMoreThanSQLiteTakesInOneStatement: 33,000 expired
// documents, more than the 32,766 variables SQLite takes in one statement,
// are all deleted, and the live ones kept. A deleteMany of them fails on the
// embedded store ("too many SQL variables").
func TestDeleteMatchingMoreThanSQLiteTakesInOneStatement(t *testing.T) {
	if testing.Short() {
		t.Skip("33,000 inserts and deletes")
	}
	st := storetest.Open(t)
	ctx := context.Background()
	// Made as the app makes its collections, with the _id index its
	// deletes by _id need on the embedded store (docs/store.md §6).
	if err := st.EnsureCollections(ctx, []store.CollectionSpec{{Name: "test_expiring"}}); err != nil {
		t.Fatal(err)
	}
	coll := st.DB().Collection("test_expiring")
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	const expired, live = 33000, 5
	docs := make([]any, 0, 1000)
	for i := range expired + live {
		at := now.Add(-time.Minute)
		if i >= expired {
			at = now.Add(time.Hour)
		}
		docs = append(docs, bson.M{"_id": fmt.Sprint("d", i), "expiresAt": at})
		if len(docs) == cap(docs) || i == expired+live-1 {
			if _, err := coll.InsertMany(ctx, docs); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	start := time.Now()
	n, err := store.DeleteMatching(ctx, coll, bson.M{"expiresAt": bson.M{"$lt": now}})
	if err != nil || n != expired {
		t.Fatalf("deleted %d, %v; want %d", n, err, expired)
	}
	t.Logf("%d deleted in %v", n, time.Since(start))
	if left, err := coll.CountDocuments(ctx, bson.M{}); err != nil || left != live {
		t.Fatalf("%d left (%v), want the %d live ones", left, err, live)
	}
}
