package billing

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"glimpse/engine"
	"glimpse/engine/brand"
)

// What staff do to a subscription from the support desk, beyond a refund
// and the subscriber's own cancel at period end (Cancel): end a plan now,
// give days, send a receipt again.

// ErrNotAPlan is a desk action that needs a main plan that still counts.
var ErrNotAPlan = engine.Errorf(engine.CodeConflict, "This is not a running plan.")

// ErrTookNoMoney is a charge that took no money, so has no receipt.
var ErrTookNoMoney = engine.Errorf(engine.CodeConflict, "This charge took no money, so it has no receipt.")

// MaxExtensionDays bounds what one extension gives.
const MaxExtensionDays = 90

// CancelNow ends a main plan at once: no access from now and no renewal.
// Money already taken is not given back (that is a refund of its own).
// Ending an ended plan is a no-op.
func (s *Service) CancelNow(ctx context.Context, subscriptionID, by string) (Subscription, error) {
	return s.change(ctx, subscriptionID, func(sub Subscription) (Subscription, Effects, bool, error) {
		return sub.CancelNow(s.clock.Now(), by)
	})
}

// Extend gives a running main plan days more: its period end, and so its
// next charge (or, canceled, the end of its access), moves on. key names
// the request (one per desk view): the same key extends once, whatever is
// sent again or together, since the subscription remembers the keys it was
// extended with and is written over the version read.
func (s *Service) Extend(ctx context.Context, subscriptionID string, days int, key, by string) (Subscription, error) {
	if days < 1 || days > MaxExtensionDays || key == "" || len(key) > 128 {
		return Subscription{}, engine.Errorf(engine.CodeInvalid, "An extension is 1 to %d days, with a request key.", MaxExtensionDays)
	}
	return s.change(ctx, subscriptionID, func(sub Subscription) (Subscription, Effects, bool, error) {
		now := s.clock.Now()
		if !sub.MainPlan || sub.Expired(now) || sub.Suspended {
			return sub, Effects{}, false, ErrNotAPlan
		}
		next, fx, ok := sub.Extend(key, days, s.periodEnd(sub, now), now, by)
		return next, fx, ok, nil
	})
}

// ResendReceipt mails a charge's receipt again: what it paid for, the
// amount and the date it was taken.
func (s *Service) ResendReceipt(ctx context.Context, chargeID string) error {
	ch, err := s.Charge(ctx, chargeID)
	if err != nil {
		return err
	}
	if ch.SubscriptionID == "" || (ch.Status != ChargeSucceeded && ch.Status != ChargePartiallyRefunded && ch.Status != ChargeRefunded) {
		return ErrTookNoMoney
	}
	rec, err := s.ReceiptOfCharge(ctx, ch.ID)
	if errors.Is(err, ErrNoReceipt) {
		// A charge from before receipts were kept: issue its receipt now,
		// which mails it.
		sub, err := s.Subscription(ctx, ch.SubscriptionID)
		if err != nil {
			return err
		}
		kind := ReceiptPurchase
		if plan, err := s.catalogue.Plan(sub.PlanCode); err == nil && plan.Kind == KindAddOn {
			kind = ReceiptAddOn
		}
		_, err = s.issueReceipt(ctx, Receipt{ChargeID: ch.ID, SubscriptionID: sub.ID, Email: sub.Email, Brand: sub.Brand,
			Kind: kind, PlanCode: sub.PlanCode, Amount: ch.Amount, CardBrand: sub.PaymentMethod.Brand,
			CardLast4: sub.PaymentMethod.Last4, PaidAt: ch.CreatedAt})
		return err
	}
	if err != nil {
		return err
	}
	data := receiptNoticeData(rec)
	// Sent again after a refund, the receipt says what was given back.
	refunds, err := s.RefundsOf(ctx, ch.ID)
	if err != nil {
		return err
	}
	if back, on := GivenBack(refunds); back.Amount > 0 {
		data["refunded"], data["refundedOn"] = back.String(), brand.Date(on)
	}
	s.send(ctx, Notice{Key: rec.MailKey() + ":again:" + strconv.FormatInt(s.clock.Now().UnixNano(), 10),
		To: rec.Email, Brand: rec.Brand, Kind: NoticeReceipt, Data: data})
	return nil
}

// What the support desk looks a subscriber up by: the start of an address
// or a part of it, a card's last four, a receipt number, a charge's id or the provider's
// reference for it. Each is one indexed read (docs/support.md).

// SubscriptionsFrom returns up to n subscriptions whose address starts with
// prefix (lower-cased here, as addresses are stored), by address.
func (s *Service) SubscriptionsFrom(ctx context.Context, prefix string, n int) ([]Subscription, error) {
	out, err := s.st.Subscriptions().WithEmailPrefix(ctx, strings.ToLower(strings.TrimSpace(prefix)), n)
	if err != nil {
		return nil, fmt.Errorf("subscriptions from %q: %w", prefix, err)
	}
	return out, nil
}

// SubscriptionsContaining returns up to n subscriptions, not erased, whose
// address contains part (lower-cased here, as addresses are stored), by
// address; nothing for a part Containable refuses (too short).
func (s *Service) SubscriptionsContaining(ctx context.Context, part string, n int) ([]Subscription, error) {
	part = strings.ToLower(strings.TrimSpace(part))
	if !Containable(part) {
		return nil, nil
	}
	out, err := s.st.Subscriptions().WithEmailContaining(ctx, part, n)
	if err != nil {
		return nil, fmt.Errorf("subscriptions containing %q: %w", part, err)
	}
	return out, nil
}

// SubscriptionsWithCard returns up to n subscriptions whose card on file
// ends in last4, by address.
func (s *Service) SubscriptionsWithCard(ctx context.Context, last4 string, n int) ([]Subscription, error) {
	out, err := s.st.Subscriptions().WithCard(ctx, last4, n)
	if err != nil {
		return nil, fmt.Errorf("subscriptions with card %s: %w", last4, err)
	}
	return out, nil
}

// ReceiptByNumber returns a receipt by the number people quote; ErrNoReceipt.
func (s *Service) ReceiptByNumber(ctx context.Context, number string) (Receipt, error) {
	r, err := s.st.Receipts().ByNumber(ctx, number)
	if err != nil && !errors.Is(err, ErrNoReceipt) {
		return Receipt{}, fmt.Errorf("read receipt %s: %w", number, err)
	}
	return r, err
}

// ChargeByReference returns the charge the provider knows as ref (Stripe's
// pi_…, the sandbox's own); ErrNoCharge.
func (s *Service) ChargeByReference(ctx context.Context, ref string) (Charge, error) {
	ch, err := s.st.Ledger().ByReference(ctx, ref)
	if err != nil && !errors.Is(err, ErrNoCharge) {
		return Charge{}, fmt.Errorf("read charge %s: %w", ref, err)
	}
	return ch, err
}

// ReceiptsOf returns the receipts of the subscriptions, oldest paid first.
func (s *Service) ReceiptsOf(ctx context.Context, subIDs []string) ([]Receipt, error) {
	out, err := s.st.Receipts().OfSubscriptions(ctx, subIDs)
	if err != nil {
		return nil, fmt.Errorf("receipts: %w", err)
	}
	return out, nil
}

// ExtendedEnd is the date an extension of days would move the plan's period
// end to, as Extend computes it: the desk shows it before staff confirm.
func (s *Service) ExtendedEnd(sub Subscription, days int) time.Time {
	return s.periodEnd(sub, s.clock.Now()).AddDate(0, 0, days)
}
