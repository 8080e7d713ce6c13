package store

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// InsertNew inserts docs with one unordered insertMany, in which each
// document is still its own unique insert (see TakeMany), and reports which
// were refused because their `_id` exists already: taken[i] is docs[i]'s.
// Any other refusal, of one document or of the whole command, is err; the
// answers in taken are then not to be relied on.
func InsertNew(ctx context.Context, coll *mongo.Collection, docs []any) (taken []bool, err error) {
	taken = make([]bool, len(docs))
	if len(docs) == 0 {
		return taken, nil
	}
	_, err = coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	var bwe mongo.BulkWriteException
	switch {
	case err == nil:
		return taken, nil
	case !errors.As(err, &bwe) || bwe.WriteConcernError != nil:
		return taken, fmt.Errorf("insert %d into %s: %w", len(docs), coll.Name(), err)
	}
	for _, we := range bwe.WriteErrors {
		if !IsDuplicateKey(we) || we.Index < 0 || we.Index >= len(docs) {
			return taken, fmt.Errorf("insert %d into %s: %w", len(docs), coll.Name(), err)
		}
		taken[we.Index] = true
	}
	return taken, nil
}
