package billing

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

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
	sub, err := s.Subscription(ctx, subID)
	if err != nil {
		return Subscription{}, err
	}
	plan, err := s.catalogue.Plan(planCode)
	subBrand := sub.Brand
	if subBrand == "" {
		subBrand = "default"
	}
	if err != nil || plan.Sale || plan.Kind != KindMain || plan.Brand != subBrand {
		return sub, ErrUnknownPlan
	}
	if !sub.MainPlan || sub.Status != StatusActive || sub.Suspended {
		return sub, ErrOfferUnavailable
	}
	if planCode == sub.PlanCode {
		if sub.NextPlanCode == "" {
			return sub, ErrSamePlan
		}
		return s.UndoPlanChange(ctx, subID, by)
	}
	if sub.NextPlanCode == planCode {
		return sub, nil
	}
	if _, err := s.db.Collection(SubscriptionsCollection).UpdateOne(ctx, bson.M{"_id": sub.ID},
		bson.M{"$set": bson.M{"nextPlanCode": planCode}}); err != nil {
		return Subscription{}, fmt.Errorf("change plan of %s: %w", sub.ID, err)
	}
	sub.NextPlanCode = planCode
	s.planChanged(ctx, sub, planCode, by, plan.Price.String()+" from "+s.periodEnd(sub, s.clock.Now()).Format(time.RFC3339), NoticePlanChange)
	return sub, nil
}

// UndoPlanChange takes back a change scheduled for the next renewal: the
// plan renews as it runs now. Nothing scheduled, nothing changes.
func (s *Service) UndoPlanChange(ctx context.Context, subID, by string) (Subscription, error) {
	sub, err := s.Subscription(ctx, subID)
	if err != nil {
		return Subscription{}, err
	}
	if sub.NextPlanCode == "" {
		return sub, nil
	}
	if _, err := s.db.Collection(SubscriptionsCollection).UpdateOne(ctx, bson.M{"_id": sub.ID},
		bson.M{"$unset": bson.M{"nextPlanCode": ""}}); err != nil {
		return Subscription{}, fmt.Errorf("undo the plan change of %s: %w", sub.ID, err)
	}
	undone := sub.NextPlanCode
	sub.NextPlanCode = ""
	s.planChanged(ctx, sub, sub.PlanCode, by, "scheduled change to "+undone+" undone", NoticePlanKept)
	return sub, nil
}

// planChanged records a change of what a plan renews as, and mails what it
// renews as now. Both are keyed by the moment, so a change, its undoing and
// the same change again are each recorded and mailed.
func (s *Service) planChanged(ctx context.Context, sub Subscription, to, by, detail, notice string) {
	at := strconv.FormatInt(s.clock.Now().UnixNano(), 10)
	s.record(ctx, sub.ID, "plan_change:"+to+":"+at, Change{By: by, Kind: ChangePlanChanged, From: sub.PlanCode, To: to, Detail: detail})
	s.send(ctx, Notice{Key: "plan-change:" + sub.ID + ":" + to + ":" + at, To: sub.Email, Brand: sub.Brand, Kind: notice,
		Data: s.renewalTerms(sub)})
	s.touched(sub.UserID)
}
