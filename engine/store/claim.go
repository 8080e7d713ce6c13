package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// ClaimsCollection holds claim documents: leases on jobs and the slots of
// bounded counters. It is one collection for every user of Claims so that one
// sweeper removes what has expired.
const ClaimsCollection = "claims"

// Claims are exclusive rights and bounded counters built only from inserts
// and deletes of documents by a unique `_id`.
//
// Why not conditional updates: on the embedded FerretDB v1.24 a conditional
// findOneAndUpdate or updateOne, and an $inc, are not atomic between
// concurrent writers (with 30 writers on one document, up to 17 "won" a
// conditional update and increments were lost), while inserting one `_id`
// and deleting one `_id` have exactly one winner there as on MongoDB, where
// the unique `_id` index decides (docs/store.md §1). So a lease is a claim
// document per job and period, and a counter of at most N is N slot
// documents; both hold on either server.
type Claims struct {
	coll *mongo.Collection
}

// claimDoc is one claim or one counter slot. ExpiresAt lets the sweeper
// remove it; correctness never depends on the sweeper having run, because
// the ids of periods and windows change with time.
type claimDoc struct {
	ID        string    `bson:"_id"`
	Owner     string    `bson:"owner,omitempty"`
	ExpiresAt time.Time `bson:"expiresAt"`
}

// NewClaims returns the claims kept in db's ClaimsCollection.
func NewClaims(db *mongo.Database) *Claims {
	return &Claims{coll: db.Collection(ClaimsCollection)}
}

// ClaimsCollections declares the collection for EnsureCollections.
func ClaimsCollections() map[string][]mongo.IndexModel {
	return map[string][]mongo.IndexModel{ClaimsCollection: nil}
}

// Take claims id for owner until expiresAt. Of any number of concurrent
// callers with the same id, exactly one gets true; the others, and any later
// caller while the document exists, get false. Put the period into id (a job's
// due time, a time window) so that a new period is a new claim.
func (c *Claims) Take(ctx context.Context, id, owner string, expiresAt time.Time) (bool, error) {
	_, err := c.coll.InsertOne(ctx, claimDoc{ID: id, Owner: owner, ExpiresAt: expiresAt})
	if IsDuplicateKey(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: take claim %q: %w", id, err)
	}
	return true, nil
}

// Release gives a claim up, so the same id can be taken again.
func (c *Claims) Release(ctx context.Context, id string) error {
	if _, err := c.coll.DeleteOne(ctx, bson.M{"_id": id}); err != nil {
		return fmt.Errorf("store: release claim %q: %w", id, err)
	}
	return nil
}

// Owner returns who holds a claim, or "" when nobody does.
func (c *Claims) Owner(ctx context.Context, id string) (string, error) {
	var d claimDoc
	err := c.coll.FindOne(ctx, bson.M{"_id": id}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store: read claim %q: %w", id, err)
	}
	return d.Owner, nil
}

// TakeSlot counts one toward a counter of at most limit under key: it takes
// a free slot of key#0 … key#limit-1 and reports false when all are taken.
// Concurrent callers never get more than limit slots between them, since
// each slot is a unique insert. Put the time window into key. It starts at
// the count of taken slots, so a counter with n slots taken costs one query
// and about one insert rather than n failed inserts, and a full one costs
// the query alone; a slot given back below the count is found on the
// wrap-around.
func (c *Claims) TakeSlot(ctx context.Context, key string, limit int, expiresAt time.Time) (bool, error) {
	first, err := c.Count(ctx, key, limit)
	if err != nil {
		return false, err
	}
	if first >= limit {
		return false, nil
	}
	for i := range limit {
		ok, err := c.Take(ctx, slotID(key, (first+i)%limit), "", expiresAt)
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// ReleaseSlot gives back the highest taken slot of key, for an attempt that
// turned out not to count (a reservation made before the outcome was known).
func (c *Claims) ReleaseSlot(ctx context.Context, key string, limit int) error {
	n, err := c.Count(ctx, key, limit)
	if err != nil || n == 0 {
		return err
	}
	return c.Release(ctx, slotID(key, n-1))
}

// Count returns how many slots of key are taken. Slots fill from #0 up and
// are given back from the top, so the taken ones form a prefix, and the
// count is found by a binary search of lookups by `_id`: the only filter the
// embedded FerretDB answers from an index (an $in over the slot ids scans
// the whole collection: 2.4 s with 30,000 claims). Should a slot below the
// top be missing (a reservation given back out of order), the count is a
// little off, which only moves where TakeSlot starts looking.
func (c *Claims) Count(ctx context.Context, key string, limit int) (int, error) {
	lo, hi := 0, limit // slots below lo are taken; hi and above are free
	for lo < hi {
		mid := (lo + hi) / 2
		taken, err := c.taken(ctx, slotID(key, mid))
		if err != nil {
			return 0, fmt.Errorf("store: count slots of %q: %w", key, err)
		}
		if taken {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, nil
}

func (c *Claims) taken(ctx context.Context, id string) (bool, error) {
	err := c.coll.FindOne(ctx, bson.M{"_id": id}, options.FindOne().SetProjection(bson.M{"_id": 1})).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	return err == nil, err
}

// Reset frees every slot of key, one delete by `_id` per taken slot.
func (c *Claims) Reset(ctx context.Context, key string, limit int) error {
	n, err := c.Count(ctx, key, limit)
	if err != nil {
		return err
	}
	for i := range n {
		if err := c.Release(ctx, slotID(key, i)); err != nil {
			return fmt.Errorf("store: reset slots of %q: %w", key, err)
		}
	}
	return nil
}

// Sweep deletes claims and slots that expired before now and returns how
// many. It scans the collection, so run it now and then, not per request.
func (c *Claims) Sweep(ctx context.Context, now time.Time) (int64, error) {
	n, err := DeleteMatching(ctx, c.coll, bson.M{"expiresAt": bson.M{"$lt": now}})
	if err != nil {
		return n, fmt.Errorf("store: sweep claims: %w", err)
	}
	return n, nil
}

// Window names the fixed window of length d that t falls in, for keys of
// counters and periods of claims ("…:" + Window(now, 15*time.Minute)).
func Window(t time.Time, d time.Duration) string {
	return strconv.FormatInt(t.UnixNano()/int64(d), 36)
}

func slotID(key string, i int) string { return key + "#" + strconv.Itoa(i) }

// IsDuplicateKey reports MongoDB's DuplicateKey error (11000), which FerretDB
// returns too: a unique insert that lost.
func IsDuplicateKey(err error) bool {
	return err != nil && mongo.IsDuplicateKeyError(err)
}
