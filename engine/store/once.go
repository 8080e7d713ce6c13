package store

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// OncePerDatabase runs work unless the settings collection holds the
// document marker, and writes marker once work succeeds: for what a release
// does once to data an older release wrote (listing documents under the
// keys a newer reader expects). Work that stops part-way runs again from
// the start at the next call, so it must be safe to repeat. Two instances
// starting together may both run it; the marker is a unique insert either
// way.
func OncePerDatabase(ctx context.Context, db *mongo.Database, settings, marker string, work func(context.Context) error) error {
	err := db.Collection(settings).FindOne(ctx, bson.M{"_id": marker}).Err()
	if err == nil {
		return nil
	}
	if !errors.Is(err, mongo.ErrNoDocuments) {
		return fmt.Errorf("read mark %s: %w", marker, err)
	}
	if err := work(ctx); err != nil {
		return err
	}
	return MarkDone(ctx, db, settings, marker)
}

// MarkDone writes marker, for a writer that did the work itself (the scale
// seed lists what it writes).
func MarkDone(ctx context.Context, db *mongo.Database, settings, marker string) error {
	if _, err := db.Collection(settings).InsertOne(ctx, bson.M{"_id": marker}); err != nil && !IsDuplicateKey(err) {
		return fmt.Errorf("write mark %s: %w", marker, err)
	}
	return nil
}
