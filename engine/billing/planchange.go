package billing

import (
	"context"
	"strconv"
	"time"

	"glimpse/engine"
)

// Changing plan from My Plan, as a customer portal does: the new plan
// applies from the next renewal (no proration, nothing charged now), is
// confirmed by mail, and can be undone until then.

// ErrSamePlan is a change to the plan the subscription already renews as.
var ErrSamePlan = engine.Errorf(engine.CodeConflict, "This is already your plan.")

// ChangePlan schedules a running main plan to renew as another of its
// brand's regular plans (planCode) from its next period. Choosing the plan
// it has now undoes a scheduled change (UndoPlanChange); choosing the one
// already scheduled changes nothing.
func (s *Service) ChangePlan(ctx context.Context, subID, planCode, by string) (Subscription, error) {
	return s.change(ctx, subID, func(sub Subscription) (Subscription, Effects, bool, error) {
		plan, err := s.catalogue.Plan(planCode)
		subBrand := sub.Brand
		if subBrand == "" {
			subBrand = "default"
		}
		if err != nil || plan.Sale || plan.Kind != KindMain || plan.Brand != subBrand {
			return sub, Effects{}, false, ErrUnknownPlan
		}
		if !sub.MainPlan || sub.Status != StatusActive || sub.Suspended {
			return sub, Effects{}, false, ErrOfferUnavailable
		}
		if planCode == sub.PlanCode {
			if sub.NextPlanCode == "" {
				return sub, Effects{}, false, ErrSamePlan
			}
			return s.undoPlanChange(sub, by)
		}
		if sub.NextPlanCode == planCode {
			return sub, Effects{}, false, nil
		}
		next := sub
		next.NextPlanCode = planCode
		return next, s.planChanged(next, sub.PlanCode, planCode, by,
			plan.Price.String()+" from "+s.periodEnd(sub, s.clock.Now()).Format(time.RFC3339), NoticePlanChange), true, nil
	})
}

// UndoPlanChange takes back a change scheduled for the next renewal: the
// plan renews as it runs now. Nothing scheduled, nothing changes.
func (s *Service) UndoPlanChange(ctx context.Context, subID, by string) (Subscription, error) {
	return s.change(ctx, subID, func(sub Subscription) (Subscription, Effects, bool, error) {
		return s.undoPlanChange(sub, by)
	})
}

func (s *Service) undoPlanChange(sub Subscription, by string) (Subscription, Effects, bool, error) {
	if sub.NextPlanCode == "" {
		return sub, Effects{}, false, nil
	}
	next := sub
	next.NextPlanCode = ""
	return next, s.planChanged(next, sub.PlanCode, sub.PlanCode, by, "scheduled change to "+sub.NextPlanCode+" undone", NoticePlanKept), true, nil
}

// planChanged is the line of a change of what a plan renews as, and the
// mail of what it renews as now (next). Both are keyed by the moment, so a
// change, its undoing and the same change again are each recorded and
// mailed.
func (s *Service) planChanged(next Subscription, from, to, by, detail, notice string) Effects {
	now := s.clock.Now()
	at := strconv.FormatInt(now.UnixNano(), 10)
	return Effects{
		Lines: []Change{next.Line("plan_change:"+to+":"+at, now, Change{By: by, Kind: ChangePlanChanged, From: from, To: to, Detail: detail})},
		Notices: []Notice{{Key: "plan-change:" + next.ID + ":" + to + ":" + at, To: next.Email, Brand: next.Brand, Kind: notice,
			Data: s.renewalTerms(next)}},
	}
}
