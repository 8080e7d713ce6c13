package billing

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Nothing stays pending for ever. A hosted page paid while our server
// crashed before fulfilling it, a page left open until it closed, a refund
// claimed before the provider answered: an order is given a check time
// before the step that can be lost, and found by the store's index of
// unsettled orders once it is due (Orders.Unsettled); a refund is found by
// the store's index of pending refunds (Refunds.Pending); and a pass
// (ReconcilePending, with the renewal pass) reads what is due and asks the
// provider again. Stripe
// redelivers a webhook for days (https://docs.stripe.com/webhooks); the
// sandbox never does, and neither answers a request that never reached it,
// so the pass is what finishes the work in both modes:
//
//   - an order still pending: its session is read again from the provider
//     (the same call fulfilment trusts); paid, it is settled as a verified
//     event would settle it; expired, it is settled expired; still open, it
//     is looked at again later, until its page can no longer be paid;
//   - a refund still pending: the provider is asked again with the same
//     idempotency key, so a refund it made is recorded, never made twice.

// ReconcileAfter is how long after a page opens, or a refund is asked for,
// the pass first looks at it: longer than a payment or a refund normally
// takes to be answered, so the pass rarely does what an event does anyway.
const ReconcileAfter = 2 * time.Minute

// reconcileEvery is how often an order whose page is still open is looked
// at again.
const reconcileEvery = 5 * time.Minute

// pageCanBePaid bounds how long after an order a page may still be paid: a
// Checkout Session lasts a day at most (the sandbox's too), and an hour more
// covers clocks.
const pageCanBePaid = 25 * time.Hour

// pendingRefundsPerPass bounds the refunds one pass asks again for; the
// next pass takes the rest.
const pendingRefundsPerPass = 100

// pendingOrdersPerPass bounds the orders one pass looks at; the next pass
// takes the rest.
const pendingOrdersPerPass = 100

// checkLater has the pass look at an order after ReconcileAfter.
func (s *Service) checkLater(ctx context.Context, orderID string) error {
	if err := s.st.Orders().Recheck(ctx, orderID, s.clock.Now().Add(ReconcileAfter)); err != nil {
		return fmt.Errorf("check order %s later: %w", orderID, err)
	}
	return nil
}

// ReconcileStats counts what a pass did.
type ReconcileStats struct {
	Due, Settled, Refunds int
}

// ReconcilePending looks again at the orders and refunds due for a check:
// see the comment at the top of this file.
func (s *Service) ReconcilePending(ctx context.Context) (ReconcileStats, error) {
	now := s.clock.Now()
	due, err := s.st.Orders().Unsettled(ctx, now, pendingOrdersPerPass)
	if err != nil {
		return ReconcileStats{}, fmt.Errorf("orders to reconcile: %w", err)
	}
	stats := ReconcileStats{Due: len(due)}
	var errs []error
	for _, order := range due {
		settled, again, err := s.reconcileOrder(ctx, order)
		if settled {
			stats.Settled++
		}
		var next time.Time // none: settled, or nothing to ask
		switch {
		case err != nil:
			// Its check time stays: the next pass tries again.
			errs = append(errs, err)
			continue
		case again:
			next = now.Add(reconcileEvery)
		}
		if err := s.st.Orders().Recheck(ctx, order.ID, next); err != nil {
			errs = append(errs, fmt.Errorf("check order %s later: %w", order.ID, err))
		}
	}
	done, err := s.reconcileRefunds(ctx, now.Add(-ReconcileAfter))
	stats.Refunds += done
	if err != nil {
		errs = append(errs, err)
	}
	return stats, errors.Join(errs...)
}

// reconcileOrder settles an order its events have not settled, from what
// the provider says of its session now. It reports whether it settled it,
// and whether to look again later (the page is still open).
func (s *Service) reconcileOrder(ctx context.Context, order Order) (settled, again bool, err error) {
	if order.Status != OrderPending && order.Status != OrderProcessing {
		return false, false, nil
	}
	if order.Session == "" {
		// Its page was never opened (the provider refused): nothing to pay.
		return false, false, nil
	}
	res, err := s.provider.SessionResult(ctx, order.Session)
	if err != nil {
		return false, false, err
	}
	now := s.clock.Now()
	// The provider's answer is the event: dated now, it is newer than any
	// event about the payment that came before.
	ev := settlingEvent{ID: "reconcile:" + order.ID, At: now}
	switch {
	case res.Paid():
		ev.Type = "checkout.session.completed"
	case res.Status == "expired" || now.Sub(order.CreatedAt) > pageCanBePaid:
		ev.Type = "checkout.session.expired"
		res.Status = "expired"
	default:
		return false, true, nil
	}
	outcome := OrderPaid
	if ev.Type == "checkout.session.expired" {
		outcome = OrderExpired
	}
	s.logger.Warn("order settled by reconciliation", "order", order.ID, "outcome", outcome)
	return true, false, s.settle(ctx, order, outcome, res, ev)
}

// reconcileRefunds asks the provider again for the refunds claimed before
// before and still pending, and counts those it finished.
func (s *Service) reconcileRefunds(ctx context.Context, before time.Time) (int, error) {
	pending, err := s.st.Refunds().Pending(ctx, before, pendingRefundsPerPass)
	if err != nil {
		return 0, err
	}
	done := 0
	var errs []error
	for _, r := range pending {
		ch, err := s.Charge(ctx, r.ChargeID)
		if err != nil {
			errs = append(errs, fmt.Errorf("refund %s: %w", r.ID, err))
			continue
		}
		s.logger.Warn("refund finished by reconciliation", "refund", r.ID)
		if _, err := s.finishRefund(ctx, ch, r); err != nil {
			errs = append(errs, err)
			continue
		}
		done++
	}
	return done, errors.Join(errs...)
}
