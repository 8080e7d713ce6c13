// Package mongostore implements the domains' storage interfaces on MongoDB
// (mongo-go-driver v2), the production engine. Each domain's file declares
// its collections with the indexes its queries use (created at start by
// Ensure), and a test records every query the contract suites send and fails
// when no declared index serves its filter and sort (coverage_test.go).
package mongostore

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/store"
)

// collection declares one collection and the indexes its queries use.
type collection struct {
	name    string
	indexes []index
}

// index is one declared index. Expires marks a TTL index on a date field:
// MongoDB deletes a document once the field's time has passed
// (expireAfterSeconds 0, https://www.mongodb.com/docs/manual/core/index-ttl/).
type index struct {
	name    string
	keys    bson.D
	unique  bool
	expires bool
	partial bson.D // the documents the index holds, when not all
}

// collections declares every collection the MongoDB stores use.
func collections() []collection {
	return []collection{eventsCollection, mailsCollection, profilesCollection, snapshotsCollection, chunksCollection, instagramLinksCollection,
		attemptsCollection, stepsCollection, experimentsCollection, experimentPeopleCollection, experimentCountsCollection,
		contentDocsCollection, contentVersionCollection, contentSchedulesCollection, staffCollection, staffSessionsCollection, supportAuditCollection, breachCatalogueCollection, breachChecksCollection,
		usersCollection, sessionsCollection, authLinksCollection, authCountersCollection, settingsCollection,
		privacyExportsCollection, privacyExportChunksCollection, privacyExportKeysCollection, privacyErasuresCollection,
		privacyPendingErasuresCollection, privacyFarewellsCollection, accountActivityCollection, instagramDeletionsCollection,
		subscriptionsCollection, historyCollection, outboxCollection, billingKeysCollection,
		refundsCollection, receiptsCollection, cancelLinksCollection, stripeEventsCollection, chargesCollection, chargeEventsCollection,
		ordersCollection, sandboxSessionsCollection, sandboxChargesCollection, sandboxRefundsCollection}
}

// indexes returns the declared indexes of the named collection.
func indexes(name string) []index {
	for _, c := range collections() {
		if c.name == name {
			return c.indexes
		}
	}
	return nil
}

// Ensure creates every declared collection and index that is missing; it is
// safe at every start. A test server that speaks MongoDB's protocol but has
// no TTL or partial indexes (FerretDB v1, which runs the contract suites in
// make test) gets the same indexes without those options: its stores delete
// expired documents with their sweeps, which every store has anyway.
func Ensure(ctx context.Context, st *store.Store) error {
	err := ensure(ctx, st.DB(), true)
	var cmdErr mongo.CommandError
	if errors.As(err, &cmdErr) && cmdErr.Code == notImplemented {
		err = ensure(ctx, st.DB(), false)
	}
	if err != nil {
		return fmt.Errorf("mongostore: %w", err)
	}
	return nil
}

// Server error codes (https://www.mongodb.com/docs/manual/reference/error-codes/):
// an option the server does not have, and a collection that exists.
const (
	notImplemented  = 238
	namespaceExists = 48
)

// ensure creates each declared collection and its indexes if missing; with
// full false, without the TTL and partial options.
func ensure(ctx context.Context, db *mongo.Database, full bool) error {
	for _, c := range collections() {
		err := db.CreateCollection(ctx, c.name)
		var cmdErr mongo.CommandError
		if err != nil && !(errors.As(err, &cmdErr) && cmdErr.Code == namespaceExists) {
			return fmt.Errorf("create collection %q: %w", c.name, err)
		}
		if models := indexModels(c, full); len(models) > 0 {
			if _, err := db.Collection(c.name).Indexes().CreateMany(ctx, models); err != nil {
				return fmt.Errorf("create indexes on %q: %w", c.name, err)
			}
		}
	}
	return nil
}

func indexModels(c collection, full bool) []mongo.IndexModel {
	var out []mongo.IndexModel
	for _, ix := range c.indexes {
		opts := options.Index().SetName(ix.name)
		if ix.unique {
			opts.SetUnique(true)
		}
		if full && ix.expires {
			opts.SetExpireAfterSeconds(0)
		}
		if full && ix.partial != nil {
			opts.SetPartialFilterExpression(ix.partial)
		}
		out = append(out, mongo.IndexModel{Keys: ix.keys, Options: opts})
	}
	return out
}

// leaseEach finds up to n documents matching due, in sort's order, then
// leases each with a findOneAndUpdate (change) filtered on its _id and on
// due still holding: MongoDB applies the filter and the change as one step,
// so of callers leasing together one gets each document (FerretDB v1 does
// not: docs/store.md §1). It returns the leased documents as changed. step,
// when not nil, runs before each lease: the crash tests' hook.
func leaseEach[D any](ctx context.Context, coll *mongo.Collection, due, sort, change bson.D, n int, step func() error) ([]D, error) {
	find := options.Find().SetLimit(int64(n)).SetProjection(bson.D{{Key: "_id", Value: 1}})
	if sort != nil {
		find.SetSort(sort)
	}
	cur, err := coll.Find(ctx, due, find)
	if err != nil {
		return nil, fmt.Errorf("find due in %s: %w", coll.Name(), err)
	}
	var ids []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &ids); err != nil {
		return nil, fmt.Errorf("find due in %s: %w", coll.Name(), err)
	}
	var leased []D
	for _, id := range ids {
		if step != nil {
			if err := step(); err != nil {
				return leased, err
			}
		}
		var d D
		err := coll.FindOneAndUpdate(ctx, append(bson.D{{Key: "_id", Value: id.ID}}, due...), change,
			options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&d)
		if errors.Is(err, mongo.ErrNoDocuments) {
			continue // another caller leased it first
		}
		if err != nil {
			return leased, fmt.Errorf("lease %s in %s: %w", id.ID, coll.Name(), err)
		}
		leased = append(leased, d)
	}
	return leased, nil
}

// insertNew inserts docs with one unordered insertMany, in which each
// document is still its own unique insert, and reports which were refused
// because their _id exists already: taken[i] is docs[i]'s. Any other
// refusal, of one document or of the whole command, is err; the answers in
// taken are then not to be relied on.
func insertNew(ctx context.Context, coll *mongo.Collection, docs []any) (taken []bool, err error) {
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
		if !store.IsDuplicateKey(we) || we.Index < 0 || we.Index >= len(docs) {
			return taken, fmt.Errorf("insert %d into %s: %w", len(docs), coll.Name(), err)
		}
		taken[we.Index] = true
	}
	return taken, nil
}
