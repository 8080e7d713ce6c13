package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

// Two batches sent together over overlapping ids: each id is inserted by
// exactly one of them and reported taken to the other.
func TestInsertNewOneWinnerEach(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	coll := s.DB().Collection("insert_new")
	batch := func(from, to int) []any {
		var docs []any
		for i := from; i < to; i++ {
			docs = append(docs, bson.M{"_id": fmt.Sprintf("id%03d", i)})
		}
		return docs
	}
	batches := [][]any{batch(0, 60), batch(30, 90)}
	taken := make([][]bool, len(batches))
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for i, docs := range batches {
		wg.Go(func() { taken[i], errs[i] = store.InsertNew(ctx, coll, docs) })
	}
	wg.Wait()
	inserted := map[string]int{}
	for b, docs := range batches {
		if errs[b] != nil {
			t.Fatal(errs[b])
		}
		for i, doc := range docs {
			if !taken[b][i] {
				inserted[doc.(bson.M)["_id"].(string)]++
			}
		}
	}
	if len(inserted) != 90 {
		t.Fatalf("%d ids inserted, want 90", len(inserted))
	}
	for id, n := range inserted {
		if n != 1 {
			t.Fatalf("%s inserted by %d batches", id, n)
		}
	}
	if n, err := coll.CountDocuments(ctx, bson.M{}); err != nil || n != 90 {
		t.Fatalf("%d documents, %v", n, err)
	}
}
