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

// StripeOrderKey names the metadata entry that carries our order id on a
// Checkout Session and its PaymentIntent or SetupIntent (also the session's
// client_reference_id).
const StripeOrderKey = "glimpse_order"

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
// a Checkout Session per first payment or card change (StartSession), which
// saves the card on a Customer, and one
// PaymentIntent per later charge, confirmed at once off-session,
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

// StartSession implements Provider with a Checkout Session on Stripe's
// hosted page (https://docs.stripe.com/api/checkout/sessions/create): the
// card is typed there, so our server never sees its number and the
// integration stays in PCI DSS's lightest scope (SAQ A, docs/stripe.md §8).
//
// A payment session takes one price_data line in payment mode, not a
// subscription-mode Price: our renewal job charges the saved card each period
// (renew.go), and a Stripe subscription would charge it a second time. The
// card is saved for those charges (setup_future_usage=off_session) on a
// Customer made for the buyer or the one already theirs. A setup session
// only saves a card (a card update).
func (s *Stripe) StartSession(ctx context.Context, req SessionRequest) (Session, error) {
	if req.Key == "" || len(req.Key) > 255 {
		return Session{}, errors.New("stripe session: an idempotency key of 1 to 255 characters is required")
	}
	params := &stripe.CheckoutSessionCreateParams{
		Mode:               stripe.String(req.Mode),
		ClientReferenceID:  stripe.String(req.OrderID),
		SuccessURL:         stripe.String(req.SuccessURL),
		CancelURL:          stripe.String(req.CancelURL),
		PaymentMethodTypes: stripe.StringSlice([]string{"card"}),
		Metadata:           map[string]string{StripeOrderKey: req.OrderID},
	}
	if req.Saved.Customer != "" {
		params.Customer = stripe.String(req.Saved.Customer)
	} else if req.Email != "" {
		params.CustomerEmail = stripe.String(req.Email)
	}
	switch req.Mode {
	case SessionPayment:
		// A one-time price (our renewal job charges the next periods), so
		// the product's description says how often it renews.
		product := &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String(req.Description)}
		if req.Renews != "" {
			product.Description = stripe.String(req.Renews)
		}
		params.LineItems = []*stripe.CheckoutSessionCreateLineItemParams{{
			Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
				Currency:    stripe.String(strings.ToLower(req.Amount.Currency)),
				UnitAmount:  stripe.Int64(req.Amount.Amount),
				ProductData: product,
			},
		}}
		params.PaymentIntentData = &stripe.CheckoutSessionCreatePaymentIntentDataParams{
			SetupFutureUsage: stripe.String("off_session"),
			Description:      stripe.String(req.Description),
			Metadata:         map[string]string{StripeMetadataKey: req.ChargeKey, StripeOrderKey: req.OrderID},
		}
		if req.Saved.Customer == "" {
			params.CustomerCreation = stripe.String("always")
		}
	case SessionSetup:
		params.Currency = stripe.String(strings.ToLower(req.Amount.Currency))
		params.SetupIntentData = &stripe.CheckoutSessionCreateSetupIntentDataParams{
			Metadata: map[string]string{StripeOrderKey: req.OrderID},
		}
	default:
		return Session{}, fmt.Errorf("stripe session: unknown mode %q", req.Mode)
	}
	params.SetIdempotencyKey(req.Key)
	cs, err := s.client.V1CheckoutSessions.Create(ctx, params)
	if err != nil {
		return Session{}, s.fail("create checkout session", err)
	}
	return Session{ID: cs.ID, URL: cs.URL}, nil
}

// SessionResult implements Provider: the session re-read with its
// PaymentIntent or SetupIntent and their card expanded, so fulfilment acts on
// Stripe's current answer (https://docs.stripe.com/checkout/fulfillment).
func (s *Stripe) SessionResult(ctx context.Context, sessionID string) (SessionResult, error) {
	params := &stripe.CheckoutSessionRetrieveParams{}
	params.AddExpand("payment_intent.payment_method")
	params.AddExpand("setup_intent.payment_method")
	cs, err := s.client.V1CheckoutSessions.Retrieve(ctx, sessionID, params)
	if err != nil {
		return SessionResult{}, s.fail("read checkout session", err)
	}
	out := SessionResult{ID: cs.ID, OrderID: cs.ClientReferenceID, Mode: string(cs.Mode), Status: string(cs.Status),
		PaymentStatus: string(cs.PaymentStatus)}
	if out.OrderID == "" {
		out.OrderID = cs.Metadata[StripeOrderKey]
	}
	var pm *stripe.PaymentMethod
	var customer string
	if cs.Customer != nil {
		customer = cs.Customer.ID
	}
	if pi := cs.PaymentIntent; pi != nil {
		out.PaymentIntent = pi.ID
		pm = pi.PaymentMethod
		if customer == "" && pi.Customer != nil {
			customer = pi.Customer.ID
		}
	}
	if si := cs.SetupIntent; si != nil && pm == nil {
		pm = si.PaymentMethod
		if customer == "" && si.Customer != nil {
			customer = si.Customer.ID
		}
	}
	if pm != nil {
		out.Method = PaymentMethod{Provider: stripeName, ID: pm.ID, Customer: customer}
		if pm.Card != nil {
			out.Method.Brand, out.Method.Last4 = string(pm.Card.Brand), pm.Card.Last4
		}
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
	// Every charge here is made without the buyer (a renewal, an add-on
	// with the saved card); a first payment goes through StartSession. The
	// buyer is not there to authenticate, so a bank that asks for 3-D
	// Secure makes Stripe decline with authentication_required instead of
	// waiting (https://docs.stripe.com/payments/save-and-reuse).
	params.OffSession = stripe.Bool(true)
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
			if se.DeclineCode == stripe.DeclineCodeAuthenticationRequired || se.Code == stripe.ErrorCodeAuthenticationRequired {
				return ch, ErrAuthenticationRequired
			}
			return ch, cardError(se.Code)
		}
		return Charge{}, s.fail("create payment intent", err)
	}
	ch.Reference = pi.ID
	switch pi.Status {
	case stripe.PaymentIntentStatusSucceeded:
		ch.Status = "succeeded"
	case stripe.PaymentIntentStatusRequiresAction:
		ch.Status, ch.Failure = "failed", "authentication_required"
		return ch, ErrAuthenticationRequired
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
