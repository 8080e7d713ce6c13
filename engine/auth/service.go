package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/store"
)

// The sign-in errors. Their messages are the identity provider's texts the
// spec quotes; screens may show brand copy instead, chosen with errors.Is.
var (
	// ErrInvalidCredential answers both an unknown email and a wrong password,
	// so the sign-in form reveals nothing about which accounts exist.
	ErrInvalidCredential = engine.Errorf(engine.CodeUnauthenticated, "The supplied auth credential is malformed or has expired.")
	ErrTooManyRequests   = engine.Errorf(engine.CodeRateLimited, "We have blocked all requests from this device due to unusual activity. Try again later.")
	ErrUserDisabled      = engine.Errorf(engine.CodeForbidden, "The user account has been disabled by an administrator.")
	// ErrNoSubscription means the credentials were right but no main
	// subscription on this brand's bundle authorises the person.
	ErrNoSubscription = engine.Errorf(engine.CodeForbidden, "No Active Subscription. It seems like you don’t have a subscription anymore")
	// ErrSubscriptionExpired means the credentials were right and the person
	// had main subscriptions on the bundle, but every one has expired.
	ErrSubscriptionExpired = engine.Errorf(engine.CodeForbidden, "No Active Subscription. It seems like you don’t have a subscription anymore")
	// ErrNoSession means the cookie names no live session.
	ErrNoSession = engine.Errorf(engine.CodeUnauthenticated, "Your session has ended. Please sign in again.")
	// ErrLinkInvalid means a sign-in link is unknown, used or expired.
	ErrLinkInvalid = engine.Errorf(engine.CodeUnauthenticated, "This sign-in link has expired or was already used.")
)

// Collection names owned by auth.
const (
	UsersCollection      = "users"
	UserEmailsCollection = "user_emails"
	SessionsCollection   = "sessions"
	// SubscriptionsCollection is billing's, read here to authorise.
	SubscriptionsCollection = billing.SubscriptionsCollection
	LoginLinksCollection    = "login_links"
	// legacyFailuresCollection held the read-then-write failure counts
	// that store.Claims slots replaced; Sweep empties it.
	legacyFailuresCollection = "signin_failures"
)

// Limits on guessing: the production values of DefaultLimits (limit.go says
// why they are shaped as they are).
const (
	// AccountFailureLimit is the failures per account and client IP per
	// window before that client is refused.
	AccountFailureLimit = 10
	// IPFailureLimit counts failed attempts only, so people sharing an
	// address (an office, a carrier's NAT) are not locked out by each
	// other's successful sign-ins.
	IPFailureLimit    = 30
	LimitWindow       = 15 * time.Minute
	LoginLinkLifetime = 10 * time.Minute
	// cacheTTL bounds how long another instance may still honour a session
	// that was signed out elsewhere.
	cacheTTL = 5 * time.Second
)

// Principal is who a request acts for: the session, its user and the user's
// subscriptions, as loaded (or cached) for one request.
type Principal struct {
	Session       Session
	User          User
	Subscriptions []billing.Subscription
}

// Service is the accounts and sessions API.
type Service struct {
	db       *mongo.Database
	clock    engine.Clock
	hasher   *Hasher
	lifetime time.Duration

	// passwordCheck vets every new password (a breached-password check);
	// nil accepts any.
	passwordCheck func(ctx context.Context, password string) error
	// created runs after an account is made (privacy's record of use);
	// nil does nothing.
	created func(ctx context.Context, userID string)

	sessions *engine.TTLCache[sessionEntry]
	subs     *engine.TTLCache[[]billing.Subscription]
	limiter  *Limiter

	// sessionLists list each account's sessions by the day they opened
	// (signins.go); linkLists its one-time links (links.go).
	sessionLists *store.DatedLists
	linkLists    *store.DatedLists
}

type sessionEntry struct {
	session Session
	user    User
}

// NewService returns the auth service over db. lifetime is the absolute
// session lifetime (5 hours in production).
func NewService(db *mongo.Database, clock engine.Clock, hasher *Hasher, lifetime time.Duration) *Service {
	return &Service{
		db: db, clock: clock, hasher: hasher, lifetime: lifetime,
		sessions: engine.NewTTLCache[sessionEntry](clock, cacheTTL),
		subs:     engine.NewTTLCache[[]billing.Subscription](clock, cacheTTL),
		limiter:  NewLimiter(db, clock, "signin", DefaultLimits),

		sessionLists: newSessionLists(db, lifetime),
		linkLists:    newLinkLists(db),
	}
}

// Collections lists the collections auth uses with their indexes, for the
// store to create at start.
func Collections() map[string][]mongo.IndexModel {
	return map[string][]mongo.IndexModel{
		UsersCollection:          nil,
		UserEmailsCollection:     nil,
		SessionsCollection:       {{Keys: bson.D{{Key: "userId", Value: 1}}}},
		SubscriptionsCollection:  {{Keys: bson.D{{Key: "userId", Value: 1}}}},
		LoginLinksCollection:     nil,
		PasswordResetsCollection: {{Keys: bson.D{{Key: "userId", Value: 1}}}},
		ActivationKeysCollection: nil,
		// Each account's sessions, listed by day (signins.go).
		SessionsByUserCollection:    nil,
		SessionListExpiryCollection: nil,
		LinksByOwnerCollection:      nil,
		LinkListExpiryCollection:    nil,
	}
}

// SetPasswordCheck installs the check every password-setting path runs
// (account creation now; password change and reset call it too). It
// returns a field error for "password" to refuse a password.
func (s *Service) SetPasswordCheck(check func(ctx context.Context, password string) error) {
	s.passwordCheck = check
}

// OnCreated installs what runs after an account is made (engine/app wires
// privacy's record of use). It cannot fail the creation: the account is
// made by then.
func (s *Service) OnCreated(fn func(ctx context.Context, userID string)) { s.created = fn }

// CreateUser makes an account. The email-index document is written first:
// its _id is the normalised email, so a second account with the same address
// fails on the unique _id.
func (s *Service) CreateUser(ctx context.Context, email, password string) (User, error) {
	return s.CreateUserWithID(ctx, engine.NewID(), email, password)
}

// CreateUserWithID is CreateUser with a chosen id: the demo seed's
// subscribers have fixed ids, so that their experiment variants can be
// computed ahead (e2e/experiments.spec.ts).
func (s *Service) CreateUserWithID(ctx context.Context, id, email, password string) (User, error) {
	if s.passwordCheck != nil {
		if err := s.passwordCheck(ctx, password); err != nil {
			return User{}, err
		}
	}
	hash, err := s.hasher.Hash(ctx, password)
	if err != nil {
		return User{}, fmt.Errorf("create user: %w", err)
	}
	u := User{ID: id, Email: NormaliseEmail(email), PasswordHash: hash, CreatedAt: s.clock.Now()}
	_, err = s.db.Collection(UserEmailsCollection).InsertOne(ctx, EmailIndex(u.Email, u.ID))
	if mongo.IsDuplicateKeyError(err) {
		return User{}, engine.Errorf(engine.CodeConflict, "The email address is already in use by another account.")
	}
	if err != nil {
		return User{}, fmt.Errorf("create user email index: %w", err)
	}
	if _, err := s.db.Collection(UsersCollection).InsertOne(ctx, u); err != nil {
		return User{}, fmt.Errorf("create user: %w", err)
	}
	if s.created != nil {
		s.created(ctx, u.ID)
	}
	return u, nil
}

// EmailIndex is the document that finds an account by its normalised
// address (its _id), as CreateUser writes it.
func EmailIndex(email, userID string) bson.M { return bson.M{"_id": email, "userId": userID} }

// UserByEmail finds an account by address.
func (s *Service) UserByEmail(ctx context.Context, email string) (User, error) {
	var idx struct {
		UserID string `bson:"userId"`
	}
	err := s.db.Collection(UserEmailsCollection).FindOne(ctx, bson.M{"_id": NormaliseEmail(email)}).Decode(&idx)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return User{}, engine.Errorf(engine.CodeNotFound, "There is no user record corresponding to this identifier.")
	}
	if err != nil {
		return User{}, fmt.Errorf("find user email: %w", err)
	}
	return s.userByID(ctx, idx.UserID)
}

func (s *Service) userByID(ctx context.Context, id string) (User, error) {
	var u User
	err := s.db.Collection(UsersCollection).FindOne(ctx, bson.M{"_id": id}).Decode(&u)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return User{}, engine.Errorf(engine.CodeNotFound, "There is no user record corresponding to this identifier.")
	}
	if err != nil {
		return User{}, fmt.Errorf("find user %s: %w", id, err)
	}
	return u, nil
}

// Limiter returns the sign-in limiter, for tests to change its limits and
// slowdown.
func (s *Service) Limiter() *Limiter { return s.limiter }

// SignIn checks an email and password and opens a session when the person is
// authorised on bundle. It returns the session token for the cookie. ip is
// the client the limits count per. Unknown emails take the same time as
// wrong passwords.
func (s *Service) SignIn(ctx context.Context, email, password, ip, bundle string) (string, error) {
	email = NormaliseEmail(email)
	attempt, err := s.limiter.Reserve(ctx, email, ip)
	if err != nil {
		return "", err
	}
	u, err := s.UserByEmail(ctx, email)
	if err != nil && !engine.IsNotFound(err) {
		attempt.Abandon(ctx)
		return "", fmt.Errorf("sign in: %w", err)
	}
	ok, err := s.hasher.Verify(ctx, u.PasswordHash, password)
	if err != nil {
		attempt.Abandon(ctx)
		return "", fmt.Errorf("sign in: %w", err)
	}
	if !ok {
		return "", ErrInvalidCredential // the reservation stays: it was a failure
	}
	if err := attempt.Succeeded(ctx); err != nil {
		return "", err
	}
	if u.Disabled {
		return "", ErrUserDisabled
	}
	return s.openSession(ctx, u, bundle)
}

func (s *Service) openSession(ctx context.Context, u User, bundle string) (string, error) {
	subs, err := s.Subscriptions(ctx, u.ID)
	if err != nil {
		return "", err
	}
	if _, ok := billing.MainSubscription(subs, bundle, s.clock.Now()); !ok {
		for _, sub := range subs {
			if sub.MainPlan && sub.Bundle == bundle {
				return "", ErrSubscriptionExpired // had one here; none counts any more
			}
		}
		return "", ErrNoSubscription
	}
	token := engine.NewToken()
	now := s.clock.Now()
	sess := Session{ID: engine.HashToken(token), UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(s.lifetime), Epoch: u.SessionEpoch}
	if err := s.listSession(ctx, sess); err != nil {
		return "", fmt.Errorf("open session: %w", err)
	}
	if _, err := s.db.Collection(SessionsCollection).InsertOne(ctx, sess); err != nil {
		return "", fmt.Errorf("open session: %w", err)
	}
	s.sessions.Put(sess.ID, sessionEntry{session: sess, user: u})
	return token, nil
}

// Authenticate turns a session token into the Principal it stands for. It is
// on every signed-in request's path, so it reads through short-lived caches.
func (s *Service) Authenticate(ctx context.Context, token string) (Principal, error) {
	if token == "" {
		return Principal{}, ErrNoSession
	}
	id := engine.HashToken(token)
	entry, err := s.sessions.Load(ctx, id, func(ctx context.Context) (sessionEntry, error) {
		var sess Session
		err := s.db.Collection(SessionsCollection).FindOne(ctx, bson.M{"_id": id}).Decode(&sess)
		if errors.Is(err, mongo.ErrNoDocuments) {
			return sessionEntry{}, ErrNoSession
		}
		if err != nil {
			return sessionEntry{}, fmt.Errorf("find session: %w", err)
		}
		u, err := s.userByID(ctx, sess.UserID)
		if engine.IsNotFound(err) {
			return sessionEntry{}, ErrNoSession
		}
		if err != nil {
			return sessionEntry{}, err
		}
		if sess.Epoch != u.SessionEpoch {
			return sessionEntry{}, ErrNoSession // ended by SignOutAll
		}
		return sessionEntry{session: sess, user: u}, nil
	})
	if err != nil {
		return Principal{}, err
	}
	if !s.clock.Now().Before(entry.session.ExpiresAt) || entry.user.Disabled {
		s.sessions.Drop(id)
		return Principal{}, ErrNoSession
	}
	subs, err := s.Subscriptions(ctx, entry.user.ID)
	if err != nil {
		return Principal{}, err
	}
	return Principal{Session: entry.session, User: entry.user, Subscriptions: subs}, nil
}

// SignOut ends the session of token, at once on this instance.
func (s *Service) SignOut(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	id := engine.HashToken(token)
	s.sessions.Drop(id)
	if _, err := s.db.Collection(SessionsCollection).DeleteOne(ctx, bson.M{"_id": id}); err != nil {
		return fmt.Errorf("sign out: %w", err)
	}
	return nil
}

// Subscriptions lists a user's subscriptions (cached briefly).
func (s *Service) Subscriptions(ctx context.Context, userID string) ([]billing.Subscription, error) {
	return s.subs.Load(ctx, userID, func(ctx context.Context) ([]billing.Subscription, error) {
		return billing.SubscriptionsOfUser(ctx, s.db, userID)
	})
}

// ForgetSubscriptions drops this instance's cached subscriptions of a
// user, after billing changed them here; other instances see the change
// within the cache's TTL.
func (s *Service) ForgetSubscriptions(userID string) { s.subs.Drop(userID) }

// PutSubscription creates or replaces a subscription (idempotent by _id).
func (s *Service) PutSubscription(ctx context.Context, sub billing.Subscription) error {
	if err := billing.FileSubscription(ctx, s.db, sub); err != nil {
		return err
	}
	_, err := s.db.Collection(SubscriptionsCollection).ReplaceOne(ctx, bson.M{"_id": sub.ID}, sub,
		options.Replace().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("put subscription %s: %w", sub.ID, err)
	}
	s.subs.Drop(sub.UserID)
	return nil
}

type loginLink struct {
	ID        string    `bson:"_id"`
	UserID    string    `bson:"userId"`
	ExpiresAt time.Time `bson:"expiresAt"`
}

// MintLoginLink makes a single-use token that signs the account in within
// LoginLinkLifetime. Only its hash is stored.
func (s *Service) MintLoginLink(ctx context.Context, email string) (string, error) {
	u, err := s.UserByEmail(ctx, email)
	if err != nil {
		return "", fmt.Errorf("mint login link: %w", err)
	}
	token := engine.NewToken()
	now := s.clock.Now()
	link := loginLink{ID: engine.HashToken(token), UserID: u.ID, ExpiresAt: now.Add(LoginLinkLifetime)}
	if err := s.listLink(ctx, loginLinkOwner(u.ID), link.ID, now); err != nil {
		return "", fmt.Errorf("mint login link: %w", err)
	}
	if _, err := s.db.Collection(LoginLinksCollection).InsertOne(ctx, link); err != nil {
		return "", fmt.Errorf("mint login link: %w", err)
	}
	return token, nil
}

// ConsumeLoginLink signs in with a link token, deleting it so it works once.
func (s *Service) ConsumeLoginLink(ctx context.Context, token, ip, bundle string) (string, error) {
	// A guessed token is a failure like a wrong password, so it is reserved
	// against the per-IP limit before the lookup and given back when the
	// token existed.
	if !s.limiter.reserveIP(ip) {
		return "", ErrTooManyRequests
	}
	var link loginLink
	err := s.db.Collection(LoginLinksCollection).FindOneAndDelete(ctx, bson.M{"_id": engine.HashToken(token)}).Decode(&link)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return "", ErrLinkInvalid
	}
	s.limiter.releaseIP(ip)
	if err != nil {
		return "", fmt.Errorf("consume login link: %w", err)
	}
	if !s.clock.Now().Before(link.ExpiresAt) {
		return "", ErrLinkInvalid
	}
	u, err := s.userByID(ctx, link.UserID)
	if err != nil {
		return "", fmt.Errorf("consume login link: %w", err)
	}
	if u.Disabled {
		return "", ErrUserDisabled
	}
	return s.openSession(ctx, u, bundle)
}

// Sweep deletes expired sessions and sign-in links (a used link is deleted
// when it is used) and what the old failure counter left behind, so these
// collections do not grow without bound. It scans, so run it now and then
// (engine/app does, every few minutes), never per request.
func (s *Service) Sweep(ctx context.Context) (int64, error) {
	expired := bson.M{"expiresAt": bson.M{"$lt": s.clock.Now()}}
	var n int64
	for _, q := range []struct {
		coll   string
		filter bson.M
	}{{SessionsCollection, expired}, {LoginLinksCollection, expired}, {PasswordResetsCollection, expired}, {ActivationKeysCollection, expired}, {legacyFailuresCollection, bson.M{}}} {
		deleted, err := store.DeleteMatching(ctx, s.db.Collection(q.coll), q.filter)
		n += deleted
		if err != nil {
			return n, fmt.Errorf("sweep %s: %w", q.coll, err)
		}
	}
	now := s.clock.Now()
	for _, lists := range []*store.DatedLists{s.sessionLists, s.linkLists} {
		erased, err := lists.Sweep(ctx, now)
		n += int64(erased)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
