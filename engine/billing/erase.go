package billing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"glimpse/engine"
)

// Collections whose documents a subscriber's erasure touches, exported for
// the privacy package's declaration of what happens to each collection.
const (
	CancelLinksCollection  = cancelLinksCollection
	StripeEventsCollection = stripeEventsCollection
	ReceiptsCollection     = receiptsCollection
	RefundsCollection      = refundsCollection
)

// ErasedEmail stands in for the address of an erased subscriber on the
// records kept for the tax period: it is no address, so no mail, index or
// sign-in can reach it.
const ErasedEmail = "erased"

// ChargesOf returns the charges that paid for the given subscriptions,
// oldest first (billing history, the support desk, the privacy export and
// erasure read them), each with its status (the newest event's).
func (s *Service) ChargesOf(ctx context.Context, subIDs []string) ([]Charge, error) {
	out, err := s.st.Ledger().OfSubscriptions(ctx, subIDs)
	if err != nil {
		return nil, fmt.Errorf("charges of subscriptions: %w", err)
	}
	return out, nil
}

// EraseSubscriber ends a deleted subscriber's subscriptions at once and
// strips them of the person: the subscriptions and their charges stay,
// without any address, account or card reference, until retainUntil (the
// tax period the operator keeps receipts for), so the books still add up;
// the history's free text, orders and cancel links go now. Running it
// again changes nothing more. The subscriptions are anonymised last: they
// are how an erasure stopped half-way finds the rest when run again
// (privacy finds them by account and address).
func (s *Service) EraseSubscriber(ctx context.Context, subs []Subscription, emails []string, retainUntil time.Time) error {
	ids := make([]string, 0, len(subs))
	for _, sub := range subs {
		ids = append(ids, sub.ID)
		if err := s.st.Subscriptions().EraseLines(ctx, sub.ID, append([]string{sub.UserID}, emails...)); err != nil {
			return fmt.Errorf("erase history of %s: %w", sub.ID, err)
		}
	}
	if len(ids) > 0 {
		if err := s.eraseLedger(ctx, ids, retainUntil); err != nil {
			return err
		}
	}
	if err := s.eraseOrders(ctx, ids, emails); err != nil {
		return err
	}
	for _, email := range normaliseEmails(emails) {
		if err := s.eraseCancelLinks(ctx, email); err != nil {
			return err
		}
	}
	for _, sub := range subs {
		if _, err := s.change(ctx, sub.ID, func(sub Subscription) (Subscription, Effects, bool, error) {
			return sub.Erase(s.clock.Now(), retainUntil), Effects{}, true, nil
		}); err != nil && !errors.Is(err, ErrNoSubscription) {
			return fmt.Errorf("erase subscription %s: %w", sub.ID, err)
		}
		s.touched(sub.UserID)
	}
	return nil
}

// eraseLedger keeps the subscriptions' charges, receipts and refunds for
// the tax period, marked so and stripped of the person: a receipt loses its
// address, a refund staff's reason, and a charge its key, which can name
// the account (an add-on's is "purchase:<user id>:<plan>"). Everything that
// refers to a charge names it by its opaque id, so nothing moves. The
// charges go last: an erasure stopped half way and run again finds them
// again by their subscriptions, and each step changes nothing more.
func (s *Service) eraseLedger(ctx context.Context, ids []string, retainUntil time.Time) error {
	charges, err := s.ChargesOf(ctx, ids)
	if err != nil {
		return err
	}
	// Receipts are kept with the ledger, without the address they went to.
	receipts, err := s.st.Receipts().OfSubscriptions(ctx, ids)
	if err != nil {
		return fmt.Errorf("anonymise receipts: %w", err)
	}
	for _, r := range receipts {
		if err := s.st.Receipts().Anonymise(ctx, r.Number, retainUntil); err != nil {
			return fmt.Errorf("anonymise receipts: %w", err)
		}
	}
	for _, ch := range charges {
		// A refund's reason is staff's free text about the person.
		refunds, err := s.RefundsOf(ctx, ch.ID)
		if err != nil {
			return fmt.Errorf("anonymise refunds: %w", err)
		}
		for _, ref := range refunds {
			if !slices.Contains(ids, ref.SubscriptionID) {
				continue
			}
			if err := s.st.Refunds().Anonymise(ctx, ref.ID, retainUntil); err != nil {
				return fmt.Errorf("anonymise refunds: %w", err)
			}
		}
	}
	for _, ch := range charges {
		if ch.Erased {
			continue // an earlier run's
		}
		newKey := "erased:" + engine.HashToken(ch.Key)
		// The provider's records first (the sandbox keeps its charges by
		// our keys): a rerun finds the charge by its old key until the
		// ledger's moves.
		if rk, ok := s.provider.(chargeRekeyer); ok {
			if err := rk.RekeyCharge(ctx, ch.Key, newKey); err != nil {
				return err
			}
		}
		if err := s.st.Ledger().Erase(ctx, ch.ID, newKey, retainUntil); err != nil {
			return fmt.Errorf("keep charges for the tax period: %w", err)
		}
	}
	return nil
}

// eraseOrders deletes the hosted-page orders of the subscriptions or the
// addresses, and the sandbox's pages for them: what they bought is in the
// ledger already, and an order names the buyer. Each page goes before its
// order, so an erasure stopped half way and run again still finds the
// order, and through it the page.
func (s *Service) eraseOrders(ctx context.Context, subIDs, emails []string) error {
	var orders []Order
	for _, email := range normaliseEmails(emails) {
		os, err := s.st.Orders().ByEmail(ctx, email)
		if err != nil {
			return fmt.Errorf("erase orders: %w", err)
		}
		orders = append(orders, os...)
	}
	for _, subID := range subIDs {
		os, err := s.st.Orders().OfSubscription(ctx, subID)
		if err != nil {
			return fmt.Errorf("erase orders: %w", err)
		}
		orders = append(orders, os...)
	}
	pages, _ := s.provider.(pageForgetter)
	done := map[string]bool{}
	for _, o := range orders {
		if done[o.ID] {
			continue
		}
		done[o.ID] = true
		// The sandbox's page of an order is keyed by the order (another
		// provider's pages are its own to keep).
		if pages != nil {
			if err := pages.ForgetPage(ctx, orderSessionKey(o.ID)); err != nil {
				return fmt.Errorf("erase sandbox pages: %w", err)
			}
		}
		if err := s.st.Orders().Delete(ctx, o.ID); err != nil {
			return fmt.Errorf("erase orders: %w", err)
		}
	}
	return nil
}

// chargeRekeyer is a provider keeping its charges by our keys (the
// sandbox), whose keys an erasure rewrites with the ledger's.
type chargeRekeyer interface {
	RekeyCharge(ctx context.Context, oldKey, newKey string) error
}

// pageForgetter is a provider keeping the hosted pages it opened (the
// sandbox), which an erasure deletes with their orders.
type pageForgetter interface {
	ForgetPage(ctx context.Context, key string) error
}

// eraseCancelLinks deletes an address's cancel links.
func (s *Service) eraseCancelLinks(ctx context.Context, email string) error {
	if _, err := s.st.CancelLinks().DeleteOf(ctx, email); err != nil {
		return fmt.Errorf("erase cancel links: %w", err)
	}
	return nil
}

// normaliseEmails is emails as billing keeps them, each once, without the
// empty ones.
func normaliseEmails(emails []string) []string {
	out := make([]string, 0, len(emails))
	for _, e := range emails {
		if e = normaliseEmail(e); e != "" && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}
