package billing

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine"
)

// The retention flow's two offers: a plan change that takes effect at the
// next renewal, and a free month. Both are safe to call again with the same
// key (a double tap, a retry, a second instance): the subscription changes
// once and its history gets one line.

// ErrOfferUnavailable is an offer the subscription cannot take: it is not an
// active main plan, it is being retried after a failed payment, or the plan
// is not the brand's sale plan.
var ErrOfferUnavailable = engine.Errorf(engine.CodeConflict, "This offer is not available for your plan.")

// ChangePlanAtRenewal moves a main plan to saleCode (a sale variant of the
// subscription's brand) from its next period: NextPlanCode is set, which the
// renewal job charges and applies. The current period is untouched. A plan
// already changed to saleCode is left as it is, and the history line is
// keyed by key, so calling again (with any key) changes nothing.
func (s *Service) ChangePlanAtRenewal(ctx context.Context, subID, saleCode, key, by string) (Subscription, error) {
	if key == "" || len(key) > 128 {
		return Subscription{}, engine.Errorf(engine.CodeInvalid, "missing offer key")
	}
	sub, err := s.Subscription(ctx, subID)
	if err != nil {
		return Subscription{}, err
	}
	plan, err := s.catalogue.Plan(saleCode)
	subBrand := sub.Brand
	if subBrand == "" {
		subBrand = "default" // written before brands were kept
	}
	if err != nil || !plan.Sale || plan.Kind != KindMain || plan.Brand != subBrand {
		return sub, ErrUnknownPlan
	}
	if !sub.MainPlan || sub.Status != StatusActive {
		return sub, ErrOfferUnavailable
	}
	if sub.NextPlanCode == saleCode {
		return sub, nil // asked before (this key or another): already in place
	}
	if _, err := s.db.Collection(SubscriptionsCollection).UpdateOne(ctx, bson.M{"_id": sub.ID},
		bson.M{"$set": bson.M{"nextPlanCode": saleCode}}); err != nil {
		return Subscription{}, fmt.Errorf("change plan of %s: %w", sub.ID, err)
	}
	sub.NextPlanCode = saleCode
	end := s.periodEnd(sub, s.clock.Now())
	s.record(ctx, sub.ID, "plan_change:"+key, Change{By: by, Kind: ChangePlanChanged, From: sub.PlanCode, To: saleCode,
		Detail: plan.Price.String() + " from " + end.Format(time.RFC3339)})
	s.touched(sub.UserID)
	return sub, nil
}

// AddFreeMonth moves an active main plan's period end, and so its next
// charge, one calendar month later. Once per key: the first caller claims
// the key with the period end it starts from and the one it sets (a unique
// insert, so one claim wins), and every caller then writes that claimed end,
// only while the subscription still ends where the claim started. A retry
// after a crash between the claim and the write completes it; a retry after
// a renewal moved the period on changes nothing.
func (s *Service) AddFreeMonth(ctx context.Context, subID, key, by string) (Subscription, error) {
	if key == "" || len(key) > 128 {
		return Subscription{}, engine.Errorf(engine.CodeInvalid, "missing offer key")
	}
	sub, err := s.Subscription(ctx, subID)
	if err != nil {
		return Subscription{}, err
	}
	now := s.clock.Now()
	base := s.periodEnd(sub, now)
	claimID := "free-month:" + sub.ID + ":" + key
	target := base.AddDate(0, 1, 0)
	won, err := s.claims.Take(ctx, claimID, freeMonthOwner(base, target), now.AddDate(100, 0, 0))
	if err != nil {
		return Subscription{}, fmt.Errorf("free month for %s: %w", sub.ID, err)
	}
	if !won {
		owner, err := s.claims.Owner(ctx, claimID)
		if err != nil {
			return Subscription{}, fmt.Errorf("free month for %s: %w", sub.ID, err)
		}
		if base, target, err = parseFreeMonthOwner(owner); err != nil {
			return Subscription{}, fmt.Errorf("free month for %s: %w", sub.ID, err)
		}
	} else if !sub.MainPlan || sub.Status != StatusActive || sub.FailedAttempts > 0 {
		// Nothing was written: give the key back so a later, valid call may use it.
		_ = s.claims.Release(ctx, claimID)
		return sub, ErrOfferUnavailable
	}
	if s.periodEnd(sub, now).Equal(base) {
		if _, err := s.db.Collection(SubscriptionsCollection).UpdateOne(ctx,
			bson.M{"_id": sub.ID, "status": StatusActive},
			bson.M{"$set": bson.M{"currentPeriodEnd": target, "dueAt": target}}); err != nil {
			return Subscription{}, fmt.Errorf("free month for %s: %w", sub.ID, err)
		}
		sub.CurrentPeriodEnd, sub.DueAt = target, target
	}
	s.record(ctx, sub.ID, "extended:"+key, Change{By: by, Kind: ChangeExtended,
		From: base.Format(time.RFC3339), To: target.Format(time.RFC3339), Detail: "one free month"})
	s.touched(sub.UserID)
	return sub, nil
}

func freeMonthOwner(base, target time.Time) string {
	return base.UTC().Format(time.RFC3339Nano) + "|" + target.UTC().Format(time.RFC3339Nano)
}

func parseFreeMonthOwner(owner string) (base, target time.Time, err error) {
	b, t, ok := strings.Cut(owner, "|")
	if !ok {
		return base, target, fmt.Errorf("unreadable free-month claim %q", owner)
	}
	if base, err = time.Parse(time.RFC3339Nano, b); err != nil {
		return base, target, err
	}
	target, err = time.Parse(time.RFC3339Nano, t)
	return base, target, err
}
