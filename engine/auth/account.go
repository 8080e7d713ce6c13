package auth

import (
	"context"
	"regexp"
	"strings"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/ui"
)

// Creating the account of a paid subscription: a buyer pays first (the
// subscription has an email and no user), then opens the welcome mail's
// link and chooses a password. The rules live here; the handler words the
// errors.

// Subscriptions is what account creation needs of billing (billing.Service).
type Subscriptions interface {
	Subscription(ctx context.Context, id string) (billing.Subscription, error)
	Finalize(ctx context.Context, subscriptionID, userID string) error
}

// Accounts creates subscribers' accounts.
type Accounts struct {
	auth *Service
	subs Subscriptions
}

// NewAccounts returns account creation over auth and billing.
func NewAccounts(auth *Service, subs Subscriptions) *Accounts {
	return &Accounts{auth: auth, subs: subs}
}

// Errors of account creation, in the spec's order of checks.
var (
	// ErrNoSubscriptionID is a form with no subscription id.
	ErrNoSubscriptionID = engine.Errorf(engine.CodeInvalid, "no subscription id")
	// ErrNoPendingSubscription is an id of no subscription that awaits an
	// account on this bundle (unknown, unpaid, expired, an add-on, another
	// brand's, or linked to another account).
	ErrNoPendingSubscription = engine.Errorf(engine.CodeInvalid, "no subscription awaits an account")
	// ErrAccountEmail is a subscription whose email is not an address.
	ErrAccountEmail = engine.Errorf(engine.CodeInvalid, "the subscription's email is not an address")
	// ErrEmailInUse is an address that has an account whose password was
	// not given.
	ErrEmailInUse = engine.Errorf(engine.CodeConflict, "the address has an account")
)

var emailPattern = regexp.MustCompile(ui.EmailPattern)

// PendingSubscription returns the subscription id names when an account may
// be created for it on bundle: a paid main plan (active or canceled, not
// expired) on that bundle, not linked to an account yet. Its new owner,
// userID (signed in by the creation), still finds it, so a second submit
// from the same page goes on rather than failing. Anything else is
// ErrNoPendingSubscription, alike.
func (a *Accounts) PendingSubscription(ctx context.Context, id, bundle, userID string) (billing.Subscription, error) {
	sub, err := a.subs.Subscription(ctx, id)
	if engine.IsNotFound(err) {
		return billing.Subscription{}, ErrNoPendingSubscription
	}
	if err != nil {
		return billing.Subscription{}, err
	}
	if sub.UserID != "" && sub.UserID != userID || !sub.Authorises(bundle, a.auth.clock.Now()) {
		return billing.Subscription{}, ErrNoPendingSubscription
	}
	return sub, nil
}

// Awaits reports whether sub waits for an account on bundle (for the
// activation mail).
func (a *Accounts) Awaits(sub billing.Subscription, bundle string) bool {
	return sub.UserID == "" && sub.Authorises(bundle, a.auth.clock.Now())
}

// NewAccount is the Create Your Account form.
type NewAccount struct {
	SubscriptionID string
	Password       string
	Bundle         string // the brand's, where the form was sent
	IP             string // the client, for the password check's limits
}

// Create creates the account of a paid subscription, links the
// subscription to it and opens a session, whose token it returns. The
// checks run in the spec's order: subscription id, subscription, email,
// password (its length by the form's rules, then the breached-password
// check in CreateUser). Sent again by the account's owner (a double submit,
// a second tab, a concurrent submit that made the account), it signs them
// in; anyone else gets ErrEmailInUse or ErrNoPendingSubscription.
func (a *Accounts) Create(ctx context.Context, req NewAccount) (User, string, error) {
	id := strings.TrimSpace(req.SubscriptionID)
	if id == "" {
		return User{}, "", ErrNoSubscriptionID
	}
	sub, err := a.subs.Subscription(ctx, id)
	if engine.IsNotFound(err) {
		return User{}, "", ErrNoPendingSubscription
	}
	if err != nil {
		return User{}, "", err
	}
	if !sub.Authorises(req.Bundle, a.auth.clock.Now()) { // every check but the link, done next
		return User{}, "", ErrNoPendingSubscription
	}
	if !emailPattern.MatchString(sub.Email) {
		return User{}, "", ErrAccountEmail
	}
	var u User
	if sub.UserID != "" {
		// Already linked: only its owner submitting again goes on.
		owner, err := a.auth.VerifyPassword(ctx, sub.Email, req.Password, req.IP)
		if err != nil || owner.ID != sub.UserID {
			return User{}, "", ErrNoPendingSubscription
		}
		u = owner
	} else {
		u, err = a.auth.CreateUser(ctx, sub.Email, req.Password)
		if engine.ErrorCode(err) == engine.CodeConflict {
			// The address has an account: a concurrent submit of this form
			// made it, or an older one. Whoever knows its password is its
			// owner and gets the subscription.
			owner, verr := a.auth.VerifyPassword(ctx, sub.Email, req.Password, req.IP)
			if verr != nil {
				return User{}, "", ErrEmailInUse
			}
			u, err = owner, nil
		}
		if err != nil {
			return User{}, "", err
		}
	}
	if err := a.subs.Finalize(ctx, sub.ID, u.ID); err != nil {
		return User{}, "", err
	}
	token, err := a.auth.OpenSession(ctx, u, req.Bundle)
	return u, token, err
}
