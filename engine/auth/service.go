package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"glimpse/engine"
	"glimpse/engine/billing"
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
	users    Users
	sessions Sessions
	links    OneTimeLinks
	counters Counters
	billing  Billing
	clock    engine.Clock
	hasher   *Hasher
	lifetime time.Duration

	// passwordCheck vets every new password (a breached-password check);
	// nil accepts any.
	passwordCheck func(ctx context.Context, password string) error
	// created runs after an account is made (privacy's record of use);
	// nil does nothing.
	created func(ctx context.Context, userID string)

	cache   *engine.TTLCache[sessionEntry]
	subs    *engine.TTLCache[[]billing.Subscription]
	limiter *Limiter
}

type sessionEntry struct {
	session Session
	user    User
}

// NewService returns the auth service over its stores and billing's
// subscriptions. lifetime is the absolute session lifetime (5 hours in
// production).
func NewService(stores Stores, subs Billing, clock engine.Clock, hasher *Hasher, lifetime time.Duration) *Service {
	return &Service{
		users: stores.Users, sessions: stores.Sessions, links: stores.Links, counters: stores.Counters, billing: subs,
		clock: clock, hasher: hasher, lifetime: lifetime,
		cache:   engine.NewTTLCache[sessionEntry](clock, cacheTTL),
		subs:    engine.NewTTLCache[[]billing.Subscription](clock, cacheTTL),
		limiter: NewLimiter(stores.Counters, clock, "signin", DefaultLimits),
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

// CreateUser makes an account. Its email is unique in the store, so of two
// sign-ups with one address, however close together, one makes the account
// and the other gets a conflict.
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
	if err := s.users.Create(ctx, u); err != nil {
		if errors.Is(err, ErrEmailTaken) {
			return User{}, ErrEmailTaken
		}
		return User{}, fmt.Errorf("create user: %w", err)
	}
	if s.created != nil {
		s.created(ctx, u.ID)
	}
	return u, nil
}

// UserByEmail finds an account by address.
func (s *Service) UserByEmail(ctx context.Context, email string) (User, error) {
	u, err := s.users.ByEmail(ctx, NormaliseEmail(email))
	if err != nil && !errors.Is(err, ErrUserNotFound) {
		return User{}, fmt.Errorf("find user by email: %w", err)
	}
	return u, err
}

func (s *Service) userByID(ctx context.Context, id string) (User, error) {
	u, err := s.users.ByID(ctx, id)
	if err != nil && !errors.Is(err, ErrUserNotFound) {
		return User{}, fmt.Errorf("find user %s: %w", id, err)
	}
	return u, err
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
	origin := originFrom(ctx)
	sess := Session{ID: engine.HashToken(token), UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(s.lifetime), Epoch: u.SessionEpoch,
		Device: origin.Device, Country: origin.Country}
	if err := s.sessions.Insert(ctx, sess); err != nil {
		return "", fmt.Errorf("open session: %w", err)
	}
	s.cache.Put(sess.ID, sessionEntry{session: sess, user: u})
	return token, nil
}

// Authenticate turns a session token into the Principal it stands for. It is
// on every signed-in request's path, so it reads through short-lived caches.
func (s *Service) Authenticate(ctx context.Context, token string) (Principal, error) {
	if token == "" {
		return Principal{}, ErrNoSession
	}
	id := engine.HashToken(token)
	entry, err := s.cache.Load(ctx, id, func(ctx context.Context) (sessionEntry, error) {
		// One read by the token's hash, the session's primary key.
		sess, u, err := s.sessions.WithUser(ctx, id)
		if errors.Is(err, ErrNoSession) {
			return sessionEntry{}, ErrNoSession
		}
		if err != nil {
			return sessionEntry{}, fmt.Errorf("find session: %w", err)
		}
		if !sess.Current(u) {
			return sessionEntry{}, ErrNoSession // ended by SignOutAll
		}
		return sessionEntry{session: sess, user: u}, nil
	})
	if err != nil {
		return Principal{}, err
	}
	if !entry.session.LiveAt(s.clock.Now()) || entry.user.Disabled {
		s.cache.Drop(id)
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
	s.cache.Drop(id)
	if err := s.sessions.Delete(ctx, id); err != nil {
		return fmt.Errorf("sign out: %w", err)
	}
	return nil
}

// Subscriptions lists a user's subscriptions (cached briefly).
func (s *Service) Subscriptions(ctx context.Context, userID string) ([]billing.Subscription, error) {
	return s.subs.Load(ctx, userID, func(ctx context.Context) ([]billing.Subscription, error) {
		return s.billing.SubscriptionsOf(ctx, userID)
	})
}

// ForgetSubscriptions drops this instance's cached subscriptions of a
// user, after billing changed them here; other instances see the change
// within the cache's TTL.
func (s *Service) ForgetSubscriptions(userID string) { s.subs.Drop(userID) }

// PutSubscription creates or replaces a subscription through billing
// (tests and seeds) and forgets this instance's cached ones of its account.
func (s *Service) PutSubscription(ctx context.Context, sub billing.Subscription) error {
	if err := s.billing.PutSubscription(ctx, sub); err != nil {
		return fmt.Errorf("put subscription %s: %w", sub.ID, err)
	}
	s.subs.Drop(sub.UserID)
	return nil
}

// MintLoginLink makes a single-use token that signs the account in within
// LoginLinkLifetime. Only its hash is stored.
func (s *Service) MintLoginLink(ctx context.Context, email string) (string, error) {
	u, err := s.UserByEmail(ctx, email)
	if err != nil {
		return "", fmt.Errorf("mint login link: %w", err)
	}
	token := engine.NewToken()
	link := Link{ID: engine.HashToken(token), Kind: LoginLinkKind, Owner: u.ID, ExpiresAt: s.clock.Now().Add(LoginLinkLifetime)}
	if err := s.links.Insert(ctx, link); err != nil {
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
	link, err := s.links.Take(ctx, LoginLinkKind, engine.HashToken(token))
	if errors.Is(err, ErrLinkNotFound) {
		return "", ErrLinkInvalid
	}
	s.limiter.releaseIP(ip)
	if err != nil {
		return "", fmt.Errorf("consume login link: %w", err)
	}
	if !link.LiveAt(s.clock.Now()) {
		return "", ErrLinkInvalid
	}
	u, err := s.userByID(ctx, link.Owner)
	if err != nil {
		return "", fmt.Errorf("consume login link: %w", err)
	}
	if u.Disabled {
		return "", ErrUserDisabled
	}
	return s.openSession(ctx, u, bundle)
}

// Sweep deletes expired sessions, one-time links and counters (a used link
// is deleted when it is used), so they do not grow without bound; each is a
// range on an indexed expiry (MongoDB also expires them by TTL). engine/app
// runs it every few minutes.
func (s *Service) Sweep(ctx context.Context) (int64, error) {
	now := s.clock.Now()
	var n int64
	for _, sweep := range []struct {
		what string
		run  func(context.Context, time.Time) (int64, error)
	}{{"sessions", s.sessions.DeleteExpired}, {"links", s.links.DeleteExpired}, {"counters", s.counters.DeleteExpired}} {
		deleted, err := sweep.run(ctx, now)
		n += deleted
		if err != nil {
			return n, fmt.Errorf("sweep %s: %w", sweep.what, err)
		}
	}
	return n, nil
}
