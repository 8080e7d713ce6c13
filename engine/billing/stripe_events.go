package billing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"glimpse/engine"
)

// stripeEventsCollection names the table and collection of the Stripe
// events handled (billing's store, StripeEvents), for privacy's fates.
const stripeEventsCollection = "stripe_events"

// StripeEventMemory is how long a handled event's id is remembered: Stripe
// retries a delivery for three days at most.
const StripeEventMemory = 90 * 24 * time.Hour

// webhookTolerance is how far a delivery's signed timestamp may be from now,
// the Stripe libraries' default, which limits replays.
const webhookTolerance = 300 * time.Second

// Errors of a webhook delivery that is not Stripe's (or the sandbox's).
var (
	ErrWebhookOff      = engine.Errorf(engine.CodeNotFound, "No webhook secret is set.")
	ErrBadSignature    = engine.Errorf(engine.CodeInvalid, "invalid signature")
	ErrSignatureTooOld = engine.Errorf(engine.CodeInvalid, "timestamp outside the tolerance")
)

// ReceiveStripeWebhook verifies a delivery and handles its event: the
// Stripe-Signature header must hold an HMAC-SHA256 of "<t>.<body>" keyed
// with the webhook secret, made within webhookTolerance of the service's
// clock (docs/stripe.md §3). The body is verified as received, before
// anything parses it. The event's API version is not compared with the
// library's: only fields every recent version has are read.
func (s *Service) ReceiveStripeWebhook(ctx context.Context, body []byte, signature string) (StripeEventResult, error) {
	if s.webhookSecret == "" {
		return StripeEventResult{}, ErrWebhookOff
	}
	at, ok := signedAt(signature)
	if !ok {
		return StripeEventResult{}, ErrBadSignature
	}
	if d := s.clock.Now().Sub(at); d > webhookTolerance || d < -webhookTolerance {
		return StripeEventResult{}, ErrSignatureTooOld
	}
	ev, err := webhook.ConstructEventWithOptions(body, signature, s.webhookSecret,
		webhook.ConstructEventOptions{IgnoreTolerance: true, IgnoreAPIVersionMismatch: true})
	if err != nil {
		return StripeEventResult{}, fmt.Errorf("%w: %w", ErrBadSignature, err)
	}
	res, err := s.HandleStripeEvent(ctx, ev)
	res.Type = string(ev.Type)
	return res, err
}

// StripeEventResult says what HandleStripeEvent did with an event.
type StripeEventResult struct {
	Duplicate bool   // handled before: nothing done
	Key       string // the charge it concerned ("" if none)
	Status    string // the status it reports
	Applied   bool   // it is the charge's newest event, so the ledger shows its status
	Order     string // the order a checkout.session.* event settled ("" if none)
	Type      string // the event's type, as Stripe named it (set by ReceiveStripeWebhook)
}

// stripeObject is the part of an event's object we read: a PaymentIntent,
// a Charge or a Dispute.
type stripeObject struct {
	ID            string            `json:"id"`
	Object        string            `json:"object"`
	Metadata      map[string]string `json:"metadata"`
	PaymentIntent json.RawMessage   `json:"payment_intent"` // an id, or the object when expanded
	Refunded      bool              `json:"refunded"`
	Status        string            `json:"status"` // a dispute's: won, lost, …
	// A Checkout Session's: our order id.
	ClientReferenceID string `json:"client_reference_id"`
}

// HandleStripeEvent applies a verified Stripe event (see the server's
// /webhooks/stripe) to the charges ledger:
//
//   - payment_intent.succeeded and payment_intent.payment_failed set the
//     charge's status to succeeded or failed;
//   - charge.refunded sets refunded (partially_refunded when the charge is
//     not refunded in full);
//   - charge.dispute.created sets disputed, and charge.dispute.closed
//     dispute_won or dispute_lost;
//
// and then changes the access the charge paid for (ApplyChargeAccess).
//
// The charge is found by the glimpse_key metadata our PaymentIntents carry,
// or else by the PaymentIntent id kept as its reference. Stripe delivers an
// event more than once and in no set order (https://docs.stripe.com/webhooks):
// an event id already recorded in stripe_events does nothing, and an event
// older than one already applied to its charge is recorded but changes
// nothing (ApplyChargeEvent). Other event types are recorded and ignored.
//
// The event id is recorded after the work, so a crash in between makes
// Stripe's retry do it again instead of losing it; the work itself is
// idempotent per event id, so two deliveries handled at once are harmless.
func (s *Service) HandleStripeEvent(ctx context.Context, ev stripe.Event) (StripeEventResult, error) {
	var res StripeEventResult
	if ev.ID == "" {
		return res, errors.New("stripe event without an id")
	}
	_, seen, err := s.st.StripeEvents().Get(ctx, ev.ID)
	if err != nil {
		return res, fmt.Errorf("read stripe event %s: %w", ev.ID, err)
	}
	if seen {
		res.Duplicate = true
		return res, nil
	}
	if checkoutEvent(ev.Type) && ev.Data != nil {
		var obj stripeObject
		if err := json.Unmarshal(ev.Data.Raw, &obj); err != nil {
			return res, fmt.Errorf("read stripe event %s: %w", ev.ID, err)
		}
		res.Order = obj.ClientReferenceID
		if res.Order == "" {
			res.Order = obj.Metadata[StripeOrderKey]
		}
		at := time.Unix(ev.Created, 0).UTC()
		if res.Status, err = s.settleCheckout(ctx, settlingEvent{ID: ev.ID, Type: string(ev.Type), At: at}, obj.ID, res.Order); err != nil {
			return res, err
		}
	} else if res.Status = stripeEventStatus(ev); res.Status != "" && ev.Data != nil {
		var obj stripeObject
		if err := json.Unmarshal(ev.Data.Raw, &obj); err != nil {
			return res, fmt.Errorf("read stripe event %s: %w", ev.ID, err)
		}
		if ev.Type == stripe.EventTypeChargeRefunded && !obj.Refunded {
			res.Status = "partially_refunded"
		}
		if ev.Type == stripe.EventTypeChargeDisputeClosed {
			if res.Status = disputeClosedStatus(obj.Status); res.Status == "" {
				res.Status = ChargeDisputed // warning_closed and the like: still under review
			}
		}
		chargeID, reference, err := s.stripeCharge(ctx, obj)
		if err != nil {
			return res, err
		}
		if chargeID != "" || reference != "" {
			res.Key = chargeID
			if chargeID == "" {
				res.Key = "ref:" + reference
			}
			at := time.Unix(ev.Created, 0).UTC()
			if res.Applied, err = s.addChargeEvent(ctx, ChargeEvent{ChargeID: chargeID, Reference: reference, EventID: ev.ID,
				Status: res.Status, At: at}); err != nil {
				return res, err
			}
			if res.Applied && chargeID != "" {
				if err := s.ApplyChargeAccess(ctx, chargeID, res.Status); err != nil {
					return res, err
				}
			}
		}
	}
	chargeID := ""
	if res.Key != "" && !strings.HasPrefix(res.Key, "ref:") {
		chargeID = res.Key
	}
	err = s.st.StripeEvents().Record(ctx, StripeEventRecord{ID: ev.ID, Type: string(ev.Type), ChargeID: chargeID,
		Order: res.Order, Applied: res.Applied, Created: time.Unix(ev.Created, 0).UTC(), ReceivedAt: s.clock.Now()})
	if err != nil {
		return res, fmt.Errorf("record stripe event %s: %w", ev.ID, err)
	}
	return res, nil
}

// checkoutEvent reports the Checkout Session events that settle an order.
func checkoutEvent(t stripe.EventType) bool {
	switch t {
	case stripe.EventTypeCheckoutSessionCompleted, stripe.EventTypeCheckoutSessionAsyncPaymentSucceeded,
		stripe.EventTypeCheckoutSessionAsyncPaymentFailed, stripe.EventTypeCheckoutSessionExpired:
		return true
	}
	return false
}

// stripeEventStatus is the charge status an event type reports, "" for the
// types not handled.
func stripeEventStatus(ev stripe.Event) string {
	switch ev.Type {
	case stripe.EventTypePaymentIntentSucceeded:
		return ChargeSucceeded
	case stripe.EventTypePaymentIntentPaymentFailed:
		return ChargeFailed
	case stripe.EventTypeChargeRefunded:
		return ChargeRefunded
	case stripe.EventTypeChargeDisputeCreated:
		return ChargeDisputed
	case stripe.EventTypeChargeDisputeClosed:
		return ChargeDisputed // the dispute's outcome decides: disputeClosedStatus
	}
	return ""
}

// disputeClosedStatus is the ledger status of a closed dispute's outcome
// (https://docs.stripe.com/api/disputes/object#dispute_object-status), ""
// for an outcome that settles nothing.
func disputeClosedStatus(status string) string {
	switch status {
	case "won":
		return ChargeDisputeWon
	case "lost":
		return ChargeDisputeLost
	}
	return ""
}

// stripeCharge finds the opaque id of the charge an event's object is
// about: by our idempotency key in its metadata, else by the PaymentIntent
// id kept as its reference. A charge not in the ledger yet (the payment's
// own event is still on its way) is named by that reference alone, and the
// ledger applies the event when the charge is recorded.
func (s *Service) stripeCharge(ctx context.Context, obj stripeObject) (chargeID, reference string, err error) {
	if key := obj.Metadata[StripeMetadataKey]; key != "" && obj.Object != "dispute" {
		return ChargeIDOf(key), "", nil
	}
	pi := obj.ID
	if obj.Object != "payment_intent" {
		pi = ""
		if len(obj.PaymentIntent) > 0 {
			var id string
			if json.Unmarshal(obj.PaymentIntent, &id) != nil {
				var expanded struct {
					ID string `json:"id"`
				}
				_ = json.Unmarshal(obj.PaymentIntent, &expanded)
				id = expanded.ID
			}
			pi = id
		}
	}
	id, err := s.ChargeIDByReference(ctx, pi)
	if id == "" && err == nil {
		return "", pi, nil
	}
	return id, "", err
}
