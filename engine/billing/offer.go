package billing

import (
	"context"
	"strconv"
	"strings"
	"time"

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
	return s.change(ctx, subID, func(sub Subscription) (Subscription, Effects, bool, error) {
		plan, err := s.catalogue.Plan(saleCode)
		subBrand := sub.Brand
		if subBrand == "" {
			subBrand = "default" // written before brands were kept
		}
		if err != nil || !plan.Sale || plan.Kind != KindMain || plan.Brand != subBrand {
			return sub, Effects{}, false, ErrUnknownPlan
		}
		if !sub.MainPlan || sub.Status != StatusActive {
			return sub, Effects{}, false, ErrOfferUnavailable
		}
		if sub.NextPlanCode == saleCode {
			return sub, Effects{}, false, nil // asked before (this key or another): already in place
		}
		now := s.clock.Now()
		next := sub
		next.NextPlanCode = saleCode
		end := s.periodEnd(sub, now)
		return next, Effects{
			Lines: []Change{sub.Line("plan_change:"+key, now, Change{By: by, Kind: ChangePlanChanged, From: sub.PlanCode, To: saleCode,
				Detail: plan.Price.String() + " from " + end.Format(time.RFC3339)})},
			Notices: []Notice{{Key: "plan-change:" + sub.ID + ":" + saleCode + ":" + strconv.FormatInt(end.Unix(), 10), To: sub.Email,
				Brand: sub.Brand, Kind: NoticePlanChange, Data: s.renewalTerms(next)}},
		}, true, nil
	})
}

// AddFreeMonth moves an active main plan's period end, and so its next
// charge, one calendar month later: once per subscription, whatever the key.
// The month is written over the version read with the key it was given
// with (Subscription.GiveFreeMonth), so exactly one of any number of
// concurrent callers gives it; a caller with another key is then refused
// with ErrOfferUnavailable, and one with the winner's key (a double tap, a
// retry) changes nothing.
func (s *Service) AddFreeMonth(ctx context.Context, subID, key, by string) (Subscription, error) {
	if key == "" || len(key) > 128 || strings.Contains(key, "|") {
		return Subscription{}, engine.Errorf(engine.CodeInvalid, "missing offer key")
	}
	return s.change(ctx, subID, func(sub Subscription) (Subscription, Effects, bool, error) {
		now := s.clock.Now()
		return sub.GiveFreeMonth(key, s.periodEnd(sub, now), now, by)
	})
}

// FreeMonthKey is the key the subscription's free month was given with, or
// "" while it has none: what the flow reads to offer the month no more.
func (s *Service) FreeMonthKey(ctx context.Context, subID string) (string, error) {
	sub, err := s.Subscription(ctx, subID)
	if err != nil || sub.FreeMonth == nil {
		return "", err
	}
	return sub.FreeMonth.Key, nil
}

// freeMonthClaimID keys the free month's mail: one per subscription.
func freeMonthClaimID(subID string) string { return "free-month:" + subID }
