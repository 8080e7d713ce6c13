package mongostore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/privacy"
	"glimpse/engine/store"
)

// privacyExportsCollection holds the exports; the unique requestKey
// (person and request window) is the rule "one request per window".
var privacyExportsCollection = collection{name: privacy.ExportsCollection, indexes: []index{
	{name: "one_per_window", keys: bson.D{{Key: "userId", Value: 1}, {Key: "window", Value: 1}}, unique: true},
	{name: "by_user", keys: bson.D{{Key: "userId", Value: 1}, {Key: "requestedAt", Value: -1}}},
	{name: "queued", keys: bson.D{{Key: "status", Value: 1}, {Key: "leaseUntil", Value: 1}}},
	{name: "by_expiry", keys: bson.D{{Key: "expiresAt", Value: 1}}},
}}

// privacyExportChunksCollection holds the exports' parts as
// "<export id>:<n>", well under a document's size limit each.
var privacyExportChunksCollection = collection{name: privacy.ExportChunksCollection, indexes: []index{
	{name: "by_export", keys: bson.D{{Key: "exportId", Value: 1}, {Key: "n", Value: 1}}},
}}

var privacyExportKeysCollection = collection{name: privacy.ExportKeysCollection, indexes: []index{
	{name: "by_export", keys: bson.D{{Key: "exportId", Value: 1}}},
	{name: "by_user", keys: bson.D{{Key: "userId", Value: 1}}},
	{name: "by_expiry", keys: bson.D{{Key: "expiresAt", Value: 1}}},
}}

var privacyErasuresCollection = collection{name: privacy.ErasuresCollection}

// privacyPendingErasuresCollection is read whole by the sweep, in the order
// of the erasures' start: a handful of documents at most.
var privacyPendingErasuresCollection = collection{name: privacy.PendingErasuresCollection, indexes: []index{
	{name: "by_start", keys: bson.D{{Key: "at", Value: 1}}},
}}

var privacyFarewellsCollection = collection{name: privacy.FarewellsCollection, indexes: []index{
	{name: "by_time", keys: bson.D{{Key: "at", Value: 1}}},
}}

// accountActivityCollection's idleKey is the last use (zero-padded Unix
// nanoseconds) then the account id: one field the retention pass pages on
// in the order (last use, account).
var accountActivityCollection = collection{name: privacy.ActivityCollection, indexes: []index{
	{name: "by_use", keys: bson.D{{Key: "idleKey", Value: 1}}},
}}

var instagramDeletionsCollection = collection{name: privacy.InstagramDeletionsCollection, indexes: []index{
	{name: "by_expiry", keys: bson.D{{Key: "expiresAt", Value: 1}}, expires: true},
}}

// privacyMongo holds privacy's collections, with the hook the crash tests
// stop a use case with.
type privacyMongo struct {
	exports, chunks, keys, erasures, pending, farewells, activity, deletions *mongo.Collection
	// beforeWrite, when set, runs before each write and fails it with its
	// error (tests: a use case stopped between two writes).
	beforeWrite func() error
}

func (p *privacyMongo) step() error {
	if p.beforeWrite != nil {
		return p.beforeWrite()
	}
	return nil
}

// PrivacyExports stores data exports in MongoDB.
type PrivacyExports struct{ *privacyMongo }

// PrivacyErasures stores erasures, the ledger and the last mails in MongoDB.
type PrivacyErasures struct{ *privacyMongo }

// AccountActivity stores the accounts' last uses in MongoDB.
type AccountActivity struct{ *privacyMongo }

// InstagramDeletions stores Meta's deletion requests in MongoDB.
type InstagramDeletions struct{ *privacyMongo }

// NewPrivacy returns privacy's stores on db.
func NewPrivacy(db *mongo.Database) privacy.Stores {
	p := &privacyMongo{exports: db.Collection(privacy.ExportsCollection), chunks: db.Collection(privacy.ExportChunksCollection),
		keys: db.Collection(privacy.ExportKeysCollection), erasures: db.Collection(privacy.ErasuresCollection),
		pending: db.Collection(privacy.PendingErasuresCollection), farewells: db.Collection(privacy.FarewellsCollection),
		activity: db.Collection(privacy.ActivityCollection), deletions: db.Collection(privacy.InstagramDeletionsCollection)}
	return privacy.Stores{Exports: PrivacyExports{p}, Erasures: PrivacyErasures{p}, Activity: AccountActivity{p},
		InstagramDeletions: InstagramDeletions{p}}
}

var (
	_ privacy.Exports            = PrivacyExports{}
	_ privacy.Erasures           = PrivacyErasures{}
	_ privacy.Activity           = AccountActivity{}
	_ privacy.InstagramDeletions = InstagramDeletions{}
)

type exportDoc struct {
	ID          string     `bson:"_id"`
	UserID      string     `bson:"userId"`
	Window      string     `bson:"window"`
	Brand       string     `bson:"brand"`
	Status      string     `bson:"status"`
	RequestedAt time.Time  `bson:"requestedAt"`
	ReadyAt     *time.Time `bson:"readyAt,omitempty"` // absent until ready
	ExpiresAt   time.Time  `bson:"expiresAt"`
	Size        int64      `bson:"size,omitempty"`
	Chunks      int        `bson:"chunks,omitempty"`
	LeaseUntil  time.Time  `bson:"leaseUntil"`
}

func (d exportDoc) export() privacy.Export {
	e := privacy.Export{ID: d.ID, UserID: d.UserID, Window: d.Window, Brand: d.Brand, Status: d.Status,
		RequestedAt: d.RequestedAt.UTC(), ExpiresAt: d.ExpiresAt.UTC(), Size: d.Size, Chunks: d.Chunks}
	if d.ReadyAt != nil {
		e.ReadyAt = d.ReadyAt.UTC()
	}
	return e
}

type exportChunkDoc struct {
	ID       string `bson:"_id"`
	ExportID string `bson:"exportId"`
	N        int    `bson:"n"`
	Data     []byte `bson:"data"`
}

type exportKeyDoc struct {
	ID        string    `bson:"_id"` // the key's SHA-256
	ExportID  string    `bson:"exportId"`
	UserID    string    `bson:"userId"`
	ExpiresAt time.Time `bson:"expiresAt"`
}

// Request inserts e; the unique index on (userId, window) refuses a second
// export of the window.
func (s PrivacyExports) Request(ctx context.Context, e privacy.Export) (bool, error) {
	if err := s.step(); err != nil {
		return false, err
	}
	d := exportDoc{ID: e.ID, UserID: e.UserID, Window: e.Window, Brand: e.Brand, Status: e.Status,
		RequestedAt: e.RequestedAt, ExpiresAt: e.ExpiresAt, Size: e.Size, Chunks: e.Chunks}
	if !e.ReadyAt.IsZero() {
		d.ReadyAt = &e.ReadyAt
	}
	_, err := s.exports.InsertOne(ctx, d)
	if store.IsDuplicateKey(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("request export: %w", err)
	}
	return true, nil
}

func (s PrivacyExports) findOne(ctx context.Context, filter bson.D, opts ...options.Lister[options.FindOneOptions]) (privacy.Export, bool, error) {
	var d exportDoc
	err := s.exports.FindOne(ctx, filter, opts...).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return privacy.Export{}, false, nil
	}
	if err != nil {
		return privacy.Export{}, false, err
	}
	return d.export(), true, nil
}

// Get returns an export.
func (s PrivacyExports) Get(ctx context.Context, id string) (privacy.Export, bool, error) {
	e, ok, err := s.findOne(ctx, bson.D{{Key: "_id", Value: id}})
	if err != nil {
		return privacy.Export{}, false, fmt.Errorf("export %s: %w", id, err)
	}
	return e, ok, nil
}

// Latest returns the person's newest export expiring after now.
func (s PrivacyExports) Latest(ctx context.Context, userID string, now time.Time) (privacy.Export, bool, error) {
	e, ok, err := s.findOne(ctx, bson.D{{Key: "userId", Value: userID}, {Key: "expiresAt", Value: bson.D{{Key: "$gt", Value: now}}}},
		options.FindOne().SetSort(bson.D{{Key: "requestedAt", Value: -1}}))
	if err != nil {
		return privacy.Export{}, false, fmt.Errorf("latest export of %s: %w", userID, err)
	}
	return e, ok, nil
}

// ClaimQueued finds queued exports whose lease has lapsed and leases each
// with a conditional update on its lease: one builder wins each.
func (s PrivacyExports) ClaimQueued(ctx context.Context, owner string, now, leaseUntil time.Time, n int) ([]privacy.Export, error) {
	lapsed := bson.D{{Key: "status", Value: privacy.ExportQueued}, {Key: "leaseUntil", Value: bson.D{{Key: "$lte", Value: now}}}}
	docs, err := leaseEach[exportDoc](ctx, s.exports, lapsed, nil,
		bson.D{{Key: "$set", Value: bson.D{{Key: "leaseUntil", Value: leaseUntil}}}}, n, s.step)
	out := make([]privacy.Export, len(docs))
	for i, d := range docs {
		out[i] = d.export()
	}
	if err != nil {
		return out, fmt.Errorf("lease queued exports: %w", err)
	}
	return out, nil
}

func exportChunkID(exportID string, n int) string { return exportID + ":" + strconv.Itoa(n) }

// Finish upserts the parts by (export, n), then marks the export ready if
// it is still queued: a rerun writes the same parts. When the export is
// gone, the parts written for it are deleted.
func (s PrivacyExports) Finish(ctx context.Context, id string, readyAt time.Time, parts [][]byte) (bool, error) {
	var size int64
	for n, p := range parts {
		if err := s.step(); err != nil {
			return false, err
		}
		c := exportChunkDoc{ID: exportChunkID(id, n), ExportID: id, N: n, Data: p}
		if _, err := s.chunks.ReplaceOne(ctx, bson.D{{Key: "_id", Value: c.ID}}, c, options.Replace().SetUpsert(true)); err != nil {
			return false, fmt.Errorf("store part %d of export %s: %w", n, id, err)
		}
		size += int64(len(p))
	}
	if err := s.step(); err != nil {
		return false, err
	}
	res, err := s.exports.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "status", Value: privacy.ExportQueued}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: privacy.ExportReady}, {Key: "readyAt", Value: readyAt},
			{Key: "size", Value: size}, {Key: "chunks", Value: len(parts)}}}})
	if err != nil {
		return false, fmt.Errorf("finish export %s: %w", id, err)
	}
	if res.MatchedCount == 1 {
		return true, nil
	}
	if _, found, err := s.Get(ctx, id); err != nil || found {
		return false, err
	}
	if _, err := s.chunks.DeleteMany(ctx, bson.D{{Key: "exportId", Value: id}}); err != nil {
		return false, fmt.Errorf("delete the parts of deleted export %s: %w", id, err)
	}
	return false, nil
}

// Fail marks a queued export failed.
func (s PrivacyExports) Fail(ctx context.Context, id string) error {
	if err := s.step(); err != nil {
		return err
	}
	if _, err := s.exports.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "status", Value: privacy.ExportQueued}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: privacy.ExportFailed}}}}); err != nil {
		return fmt.Errorf("fail export %s: %w", id, err)
	}
	return nil
}

// Parts returns an export's parts in order.
func (s PrivacyExports) Parts(ctx context.Context, id string) ([][]byte, error) {
	cur, err := s.chunks.Find(ctx, bson.D{{Key: "exportId", Value: id}}, options.Find().SetSort(bson.D{{Key: "n", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("parts of export %s: %w", id, err)
	}
	var docs []exportChunkDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("parts of export %s: %w", id, err)
	}
	out := make([][]byte, len(docs))
	for i, d := range docs {
		out[i] = d.Data
	}
	return out, nil
}

// InsertKey stores a download key.
func (s PrivacyExports) InsertKey(ctx context.Context, k privacy.ExportKey) error {
	if err := s.step(); err != nil {
		return err
	}
	if _, err := s.keys.InsertOne(ctx, exportKeyDoc{ID: k.Hash, ExportID: k.ExportID, UserID: k.UserID, ExpiresAt: k.ExpiresAt}); err != nil {
		return fmt.Errorf("insert export key: %w", err)
	}
	return nil
}

// Key returns the download key of a hash.
func (s PrivacyExports) Key(ctx context.Context, hash string) (privacy.ExportKey, bool, error) {
	var d exportKeyDoc
	err := s.keys.FindOne(ctx, bson.D{{Key: "_id", Value: hash}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return privacy.ExportKey{}, false, nil
	}
	if err != nil {
		return privacy.ExportKey{}, false, fmt.Errorf("export key: %w", err)
	}
	return privacy.ExportKey{Hash: d.ID, ExportID: d.ExportID, UserID: d.UserID, ExpiresAt: d.ExpiresAt.UTC()}, true, nil
}

// deleteExports deletes the exports filter selects: their parts and keys
// first, the exports last, so that a rerun stopped half way finds them by
// the exports still there.
func (s PrivacyExports) deleteExports(ctx context.Context, filter bson.D) error {
	cur, err := s.exports.Find(ctx, filter, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return err
	}
	var docs []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		return err
	}
	if len(docs) == 0 {
		return nil
	}
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	in := bson.D{{Key: "$in", Value: ids}}
	for _, del := range []struct {
		coll   *mongo.Collection
		filter bson.D
	}{
		{s.chunks, bson.D{{Key: "exportId", Value: in}}},
		{s.keys, bson.D{{Key: "exportId", Value: in}}},
		{s.exports, bson.D{{Key: "_id", Value: in}}},
	} {
		if err := s.step(); err != nil {
			return err
		}
		if _, err := del.coll.DeleteMany(ctx, del.filter); err != nil {
			return err
		}
	}
	return nil
}

// DeleteUser deletes the person's exports with their parts and keys.
func (s PrivacyExports) DeleteUser(ctx context.Context, userID string) error {
	if err := s.deleteExports(ctx, bson.D{{Key: "userId", Value: userID}}); err != nil {
		return fmt.Errorf("delete exports of %s: %w", userID, err)
	}
	// Keys minted for an export another step already deleted.
	if _, err := s.keys.DeleteMany(ctx, bson.D{{Key: "userId", Value: userID}}); err != nil {
		return fmt.Errorf("delete export keys of %s: %w", userID, err)
	}
	return nil
}

// DeleteExpired deletes the expired exports with their parts and keys, and
// the expired keys.
func (s PrivacyExports) DeleteExpired(ctx context.Context, now time.Time) error {
	expired := bson.D{{Key: "expiresAt", Value: bson.D{{Key: "$lte", Value: now}}}}
	if err := s.deleteExports(ctx, expired); err != nil {
		return fmt.Errorf("delete expired exports: %w", err)
	}
	if _, err := s.keys.DeleteMany(ctx, expired); err != nil {
		return fmt.Errorf("delete expired export keys: %w", err)
	}
	return nil
}

type pendingErasureDoc struct {
	ID         string    `bson:"_id"` // the account id
	Email      string    `bson:"email"`
	Why        string    `bson:"why"`
	At         time.Time `bson:"at"`
	Farewell   string    `bson:"farewell"`
	LeaseOwner string    `bson:"leaseOwner"`
	LeaseUntil time.Time `bson:"leaseUntil"`
}

func (d pendingErasureDoc) pending() privacy.PendingErasure {
	return privacy.PendingErasure{UserID: d.ID, Email: d.Email, Why: d.Why, At: d.At.UTC(), Farewell: d.Farewell}
}

type erasureDoc struct {
	ID  string    `bson:"_id"` // the account id
	At  time.Time `bson:"at"`
	Why string    `bson:"why"`
}

type farewellDoc struct {
	Key string    `bson:"_id"`
	At  time.Time `bson:"at"`
}

// Begin inserts the pending erasure (unique _id), or leases the one there
// with a conditional update on its lease.
func (s PrivacyErasures) Begin(ctx context.Context, p privacy.PendingErasure, owner string, now, leaseUntil time.Time) (privacy.PendingErasure, bool, error) {
	if err := s.step(); err != nil {
		return privacy.PendingErasure{}, false, err
	}
	_, err := s.pending.InsertOne(ctx, pendingErasureDoc{ID: p.UserID, Email: p.Email, Why: p.Why, At: p.At, Farewell: p.Farewell,
		LeaseOwner: owner, LeaseUntil: leaseUntil})
	if err == nil {
		return p, true, nil
	}
	if !store.IsDuplicateKey(err) {
		return privacy.PendingErasure{}, false, fmt.Errorf("begin erasure of %s: %w", p.UserID, err)
	}
	if err := s.step(); err != nil {
		return privacy.PendingErasure{}, false, err
	}
	var d pendingErasureDoc
	err = s.pending.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: p.UserID}, {Key: "leaseUntil", Value: bson.D{{Key: "$lte", Value: now}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "leaseOwner", Value: owner}, {Key: "leaseUntil", Value: leaseUntil}}}},
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&d)
	if err == nil {
		return d.pending(), true, nil
	}
	if !errors.Is(err, mongo.ErrNoDocuments) {
		return privacy.PendingErasure{}, false, fmt.Errorf("lease erasure of %s: %w", p.UserID, err)
	}
	err = s.pending.FindOne(ctx, bson.D{{Key: "_id", Value: p.UserID}}).Decode(&d)
	if err != nil {
		return privacy.PendingErasure{}, false, fmt.Errorf("read erasure of %s: %w", p.UserID, err)
	}
	return d.pending(), false, nil
}

// Pending returns every erasure under way, oldest first.
func (s PrivacyErasures) Pending(ctx context.Context) ([]privacy.PendingErasure, error) {
	cur, err := s.pending.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "at", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("pending erasures: %w", err)
	}
	var docs []pendingErasureDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("pending erasures: %w", err)
	}
	out := make([]privacy.PendingErasure, len(docs))
	for i, d := range docs {
		out[i] = d.pending()
	}
	return out, nil
}

// Finish inserts the ledger line and the farewell (each once: unique _id),
// then deletes the pending erasure, which a rerun finds until then.
func (s PrivacyErasures) Finish(ctx context.Context, e privacy.Erasure, f privacy.Farewell) error {
	if err := s.step(); err != nil {
		return err
	}
	if _, err := s.erasures.InsertOne(ctx, erasureDoc{ID: e.UserID, At: e.At, Why: e.Why}); err != nil && !store.IsDuplicateKey(err) {
		return fmt.Errorf("record erasure of %s: %w", e.UserID, err)
	}
	if err := s.step(); err != nil {
		return err
	}
	if _, err := s.farewells.InsertOne(ctx, farewellDoc(f)); err != nil && !store.IsDuplicateKey(err) {
		return fmt.Errorf("remember the last mail of %s: %w", e.UserID, err)
	}
	if err := s.step(); err != nil {
		return err
	}
	if _, err := s.pending.DeleteOne(ctx, bson.D{{Key: "_id", Value: e.UserID}}); err != nil {
		return fmt.Errorf("end erasure of %s: %w", e.UserID, err)
	}
	return nil
}

// Erased returns an account's ledger line.
func (s PrivacyErasures) Erased(ctx context.Context, userID string) (privacy.Erasure, bool, error) {
	var d erasureDoc
	err := s.erasures.FindOne(ctx, bson.D{{Key: "_id", Value: userID}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return privacy.Erasure{}, false, nil
	}
	if err != nil {
		return privacy.Erasure{}, false, fmt.Errorf("erasure of %s: %w", userID, err)
	}
	return privacy.Erasure{UserID: d.ID, At: d.At.UTC(), Why: d.Why}, true, nil
}

// Farewells returns the last mails remembered, oldest first.
func (s PrivacyErasures) Farewells(ctx context.Context) ([]privacy.Farewell, error) {
	cur, err := s.farewells.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "at", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("last mails: %w", err)
	}
	var docs []farewellDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("last mails: %w", err)
	}
	out := make([]privacy.Farewell, len(docs))
	for i, d := range docs {
		out[i] = privacy.Farewell{Key: d.Key, At: d.At.UTC()}
	}
	return out, nil
}

// Forget forgets a last mail.
func (s PrivacyErasures) Forget(ctx context.Context, key string) error {
	if err := s.step(); err != nil {
		return err
	}
	if _, err := s.farewells.DeleteOne(ctx, bson.D{{Key: "_id", Value: key}}); err != nil {
		return fmt.Errorf("forget last mail: %w", err)
	}
	return nil
}

type activityDoc struct {
	ID           string     `bson:"_id"` // the account id
	LastActiveAt time.Time  `bson:"lastActiveAt"`
	WarnedAt     *time.Time `bson:"warnedAt,omitempty"` // absent until warned: Warn filters on it
	IdleKey      string     `bson:"idleKey"`
}

func (d activityDoc) use() privacy.LastUse {
	u := privacy.LastUse{UserID: d.ID, LastActiveAt: d.LastActiveAt.UTC()}
	if d.WarnedAt != nil {
		u.WarnedAt = d.WarnedAt.UTC()
	}
	return u
}

// idleKey orders accounts by last use, then id, as one string.
func idleKey(at time.Time, userID string) string {
	return fmt.Sprintf("%020d:%s", at.UnixNano(), userID)
}

// Touch sets the last use to at unless a later one is stored (the filter),
// clearing the warning; an account with no record gets one (unique _id).
func (s AccountActivity) Touch(ctx context.Context, userID string, at time.Time) error {
	if err := s.step(); err != nil {
		return err
	}
	_, err := s.activity.UpdateOne(ctx, bson.D{{Key: "_id", Value: userID}, {Key: "lastActiveAt", Value: bson.D{{Key: "$lt", Value: at}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "lastActiveAt", Value: at}, {Key: "idleKey", Value: idleKey(at, userID)}}},
			{Key: "$unset", Value: bson.D{{Key: "warnedAt", Value: ""}}}})
	if err != nil {
		return fmt.Errorf("record use of %s: %w", userID, err)
	}
	_, err = s.activity.InsertOne(ctx, activityDoc{ID: userID, LastActiveAt: at, IdleKey: idleKey(at, userID)})
	if err != nil && !store.IsDuplicateKey(err) {
		return fmt.Errorf("record use of %s: %w", userID, err)
	}
	if err != nil {
		// Recorded already, with at or a later use: the warning is cleared
		// all the same, the account being in use.
		if _, err := s.activity.UpdateOne(ctx, bson.D{{Key: "_id", Value: userID}},
			bson.D{{Key: "$unset", Value: bson.D{{Key: "warnedAt", Value: ""}}}}); err != nil {
			return fmt.Errorf("record use of %s: %w", userID, err)
		}
	}
	return nil
}

// InsertMany records first uses, leaving the accounts recorded as they
// are (duplicates are skipped: an unordered insert).
func (s AccountActivity) InsertMany(ctx context.Context, uses []privacy.LastUse) error {
	if len(uses) == 0 {
		return nil
	}
	docs := make([]any, len(uses))
	for i, u := range uses {
		d := activityDoc{ID: u.UserID, LastActiveAt: u.LastActiveAt, IdleKey: idleKey(u.LastActiveAt, u.UserID)}
		if !u.WarnedAt.IsZero() {
			d.WarnedAt = &u.WarnedAt
		}
		docs[i] = d
	}
	if err := s.step(); err != nil {
		return err
	}
	_, err := s.activity.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	if err != nil && !onlyDuplicates(err) {
		return fmt.Errorf("record first uses: %w", err)
	}
	return nil
}

// onlyDuplicates reports whether every error of a bulk write is a
// duplicate key.
func onlyDuplicates(err error) bool {
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || bwe.WriteConcernError != nil {
		return false
	}
	for _, we := range bwe.WriteErrors {
		if we.Code != 11000 {
			return false
		}
	}
	return true
}

// Idle returns a page of accounts unused since before, by idleKey.
func (s AccountActivity) Idle(ctx context.Context, before time.Time, after privacy.LastUse, n int) ([]privacy.LastUse, error) {
	from := ""
	if !after.LastActiveAt.IsZero() {
		from = idleKey(after.LastActiveAt, after.UserID)
	}
	// Every key of a use at or before before sorts under this one.
	until := fmt.Sprintf("%020d;", before.UnixNano())
	cur, err := s.activity.Find(ctx, bson.D{{Key: "idleKey", Value: bson.D{{Key: "$gt", Value: from}, {Key: "$lt", Value: until}}}},
		options.Find().SetSort(bson.D{{Key: "idleKey", Value: 1}}).SetLimit(int64(n)))
	if err != nil {
		return nil, fmt.Errorf("unused accounts: %w", err)
	}
	var docs []activityDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("unused accounts: %w", err)
	}
	out := make([]privacy.LastUse, len(docs))
	for i, d := range docs {
		out[i] = d.use()
	}
	return out, nil
}

// Warn sets warnedAt on the document as read (that use, no warning): a
// conditional update.
func (s AccountActivity) Warn(ctx context.Context, userID string, lastActiveAt, at time.Time) (bool, error) {
	if err := s.step(); err != nil {
		return false, err
	}
	res, err := s.activity.UpdateOne(ctx, bson.D{{Key: "_id", Value: userID}, {Key: "lastActiveAt", Value: lastActiveAt},
		{Key: "warnedAt", Value: bson.D{{Key: "$exists", Value: false}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "warnedAt", Value: at}}}})
	if err != nil {
		return false, fmt.Errorf("record warning of %s: %w", userID, err)
	}
	return res.MatchedCount == 1, nil
}

// Get returns an account's last use.
func (s AccountActivity) Get(ctx context.Context, userID string) (privacy.LastUse, bool, error) {
	var d activityDoc
	err := s.activity.FindOne(ctx, bson.D{{Key: "_id", Value: userID}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return privacy.LastUse{}, false, nil
	}
	if err != nil {
		return privacy.LastUse{}, false, fmt.Errorf("last use of %s: %w", userID, err)
	}
	return d.use(), true, nil
}

// Delete forgets an account's use.
func (s AccountActivity) Delete(ctx context.Context, userID string) error {
	if err := s.step(); err != nil {
		return err
	}
	if _, err := s.activity.DeleteOne(ctx, bson.D{{Key: "_id", Value: userID}}); err != nil {
		return fmt.Errorf("forget use of %s: %w", userID, err)
	}
	return nil
}

type deletionDoc struct {
	Code        string    `bson:"_id"`
	Status      string    `bson:"status"`
	RequestedAt time.Time `bson:"requestedAt"`
	CompletedAt time.Time `bson:"completedAt"`
	ExpiresAt   time.Time `bson:"expiresAt"`
}

// Record inserts the request; the unique _id (its code) refuses a second.
func (s InstagramDeletions) Record(ctx context.Context, r privacy.DeletionRequest) (bool, error) {
	if err := s.step(); err != nil {
		return false, err
	}
	_, err := s.deletions.InsertOne(ctx, deletionDoc(r))
	if store.IsDuplicateKey(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("record deletion request: %w", err)
	}
	return true, nil
}

// Complete marks a request completed.
func (s InstagramDeletions) Complete(ctx context.Context, code string, at time.Time) error {
	if err := s.step(); err != nil {
		return err
	}
	if _, err := s.deletions.UpdateOne(ctx, bson.D{{Key: "_id", Value: code}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: privacy.DeletionCompleted}, {Key: "completedAt", Value: at}}}}); err != nil {
		return fmt.Errorf("complete deletion request: %w", err)
	}
	return nil
}

// Get returns a request by code.
func (s InstagramDeletions) Get(ctx context.Context, code string) (privacy.DeletionRequest, bool, error) {
	var d deletionDoc
	err := s.deletions.FindOne(ctx, bson.D{{Key: "_id", Value: code}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return privacy.DeletionRequest{}, false, nil
	}
	if err != nil {
		return privacy.DeletionRequest{}, false, fmt.Errorf("deletion request: %w", err)
	}
	return privacy.DeletionRequest{Code: d.Code, Status: d.Status, RequestedAt: d.RequestedAt.UTC(), CompletedAt: d.CompletedAt.UTC(),
		ExpiresAt: d.ExpiresAt.UTC()}, true, nil
}

// DeleteExpired deletes the requests that expired before now (MongoDB's
// TTL index does too, where the server has one).
func (s InstagramDeletions) DeleteExpired(ctx context.Context, now time.Time) error {
	if err := s.step(); err != nil {
		return err
	}
	if _, err := s.deletions.DeleteMany(ctx, bson.D{{Key: "expiresAt", Value: bson.D{{Key: "$lt", Value: now}}}}); err != nil {
		return fmt.Errorf("delete expired deletion requests: %w", err)
	}
	return nil
}
