package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"glimpse/engine"
)

// Charge statuses a provider's events may set in the ledger, besides the
// "succeeded", "processing" and "failed" a charge starts with.
const (
	ChargeSucceeded = "succeeded"
	ChargeFailed    = "failed"
	ChargeRefunded  = "refunded"
	ChargeDisputed  = "disputed"
	// A dispute closed: won keeps the money (and gives access back), lost
	// takes it (and ends what it paid for, as a refund does).
	ChargeDisputeWon  = "dispute_won"
	ChargeDisputeLost = "dispute_lost"
)

// ApplyChargeEvent records that the provider reported status for the charge
// whose idempotency key is key, in an event created at at, and sets the
// charge's status in the ledger to that of the newest event seen so far. It
// reports whether this event is now the newest (applied) or arrived after a
// newer one (recorded, not applied).
//
// Events may come twice and in any order (https://docs.stripe.com/webhooks):
// the ledger stores each once and applies it by a write conditional on the
// applied event being older (Ledger.AddEvent), so events sent together end
// on the newest. A charge not yet in the ledger (the webhook beat the
// charge call's answer) takes the newest event when it is recorded.
func (s *Service) ApplyChargeEvent(ctx context.Context, key, eventID, status string, at time.Time) (applied bool, err error) {
	if key == "" {
		return false, errors.New("apply charge event: a key is required")
	}
	return s.addChargeEvent(ctx, ChargeEvent{ChargeID: ChargeIDOf(key), EventID: eventID, Status: status, At: at.UTC()})
}

// addChargeEvent stores an event about a charge, named by its id or its
// provider reference, and reports whether it is the newest.
func (s *Service) addChargeEvent(ctx context.Context, ev ChargeEvent) (bool, error) {
	if ev.EventID == "" || ev.Status == "" {
		return false, errors.New("apply charge event: event id and status are required")
	}
	applied, err := s.st.Ledger().AddEvent(ctx, ev)
	if err != nil {
		return false, fmt.Errorf("apply charge event %s: %w", ev.EventID, err)
	}
	return applied, nil
}

// ChargeStatus returns the status of the charge with the opaque id: the
// newest provider event's, or the ledger's when no event came. "" means
// the charge is unknown.
func (s *Service) ChargeStatus(ctx context.Context, id string) (string, error) {
	ch, err := s.st.Ledger().Charge(ctx, id)
	if errors.Is(err, ErrNoCharge) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read charge %s: %w", id, err)
	}
	return ch.Status, nil
}

// ChargeIDByReference finds the opaque id of the charge a provider knows
// as reference (a Stripe pi_… id), for events that do not carry our
// metadata (a dispute). "" when there is none.
func (s *Service) ChargeIDByReference(ctx context.Context, reference string) (string, error) {
	if reference == "" {
		return "", nil
	}
	ch, err := s.st.Ledger().ByReference(ctx, reference)
	if errors.Is(err, ErrNoCharge) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("charge of reference %s: %w", reference, err)
	}
	return ch.ID, nil
}

// recordCharges keeps the provider's answers in the ledger, each under the
// opaque id of its key (a key recorded already keeps its first answer), and
// applies to each the access change of any event that came before it (the
// webhook beat the charge call's answer): the ledger gives a new charge the
// newest earlier event's status.
func (s *Service) recordCharges(ctx context.Context, chs []Charge) error {
	if len(chs) == 0 {
		return nil
	}
	stored, err := s.st.Ledger().Record(ctx, chs)
	if err != nil {
		return fmt.Errorf("record charges: %w", err)
	}
	return s.catchUpCharges(ctx, chs, stored)
}

// catchUpCharges changes the access of what each charge paid for when the
// ledger holds a newer status than the answer recorded (an event came
// first).
func (s *Service) catchUpCharges(ctx context.Context, given, stored []Charge) error {
	var errs []error
	for i, ch := range stored {
		if i < len(given) && ch.Status != given[i].Status {
			errs = append(errs, s.ApplyChargeAccess(ctx, ch.ID, ch.Status))
		}
	}
	return errors.Join(errs...)
}

// ledgerCharge is the charge the provider answered, as the ledger keeps it:
// under the opaque id of the request's key, paid for its subscription.
func (s *Service) ledgerCharge(req ChargeRequest, ch Charge) Charge {
	if ch.Key == "" {
		ch.Key = req.Key
	}
	ch.ID = ChargeIDOf(ch.Key)
	ch.SubscriptionID = req.SubscriptionID
	if ch.CreatedAt.IsZero() {
		ch.CreatedAt = s.clock.Now()
	}
	return ch
}

// ChargeIDOf is the opaque id of the charge with key: computable from the
// key, naming nobody (a key such as "purchase:<user id>:<plan>" names the
// account). Everything that refers to a charge (its events, refunds,
// receipts, stripe_events) names it by this id, so an erasure rewrites the
// charge's key alone (Ledger.Erase) and nothing moves.
func ChargeIDOf(key string) string { return "ch_" + engine.HashToken("charge:" + key)[:24] }

// SweepLedger deletes what the ledger's side keeps only for a while: cancel
// links expired CancelLinkGrace ago and the ids of webhook events received
// StripeEventMemory ago. It returns how many went.
func (s *Service) SweepLedger(ctx context.Context) (int64, error) {
	now := s.clock.Now()
	links, err := s.st.CancelLinks().DeleteExpired(ctx, now.Add(-CancelLinkGrace))
	if err != nil {
		return 0, err
	}
	events, err := s.st.StripeEvents().DeleteReceivedBefore(ctx, now.Add(-StripeEventMemory))
	return links + events, err
}
