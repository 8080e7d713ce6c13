package billing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v85"

	"glimpse/engine"
)

// StripeMetadataKey names the PaymentIntent metadata entry that carries our
// idempotency key, which is also the charge's _id in the ledger: webhooks
// about the payment find the charge by it (docs/stripe.md §7).
const StripeMetadataKey = "glimpse_key"

const stripeName = "stripe"

// stripeTimeout bounds one call to Stripe's API.
const stripeTimeout = 20 * time.Second

// errPaymentsUnavailable is what a buyer sees when Stripe cannot be reached
// or answers with anything but a card error.
const errPaymentsUnavailable = "Payments are not available right now. Please try again later."

// StripeConfig configures the Stripe provider.
type StripeConfig struct {
	SecretKey string // sk_test_… or sk_live_… (or a restricted rk_… key)
	// APIBase is Stripe's API origin; empty means https://api.stripe.com.
	// Tests point it at stripe-mock.
	APIBase string
	// HTTPClient is the client the calls go through; nil means one with a
	// 20-second timeout. Tests wrap its transport to look at the requests.
	HTTPClient *http.Client
	Clock      engine.Clock
}

// Stripe is the Provider backed by Stripe's payments API. Our own renewal job
// decides when to charge (renew.go), so Stripe serves as the processor only:
// a Customer per buyer, a saved card PaymentMethod attached to it, and one
// PaymentIntent per charge, confirmed at once (off-session for renewals),
// with our idempotency key as the Idempotency-Key header
// (https://docs.stripe.com/payments/payment-intents,
// https://docs.stripe.com/api/idempotent_requests). Stripe Billing
// (Subscriptions, Invoices) is not used.
type Stripe struct {
	client *stripe.Client
	clock  engine.Clock
	live   bool // a live-mode key: Stripe's rate limits are higher (stripe_rate.go)
}

// NewStripe returns the Stripe provider.
func NewStripe(cfg StripeConfig) (*Stripe, error) {
	if cfg.SecretKey == "" {
		return nil, errors.New("stripe: no secret key")
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: stripeTimeout}
	}
	bc := &stripe.BackendConfig{
		HTTPClient: hc,
		// Retries of a POST reuse its idempotency key, so they are safe
		// (https://docs.stripe.com/api/idempotent_requests).
		MaxNetworkRetries: stripe.Int64(2),
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull},
	}
	if cfg.APIBase != "" {
		bc.URL = stripe.String(strings.TrimRight(cfg.APIBase, "/"))
	}
	backends := stripe.NewBackendsWithConfig(bc)
	if cfg.Clock == nil {
		cfg.Clock = engine.SystemClock{}
	}
	return &Stripe{client: stripe.NewClient(cfg.SecretKey, stripe.WithBackends(backends)), clock: cfg.Clock,
		live: strings.Contains(cfg.SecretKey, "_live_")}, nil
}

// Name implements Provider.
func (s *Stripe) Name() string { return stripeName }

// SaveCard implements Provider: it creates a Customer for the email, a card
// PaymentMethod, and attaches the one to the other so that later charges
// (renewals, add-ons) may use it without the buyer present.
//
// Sending the raw card number to Stripe from our server, as done here, is
// only for test mode and the sandbox-like checkout form. In live mode the
// card is typed into Stripe Elements in the browser, which creates the
// PaymentMethod on Stripe's side and gives the page only its pm_… id
// (https://docs.stripe.com/payments/payment-element); the checkout would post
// that id instead of a number, and SaveCard would skip the create step and
// only attach it. Our servers then never see a card number.
func (s *Stripe) SaveCard(ctx context.Context, email string, card Card) (PaymentMethod, error) {
	if _, err := checkCard(card, s.clock.Now()); err != nil {
		return PaymentMethod{}, err
	}
	// One Customer per card saved. Finding an existing Customer by email
	// would need the search API, which stripe-mock does not serve offline
	// and which is only eventually consistent; the Customer id is kept in
	// the PaymentMethod instead.
	cus, err := s.client.V1Customers.Create(ctx, &stripe.CustomerCreateParams{Email: stripe.String(email)})
	if err != nil {
		return PaymentMethod{}, s.fail("create customer", err)
	}
	year := int64(card.ExpYear)
	if year < 100 {
		year += 2000
	}
	pm, err := s.client.V1PaymentMethods.Create(ctx, &stripe.PaymentMethodCreateParams{
		Type: stripe.String(string(stripe.PaymentMethodTypeCard)),
		Card: &stripe.PaymentMethodCreateCardParams{
			Number:   stripe.String(CardDigits(card.Number)),
			ExpMonth: stripe.Int64(int64(card.ExpMonth)),
			ExpYear:  stripe.Int64(year),
			CVC:      stripe.String(card.CVC),
		},
	})
	if err != nil {
		return PaymentMethod{}, s.fail("create payment method", err)
	}
	pm, err = s.client.V1PaymentMethods.Attach(ctx, pm.ID, &stripe.PaymentMethodAttachParams{Customer: stripe.String(cus.ID)})
	if err != nil {
		return PaymentMethod{}, s.fail("attach payment method", err)
	}
	out := PaymentMethod{Provider: stripeName, ID: pm.ID, Customer: cus.ID}
	if pm.Card != nil {
		out.Brand, out.Last4 = string(pm.Card.Brand), pm.Card.Last4
	}
	return out, nil
}

// Charge implements Provider with one PaymentIntent, created and confirmed
// in one call. The request's key is the Idempotency-Key, so a retry (ours or
// the library's) returns the first answer and never charges twice, and it is
// also stored in the PaymentIntent's metadata for the webhooks.
func (s *Stripe) Charge(ctx context.Context, req ChargeRequest) (Charge, error) {
	if req.Key == "" {
		return Charge{}, errors.New("stripe charge: no idempotency key")
	}
	if len(req.Key) > 255 { // Stripe's limit for an idempotency key
		return Charge{}, fmt.Errorf("stripe charge: idempotency key longer than 255 characters")
	}
	params := &stripe.PaymentIntentCreateParams{
		Amount:             stripe.Int64(req.Amount.Amount),
		Currency:           stripe.String(strings.ToLower(req.Amount.Currency)),
		Customer:           stripe.String(req.Method.Customer),
		PaymentMethod:      stripe.String(req.Method.ID),
		PaymentMethodTypes: stripe.StringSlice([]string{"card"}),
		Confirm:            stripe.Bool(true),
		Metadata:           map[string]string{StripeMetadataKey: req.Key},
	}
	if req.Description != "" {
		params.Description = stripe.String(req.Description)
	}
	if req.OffSession {
		// The buyer is not there to authenticate: Stripe declines with
		// authentication_required instead of waiting for 3-D Secure.
		params.OffSession = stripe.Bool(true)
	} else {
		// This checkout cannot show a 3-D Secure challenge; a payment that
		// needs one fails now rather than staying open.
		params.ErrorOnRequiresAction = stripe.Bool(true)
	}
	params.SetIdempotencyKey(req.Key)
	ch := Charge{ID: req.Key, Key: req.Key, Provider: stripeName, Amount: req.Amount, Method: req.Method.ID,
		CreatedAt: s.clock.Now()}
	pi, err := s.client.V1PaymentIntents.Create(ctx, params)
	if err != nil {
		var se *stripe.Error
		if errors.As(err, &se) && se.Type == stripe.ErrorTypeCard {
			ch.Status, ch.Failure = "failed", string(se.Code)
			if se.DeclineCode != "" {
				ch.Failure += ":" + string(se.DeclineCode)
			}
			if se.PaymentIntent != nil {
				ch.Reference = se.PaymentIntent.ID
			}
			return ch, cardError(se.Code)
		}
		return Charge{}, s.fail("create payment intent", err)
	}
	ch.Reference = pi.ID
	switch pi.Status {
	case stripe.PaymentIntentStatusSucceeded:
		ch.Status = "succeeded"
	case stripe.PaymentIntentStatusProcessing:
		// Cards settle at once; another method may report later through
		// the payment_intent.succeeded or payment_failed webhook.
		ch.Status = "processing"
	default:
		ch.Status, ch.Failure = "failed", "status:"+string(pi.Status)
		return ch, ErrCardDeclined
	}
	return ch, nil
}

// cardError maps Stripe's card error codes
// (https://docs.stripe.com/error-codes) to the errors a buyer sees.
func cardError(code stripe.ErrorCode) error {
	switch code {
	case stripe.ErrorCodeExpiredCard:
		return ErrCardExpired
	case stripe.ErrorCodeIncorrectCVC, stripe.ErrorCodeInvalidCVC:
		return ErrCVCInvalid
	case stripe.ErrorCodeIncorrectNumber, stripe.ErrorCodeInvalidNumber:
		return ErrCardInvalid
	default: // card_declined, authentication_required, processing_error, …
		return ErrCardDeclined
	}
}

// fail wraps a failure that is not the card's: the buyer is told payments
// are unavailable, the cause is logged.
func (s *Stripe) fail(what string, err error) error {
	var se *stripe.Error
	if errors.As(err, &se) && se.Type == stripe.ErrorTypeCard {
		return cardError(se.Code)
	}
	detail := "stripe " + what
	if errors.As(err, &se) {
		detail += " (HTTP " + strconv.Itoa(se.HTTPStatusCode) + ", request " + se.RequestID + ")"
	}
	return engine.Wrap(engine.CodeUnavailable, fmt.Errorf("%s: %w", detail, err), errPaymentsUnavailable)
}
