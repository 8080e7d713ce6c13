package mongostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/auth"
)

// auth's collections. An account's email has a unique index, so of two
// sign-ups with one address one insert wins. Sessions, links and counters
// expire by TTL on expiresAt (https://www.mongodb.com/docs/manual/core/index-ttl/);
// each store's DeleteExpired does the same at once, for the sweeper and for
// servers without TTL.
var (
	usersCollection = collection{name: "users", indexes: []index{
		{name: "email", keys: bson.D{{Key: "email", Value: 1}}, unique: true},
	}}
	sessionsCollection = collection{name: "sessions", indexes: []index{
		{name: "by_user", keys: bson.D{{Key: "userId", Value: 1}, {Key: "createdAt", Value: -1}}},
		{name: "expiry", keys: bson.D{{Key: "expiresAt", Value: 1}}, expires: true},
	}}
	authLinksCollection = collection{name: "auth_links", indexes: []index{
		{name: "by_owner", keys: bson.D{{Key: "owner", Value: 1}, {Key: "kind", Value: 1}}},
		{name: "expiry", keys: bson.D{{Key: "expiresAt", Value: 1}}, expires: true},
	}}
	authCountersCollection = collection{name: "auth_counters", indexes: []index{
		{name: "expiry", keys: bson.D{{Key: "expiresAt", Value: 1}}, expires: true},
	}}
)

// AuthStores returns auth's storage on db.
func AuthStores(db *mongo.Database) auth.Stores {
	return auth.Stores{Users: NewUsers(db), Sessions: NewSessions(db), Links: NewLinks(db), Counters: NewCounters(db)}
}

type userDoc struct {
	ID           string    `bson:"_id"`
	Email        string    `bson:"email"`
	PasswordHash string    `bson:"passwordHash"`
	CreatedAt    time.Time `bson:"createdAt"`
	Disabled     bool      `bson:"disabled"`
	SessionEpoch int       `bson:"sessionEpoch"`
}

func (d userDoc) user() auth.User {
	u := auth.User(d)
	u.CreatedAt = d.CreatedAt.UTC()
	return u
}

// Users stores accounts in MongoDB.
type Users struct{ coll *mongo.Collection }

// NewUsers returns auth's accounts on db.
func NewUsers(db *mongo.Database) *Users { return &Users{coll: db.Collection(usersCollection.name)} }

var _ auth.Users = (*Users)(nil)

// Create stores a new account; the unique index on email refuses a second
// account of one address.
func (s *Users) Create(ctx context.Context, u auth.User) error {
	_, err := s.coll.InsertOne(ctx, userDoc(u))
	if mongo.IsDuplicateKeyError(err) {
		// The unique index decided; reading the address's account only
		// says which key collided (the server's message differs by engine).
		if other, ferr := s.ByEmail(ctx, u.Email); ferr == nil && other.ID != u.ID {
			return auth.ErrEmailTaken
		}
	}
	if err != nil {
		return fmt.Errorf("insert user %s: %w", u.ID, err)
	}
	return nil
}

// CreateMany stores new accounts in one round trip.
func (s *Users) CreateMany(ctx context.Context, users []auth.User) error {
	docs := make([]userDoc, len(users))
	for i, u := range users {
		docs[i] = userDoc(u)
	}
	if _, err := s.coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
		return fmt.Errorf("insert users: %w", err)
	}
	return nil
}

// ByID returns an account by _id.
func (s *Users) ByID(ctx context.Context, id string) (auth.User, error) {
	return s.findOne(ctx, bson.D{{Key: "_id", Value: id}})
}

// ByEmail returns an account by its unique email.
func (s *Users) ByEmail(ctx context.Context, email string) (auth.User, error) {
	return s.findOne(ctx, bson.D{{Key: "email", Value: email}})
}

func (s *Users) findOne(ctx context.Context, filter bson.D) (auth.User, error) {
	var d userDoc
	err := s.coll.FindOne(ctx, filter).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return auth.User{}, auth.ErrUserNotFound
	}
	if err != nil {
		return auth.User{}, fmt.Errorf("user: %w", err)
	}
	return d.user(), nil
}

// IDs returns up to limit account ids after after, in _id order.
func (s *Users) IDs(ctx context.Context, after string, limit int) ([]string, error) {
	cur, err := s.coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: after}}}},
		options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(limit)).SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("user ids: %w", err)
	}
	var docs []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("user ids: %w", err)
	}
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.ID
	}
	return out, nil
}

// ResetPassword sets the hash and moves the epoch on with an update
// filtered on the epoch, which MongoDB applies atomically: one reset from an
// epoch matches.
func (s *Users) ResetPassword(ctx context.Context, id string, fromEpoch int, hash string) (bool, error) {
	res, err := s.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "sessionEpoch", Value: fromEpoch}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "passwordHash", Value: hash}}},
			{Key: "$inc", Value: bson.D{{Key: "sessionEpoch", Value: 1}}}})
	if err != nil {
		return false, fmt.Errorf("reset password of %s: %w", id, err)
	}
	return res.MatchedCount == 1, nil
}

// EndSessions moves the account's epoch on by one with $inc, which MongoDB
// applies atomically, so calls made together each count.
func (s *Users) EndSessions(ctx context.Context, id string) error {
	return s.update(ctx, id, bson.D{{Key: "$inc", Value: bson.D{{Key: "sessionEpoch", Value: 1}}}})
}

// Disable marks the account disabled and moves its epoch on.
func (s *Users) Disable(ctx context.Context, id string) error {
	return s.update(ctx, id, bson.D{{Key: "$set", Value: bson.D{{Key: "disabled", Value: true}}},
		{Key: "$inc", Value: bson.D{{Key: "sessionEpoch", Value: 1}}}})
}

func (s *Users) update(ctx context.Context, id string, change bson.D) error {
	if _, err := s.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, change); err != nil {
		return fmt.Errorf("update user %s: %w", id, err)
	}
	return nil
}

// Delete deletes an account.
func (s *Users) Delete(ctx context.Context, id string) error {
	if _, err := s.coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
		return fmt.Errorf("delete user %s: %w", id, err)
	}
	return nil
}

type sessionDoc struct {
	ID        string    `bson:"_id"`
	UserID    string    `bson:"userId"`
	CreatedAt time.Time `bson:"createdAt"`
	ExpiresAt time.Time `bson:"expiresAt"`
	Epoch     int       `bson:"epoch"`
	Device    string    `bson:"device,omitempty"`
	Country   string    `bson:"country,omitempty"`
}

func (d sessionDoc) session() auth.Session {
	return auth.Session{ID: d.ID, UserID: d.UserID, CreatedAt: d.CreatedAt.UTC(), ExpiresAt: d.ExpiresAt.UTC(), Epoch: d.Epoch,
		Device: d.Device, Country: d.Country}
}

func newSessionDoc(s auth.Session) sessionDoc {
	return sessionDoc{ID: s.ID, UserID: s.UserID, CreatedAt: s.CreatedAt, ExpiresAt: s.ExpiresAt, Epoch: s.Epoch, Device: s.Device,
		Country: s.Country}
}

// Sessions stores sessions in MongoDB.
type Sessions struct{ coll, users *mongo.Collection }

// NewSessions returns auth's sessions on db.
func NewSessions(db *mongo.Database) *Sessions {
	return &Sessions{coll: db.Collection(sessionsCollection.name), users: db.Collection(usersCollection.name)}
}

var _ auth.Sessions = (*Sessions)(nil)

// Insert stores a new session.
func (s *Sessions) Insert(ctx context.Context, sess auth.Session) error {
	if _, err := s.coll.InsertOne(ctx, newSessionDoc(sess)); err != nil {
		return fmt.Errorf("insert session: %w", err)
	}
	return nil
}

// InsertMany stores new sessions in one round trip.
func (s *Sessions) InsertMany(ctx context.Context, sessions []auth.Session) error {
	docs := make([]sessionDoc, len(sessions))
	for i, sess := range sessions {
		docs[i] = newSessionDoc(sess)
	}
	if _, err := s.coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
		return fmt.Errorf("insert sessions: %w", err)
	}
	return nil
}

// WithUser reads a session and then its account, each by _id (MongoDB has
// no join that a single find serves; $lookup would be the same two reads).
func (s *Sessions) WithUser(ctx context.Context, id string) (auth.Session, auth.User, error) {
	var d sessionDoc
	err := s.coll.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return auth.Session{}, auth.User{}, auth.ErrNoSession
	}
	if err != nil {
		return auth.Session{}, auth.User{}, fmt.Errorf("session: %w", err)
	}
	var u userDoc
	err = s.users.FindOne(ctx, bson.D{{Key: "_id", Value: d.UserID}}).Decode(&u)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return auth.Session{}, auth.User{}, auth.ErrNoSession
	}
	if err != nil {
		return auth.Session{}, auth.User{}, fmt.Errorf("session's user: %w", err)
	}
	return d.session(), u.user(), nil
}

// OfUser returns the account's sessions, newest first.
func (s *Sessions) OfUser(ctx context.Context, userID string) ([]auth.Session, error) {
	cur, err := s.coll.Find(ctx, bson.D{{Key: "userId", Value: userID}}, options.Find().SetSort(bson.D{{Key: "createdAt", Value: -1}}))
	if err != nil {
		return nil, fmt.Errorf("sessions of %s: %w", userID, err)
	}
	var docs []sessionDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("sessions of %s: %w", userID, err)
	}
	out := make([]auth.Session, len(docs))
	for i, d := range docs {
		out[i] = d.session()
	}
	return out, nil
}

// Delete deletes one session.
func (s *Sessions) Delete(ctx context.Context, id string) error {
	if _, err := s.coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// DeleteUser deletes every session of the account.
func (s *Sessions) DeleteUser(ctx context.Context, userID string) (int64, error) {
	return deleteMany(ctx, s.coll, bson.D{{Key: "userId", Value: userID}})
}

// DeleteExpired deletes the sessions expired by now.
func (s *Sessions) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	return deleteMany(ctx, s.coll, expiredBy(now))
}

func expiredBy(now time.Time) bson.D {
	return bson.D{{Key: "expiresAt", Value: bson.D{{Key: "$lte", Value: now}}}}
}

func deleteMany(ctx context.Context, coll *mongo.Collection, filter bson.D) (int64, error) {
	res, err := coll.DeleteMany(ctx, filter)
	if err != nil {
		return 0, fmt.Errorf("delete from %s: %w", coll.Name(), err)
	}
	return res.DeletedCount, nil
}

type linkDoc struct {
	ID        string    `bson:"_id"`
	Kind      string    `bson:"kind"`
	Owner     string    `bson:"owner"`
	ExpiresAt time.Time `bson:"expiresAt"`
	Epoch     int       `bson:"epoch"`
	Email     string    `bson:"email,omitempty"`
}

// Links stores one-time links in MongoDB.
type Links struct{ coll *mongo.Collection }

// NewLinks returns auth's one-time links on db.
func NewLinks(db *mongo.Database) *Links {
	return &Links{coll: db.Collection(authLinksCollection.name)}
}

var _ auth.OneTimeLinks = (*Links)(nil)

// Insert stores a new link.
func (s *Links) Insert(ctx context.Context, l auth.Link) error {
	_, err := s.coll.InsertOne(ctx, linkDoc{ID: l.ID, Kind: string(l.Kind), Owner: l.Owner, ExpiresAt: l.ExpiresAt,
		Epoch: l.Epoch, Email: l.Email})
	if err != nil {
		return fmt.Errorf("insert %s link: %w", l.Kind, err)
	}
	return nil
}

// Find reads a link by _id.
func (s *Links) Find(ctx context.Context, kind auth.LinkKind, id string) (auth.Link, error) {
	var d linkDoc
	err := s.coll.FindOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "kind", Value: string(kind)}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return auth.Link{}, auth.ErrLinkNotFound
	}
	if err != nil {
		return auth.Link{}, fmt.Errorf("link: %w", err)
	}
	return auth.Link{ID: d.ID, Kind: auth.LinkKind(d.Kind), Owner: d.Owner, ExpiresAt: d.ExpiresAt.UTC(), Epoch: d.Epoch, Email: d.Email}, nil
}

// Take reads the link and deletes it by _id: of callers deleting one _id
// together exactly one sees a document deleted, on MongoDB and on the
// FerretDB that runs the tests alike (docs/store.md §1), and only that one
// gets the link.
func (s *Links) Take(ctx context.Context, kind auth.LinkKind, id string) (auth.Link, error) {
	l, err := s.Find(ctx, kind, id)
	if err != nil {
		return auth.Link{}, err
	}
	res, err := s.coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
	if err != nil {
		return auth.Link{}, fmt.Errorf("take link: %w", err)
	}
	if res.DeletedCount != 1 {
		return auth.Link{}, auth.ErrLinkNotFound
	}
	return l, nil
}

// DeleteOwner deletes an owner's links of one kind.
func (s *Links) DeleteOwner(ctx context.Context, kind auth.LinkKind, owner string) (int64, error) {
	return deleteMany(ctx, s.coll, bson.D{{Key: "owner", Value: owner}, {Key: "kind", Value: string(kind)}})
}

// DeleteExpired deletes the links expired by now.
func (s *Links) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	return deleteMany(ctx, s.coll, expiredBy(now))
}

// Counters keeps bounded counters in MongoDB: one document per key whose
// count Take raises with an update filtered on count < limit, which MongoDB
// applies atomically.
type Counters struct{ coll *mongo.Collection }

// NewCounters returns auth's counters on db.
func NewCounters(db *mongo.Database) *Counters {
	return &Counters{coll: db.Collection(authCountersCollection.name)}
}

var _ auth.Counters = (*Counters)(nil)

// Take counts one unless limit are counted. The upsert inserts the counter
// when there is none. When the filter matches nothing the insert it
// attempts collides with the counter's _id: the counter is full, or another
// taker inserted it first (MongoDB retries such an upsert itself only for a
// filter of equalities), so the increment is tried once more without the
// insert, and its match decides.
func (s *Counters) Take(ctx context.Context, key string, limit int, expires time.Time) (bool, error) {
	if limit < 1 {
		return false, nil
	}
	notFull := bson.D{{Key: "_id", Value: key}, {Key: "count", Value: bson.D{{Key: "$lt", Value: limit}}}}
	count := bson.D{{Key: "$inc", Value: bson.D{{Key: "count", Value: 1}}}}
	_, err := s.coll.UpdateOne(ctx, notFull,
		append(count, bson.E{Key: "$setOnInsert", Value: bson.D{{Key: "expiresAt", Value: expires}}}),
		options.UpdateOne().SetUpsert(true))
	if mongo.IsDuplicateKeyError(err) {
		res, err := s.coll.UpdateOne(ctx, notFull, count)
		if err != nil {
			return false, fmt.Errorf("take counter: %w", err)
		}
		return res.MatchedCount == 1, nil
	}
	if err != nil {
		return false, fmt.Errorf("take counter: %w", err)
	}
	return true, nil
}

// Release takes one back, never below zero.
func (s *Counters) Release(ctx context.Context, key string) error {
	_, err := s.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}, {Key: "count", Value: bson.D{{Key: "$gt", Value: 0}}}},
		bson.D{{Key: "$inc", Value: bson.D{{Key: "count", Value: -1}}}})
	if err != nil {
		return fmt.Errorf("release counter: %w", err)
	}
	return nil
}

// Reset forgets the counter.
func (s *Counters) Reset(ctx context.Context, key string) error {
	if _, err := s.coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: key}}); err != nil {
		return fmt.Errorf("reset counter: %w", err)
	}
	return nil
}

// DeleteExpired deletes the counters expired by now.
func (s *Counters) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	return deleteMany(ctx, s.coll, expiredBy(now))
}
