package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TakeMany claims each of ids for owner until expiresAt and reports, for
// each, whether this caller won it (won[i] is ids[i]'s). It is Take for a
// batch: one unordered insertMany, in which every document is still its own
// unique insert, refused alone when its `_id` exists (MongoDB's unordered
// inserts go on past a failed document; FerretDB inserts a batch in one
// SQLite transaction and, when that fails, each document on its own). So of
// concurrent callers each id has exactly one winner, as with Take, at the
// cost of one round trip instead of one per id.
//
// An id refused for a reason other than a duplicate is not won, and err
// says so; the others' answers hold.
func (c *Claims) TakeMany(ctx context.Context, ids []string, owner string, expiresAt time.Time) (won []bool, err error) {
	won = make([]bool, len(ids))
	if len(ids) == 0 {
		return won, nil
	}
	docs := make([]any, len(ids))
	for i, id := range ids {
		docs[i] = claimDoc{ID: id, Owner: owner, ExpiresAt: expiresAt}
	}
	_, err = c.coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	if err == nil {
		for i := range won {
			won[i] = true
		}
		return won, nil
	}
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || bwe.WriteConcernError != nil {
		// The whole command failed (or its durability is unknown): nothing
		// is known to be won. A claim inserted meanwhile stays unused until
		// it expires, which only delays its job.
		return make([]bool, len(ids)), fmt.Errorf("store: take %d claims: %w", len(ids), err)
	}
	for i := range won {
		won[i] = true
	}
	var (
		others int
		first  error
	)
	for _, we := range bwe.WriteErrors {
		if we.Index < 0 || we.Index >= len(ids) {
			return make([]bool, len(ids)), fmt.Errorf("store: take %d claims: write error for document %d", len(ids), we.Index)
		}
		won[we.Index] = false
		if !IsDuplicateKey(we) {
			others++
			if first == nil {
				first = fmt.Errorf("store: take claim %q: %w", ids[we.Index], we)
			}
		}
	}
	if others > 1 {
		first = fmt.Errorf("%w (and %d more)", first, others-1)
	}
	return won, first
}
