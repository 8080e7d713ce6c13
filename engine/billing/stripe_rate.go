package billing

// Stripe's rate limits (https://docs.stripe.com/rate-limits): 100 requests
// a second per account in live mode and 25 in a sandbox (test mode), and by
// default 25 a second on any one endpoint, which every renewal shares: each
// is one POST /v1/payment_intents. Answers over a limit are 429s, which the
// library retries after a wait; a pass that keeps under the limit never
// gets them.
const (
	stripeEndpointRate = 25 // requests a second on one endpoint, live or test
	stripeTestRate     = 25 // requests a second per account in test mode
)

// RenewalRate implements rateLimitedProvider: the charges a second one
// renewal pass may send. It takes 80% of the payment-intents endpoint's
// limit in live mode (20 a second) and 40% of the account's in test mode
// (10 a second), leaving the rest to checkouts and card updates (each a
// customer, a payment method and its attachment, and a payment intent) that
// go on meanwhile. Several instances renewing at once add their rates up:
// their 429s are retried, so they are slower, never wrong.
func (s *Stripe) RenewalRate() float64 {
	if s.live {
		return 0.8 * stripeEndpointRate
	}
	return 0.4 * stripeTestRate
}
