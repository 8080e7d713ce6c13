package server

import (
	"errors"
	"testing"

	"glimpse/engine/billing"
	"glimpse/engine/metrics"
)

// TestWebhookResult: glimpse_webhook_events_total labels a checkout.session.*
// event that settled its order as applied (it was counted as ignored, having
// no charge key), and one that settled nothing as ignored.
func TestWebhookResult(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		res  billing.StripeEventResult
		err  error
		want string
	}{
		{"checkout fulfilled", billing.StripeEventResult{Order: "o1", Status: billing.OrderPaid, Type: "checkout.session.completed"}, nil, metrics.WebhookApplied},
		{"checkout failed", billing.StripeEventResult{Order: "o1", Status: billing.OrderFailed, Type: "checkout.session.async_payment_failed"}, nil, metrics.WebhookApplied},
		{"checkout processing", billing.StripeEventResult{Order: "o1", Status: billing.OrderProcessing, Type: "checkout.session.completed"}, nil, metrics.WebhookApplied},
		{"checkout of an unknown order", billing.StripeEventResult{Order: "o404", Type: "checkout.session.completed"}, nil, metrics.WebhookIgnored},
		{"checkout duplicate", billing.StripeEventResult{Duplicate: true, Type: "checkout.session.completed"}, nil, metrics.WebhookDuplicate},
		{"checkout error", billing.StripeEventResult{Order: "o1", Type: "checkout.session.completed"}, errors.New("boom"), metrics.WebhookError},
		{"charge applied", billing.StripeEventResult{Key: "k", Status: "succeeded", Applied: true}, nil, metrics.WebhookApplied},
		{"charge recorded", billing.StripeEventResult{Key: "k", Status: "succeeded"}, nil, metrics.WebhookRecorded},
		{"not ours", billing.StripeEventResult{Type: "customer.created"}, nil, metrics.WebhookIgnored},
	} {
		if got := webhookResult(tc.res, tc.err); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
