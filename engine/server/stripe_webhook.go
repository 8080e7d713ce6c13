package server

import (
	"context"
	"errors"
	"io"
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/metrics"

	"github.com/gofiber/fiber/v3"
)

// PathStripeWebhook receives Stripe's webhook events (docs/stripe.md §7).
const PathStripeWebhook = "/webhooks/stripe"

// maxWebhookBody bounds a webhook delivery. Stripe's payment events are a few
// kilobytes; anything larger is refused before its signature is checked.
const maxWebhookBody = 64 << 10

// stripeWebhook verifies a Stripe delivery's signature on the raw body and
// hands the event to billing, which de-duplicates it and applies it to the
// charges ledger. The route carries no CSRF or same-origin check: the
// caller is Stripe's server, not a browser, and the signature, keyed with
// the endpoint's secret, is what authenticates it
// (https://docs.stripe.com/webhooks#verify-events). Answers: 200 for an
// event handled or already seen, 400 for a bad signature or body, 404 when
// Stripe is not configured, 500 when the work failed (Stripe retries).
func (s *Server) stripeWebhook(c fiber.Ctx) error {
	secret := s.Config.StripeWebhookSecret
	if secret == "" || s.Billing == nil {
		return fiber.ErrNotFound
	}
	body, err := io.ReadAll(io.LimitReader(requestBody(c), maxWebhookBody+1))
	if err != nil {
		return c.Status(fiber.StatusBadRequest).JSON(fiber.Map{"error": "unreadable body"})
	}
	if len(body) > maxWebhookBody {
		return c.Status(fiber.StatusRequestEntityTooLarge).JSON(fiber.Map{"error": "body too large"})
	}
	// The signature covers the exact bytes received, so billing verifies
	// the body as read, before anything parses it.
	ctx, cancel := context.WithTimeout(c.Context(), 10*time.Second)
	defer cancel()
	res, err := s.Billing.ReceiveStripeWebhook(ctx, body, c.Get("Stripe-Signature"))
	if !errors.Is(err, billing.ErrSignatureTooOld) && !errors.Is(err, billing.ErrBadSignature) && !errors.Is(err, billing.ErrWebhookOff) {
		s.Business.Webhook(res.Type, webhookResult(res, err))
	}
	switch {
	case errors.Is(err, billing.ErrSignatureTooOld), errors.Is(err, billing.ErrBadSignature):
		s.Logger.Warn("stripe webhook refused", "error", err)
		s.Business.Webhook(metrics.WebhookOther, metrics.WebhookRefused)
		msg := "invalid signature"
		if errors.Is(err, billing.ErrSignatureTooOld) {
			msg = "timestamp outside the tolerance"
		}
		return c.Status(fiber.StatusBadRequest).JSON(fiber.Map{"error": msg})
	case errors.Is(err, billing.ErrWebhookOff):
		return fiber.ErrNotFound
	case err != nil:
		s.Logger.Error("stripe webhook", "error", err)
		return c.Status(fiber.StatusInternalServerError).JSON(fiber.Map{"error": "not processed"})
	}
	if res.Key != "" {
		s.Logger.Info("stripe webhook", "charge", res.Key, "status", res.Status,
			"applied", res.Applied, "duplicate", res.Duplicate)
	}
	return c.JSON(fiber.Map{"received": true, "duplicate": res.Duplicate, "applied": res.Applied})
}
