package billing

import (
	"context"
	"strconv"
	"strings"
	"time"

	"glimpse/engine"
)

// Card is what a buyer types on the sandbox's hosted payment page (the
// stand-in for Stripe's): it never reaches a Glimpse action, and only the
// brand and last four digits are kept.
type Card struct {
	Number   string
	ExpMonth int
	ExpYear  int
	CVC      string
}

// PaymentMethod is a provider's reference to a saved card.
type PaymentMethod struct {
	Provider string `bson:"provider" json:"provider"`
	// ID is the provider's reference (a Stripe pm_… id, or a sandbox token
	// that carries the test card's behaviour, as Stripe's test tokens do).
	ID       string `bson:"id" json:"id"`
	Customer string `bson:"customer,omitempty" json:"customer,omitempty"`
	Brand    string `bson:"brand" json:"brand"`
	Last4    string `bson:"last4" json:"last4"`
}

// ChargeRequest asks a provider to take money with a saved card, the buyer
// absent (a renewal, an add-on bought in the app). Key makes the charge
// idempotent: a second request with the same key returns the first result
// and never charges again (a retry, a crash, a second instance).
type ChargeRequest struct {
	Key         string
	Method      PaymentMethod
	Amount      Money
	Description string
	// SubscriptionID is what the charge pays for, kept in the ledger (not
	// sent to the provider) so a refund or a dispute can change its access.
	SubscriptionID string
}

// Charge is a payment taken.
type Charge struct {
	ID        string `bson:"_id"`
	Key       string `bson:"key"`
	Provider  string `bson:"provider"`
	Reference string `bson:"reference"` // the provider's id for the payment
	Amount    Money  `bson:"amount"`
	Method    string `bson:"method"`
	// SubscriptionID is what the charge paid for.
	SubscriptionID string    `bson:"subscriptionId,omitempty"`
	Status         string    `bson:"status"` // succeeded or failed
	Failure        string    `bson:"failure,omitempty"`
	CreatedAt      time.Time `bson:"createdAt"`
	// Duplicate is a payment for what the buyer already had (a second main
	// plan for an address with a live one, an add-on paid on two pages): it
	// is refunded at once, and its refund ends nothing. PlanCode names what
	// it was meant to buy.
	Duplicate bool   `bson:"duplicate,omitempty"`
	PlanCode  string `bson:"planCode,omitempty"`
	// Erased marks a charge an erasure kept for the tax period, until
	// RetainUntil, its key rewritten so that it names nobody
	// (Ledger.Erase).
	Erased      bool      `bson:"erased,omitempty"`
	RetainUntil time.Time `bson:"retainUntil,omitempty"`
}

// Session modes: a payment (the card is saved for later charges made
// without the buyer), or setup (the card is only saved).
const (
	SessionPayment = "payment"
	SessionSetup   = "setup"
)

// SessionRequest asks a provider for a hosted payment page: the buyer types
// the card there, on the provider's page, never on ours (docs/stripe.md §8).
type SessionRequest struct {
	// Key makes the call idempotent: the same key gives the same session.
	Key string
	// OrderID is ours (Stripe's client_reference_id), read back from the
	// provider's events to find what was bought.
	OrderID string
	Mode    string // SessionPayment or SessionSetup
	// ChargeKey is the ledger key of the payment the session takes
	// (metadata of its PaymentIntent, so its events find the charge).
	ChargeKey   string
	Amount      Money  // SessionPayment only
	Description string // what is bought, as the page shows it
	// Renews says how often a plan's price is charged ("every 1 month"), ""
	// for a one-time payment: the page says so under what is bought.
	Renews string
	Email  string // pre-fills the page (a new buyer)
	// Saved is the buyer's saved card, when there is one: its customer is
	// reused, and the sandbox offers to authenticate it.
	Saved PaymentMethod
	// Brand is the brand the order belongs to (the sandbox page's name).
	Brand      string
	SuccessURL string
	CancelURL  string
}

// Session is a hosted payment page opened for a request.
type Session struct {
	ID  string
	URL string
}

// SessionResult is a session as the provider knows it now: fulfilment acts
// on it, re-read, never on what an event or a browser said.
type SessionResult struct {
	ID      string
	OrderID string
	Mode    string
	// Status is open, complete or expired; PaymentStatus paid, unpaid or
	// no_payment_required (a setup).
	Status        string
	PaymentStatus string
	// PaymentIntent is the provider's id of the payment (payment mode).
	PaymentIntent string
	// Method is the card saved by the session (brand and last four only).
	Method PaymentMethod
}

// Paid reports whether what the session was for is done: a payment paid,
// or a setup complete.
func (r SessionResult) Paid() bool {
	if r.Mode == SessionSetup {
		return r.Status == "complete"
	}
	return r.PaymentStatus == "paid" || r.PaymentStatus == "no_payment_required"
}

// Provider is a payment processor: the built-in sandbox or Stripe. Cards are
// typed only on the provider's hosted page (StartSession); our server sees
// ids, a brand and the last four digits.
type Provider interface {
	Name() string
	// StartSession opens a hosted payment page; see SessionRequest.
	StartSession(ctx context.Context, req SessionRequest) (Session, error)
	// SessionResult re-reads a session from the provider.
	SessionResult(ctx context.Context, sessionID string) (SessionResult, error)
	// Charge takes money with a saved card, the buyer absent (renewals,
	// add-ons); see ChargeRequest.Key. A bank that asks for the buyer
	// answers ErrAuthenticationRequired.
	Charge(ctx context.Context, req ChargeRequest) (Charge, error)
}

// The payment errors a buyer sees. Their messages are the screens' texts;
// screens may show brand copy instead, chosen with errors.Is.
var (
	ErrCardDeclined = engine.Errorf(engine.CodeInvalid, "Your card was declined.")
	// ErrIdempotencyMismatch is an idempotency key reused for a different
	// request (another amount, another card): refused, as Stripe refuses it.
	ErrIdempotencyMismatch = engine.Errorf(engine.CodeConflict, "This payment was already asked for with other details.")
	ErrCardInvalid         = engine.Errorf(engine.CodeInvalid, "Your card number is incorrect.")
	ErrCardExpired         = engine.Errorf(engine.CodeInvalid, "Your card has expired.")
	ErrExpiryInvalid       = engine.Errorf(engine.CodeInvalid, "Your card's expiry date is incomplete.")
	ErrCVCInvalid          = engine.Errorf(engine.CodeInvalid, "Your card's security code is incorrect.")
	// ErrAuthenticationRequired is a charge made without the buyer that
	// the bank refused until they authenticate it (3-D Secure): the buyer
	// is brought to the provider's page to do so.
	ErrAuthenticationRequired = engine.Errorf(engine.CodeInvalid, "Your bank asks you to confirm this payment.")
)

// Luhn reports whether a card number passes the Luhn checksum (ISO/IEC
// 7812-1), which catches every single-digit typo and most swaps. Spaces and
// dashes are ignored; anything else fails.
func Luhn(number string) bool {
	digits := CardDigits(number)
	if len(digits) < 12 || len(digits) > 19 {
		return false
	}
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// CardDigits returns the digits of a typed card number, or "" when it holds
// anything but digits, spaces and dashes.
func CardDigits(number string) string {
	var b strings.Builder
	for _, r := range number {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-':
		default:
			return ""
		}
	}
	return b.String()
}

// CardBrand names a card's network from its leading digits.
func CardBrand(digits string) string {
	switch {
	case strings.HasPrefix(digits, "4"):
		return "visa"
	case len(digits) >= 2 && digits[0] == '5' && digits[1] >= '1' && digits[1] <= '5', strings.HasPrefix(digits, "2"):
		return "mastercard"
	case strings.HasPrefix(digits, "34"), strings.HasPrefix(digits, "37"):
		return "amex"
	case strings.HasPrefix(digits, "6"):
		return "discover"
	}
	return "card"
}

// checkCard runs the checks every provider makes before it is asked.
func checkCard(card Card, now time.Time) (digits string, err error) {
	digits = CardDigits(card.Number)
	if !Luhn(digits) {
		return "", ErrCardInvalid
	}
	year := card.ExpYear
	if year < 100 {
		year += 2000
	}
	if card.ExpMonth < 1 || card.ExpMonth > 12 || year < 2000 {
		return "", ErrExpiryInvalid
	}
	// A card is good through the last day of its expiry month.
	if !now.Before(time.Date(year, time.Month(card.ExpMonth)+1, 1, 0, 0, 0, 0, time.UTC)) {
		return "", ErrCardExpired
	}
	if n := len(card.CVC); n < 3 || n > 4 || CardDigits(card.CVC) != card.CVC {
		return "", ErrCVCInvalid
	}
	return digits, nil
}

// ParseCardForm reads the card fields of the sandbox's payment page:
// the number as typed, the expiry as "MM / YY" (or MM/YYYY, with or without
// the spaces), and the security code. A malformed expiry reads as month 0,
// which checkCard refuses as incomplete.
func ParseCardForm(number, expiry, cvc string) Card {
	card := Card{Number: strings.TrimSpace(number), CVC: strings.TrimSpace(cvc)}
	m, y, ok := strings.Cut(strings.ReplaceAll(expiry, " ", ""), "/")
	if !ok || len(m) < 1 || len(m) > 2 || (len(y) != 2 && len(y) != 4) {
		return card
	}
	month, err1 := strconv.Atoi(m)
	year, err2 := strconv.Atoi(y)
	if err1 != nil || err2 != nil || month < 0 || year < 0 {
		return card
	}
	card.ExpMonth, card.ExpYear = month, year
	return card
}
