package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

// benchDocs is the collection size at which FerretDB's missed `_id` index
// was measured (ARCHITECTURE §5), so the numbers are comparable.
const benchDocs = 50_000

// BenchmarkIDLookup50k measures a findOne and an updateOne by `_id` in a
// collection of 50,000 documents, with the SQLite expression index that
// EnsureCollections adds and, as "noindex", without it, to show what the
// index is worth. Against an external server both variants are the same.
func BenchmarkIDLookup50k(b *testing.B) {
	ctx := context.Background()
	s := storetest.Open(b)
	// Populated once per run; the sub-benchmarks only read and overwrite a
	// counter, so they can share the documents.
	populate(b, s.DB().Collection("indexed"))
	populate(b, s.DB().Collection("noindex"))
	if err := s.EnsureCollections(ctx, []store.CollectionSpec{{Name: "indexed"}}); err != nil {
		b.Fatalf("EnsureCollections: %v", err)
	}

	for _, coll := range []string{"indexed", "noindex"} {
		c := s.DB().Collection(coll)
		b.Run("findOne/"+coll, func(b *testing.B) {
			var doc bson.Raw
			for b.Loop() {
				if err := c.FindOne(ctx, bson.D{{Key: "_id", Value: randomID()}}).Decode(&doc); err != nil {
					b.Fatalf("FindOne: %v", err)
				}
			}
		})
		b.Run("updateOne/"+coll, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				res, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: randomID()}}, bson.D{{Key: "$set", Value: bson.D{{Key: "n", Value: i}}}})
				if err != nil || res.MatchedCount != 1 {
					b.Fatalf("UpdateOne: %v, matched %d", err, res.MatchedCount)
				}
			}
		})
	}
}

func benchID(i int) string { return fmt.Sprintf("user-%06d", i) }

func randomID() string { return benchID(rand.IntN(benchDocs)) }

// populate inserts benchDocs documents of about 300 bytes, shaped like a
// small application record, in batches that stay far below the 16 MB
// message limit.
func populate(b *testing.B, coll *mongo.Collection) {
	b.Helper()
	const batch = 1000
	pad := strings.Repeat("x", 200)
	docs := make([]any, 0, batch)
	for i := range benchDocs {
		docs = append(docs, bson.D{
			{Key: "_id", Value: benchID(i)},
			{Key: "email", Value: fmt.Sprintf("user%d@example.com", i)},
			{Key: "n", Value: i},
			{Key: "pad", Value: pad},
		})
		if len(docs) == batch || i == benchDocs-1 {
			if _, err := coll.InsertMany(context.Background(), docs); err != nil {
				b.Fatalf("InsertMany: %v", err)
			}
			docs = docs[:0]
		}
	}
}
