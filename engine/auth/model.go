package auth

import (
	"strings"
	"time"
)

// User is a subscriber's account. Its email is also kept in an email-index
// document keyed by the normalised address, because the embedded database can
// only look documents up quickly by _id.
type User struct {
	ID           string    `bson:"_id"`
	Email        string    `bson:"email"`
	PasswordHash string    `bson:"passwordHash"`
	CreatedAt    time.Time `bson:"createdAt"`
	Disabled     bool      `bson:"disabled,omitempty"`
	// SessionEpoch counts the times every session of the account was
	// ended (SignOutAll). A session or reset link made in another epoch is
	// refused: ending them is one write by _id, where deleting them was a
	// scan of every session on the embedded store (docs/store.md §10).
	SessionEpoch int `bson:"sessionEpoch,omitempty"`
}

// Session is a signed-in browser. Its _id is the SHA-256 of the cookie token,
// so the database never holds a usable token.
type Session struct {
	ID        string    `bson:"_id"`
	UserID    string    `bson:"userId"`
	CreatedAt time.Time `bson:"createdAt"`
	ExpiresAt time.Time `bson:"expiresAt"`
	// Epoch is the account's SessionEpoch when the session was opened.
	Epoch int `bson:"epoch,omitempty"`
	// Ended says a SignOutAll ended the session before it expired (its
	// Epoch is not the account's); set when read, never stored.
	Ended bool `bson:"-"`
}

// NormaliseEmail is the form of an address used as a key: trimmed and lower
// case, so "Ann@Example.com " and "ann@example.com" are one account.
func NormaliseEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
