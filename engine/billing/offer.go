package billing

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine"
	"glimpse/engine/brand"
	"glimpse/engine/store"
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
	s.send(ctx, Notice{Key: "plan-change:" + sub.ID + ":" + saleCode + ":" + strconv.FormatInt(end.Unix(), 10), To: sub.Email,
		Brand: sub.Brand, Kind: NoticePlanChange, Data: s.renewalTerms(sub)})
	s.touched(sub.UserID)
	return sub, nil
}

// AddFreeMonth moves an active main plan's period end, and so its next
// charge, one calendar month later: once per subscription, whatever the key.
// The first caller claims the subscription's free month with its key, the
// period end it starts from and the one it sets (a unique insert, so exactly
// one of any number of concurrent callers wins, across attempts and
// instances). A caller with another key is then refused with
// ErrOfferUnavailable; a caller with the winner's key (a double tap, a retry)
// writes the claimed end, only while the subscription still ends where the
// claim started. So a retry after a crash between the claim and the write
// completes it, and a retry after a renewal moved the period on changes
// nothing.
func (s *Service) AddFreeMonth(ctx context.Context, subID, key, by string) (Subscription, error) {
	if key == "" || len(key) > 128 || strings.Contains(key, "|") {
		return Subscription{}, engine.Errorf(engine.CodeInvalid, "missing offer key")
	}
	sub, err := s.Subscription(ctx, subID)
	if err != nil {
		return Subscription{}, err
	}
	now := s.clock.Now()
	base := s.periodEnd(sub, now)
	claim := freeMonthClaim{Key: key, Base: base, Target: base.AddDate(0, 1, 0)}
	claimID := freeMonthClaimID(sub.ID)
	won, err := s.claims.Take(ctx, claimID, claim.owner(), now.AddDate(100, 0, 0))
	if err != nil {
		return Subscription{}, fmt.Errorf("free month for %s: %w", sub.ID, err)
	}
	if !won {
		if claim, err = s.freeMonthClaim(ctx, sub.ID); err != nil {
			return Subscription{}, err
		}
		if claim.Key != key {
			return sub, ErrOfferUnavailable
		}
	} else if !sub.MainPlan || sub.Status != StatusActive || sub.FailedAttempts > 0 {
		// Nothing was written: give the month back so a later, valid call may take it.
		_ = s.claims.Release(ctx, claimID)
		return sub, ErrOfferUnavailable
	}
	if s.periodEnd(sub, now).Equal(claim.Base) {
		// By _id alone (a filter beside _id scans on the embedded store):
		// the claim decided the one writer, and the status was read above.
		if err := s.scheduleRenewal(ctx, sub.ID, claim.Target); err != nil {
			return Subscription{}, fmt.Errorf("free month for %s: %w", sub.ID, err)
		}
		if _, err := s.db.Collection(SubscriptionsCollection).UpdateOne(ctx,
			bson.M{"_id": sub.ID},
			bson.M{"$set": bson.M{"currentPeriodEnd": claim.Target, "dueAt": claim.Target}}); err != nil {
			return Subscription{}, fmt.Errorf("free month for %s: %w", sub.ID, err)
		}
		sub.CurrentPeriodEnd, sub.DueAt = claim.Target, claim.Target
	}
	s.record(ctx, sub.ID, "extended:"+key, Change{By: by, Kind: ChangeExtended,
		From: claim.Base.Format(time.RFC3339), To: claim.Target.Format(time.RFC3339), Detail: "one free month"})
	// One free month per subscription, so one mail.
	s.send(ctx, Notice{Key: freeMonthClaimID(sub.ID), To: sub.Email, Brand: sub.Brand, Kind: NoticeExtended,
		Data: map[string]string{"plan": Describe(sub.PlanCode).Name, "date": brand.Date(claim.Target)}})
	s.touched(sub.UserID)
	return sub, nil
}

// FreeMonthKey is the key the subscription's free month was taken with, or
// "" while it has none: what the flow reads to offer the month no more (the
// claim AddFreeMonth takes decides; this only shows its result).
func (s *Service) FreeMonthKey(ctx context.Context, subID string) (string, error) {
	claim, err := s.freeMonthClaim(ctx, subID)
	if err != nil {
		return "", err
	}
	// A month given before the claim was per subscription left only its
	// history line; ClaimLegacyFreeMonths turned each into a claim at start.
	return claim.Key, nil
}

func freeMonthClaimID(subID string) string { return "free-month:" + subID }

// freeMonthClaim is what a subscription's free-month claim holds: who took
// it and the period end it moved from and to.
type freeMonthClaim struct {
	Key          string
	Base, Target time.Time
}

func (c freeMonthClaim) owner() string {
	return c.Key + "|" + c.Base.UTC().Format(time.RFC3339Nano) + "|" + c.Target.UTC().Format(time.RFC3339Nano)
}

// freeMonthClaim reads the subscription's claim (zero when there is none).
func (s *Service) freeMonthClaim(ctx context.Context, subID string) (freeMonthClaim, error) {
	owner, err := s.claims.Owner(ctx, freeMonthClaimID(subID))
	if err != nil || owner == "" {
		return freeMonthClaim{}, err
	}
	parts := strings.Split(owner, "|")
	if len(parts) != 3 {
		return freeMonthClaim{}, fmt.Errorf("unreadable free-month claim %q", owner)
	}
	c := freeMonthClaim{Key: parts[0]}
	if c.Base, err = time.Parse(time.RFC3339Nano, parts[1]); err != nil {
		return freeMonthClaim{}, fmt.Errorf("unreadable free-month claim %q: %w", owner, err)
	}
	if c.Target, err = time.Parse(time.RFC3339Nano, parts[2]); err != nil {
		return freeMonthClaim{}, fmt.Errorf("unreadable free-month claim %q: %w", owner, err)
	}
	return c, nil
}

// legacyFreeMonthsMarker is the settings document saying the free months
// given before the claim was per subscription have their claims.
const legacyFreeMonthsMarker = "free-month-claims"

// ClaimLegacyFreeMonths gives each free month recorded only in history
// (given before the claim was per subscription, when each attempt claimed
// its own) the subscription's claim, with the key and the period ends of
// its history line, so that the offer reads the claim alone: reading a
// subscription's history is a scan of every subscription's on the embedded
// database. It reads the whole history once, at start, and then marks
// itself done in settings.
func ClaimLegacyFreeMonths(ctx context.Context, db *mongo.Database, settings string) error {
	return store.OncePerDatabase(ctx, db, settings, legacyFreeMonthsMarker, func(ctx context.Context) error {
		return claimLegacyFreeMonths(ctx, db)
	})
}

func claimLegacyFreeMonths(ctx context.Context, db *mongo.Database) error {
	cur, err := db.Collection(historyCollection).Find(ctx, bson.M{"kind": ChangeExtended})
	if err != nil {
		return fmt.Errorf("claim legacy free months: %w", err)
	}
	var lines []Change
	if err := cur.All(ctx, &lines); err != nil {
		return fmt.Errorf("claim legacy free months: %w", err)
	}
	claims := store.NewClaims(db)
	for _, c := range lines {
		key := strings.TrimPrefix(c.ID, c.SubscriptionID+"/extended:")
		if key == c.ID {
			continue
		}
		base, _ := time.Parse(time.RFC3339, c.From)
		target, _ := time.Parse(time.RFC3339, c.To)
		claim := freeMonthClaim{Key: key, Base: base, Target: target}
		// A subscription already claimed keeps its claim: the first
		// month given is the one.
		if _, err := claims.Take(ctx, freeMonthClaimID(c.SubscriptionID), claim.owner(), c.At.AddDate(100, 0, 0)); err != nil {
			return fmt.Errorf("claim legacy free month of %s: %w", c.SubscriptionID, err)
		}
	}
	return nil
}
