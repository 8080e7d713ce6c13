package auth

import (
	"context"
	"time"

	"glimpse/engine"
	"glimpse/engine/billing"
)

// What auth needs from storage, in its own words. Two stores implement
// every interface (engine/store/sqlstore on the embedded SQLite database,
// engine/store/mongostore on MongoDB), and one contract suite
// (engine/auth/authtest) runs against both. The rules that must hold when
// requests arrive together are kept where the data is written: an address
// has one account (a unique index on the email), a one-time link is used
// once (a delete that one caller wins), an epoch moves on by one per call
// (an increment in the database), and a counter never passes its limit (a
// conditional increment).

// ErrEmailTaken is Users.Create's answer for an address that has an
// account already.
var ErrEmailTaken = engine.Errorf(engine.CodeConflict, "The email address is already in use by another account.")

// ErrUserNotFound is an account that does not exist.
var ErrUserNotFound = engine.Errorf(engine.CodeNotFound, "There is no user record corresponding to this identifier.")

// ErrLinkNotFound is a one-time link that does not exist (never made, used,
// or swept).
var ErrLinkNotFound = engine.Errorf(engine.CodeNotFound, "no such link")

// Users stores accounts. An account's normalised email is unique.
type Users interface {
	// Create stores a new account; ErrEmailTaken when its email has one.
	Create(ctx context.Context, u User) error
	// CreateMany stores new accounts in one go (the scale seed).
	CreateMany(ctx context.Context, users []User) error
	// ByID returns an account; ErrUserNotFound when there is none.
	ByID(ctx context.Context, id string) (User, error)
	// ByEmail returns the account of a normalised address; ErrUserNotFound
	// when there is none.
	ByEmail(ctx context.Context, email string) (User, error)
	// IDs returns up to limit account ids greater than after, in order.
	IDs(ctx context.Context, after string, limit int) ([]string, error)
	// ResetPassword sets an account's password hash and moves its
	// SessionEpoch on, only while the epoch is fromEpoch, and reports
	// whether it did: of resets sent together from one epoch one wins, and
	// one from an epoch the account has left is refused.
	ResetPassword(ctx context.Context, id string, fromEpoch int, hash string) (bool, error)
	// EndSessions and Disable change an account; one that does not exist
	// is no error (there is nothing to change).
	//
	// EndSessions moves an account's SessionEpoch on by one, in the
	// database: calls made together each count.
	EndSessions(ctx context.Context, id string) error
	// Disable marks an account disabled and moves its SessionEpoch on.
	Disable(ctx context.Context, id string) error
	// Delete deletes an account; one that is gone is no error.
	Delete(ctx context.Context, id string) error
}

// Sessions stores signed-in browsers by the hash of their token.
type Sessions interface {
	// Insert stores a new session.
	Insert(ctx context.Context, s Session) error
	// InsertMany stores new sessions in one go (the scale seed).
	InsertMany(ctx context.Context, sessions []Session) error
	// WithUser returns the session of a token hash and its account, in one
	// read by primary key where the engine joins (every signed-in request
	// may make it); ErrNoSession when either is missing.
	WithUser(ctx context.Context, id string) (Session, User, error)
	// OfUser returns an account's sessions not yet swept, newest first.
	OfUser(ctx context.Context, userID string) ([]Session, error)
	// Delete deletes one session; one that is gone is no error.
	Delete(ctx context.Context, id string) error
	// DeleteUser deletes every session of an account and says how many.
	DeleteUser(ctx context.Context, userID string) (int64, error)
	// DeleteExpired deletes the sessions expired by now and says how many.
	DeleteExpired(ctx context.Context, now time.Time) (int64, error)
}

// LinkKind says what a one-time link does.
type LinkKind string

// The kinds of one-time links.
const (
	// LoginLinkKind signs an account in (owner: the account).
	LoginLinkKind LinkKind = "login"
	// PasswordResetKind sets a new password (owner: the account).
	PasswordResetKind LinkKind = "reset"
	// ActivationKeyKind creates the account of a paid subscription (owner:
	// the subscription).
	ActivationKeyKind LinkKind = "activation"
)

// Link is a one-time link: a sign-in link, a password reset or an
// activation key. Its ID is the SHA-256 of the token the link carries, so a
// copy of the database holds nothing that opens an account.
type Link struct {
	ID        string
	Kind      LinkKind
	Owner     string // the account, or the subscription of an activation key
	ExpiresAt time.Time
	// Epoch is the account's SessionEpoch when a reset link was made: a
	// SignOutAll since ends the link.
	Epoch int
	// Email is the address an activation key was mailed to ("" when not
	// bound): once the buyer corrects the subscription's address, a key
	// mailed to the old one no longer works.
	Email string
}

// LiveAt reports whether the link still works at now.
func (l Link) LiveAt(now time.Time) bool { return now.Before(l.ExpiresAt) }

// OneTimeLinks stores one-time links.
type OneTimeLinks interface {
	// Insert stores a new link.
	Insert(ctx context.Context, l Link) error
	// Find returns a link without using it up; ErrLinkNotFound when there
	// is none of that kind.
	Find(ctx context.Context, kind LinkKind, id string) (Link, error)
	// Take deletes a link and returns it: of callers taking one link
	// together, exactly one gets it, the others ErrLinkNotFound.
	Take(ctx context.Context, kind LinkKind, id string) (Link, error)
	// DeleteOwner deletes the links of one kind an owner has and says how
	// many.
	DeleteOwner(ctx context.Context, kind LinkKind, owner string) (int64, error)
	// DeleteExpired deletes the links expired by now and says how many.
	DeleteExpired(ctx context.Context, now time.Time) (int64, error)
}

// Counters are bounded counters that expire: sign-in failures per client
// and account, requests per address or IP, and mails sent once per window.
// A key names its window, so a new window is a new counter.
type Counters interface {
	// Take counts one for key unless limit are counted, and reports
	// whether it did; a new counter lives until expires. Callers taking
	// together never count past limit between them.
	Take(ctx context.Context, key string, limit int, expires time.Time) (bool, error)
	// Release takes one back from key's counter (never below zero).
	Release(ctx context.Context, key string) error
	// Reset forgets key's counter.
	Reset(ctx context.Context, key string) error
	// DeleteExpired deletes the counters expired by now and says how many.
	DeleteExpired(ctx context.Context, now time.Time) (int64, error)
}

// Stores are auth's storage on one engine.
type Stores struct {
	Users    Users
	Sessions Sessions
	Links    OneTimeLinks
	Counters Counters
}

// Billing is what auth reads and writes of billing's subscriptions, which
// billing keeps: engine/app injects it (billing.Service's ForUser, and a
// writer for tests and seeds).
type Billing interface {
	// SubscriptionsOf returns an account's subscriptions.
	SubscriptionsOf(ctx context.Context, userID string) ([]billing.Subscription, error)
	// PutSubscription creates or replaces a subscription.
	PutSubscription(ctx context.Context, sub billing.Subscription) error
}
