package server

import (
	"context"
	"errors"
	"io"
	"time"

	"glimpse/engine/metrics"

	"github.com/gofiber/fiber/v3"
	"github.com/stripe/stripe-go/v85/webhook"
)

// PathStripeWebhook receives Stripe's webhook events (docs/stripe.md §7).
const PathStripeWebhook = "/webhooks/stripe"

// maxWebhookBody bounds a webhook delivery. Stripe's payment events are a few
// kilobytes; anything larger is refused before its signature is checked.
const maxWebhookBody = 64 << 10

// webhookTolerance is how far a delivery's signed timestamp may be from now,
// the Stripe libraries' default, which limits replays.
const webhookTolerance = 300 * time.Second

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
	// The signature covers the exact bytes received, so the body is verified
	// before anything parses it. The API version of the event is not
	// compared with the library's: the handler reads only fields that every
	// recent version has (id, type, created, the object's id and metadata).
	ev, err := webhook.ConstructEventWithOptions(body, c.Get("Stripe-Signature"), secret,
		webhook.ConstructEventOptions{Tolerance: webhookTolerance, IgnoreAPIVersionMismatch: true})
	if err != nil {
		s.Logger.Warn("stripe webhook refused", "error", err)
		s.Business.Webhook(metrics.WebhookOther, metrics.WebhookRefused)
		msg := "invalid signature"
		if errors.Is(err, webhook.ErrTooOld) {
			msg = "timestamp outside the tolerance"
		}
		return c.Status(fiber.StatusBadRequest).JSON(fiber.Map{"error": msg})
	}
	ctx, cancel := context.WithTimeout(c.Context(), 10*time.Second)
	defer cancel()
	res, err := s.Billing.HandleStripeEvent(ctx, ev)
	s.Business.Webhook(string(ev.Type), webhookResult(res, err))
	if err != nil {
		s.Logger.Error("stripe webhook", "event", ev.ID, "type", ev.Type, "error", err)
		return c.Status(fiber.StatusInternalServerError).JSON(fiber.Map{"error": "not processed"})
	}
	if res.Key != "" {
		s.Logger.Info("stripe webhook", "event", ev.ID, "type", ev.Type, "charge", res.Key, "status", res.Status,
			"applied", res.Applied, "duplicate", res.Duplicate)
	}
	return c.JSON(fiber.Map{"received": true, "duplicate": res.Duplicate, "applied": res.Applied})
}
