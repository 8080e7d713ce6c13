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
}

// Subscription is a subscriber's plan on one bundle (a brand's product). The
// billing engine owns its lifecycle; auth only reads it to authorise.
type Subscription struct {
	ID        string     `bson:"_id"`
	UserID    string     `bson:"userId"`
	Email     string     `bson:"email"`
	Bundle    string     `bson:"bundle"`
	PlanCode  string     `bson:"planCode"`
	Status    string     `bson:"status"` // active, canceled or expired
	MainPlan  bool       `bson:"mainPlan"`
	StartedAt time.Time  `bson:"startedAt"`
	ExpiresAt *time.Time `bson:"expiresAt,omitempty"`
	// CurrentPeriodEnd and PaymentMethod are read here, not only by
	// billing, so My Plan on the dashboard needs no second read.
	CurrentPeriodEnd time.Time   `bson:"currentPeriodEnd,omitempty"`
	PaymentMethod    CardSummary `bson:"paymentMethod,omitempty"`
}

// CardSummary is how a subscription's card is shown: its brand and last
// four digits, all that is ever stored of it.
type CardSummary struct {
	Brand string `bson:"brand,omitempty"`
	Last4 string `bson:"last4,omitempty"`
}

// Subscription statuses.
const (
	StatusActive   = "active"
	StatusCanceled = "canceled"
	StatusExpired  = "expired"
)

// Expired reports whether the subscription no longer counts at now.
func (s Subscription) Expired(now time.Time) bool {
	return s.Status == StatusExpired || (s.ExpiresAt != nil && !now.Before(*s.ExpiresAt))
}

// Session is a signed-in browser. Its _id is the SHA-256 of the cookie token,
// so the database never holds a usable token.
type Session struct {
	ID        string    `bson:"_id"`
	UserID    string    `bson:"userId"`
	CreatedAt time.Time `bson:"createdAt"`
	ExpiresAt time.Time `bson:"expiresAt"`
}

// MainSubscription returns the subscription that authorises a person on a
// bundle: a main plan with status active or canceled that has not expired.
// Canceled still authorises until it expires, as the spec says.
func MainSubscription(subs []Subscription, bundle string, now time.Time) (Subscription, bool) {
	for _, s := range subs {
		if s.MainPlan && s.Bundle == bundle && (s.Status == StatusActive || s.Status == StatusCanceled) && !s.Expired(now) {
			return s, true
		}
	}
	return Subscription{}, false
}

// NormaliseEmail is the form of an address used as a key: trimmed and lower
// case, so "Ann@Example.com " and "ann@example.com" are one account.
func NormaliseEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }
