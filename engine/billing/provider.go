package billing

import (
	"context"
	"strings"
	"time"

	"glimpse/engine"
)

// Card is what a buyer types at checkout. It only passes through: the
// provider turns it into a PaymentMethod, and only the brand and last four
// digits are ever stored.
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

// ChargeRequest asks a provider to take money. Key makes the charge
// idempotent: a second request with the same key returns the first result
// and never charges again (a retry, a crash, a second instance).
type ChargeRequest struct {
	Key         string
	Method      PaymentMethod
	Amount      Money
	Description string
	// OffSession marks a charge the customer is not present for (a renewal).
	OffSession bool
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
}

// Provider is a payment processor: the built-in sandbox or Stripe.
type Provider interface {
	Name() string
	// SaveCard turns a typed card into a reusable payment method for email.
	SaveCard(ctx context.Context, email string, card Card) (PaymentMethod, error)
	// Charge takes money; see ChargeRequest.Key.
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
	ErrCVCInvalid          = engine.Errorf(engine.CodeInvalid, "Your card's security code is incorrect.")
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
		return "", ErrCardExpired
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
