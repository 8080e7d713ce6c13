package billing

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"glimpse/engine"
)

// The sandbox's test cards, the numbers Stripe documents for test mode
// (https://docs.stripe.com/testing#cards): one that succeeds, one that is
// declined, one that can be saved and paid with now but fails every later
// charge made without the customer (a renewal), and one whose bank asks for
// 3-D Secure on every payment, later ones included
// (https://docs.stripe.com/testing#regulatory-cards).
const (
	TestCardSucceeds       = "4242424242424242"
	TestCardDeclined       = "4000000000000002"
	TestCardFailsOnRenewal = "4000000000000341"
	TestCardAuthenticate   = "4000002760003184"
)

const (
	sandboxName           = "sandbox"
	behaviourSucceeds     = "ok"
	behaviourDeclined     = "decline"
	behaviourFailsLater   = "offsession"
	behaviourAuthenticate = "3ds"
	// PathSandboxPay is where the sandbox serves its hosted payment page,
	// the stand-in for Stripe's checkout.stripe.com.
	PathSandboxPay = "/sandbox-pay/"
	// sandboxSessionLifetime is how long a sandbox page may be paid, the
	// default of Stripe's Checkout Sessions.
	sandboxSessionLifetime = 24 * time.Hour
)

// Sandbox is the built-in payment provider: it takes no money and behaves
// as Stripe does in test mode, hosted page included. Its page (served by the
// server under PathSandboxPay, never a Glimpse action) takes the test card
// numbers; paying there sends a signed checkout.session.completed event to
// the same fulfilment code as Stripe's webhook (Service.PayOnSandbox). The
// behaviour of a saved test card travels in its payment-method id, as
// Stripe's test tokens (pm_card_visa, pm_card_chargeDeclined) carry theirs.
// Any other number that passes the Luhn check behaves like 4242….
type Sandbox struct {
	recs   SandboxRecords
	clock  engine.Clock
	secret string // the webhook signing secret its events are signed with
}

// NewSandbox returns the sandbox provider; its sessions and charges are kept
// in recs so every instance answers alike. Its events are signed with
// webhookSecret, which the service verifies as it does Stripe's.
func NewSandbox(recs SandboxRecords, clock engine.Clock, webhookSecret string) *Sandbox {
	return &Sandbox{recs: recs, clock: clock, secret: webhookSecret}
}

// Name implements Provider.
func (s *Sandbox) Name() string { return sandboxName }

// SandboxSession is one hosted page opened by StartSession.
type SandboxSession struct {
	ID          string
	Key         string
	OrderID     string
	Mode        string
	ChargeKey   string
	Amount      Money
	Description string
	Email       string
	Brand       string
	Saved       PaymentMethod
	SuccessURL  string
	CancelURL   string
	// Status is open, complete or expired; PaymentStatus unpaid or paid.
	Status        string
	PaymentStatus string
	// Challenge is a card waiting for its 3-D Secure step.
	Challenge     PaymentMethod
	Method        PaymentMethod
	PaymentIntent string
	CreatedAt     time.Time
	ExpiresAt     time.Time
}

// StartSession implements Provider: a page of the sandbox's own. The same
// key gives the same page.
func (s *Sandbox) StartSession(ctx context.Context, req SessionRequest) (Session, error) {
	if req.Key == "" {
		return Session{}, errors.New("sandbox session: no idempotency key")
	}
	now := s.clock.Now()
	doc := SandboxSession{ID: sandboxSessionID(req.Key), Key: req.Key, OrderID: req.OrderID,
		Mode: req.Mode, ChargeKey: req.ChargeKey, Amount: req.Amount, Description: req.Description, Email: req.Email,
		Brand: req.Brand, Saved: req.Saved, SuccessURL: req.SuccessURL, CancelURL: req.CancelURL, Status: "open",
		PaymentStatus: "unpaid", CreatedAt: now, ExpiresAt: now.Add(sandboxSessionLifetime)}
	first, err := s.recs.OpenSession(ctx, doc)
	if err != nil {
		return Session{}, fmt.Errorf("sandbox session: %w", err)
	}
	if first.OrderID != req.OrderID || first.Amount != req.Amount || first.Mode != req.Mode {
		return Session{}, fmt.Errorf("sandbox session %s: %w", req.Key, ErrIdempotencyMismatch)
	}
	return Session{ID: doc.ID, URL: PathSandboxPay + doc.ID}, nil
}

// sandboxSessionID is the _id of the sandbox's page opened with an
// idempotency key: derived from the key, so the same key gives the same
// page, and an order's erasure finds its page by _id (orderSessionKey).
const sandboxSessionPrefix = "cs_sandbox_"

func sandboxSessionID(key string) string {
	return sandboxSessionPrefix + engine.HashToken("session:" + key)[:24]
}

// SessionResult implements Provider.
func (s *Sandbox) SessionResult(ctx context.Context, sessionID string) (SessionResult, error) {
	doc, err := s.session(ctx, sessionID)
	if err != nil {
		return SessionResult{}, err
	}
	return SessionResult{ID: doc.ID, OrderID: doc.OrderID, Mode: doc.Mode, Status: doc.Status,
		PaymentStatus: doc.PaymentStatus, PaymentIntent: doc.PaymentIntent, Method: doc.Method}, nil
}

// ErrNoSession is a sandbox page that does not exist.
var ErrNoSession = engine.Errorf(engine.CodeNotFound, "This payment page does not exist.")

func (s *Sandbox) session(ctx context.Context, id string) (SandboxSession, error) {
	doc, err := s.recs.Session(ctx, id)
	if errors.Is(err, ErrNoSession) {
		return SandboxSession{}, ErrNoSession
	}
	if err != nil {
		return SandboxSession{}, fmt.Errorf("sandbox session %s: %w", id, err)
	}
	if doc.Status == "open" && !s.clock.Now().Before(doc.ExpiresAt) {
		doc.Status = "expired"
	}
	return doc, nil
}

// SandboxPage is what the sandbox's hosted page shows.
type SandboxPage struct {
	ID          string
	Mode        string
	Amount      Money
	Description string
	Brand       string
	Email       string
	// Saved is the buyer's saved card, offered to pay with (and
	// authenticate), as Stripe's page offers a customer's saved card.
	Saved PaymentMethod
	// Step is "card" (type a card), "authenticate" (the bank's 3-D Secure
	// step), "complete" or "expired".
	Step       string
	Challenge  PaymentMethod
	SuccessURL string
	CancelURL  string
}

// Page returns the sandbox page of a session.
func (s *Sandbox) Page(ctx context.Context, sessionID string) (SandboxPage, error) {
	doc, err := s.session(ctx, sessionID)
	if err != nil {
		return SandboxPage{}, err
	}
	p := SandboxPage{ID: doc.ID, Mode: doc.Mode, Amount: doc.Amount, Description: doc.Description, Brand: doc.Brand,
		Email: doc.Email, Saved: doc.Saved, Step: "card", Challenge: doc.Challenge, SuccessURL: doc.SuccessURL,
		CancelURL: doc.CancelURL}
	switch {
	case doc.Status == "complete":
		p.Step = "complete"
	case doc.Status == "expired":
		p.Step = "expired"
	case doc.Challenge.ID != "":
		p.Step = "authenticate"
	}
	return p, nil
}

// SandboxEvent is an event the sandbox sends, as Stripe would: the body and
// its Stripe-Signature header.
type SandboxEvent struct {
	Payload   []byte
	Signature string
}

// sandboxPayment is what a step of the sandbox page did: the event to
// deliver (none when nothing was completed now) and where the buyer goes.
type sandboxPayment struct {
	Event *SandboxEvent
	Page  SandboxPage
}

// ErrAuthenticationFailed is a 3-D Secure step the buyer failed, in
// Stripe's words.
var ErrAuthenticationFailed = engine.Errorf(engine.CodeInvalid,
	"We are unable to authenticate your payment method. Please choose a different payment method and try again.")

// ErrSessionClosed is a sandbox page paid already or expired.
var ErrSessionClosed = engine.Errorf(engine.CodeConflict, "This payment page is closed.")

// pay takes a card typed on the page (or the saved one): a declined card
// answers ErrCardDeclined and leaves the page open for another card, a card
// that asks for 3-D Secure moves the page to its authentication step, and
// any other completes the session.
func (s *Sandbox) pay(ctx context.Context, sessionID string, card Card, useSaved bool) (sandboxPayment, error) {
	doc, err := s.session(ctx, sessionID)
	if err != nil {
		return sandboxPayment{}, err
	}
	if doc.Status != "open" {
		return s.closed(ctx, doc)
	}
	var pm PaymentMethod
	if useSaved && doc.Saved.ID != "" {
		pm = doc.Saved
	} else {
		if pm, err = s.saveCard(card); err != nil {
			return sandboxPayment{}, err
		}
		if doc.Saved.Customer != "" {
			pm.Customer = doc.Saved.Customer
		}
	}
	switch behaviourOf(pm.ID) {
	case behaviourDeclined:
		return sandboxPayment{}, ErrCardDeclined
	case behaviourAuthenticate:
		// The bank asks for 3-D Secure, whether the card pays now or is
		// only saved (Stripe's 4000 0027 6000 3184 does both).
		if err := s.recs.Challenge(ctx, doc.ID, pm); err != nil {
			return sandboxPayment{}, fmt.Errorf("sandbox session %s: %w", doc.ID, err)
		}
		page, err := s.Page(ctx, sessionID)
		return sandboxPayment{Page: page}, err
	}
	return s.complete(ctx, doc, pm)
}

// authenticate ends a 3-D Secure step: passed, the payment completes with
// the card that asked for it; failed, the page asks for a card again.
func (s *Sandbox) authenticate(ctx context.Context, sessionID string, passed bool) (sandboxPayment, error) {
	doc, err := s.session(ctx, sessionID)
	if err != nil {
		return sandboxPayment{}, err
	}
	if doc.Status != "open" || doc.Challenge.ID == "" {
		return s.closed(ctx, doc)
	}
	if !passed {
		if err := s.recs.Challenge(ctx, doc.ID, PaymentMethod{}); err != nil {
			return sandboxPayment{}, fmt.Errorf("sandbox session %s: %w", doc.ID, err)
		}
		return sandboxPayment{}, ErrAuthenticationFailed
	}
	return s.complete(ctx, doc, doc.Challenge)
}

// complete pays a session once: the first caller (a unique insert) marks it
// paid and makes its checkout.session.completed event; a repeat (a double
// click, a second tab) only gets the page.
func (s *Sandbox) complete(ctx context.Context, doc SandboxSession, pm PaymentMethod) (sandboxPayment, error) {
	now := s.clock.Now()
	pi := ""
	if doc.Mode == SessionPayment {
		pi = sandboxIntentOf(doc.ID)
	}
	paymentStatus := "paid"
	if doc.Mode == SessionSetup {
		paymentStatus = "no_payment_required"
	}
	paid := doc
	paid.Status, paid.PaymentStatus, paid.Method, paid.PaymentIntent, paid.Challenge = "complete", paymentStatus, pm, pi, PaymentMethod{}
	won, err := s.recs.PaySession(ctx, Charge{ID: sandboxSessionPaymentID(doc.ID), Key: doc.ChargeKey, Provider: sandboxName, Reference: pi,
		Amount: doc.Amount, Method: pm.ID, Status: "succeeded", CreatedAt: now}, paid)
	if err != nil {
		return sandboxPayment{}, fmt.Errorf("sandbox session %s: %w", doc.ID, err)
	}
	if !won {
		again, err := s.awaitPaidMark(ctx, doc.ID)
		if err != nil {
			return sandboxPayment{}, err
		}
		return s.closed(ctx, again)
	}
	doc.Status, doc.PaymentStatus, doc.PaymentIntent = "complete", paymentStatus, pi
	return s.closed(ctx, doc)
}

// A hosted page's payment is the sandbox's record "session:<session id>"
// (its unique insert is what pays a page once), and its PaymentIntent id
// names the session: "pi_sandbox_<the session id's suffix>". So the ledger's
// charge, which knows the PaymentIntent as its reference, finds the
// sandbox's record by id, for a refund (sandboxRecordIDs).
const sandboxIntentPrefix = "pi_sandbox_"

func sandboxIntentOf(sessionID string) string {
	return sandboxIntentPrefix + strings.TrimPrefix(sessionID, sandboxSessionPrefix)
}

func sandboxSessionPaymentID(sessionID string) string { return "session:" + sessionID }

// sandboxRecordIDs are the ids the sandbox may keep a ledger charge's
// payment under: its key's (a charge of a saved card) or, for a hosted
// page's payment, the page's record named by the charge's PaymentIntent.
func sandboxRecordIDs(ch Charge) []string {
	ids := []string{sandboxChargeID(ch.ID)}
	if ch.Key != "" && ch.Key != ch.ID {
		ids = append(ids, sandboxChargeID(ch.Key))
	}
	if suffix, ok := strings.CutPrefix(ch.Reference, sandboxIntentPrefix); ok && suffix != "" {
		ids = append(ids, sandboxSessionPaymentID(sandboxSessionPrefix+suffix))
	}
	return ids
}

// RekeyCharge rewrites the key of the sandbox's records of a charge (an
// erasure giving the ledger's charge a key that names nobody).
func (s *Sandbox) RekeyCharge(ctx context.Context, oldKey, newKey string) error {
	if oldKey == "" {
		return nil
	}
	if err := s.recs.Rekey(ctx, oldKey, newKey); err != nil {
		return fmt.Errorf("rekey sandbox charges: %w", err)
	}
	return nil
}

// ForgetPage deletes the sandbox's page opened with an idempotency key
// (an erasure of the order it was opened for: the page holds the buyer's
// address); an absent page is no error.
func (s *Sandbox) ForgetPage(ctx context.Context, key string) error {
	if err := s.recs.DeleteSession(ctx, sandboxSessionID(key)); err != nil {
		return fmt.Errorf("forget sandbox page: %w", err)
	}
	return nil
}

// awaitPaidMark reads a session another submit has just paid, waiting (up
// to two seconds) for that submit's mark, which follows its charge at once:
// read before it, the page still looks open, and the repeat would answer
// without the paid page's event, before the order is fulfilled.
func (s *Sandbox) awaitPaidMark(ctx context.Context, id string) (SandboxSession, error) {
	for range 200 {
		doc, err := s.session(ctx, id)
		if err != nil || doc.Status != "open" {
			return doc, err
		}
		select {
		case <-ctx.Done():
			return doc, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return s.session(ctx, id)
}

// closed answers a step on a page no longer open. A paid page sends its
// checkout.session.completed event again, as Stripe redelivers one: if the
// first delivery failed, this one fulfils, and if it did not, the event
// changes nothing.
func (s *Sandbox) closed(ctx context.Context, doc SandboxSession) (sandboxPayment, error) {
	page, err := s.Page(ctx, doc.ID)
	if err != nil || doc.Status != "complete" {
		return sandboxPayment{Page: page}, err
	}
	ev, err := s.Event(string(stripe.EventTypeCheckoutSessionCompleted), map[string]any{
		"id": doc.ID, "object": "checkout.session", "client_reference_id": doc.OrderID, "mode": doc.Mode,
		"status": "complete", "payment_status": doc.PaymentStatus, "payment_intent": nilIfEmpty(doc.PaymentIntent),
		"metadata": map[string]string{StripeOrderKey: doc.OrderID},
	})
	if err != nil {
		return sandboxPayment{}, err
	}
	return sandboxPayment{Event: &ev, Page: page}, nil
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Event makes a signed event about object, as Stripe sends one: its
// Stripe-Signature is HMAC-SHA256 over "<unix time>.<body>" with the webhook
// secret (https://docs.stripe.com/webhooks#verify-manually).
func (s *Sandbox) Event(eventType string, object map[string]any) (SandboxEvent, error) {
	now := s.clock.Now()
	body, err := json.Marshal(map[string]any{
		"id": "evt_sandbox_" + engine.NewID(), "object": "event", "api_version": stripe.APIVersion,
		"created": now.Unix(), "type": eventType, "livemode": false, "pending_webhooks": 1,
		"data": map[string]any{"object": object},
	})
	if err != nil {
		return SandboxEvent{}, fmt.Errorf("sandbox event: %w", err)
	}
	sig := webhook.ComputeSignature(now, body, s.secret)
	return SandboxEvent{Payload: body, Signature: fmt.Sprintf("t=%d,v1=%s", now.Unix(), hex.EncodeToString(sig))}, nil
}

// saveCard checks a typed card as the provider's page does and turns it
// into a test token carrying its behaviour.
func (s *Sandbox) saveCard(card Card) (PaymentMethod, error) {
	digits, err := checkCard(card, s.clock.Now())
	if err != nil {
		return PaymentMethod{}, err
	}
	behaviour := behaviourSucceeds
	switch digits {
	case TestCardDeclined:
		behaviour = behaviourDeclined
	case TestCardFailsOnRenewal:
		behaviour = behaviourFailsLater
	case TestCardAuthenticate:
		behaviour = behaviourAuthenticate
	}
	return PaymentMethod{
		Provider: sandboxName,
		ID:       "pm_sandbox_" + behaviour + "_" + engine.NewID(),
		Customer: "cus_sandbox_" + engine.NewID(),
		Brand:    CardBrand(digits),
		Last4:    digits[len(digits)-4:],
	}, nil
}

// Charge implements Provider. The first request with a key decides; every
// later one with the same key gets that answer back.
func (s *Sandbox) Charge(ctx context.Context, req ChargeRequest) (Charge, error) {
	if req.Key == "" {
		return Charge{}, errors.New("sandbox charge: no idempotency key")
	}
	charges, errs := s.ChargeMany(ctx, []ChargeRequest{req})
	return charges[0], errs[0]
}

func behaviourOf(methodID string) string {
	rest, ok := strings.CutPrefix(methodID, "pm_sandbox_")
	if !ok {
		return behaviourSucceeds
	}
	b, _, _ := strings.Cut(rest, "_")
	return b
}
