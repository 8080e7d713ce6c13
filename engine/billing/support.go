package billing

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"

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
	sub, err := s.Subscription(ctx, subscriptionID)
	if err != nil {
		return Subscription{}, err
	}
	next, fx, ok, err := sub.CancelNow(s.clock.Now(), by)
	if err != nil || !ok {
		return sub, err
	}
	if _, err := s.db.Collection(SubscriptionsCollection).UpdateOne(ctx, bson.M{"_id": sub.ID}, bson.M{
		"$set":   bson.M{"status": next.Status, "expiresAt": next.ExpiresAt, "canceledAt": next.CanceledAt},
		"$unset": bson.M{"dueAt": "", "cancelAtPeriodEnd": "", "nextPlanCode": ""},
	}); err != nil {
		return Subscription{}, fmt.Errorf("cancel %s now: %w", sub.ID, err)
	}
	sub = next
	s.effects(ctx, fx)
	s.touched(sub.UserID)
	return sub, nil
}

// Extend gives a running main plan days more: its period end, and so its
// next charge (or, canceled, the end of its access), moves on. key names
// the request (one per desk view): the same key extends once, whatever is
// sent again or together, by a unique claim.
func (s *Service) Extend(ctx context.Context, subscriptionID string, days int, key, by string) (Subscription, error) {
	if days < 1 || days > MaxExtensionDays || key == "" || len(key) > 128 {
		return Subscription{}, engine.Errorf(engine.CodeInvalid, "An extension is 1 to %d days, with a request key.", MaxExtensionDays)
	}
	sub, err := s.Subscription(ctx, subscriptionID)
	if err != nil {
		return Subscription{}, err
	}
	now := s.clock.Now()
	if !sub.MainPlan || sub.Expired(now) || sub.Suspended {
		return sub, ErrNotAPlan
	}
	won, err := s.claims.Take(ctx, "extend:"+sub.ID+":"+key, by, now.AddDate(1, 0, 0))
	if err != nil {
		return Subscription{}, fmt.Errorf("extend %s: %w", sub.ID, err)
	}
	if !won {
		return sub, nil // this request was made already
	}
	next, fx, _ := sub.Extend(key, days, s.periodEnd(sub, now), now, by)
	end := next.CurrentPeriodEnd
	set := bson.M{"currentPeriodEnd": end, "dueAt": end}
	if next.ExpiresAt != nil && sub.Status == StatusCanceled {
		set["expiresAt"] = end
	}
	if err := s.scheduleRenewal(ctx, sub.ID, end); err != nil {
		_ = s.claims.Release(ctx, "extend:"+sub.ID+":"+key)
		return Subscription{}, fmt.Errorf("extend %s: %w", sub.ID, err)
	}
	if _, err := s.db.Collection(SubscriptionsCollection).UpdateOne(ctx, bson.M{"_id": sub.ID}, bson.M{"$set": set}); err != nil {
		_ = s.claims.Release(ctx, "extend:"+sub.ID+":"+key)
		return Subscription{}, fmt.Errorf("extend %s: %w", sub.ID, err)
	}
	next.Extensions = sub.Extensions // the claim, not the document, remembers the key until the move
	sub = next
	s.effects(ctx, fx)
	s.touched(sub.UserID)
	return sub, nil
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
	rec, err := s.ReceiptOfCharge(ctx, ch.Key)
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
		_, err = s.issueReceipt(ctx, Receipt{ChargeKey: ch.Key, SubscriptionID: sub.ID, Email: sub.Email, Brand: sub.Brand,
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
