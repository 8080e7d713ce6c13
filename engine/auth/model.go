package auth

import (
	"strings"
	"time"
)

// User is a subscriber's account. Its normalised email is unique: the
// stores keep it under a unique index.
type User struct {
	ID           string
	Email        string
	PasswordHash string
	CreatedAt    time.Time
	Disabled     bool
	// SessionEpoch counts the times every session of the account was
	// ended (SignOutAll). A session or reset link made in another epoch is
	// refused: ending them all is one write to the account.
	SessionEpoch int
}

// Session is a signed-in browser. Its ID is the SHA-256 of the cookie token,
// so the database never holds a usable token.
type Session struct {
	ID        string
	UserID    string
	CreatedAt time.Time
	ExpiresAt time.Time
	// Epoch is the account's SessionEpoch when the session was opened.
	Epoch int
	// Device is the browser and system it was opened in, as a short label
	// ("Chrome on Android", DeviceOf); "" when unknown.
	Device string
	// Country is the ISO 3166-1 alpha-2 code of the country it was opened
	// from, as the proxy in front reported it (CountryOf); "" when unknown.
	// The IP address itself is never kept.
	Country string
	// Ended says a SignOutAll ended the session before it expired (its
	// Epoch is not the account's); set when read, never stored.
	Ended bool
}

// LiveAt reports whether the session has not expired at now.
func (s Session) LiveAt(now time.Time) bool { return now.Before(s.ExpiresAt) }

// Current reports whether no SignOutAll of u ended the session since it
// opened.
func (s Session) Current(u User) bool { return s.Epoch == u.SessionEpoch }

// NormaliseEmail is the form of an address used as a key: trimmed and lower
// case, so "Ann@Example.com " and "ann@example.com" are one account.
func NormaliseEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
