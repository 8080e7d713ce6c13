package auth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/mail"
	"glimpse/engine/ui"
)

// Accounts are a subscriber's account outside a session: creating the
// account of a paid subscription, and getting back in (a password reset, the
// activation mail again). A buyer pays first (the subscription has an email
// and no user); the welcome mail carries an activation key, a 256-bit secret
// that exists only in that mail (the database keeps its SHA-256), and
// creating the account needs it: knowing a subscription's id, which the
// checkout's done page shows, is not enough. The rules live here; the
// handlers word the errors.

// Subscriptions is what accounts need of billing (billing.Service).
type Subscriptions interface {
	Subscription(ctx context.Context, id string) (billing.Subscription, error)
	SubscriptionsByEmail(ctx context.Context, email string) ([]billing.Subscription, error)
	Finalize(ctx context.Context, subscriptionID, userID string) error
}

// Mailer queues mail (mail.Outbox); nil sends none.
type Mailer interface {
	Enqueue(ctx context.Context, m mail.Message) error
}

// Links are the app's addresses the mails lead to, on the public origin
// (never the request's Host, which a client chooses). With BaseURL empty
// they are paths, which the outbox makes absolute on the mail's brand's
// origin.
type Links struct {
	BaseURL       string // the public origin, without a trailing slash, or ""
	CreateAccount string // the path of Create Your Account (?key=…)
	ResetPassword string // the path of the new-password form (#reset=…)
	SignIn        string // the path of sign-in
}

// Accounts runs the account use cases.
type Accounts struct {
	auth  *Service
	subs  Subscriptions
	mail  Mailer
	links Links
}

// NewAccounts returns the account use cases over auth, billing and the
// outbox.
func NewAccounts(auth *Service, subs Subscriptions, m Mailer, links Links) *Accounts {
	links.BaseURL = strings.TrimRight(links.BaseURL, "/")
	return &Accounts{auth: auth, subs: subs, mail: m, links: links}
}

// Mail windows. An address is never refused a mail it asks for; its mails
// are coalesced instead, so a stranger asking again and again neither
// floods the inbox nor locks its owner out.
const (
	// ActivationKeyLifetime is how long an activation link works: long
	// enough for a buyer who reads the welcome mail days later.
	ActivationKeyLifetime = 14 * 24 * time.Hour
	// ResetMailWindow is how long a reset mail counts as just sent: a
	// request for the same address within it sends none while the link
	// sent is unused (it is valid for PasswordResetLifetime); once it is
	// used, the next request sends a new one at once.
	ResetMailWindow = 5 * time.Minute
	// ActivationMailWindow is how long an activation mail counts as just
	// sent: within it a second request sends nothing.
	ActivationMailWindow = 10 * time.Minute
)

// Errors of account creation, in the spec's order of checks.
var (
	// ErrNoActivationKey is a form with no key.
	ErrNoActivationKey = engine.Errorf(engine.CodeInvalid, "no activation key")
	// ErrActivationKeyInvalid is a key that is unknown or expired.
	ErrActivationKeyInvalid = engine.Errorf(engine.CodeInvalid, "the activation link is unknown or expired")
	// ErrNoPendingSubscription is a subscription that awaits no account on
	// this bundle (unpaid, expired, an add-on, another brand's).
	ErrNoPendingSubscription = engine.Errorf(engine.CodeInvalid, "no subscription awaits an account")
	// ErrAccountReady is a key whose subscription has its account already.
	ErrAccountReady = engine.Errorf(engine.CodeConflict, "the account is ready")
	// ErrAccountEmail is a subscription whose email is not an address.
	ErrAccountEmail = engine.Errorf(engine.CodeInvalid, "the subscription's email is not an address")
	// ErrEmailInUse is an address that has an account whose password was
	// not given.
	ErrEmailInUse = engine.Errorf(engine.CodeConflict, "the address has an account")
)

// ActivationLink mints a key for the subscription and returns the link to
// Create Your Account with it. Each call mints a new key; every key works
// until it expires or the account exists.
func (a *Accounts) ActivationLink(ctx context.Context, subID string) (string, error) {
	return a.ActivationLinkTo(ctx, subID, "")
}

// ActivationLinkTo is ActivationLink for a mail to email: the key works
// only while the subscription's address is email.
func (a *Accounts) ActivationLinkTo(ctx context.Context, subID, email string) (string, error) {
	token := engine.NewToken()
	key := Link{ID: engine.HashToken(token), Kind: ActivationKeyKind, Owner: subID,
		ExpiresAt: a.auth.clock.Now().Add(ActivationKeyLifetime), Email: NormaliseEmail(email)}
	if err := a.auth.links.Insert(ctx, key); err != nil {
		return "", fmt.Errorf("mint activation key: %w", err)
	}
	return a.links.BaseURL + a.links.CreateAccount + "?key=" + url.QueryEscape(token), nil
}

// keySubscription reads the subscription a live key is for.
func (a *Accounts) keySubscription(ctx context.Context, token string) (billing.Subscription, error) {
	token = strings.TrimSpace(token)
	if token == "" {
		return billing.Subscription{}, ErrNoActivationKey
	}
	if len(token) > 256 {
		return billing.Subscription{}, ErrActivationKeyInvalid
	}
	key, err := a.auth.links.Find(ctx, ActivationKeyKind, engine.HashToken(token))
	if errors.Is(err, ErrLinkNotFound) || (err == nil && !key.LiveAt(a.auth.clock.Now())) {
		return billing.Subscription{}, ErrActivationKeyInvalid
	}
	if err != nil {
		return billing.Subscription{}, fmt.Errorf("read activation key: %w", err)
	}
	sub, err := a.subs.Subscription(ctx, key.Owner)
	if engine.IsNotFound(err) {
		return billing.Subscription{}, ErrNoPendingSubscription
	}
	if err == nil && key.Email != "" && key.Email != NormaliseEmail(sub.Email) {
		return billing.Subscription{}, ErrActivationKeyInvalid // mailed to an address the buyer corrected
	}
	return sub, err
}

// Pending returns the subscription a key creates an account for on bundle:
// a paid main plan (active or canceled, not expired) on that bundle with no
// account yet. Its new owner, userID (signed in by the creation), still
// finds it, so a second submit from the same page goes on. A subscription
// with its account is ErrAccountReady (the link was used: the screen offers
// sign-in), with the subscription, whatever the plan is now: canceled and
// ended, or suspended, its buyer has an account and signing in says the
// rest ('No subscription' told them their plan was gone, #32 item 11).
func (a *Accounts) Pending(ctx context.Context, key, bundle, userID string) (billing.Subscription, error) {
	sub, err := a.keySubscription(ctx, key)
	if err != nil {
		return billing.Subscription{}, err
	}
	if sub.UserID != "" && sub.UserID != userID && sub.MainPlan && sub.Bundle == bundle {
		return sub, ErrAccountReady
	}
	if !sub.Authorises(bundle, a.auth.clock.Now()) {
		return billing.Subscription{}, ErrNoPendingSubscription
	}
	return sub, nil
}

// NewAccount is the Create Your Account form.
type NewAccount struct {
	Key      string // the activation link's key
	Password string
	Bundle   string // the brand's, where the form was sent
	IP       string // the client, for the password check's limits
}

// Create creates the account of a paid subscription, links the
// subscription to it and opens a session, whose token it returns. The
// checks run in the spec's order: the key (the subscription id of old),
// subscription, email, password (its length by the form's rules, then the
// breached-password check in CreateUser). Sent again by the account's
// owner (a double submit, a second tab, a concurrent submit that made the
// account), it signs them in; anyone else gets ErrEmailInUse or
// ErrAccountReady.
func (a *Accounts) Create(ctx context.Context, req NewAccount) (User, string, error) {
	sub, err := a.keySubscription(ctx, req.Key)
	if err != nil {
		return User{}, "", err
	}
	if !sub.Authorises(req.Bundle, a.auth.clock.Now()) { // every check but the link, done next
		return User{}, "", ErrNoPendingSubscription
	}
	if !ui.ValidEmail(sub.Email) {
		return User{}, "", ErrAccountEmail
	}
	var u User
	if sub.UserID != "" {
		// Already linked: only its owner submitting again goes on.
		owner, err := a.auth.VerifyPassword(ctx, sub.Email, req.Password, req.IP)
		if err != nil || owner.ID != sub.UserID {
			return User{}, "", ErrAccountReady
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

// Brand is where a recovery was asked: the brand's key (its mails' words)
// and bundle (its subscriptions).
type Brand struct {
	Key    string
	Bundle string
}

// RequestPasswordReset sends the reset mail of the address's account (one
// per ResetMailWindow), or, when the address has no account, the activation
// mail of its paid subscriptions (the spec's §7), or nothing. It says
// nothing of which happened, so the form answers alike for every address.
func (a *Accounts) RequestPasswordReset(ctx context.Context, email string, b Brand) error {
	email = NormaliseEmail(email)
	u, err := a.auth.UserByEmail(ctx, email)
	switch {
	case engine.IsNotFound(err):
		_, err := a.SendActivation(ctx, email, b)
		return err
	case err != nil:
		return err
	case u.Disabled || a.mail == nil:
		return nil
	}
	first, err := a.auth.TakeOnce(ctx, "reset-mail", u.Email, ResetMailWindow)
	if err != nil || !first {
		return err
	}
	token, err := a.auth.MintPasswordReset(ctx, u.ID)
	if err != nil {
		return err
	}
	// The token travels in the fragment: browsers never send it to a
	// server (RFC 9110 §4.2.4), so neither this server's nor a proxy's
	// access log sees it, nor does a Referer header.
	link := a.links.BaseURL + a.links.ResetPassword + "#reset=" + url.QueryEscape(token)
	return a.mail.Enqueue(ctx, mail.Message{Key: "password-reset:" + engine.HashToken(token), To: u.Email, Brand: b.Key,
		Template: mail.TemplatePasswordReset,
		Data:     map[string]string{"link": link, "minutes": strconv.Itoa(int(PasswordResetLifetime / time.Minute))}})
}

// HasAccount reports whether the address has an account.
func (a *Accounts) HasAccount(ctx context.Context, email string) (bool, error) {
	_, err := a.auth.UserByEmail(ctx, NormaliseEmail(email))
	if engine.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// AskActivation claims the Access Recovery form's answer for the address
// on the brand's bundle: true for the first request in its
// ActivationMailWindow, false for every later one ('already sent'). It is
// claimed alike for every address, whether or not it has an account or a
// subscription, and by that form alone: what else mails an address (a reset
// request, a failed sign-in) claims only the mail's own window
// (SendActivation), so no answer depends on whether an account exists.
func (a *Accounts) AskActivation(ctx context.Context, email string, b Brand) (bool, error) {
	return a.auth.TakeOnce(ctx, "activation-asked", b.Bundle+"\x00"+NormaliseEmail(email), ActivationMailWindow)
}

// SendActivation mails a new activation link for every subscription of the
// address that waits for an account on the brand, or, to an address with an
// account, a mail that says so and leads to sign-in, or, to an address with
// neither, nothing. Its mails are coalesced: one per address and bundle in
// an ActivationMailWindow, whoever asked (the form, a reset request for an
// address with no account, a failed sign-in); it returns false when a mail
// window of the address was claimed already. Callers run it after their
// answer, which says nothing of what it did: what applies is said in the
// mail.
func (a *Accounts) SendActivation(ctx context.Context, email string, b Brand) (bool, error) {
	email = NormaliseEmail(email)
	if a.mail == nil {
		return false, nil
	}
	has, err := a.HasAccount(ctx, email)
	if err != nil {
		return false, err
	}
	subs, err := a.subs.SubscriptionsByEmail(ctx, email)
	if err != nil {
		return false, err
	}
	first, err := a.auth.TakeOnce(ctx, "activation", b.Bundle+"\x00"+email, ActivationMailWindow)
	if err != nil || !first {
		return false, err
	}
	if has {
		return true, a.mail.Enqueue(ctx, mail.Message{Key: "account-exists:" + engine.HashToken(email) + ":" +
			windowOf(a.auth.clock.Now(), ActivationMailWindow), To: email, Brand: b.Key, Template: mail.TemplateAccountExists,
			Data: map[string]string{"email": email, "link": a.links.BaseURL + a.links.SignIn}})
	}
	window := windowOf(a.auth.clock.Now(), ActivationMailWindow)
	for _, sub := range subs {
		if sub.UserID != "" || !sub.Authorises(b.Bundle, a.auth.clock.Now()) {
			continue
		}
		link, err := a.ActivationLinkTo(ctx, sub.ID, sub.Email)
		if err != nil {
			return false, err
		}
		if err := a.mail.Enqueue(ctx, mail.Message{Key: "activation:" + sub.ID + ":" + window, To: sub.Email, Brand: b.Key,
			Template: mail.TemplateActivation, Data: map[string]string{"email": sub.Email, "link": link}}); err != nil {
			return false, err
		}
	}
	return true, nil
}
