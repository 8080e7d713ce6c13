package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85/webhook"

	"glimpse/engine/billing"
	"glimpse/engine/config"
	"glimpse/engine/server"
)

const testWebhookSecret = "whsec_test_secret"

// newWebhookHarness is a harness with Stripe's webhook secret set and one
// paid checkout in the charges ledger, whose key it returns with the
// provider's reference for the payment.
func newWebhookHarness(t *testing.T) (h *harness, key, reference string) {
	t.Helper()
	h = newHarness(t, func(c *config.Config) { c.StripeWebhookSecret = testWebhookSecret })
	h.srv.Billing = h.app.Billing
	h.paidCheckout(billing.CheckoutRequest{Brand: "default", Bundle: "glimpse.web",
		PlanCode: "glimpse_weekly_trial", Email: "ann@example.com", Key: "wh-1"})
	ch, err := h.app.Billing.Charge(context.Background(), billing.ChargeIDOf("checkout:wh-1"))
	if err != nil {
		t.Fatal(err)
	}
	return h, "checkout:wh-1", ch.Reference
}

// stripeEvent is an event as Stripe sends it, with only the fields read.
func stripeEvent(id, typ string, created time.Time, object map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"id": id, "object": "event", "type": typ, "created": created.Unix(),
		"api_version": "2020-08-27", "livemode": false, "data": map[string]any{"object": object}})
	return b
}

func paymentIntent(key string) map[string]any {
	return map[string]any{"id": "pi_1", "object": "payment_intent", "metadata": map[string]string{"glimpse_key": key}}
}

// deliver posts a delivery signed with secret at signedAt, from no browser:
// no CSRF token, and a foreign Origin that a browser route would refuse.
func (h *harness) deliver(body []byte, secret string, signedAt time.Time) response {
	h.t.Helper()
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: secret, Timestamp: signedAt})
	req := httptest.NewRequest("POST", server.PathStripeWebhook, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", signed.Header)
	req.Header.Set("Origin", "https://stripe.example")
	return h.do(req)
}

func (h *harness) chargeStatus(key string) string {
	h.t.Helper()
	status, err := h.app.Billing.ChargeStatus(context.Background(), billing.ChargeIDOf(key))
	if err != nil {
		h.t.Fatal(err)
	}
	// The ledger's copy, read as the support desk reads a charge.
	ch, err := h.app.Billing.Charge(context.Background(), billing.ChargeIDOf(key))
	if err != nil {
		h.t.Fatal(err)
	}
	if ch.Status != status {
		h.t.Fatalf("ledger copy says %q, the events %q", ch.Status, status)
	}
	return status
}

func TestStripeWebhookSignature(t *testing.T) {
	h, key, _ := newWebhookHarness(t)
	body := stripeEvent("evt_sig", "payment_intent.payment_failed", h.clock.Now(), paymentIntent(key))
	for name, r := range map[string]response{
		"wrong secret": h.deliver(body, "whsec_other", h.clock.Now()),
		"too old":      h.deliver(body, testWebhookSecret, h.clock.Now().Add(-6*time.Minute)),
	} {
		if r.status != 400 {
			t.Errorf("%s: status %d, want 400 (%s)", name, r.status, r.raw)
		}
	}
	req := httptest.NewRequest("POST", server.PathStripeWebhook, strings.NewReader(string(body)))
	if r := h.do(req); r.status != 400 {
		t.Errorf("unsigned: status %d, want 400", r.status)
	}
	if got := h.chargeStatus(key); got != "succeeded" {
		t.Fatalf("status after refused deliveries = %q, want succeeded", got)
	}
	big := stripeEvent("evt_big", "payment_intent.succeeded", h.clock.Now(),
		map[string]any{"id": "pi_1", "object": "payment_intent", "description": strings.Repeat("x", 70<<10)})
	if r := h.deliver(big, testWebhookSecret, h.clock.Now()); r.status != 413 {
		t.Errorf("70 KiB body: status %d, want 413", r.status)
	}

	r := h.deliver(body, testWebhookSecret, h.clock.Now())
	if r.status != 200 || r.body["applied"] != true {
		t.Fatalf("valid delivery: %d %s", r.status, r.raw)
	}
	if got := h.chargeStatus(key); got != "failed" {
		t.Fatalf("status = %q, want failed", got)
	}
}

func TestStripeWebhookDuplicateAndOrder(t *testing.T) {
	h, key, reference := newWebhookHarness(t)
	// After the checkout's own success (the event that fulfilled it).
	t0 := h.clock.Now().Truncate(time.Second).Add(time.Minute)
	ctx := context.Background()

	succeeded := stripeEvent("evt_ok", "payment_intent.succeeded", t0, paymentIntent(key))
	for i := range 2 {
		r := h.deliver(succeeded, testWebhookSecret, h.clock.Now())
		if r.status != 200 || r.body["duplicate"] != (i == 1) {
			t.Fatalf("delivery %d: %d %s", i+1, r.status, r.raw)
		}
	}
	var n int
	if err := h.app.Store.SQL().Reader().QueryRowContext(ctx, `SELECT count(*) FROM charge_events WHERE charge_id = ? AND event_id = ?`,
		billing.ChargeIDOf(key), "evt_ok").Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d events recorded for one event delivered twice (%v)", n, err)
	}

	// A full refund, then a failure reported earlier that arrives late.
	refund := stripeEvent("evt_refund", "charge.refunded", t0.Add(100*time.Second), map[string]any{
		"id": "ch_1", "object": "charge", "refunded": true, "payment_intent": reference,
		"metadata": map[string]string{"glimpse_key": key}})
	if r := h.deliver(refund, testWebhookSecret, h.clock.Now()); r.status != 200 || r.body["applied"] != true {
		t.Fatalf("refund: %d %s", r.status, r.raw)
	}
	late := stripeEvent("evt_late", "payment_intent.payment_failed", t0.Add(50*time.Second), paymentIntent(key))
	if r := h.deliver(late, testWebhookSecret, h.clock.Now()); r.status != 200 || r.body["applied"] != false {
		t.Fatalf("late event: %d %s", r.status, r.raw)
	}
	if got := h.chargeStatus(key); got != "refunded" {
		t.Fatalf("status = %q, want refunded (the newer event)", got)
	}

	// A dispute carries no metadata of ours: the charge is found by the
	// payment's reference.
	dispute := stripeEvent("evt_dispute", "charge.dispute.created", t0.Add(200*time.Second), map[string]any{
		"id": "dp_1", "object": "dispute", "charge": "ch_1", "payment_intent": reference})
	if r := h.deliver(dispute, testWebhookSecret, h.clock.Now()); r.status != 200 || r.body["applied"] != true {
		t.Fatalf("dispute: %d %s", r.status, r.raw)
	}
	if got := h.chargeStatus(key); got != "disputed" {
		t.Fatalf("status = %q, want disputed", got)
	}

	// Other event types are acknowledged and ignored.
	other := stripeEvent("evt_other", "customer.created", t0, map[string]any{"id": "cus_1", "object": "customer"})
	if r := h.deliver(other, testWebhookSecret, h.clock.Now()); r.status != 200 {
		t.Fatalf("other event: %d %s", r.status, r.raw)
	}
}

// TestStripeWebhookConcurrentOrder delivers one charge's events all at once
// in shuffled order: the ledger must end on the newest.
func TestStripeWebhookConcurrentOrder(t *testing.T) {
	h, key, _ := newWebhookHarness(t)
	t0 := h.clock.Now().Add(time.Minute) // after the checkout's own success
	statuses := []string{"payment_intent.succeeded", "payment_intent.payment_failed"}
	const n = 20
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := h.app.Billing.ApplyChargeEvent(context.Background(), key, fmt.Sprintf("evt_%02d", i),
				map[bool]string{true: "succeeded", false: "failed"}[statuses[i%2] == "payment_intent.succeeded"],
				t0.Add(time.Duration((i*7)%n)*time.Second))
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// The newest is i with (i*7)%20 == 19: i = 17, odd, so failed.
	if got := h.chargeStatus(key); got != "failed" {
		t.Fatalf("status = %q, want failed (event 17 is the newest)", got)
	}
}
