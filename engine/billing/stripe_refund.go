package billing

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stripe/stripe-go/v85"
)

// StripeRefundMetadataKey names the Refund metadata entry that carries our
// refund's idempotency key, so the refund.* and charge.refunded webhooks can
// be matched to the desk's request.
const StripeRefundMetadataKey = "glimpse_refund"

// Refund implements Refunder with POST /v1/refunds for the charge's
// PaymentIntent (https://docs.stripe.com/api/refunds/create): the amount is
// always sent, so the idempotency key (which names it) can never replay a
// refund of another amount, and the reason is requested_by_customer, the one
// the EULA's refunds are. The call is bounded by stripeTimeout whatever the
// caller's context allows. A refund Stripe reports failed or canceled is an
// error; pending (some methods settle refunds later) counts as made, and
// Stripe's refund.failed webhook would say otherwise.
func (s *Stripe) Refund(ctx context.Context, req ProviderRefund) (string, error) {
	if req.Key == "" || len(req.Key) > 255 {
		return "", errors.New("stripe refund: an idempotency key of 1 to 255 characters is required")
	}
	if !strings.HasPrefix(req.Charge.Reference, "pi_") {
		return "", fmt.Errorf("stripe refund of %s: no PaymentIntent: %w", req.Charge.ID, ErrNotRefundable)
	}
	params := &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(req.Charge.Reference),
		Amount:        stripe.Int64(req.Amount.Amount),
		Reason:        stripe.String(string(stripe.RefundReasonRequestedByCustomer)),
		Metadata:      map[string]string{StripeMetadataKey: req.Charge.Key, StripeRefundMetadataKey: req.Key},
	}
	params.SetIdempotencyKey(req.Key)
	ctx, cancel := context.WithTimeout(ctx, stripeTimeout)
	defer cancel()
	r, err := s.client.V1Refunds.Create(ctx, params)
	if err != nil {
		return "", s.refundFailure(err)
	}
	switch r.Status {
	case stripe.RefundStatusFailed, stripe.RefundStatusCanceled:
		return "", fmt.Errorf("stripe refund %s is %s: %w", r.ID, r.Status, ErrRefundFailed)
	}
	return r.ID, nil
}

// refundFailure words a refused or failed refund call for staff; the cause
// (Stripe's request id among it) is kept for the log.
func (s *Stripe) refundFailure(err error) error {
	var se *stripe.Error
	if errors.As(err, &se) && se.Type == stripe.ErrorTypeInvalidRequest {
		// Already refunded, more than is left, a disputed charge: Stripe
		// refuses what it cannot refund with an invalid request.
		return fmt.Errorf("stripe create refund (HTTP %d, request %s, %s): %w: %w", se.HTTPStatusCode, se.RequestID, se.Msg, ErrNotRefundable, err)
	}
	return fmt.Errorf("%w: %w", ErrRefundFailed, s.fail("create refund", err))
}
