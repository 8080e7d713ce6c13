package billing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// What a charge's later life does to the access it paid for (the EULA's
// refunds; a card network's disputes; docs/stripe.md):
//
//   - refunded in full, or a dispute lost: the money is gone, so is what it
//     paid for. An add-on loses its entitlement; a plan ends at once (no
//     renewal, no access for the rest of the period);
//   - a dispute opened: the subscription is suspended (no access) until the
//     dispute closes; won, the suspension is lifted;
//   - a first purchase whose payment failed after it was accepted as
//     processing: it never paid, so it ends.
//
// A renewal's failed payment is not handled here: the renewal job retries
// it (dunning). Each change is applied only for the charge's newest event
// (HandleStripeEvent's Applied), so events out of order change nothing.

// ApplyChargeAccess changes the access of the subscription the charge with
// the opaque id paid for after an event set the charge's status.
func (s *Service) ApplyChargeAccess(ctx context.Context, id, status string) error {
	ch, err := s.st.Ledger().Charge(ctx, id)
	if errors.Is(err, ErrNoCharge) {
		return nil // the event came before our ledger entry: the ledger applies it when the charge is recorded
	}
	if err != nil {
		return fmt.Errorf("read charge %s: %w", id, err)
	}
	// The history lines name the charge by its key, as they always have.
	key := ch.Key
	if ch.SubscriptionID == "" || ch.Duplicate {
		return nil // a payment twice for one thing: what it paid for was paid for by another
	}
	switch status {
	case ChargeRefunded, ChargeDisputeLost:
		return s.endForCharge(ctx, ch.SubscriptionID, key, ChangeRefunded, status)
	case ChargeFailed:
		if firstPurchase(key) {
			return s.endForCharge(ctx, ch.SubscriptionID, key, ChangePaymentFailed, status)
		}
	case ChargeSucceeded:
		if firstPurchase(key) {
			return s.reinstateForCharge(ctx, ch.SubscriptionID, key)
		}
	case ChargeDisputed:
		return s.setSuspended(ctx, ch.SubscriptionID, key, true)
	case ChargeDisputeWon:
		return s.setSuspended(ctx, ch.SubscriptionID, key, false)
	}
	return nil
}

// firstPurchase reports a charge key of a checkout or an add-on purchase
// (not a renewal).
func firstPurchase(key string) bool {
	return len(key) > 9 && (key[:9] == "checkout:" || key[:9] == "purchase:")
}

// endForCharge ends a subscription now: it expires, renews no more, and its
// history says why.
func (s *Service) endForCharge(ctx context.Context, subID, key, kind, status string) error {
	_, err := s.change(ctx, subID, func(sub Subscription) (Subscription, Effects, bool, error) {
		now := s.clock.Now()
		next := sub
		next.Status, next.ExpiresAt, next.DueAt, next.CancelAtPeriodEnd = StatusExpired, &now, time.Time{}, false
		line := sub.Line(kind+":"+key, now, Change{By: "provider", Kind: kind, From: sub.Status, To: StatusExpired, Detail: "charge " + status})
		return next, Effects{Lines: []Change{line}}, true, nil
	})
	if err != nil && !errors.Is(err, ErrNoSubscription) {
		return fmt.Errorf("end %s after %s: %w", subID, status, err)
	}
	return err
}

// reinstateForCharge gives back a first purchase that a failure of its
// charge ended, now that a newer event says the charge succeeded after all
// (an asynchronous payment retried, or the provider's answer re-read). Only
// what that failure ended comes back: a plan ended otherwise (a refund, the
// period over) stays ended.
func (s *Service) reinstateForCharge(ctx context.Context, subID, key string) error {
	endedBy := subID + "/" + ChangePaymentFailed + ":" + key
	h, err := s.History(ctx, subID)
	if err != nil {
		return fmt.Errorf("reinstate %s: %w", subID, err)
	}
	if !slices.ContainsFunc(h, func(c Change) bool { return c.ID == endedBy }) {
		return nil
	}
	_, err = s.change(ctx, subID, func(sub Subscription) (Subscription, Effects, bool, error) {
		now := s.clock.Now()
		if sub.Status != StatusExpired || (sub.MainPlan && !sub.CurrentPeriodEnd.After(now)) {
			return sub, Effects{}, false, nil
		}
		next := sub
		next.Status, next.ExpiresAt = StatusActive, nil
		if sub.MainPlan {
			next.DueAt = sub.CurrentPeriodEnd
		}
		line := sub.Line(ChangeReinstated+":"+key, now, Change{By: "provider", Kind: ChangeReinstated, From: StatusExpired,
			To: StatusActive, Detail: "charge succeeded"})
		return next, Effects{Lines: []Change{line}}, true, nil
	})
	if err != nil && !errors.Is(err, ErrNoSubscription) {
		return fmt.Errorf("reinstate %s: %w", subID, err)
	}
	return err
}

// setSuspended suspends a subscription while its payment is disputed, or
// lifts that.
func (s *Service) setSuspended(ctx context.Context, subID, key string, suspended bool) error {
	_, err := s.change(ctx, subID, func(sub Subscription) (Subscription, Effects, bool, error) {
		detail := "dispute opened"
		if !suspended {
			detail = "dispute won"
		}
		next := sub
		next.Suspended = suspended
		line := sub.Line(fmt.Sprintf("%s:%s:%t", ChangeDisputed, key, suspended), s.clock.Now(),
			Change{By: "provider", Kind: ChangeDisputed, Detail: detail})
		return next, Effects{Lines: []Change{line}}, true, nil
	})
	if err != nil && !errors.Is(err, ErrNoSubscription) {
		return fmt.Errorf("suspend %s: %w", subID, err)
	}
	return err
}
