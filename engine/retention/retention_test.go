package retention

import (
	"testing"

	"glimpse/engine/billing"
)

// edge is one move of the graph: from a step, a move, where it leads.
type edge struct {
	from Step
	move Move
	to   Step
}

// The whole step graph for each plan state.
func TestStepGraphPerPlan(t *testing.T) {
	common := []edge{
		{StepBenefits, MoveStay, Close},
		{StepBenefits, MoveForward, StepPleaseWait},
		{StepPleaseWait, MoveForward, StepPlan},
		{StepPlan, MoveBack, StepBenefits},
		{StepMadeTheMost, MoveStay, Close},
		{StepMadeTheMost, MoveForward, StepReason},
		{StepMadeTheMost, MoveBack, StepPlan},
		{StepReview, MoveBack, StepReason},
		{StepCancel, MoveStay, Close},
	}
	for s := range Steps {
		common = append(common, edge{Step(s), MoveNow, StepCancel}) // click to cancel, from every step
	}
	cases := []struct {
		name   string
		family string
		edges  []edge
	}{
		{"weekly", billing.FamilyWeekly, []edge{
			{StepPlan, MoveChange, StepPlanChange},
			{StepPlan, MoveCancel, StepMadeTheMost},
			{StepPlanChange, MoveForward, StepMadeTheMost},
			{StepPlanChange, MoveBack, StepPlan},
			{StepReason, MoveBack, StepMadeTheMost},
			{StepReview, MoveForward, StepGiftMonth},
			{StepGiftMonth, MoveForward, StepCancel},
			{StepGiftMonth, MoveBack, StepReview},
			{StepCancel, MoveBack, StepGiftMonth},
		}},
		{"3-month", billing.FamilyThreeMonth, []edge{
			{StepPlan, MoveChange, StepPlanChange},
			{StepPlan, MoveCancel, StepMadeTheMost},
			{StepReview, MoveForward, StepGiftMonth},
			{StepCancel, MoveBack, StepGiftMonth},
		}},
		{"premium one-month", billing.FamilyPremiumOneMonth, []edge{
			{StepPlan, MoveChange, StepMadeTheMost},
			{StepPlan, MoveCancel, StepReason},
			{StepReason, MoveBack, StepPlan},
			{StepReview, MoveForward, StepGiftMonth},
			{StepCancel, MoveBack, StepGiftMonth},
		}},
		{"gift", billing.FamilyGiftOneMonth, []edge{
			{StepPlan, MoveChange, StepPlanChange},
			{StepPlan, MoveCancel, StepMadeTheMost},
			{StepReview, MoveForward, StepCancel},
			{StepCancel, MoveBack, StepReview},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Situation{Family: tc.family, Reason: "other"}
			for _, e := range append(append([]edge{}, common...), tc.edges...) {
				if got := Next(e.from, e.move, s); got != e.to {
					t.Errorf("%s --%s--> %d, want %d", e.from.Name(), e.move, got, e.to)
				}
			}
		})
	}
}

func TestSurveyReasonsAndOffers(t *testing.T) {
	if len(Reasons) != 8 || Reasons[0] != ReasonKeep {
		t.Fatalf("reasons: %v", Reasons)
	}
	s := Situation{Family: billing.FamilyWeekly, Reason: ReasonKeep}
	if got := Next(StepReason, MoveForward, s); got != Close {
		t.Fatalf("keeping the membership: %d, want Close", got)
	}
	s.Reason = "cutting_expenses"
	if got := Next(StepReason, MoveForward, s); got != StepReview {
		t.Fatalf("a reason: %d", got)
	}
	if ValidReason("nope") || !ValidReason("other") {
		t.Fatal("ValidReason")
	}
	// A subscription that already had its free month skips the offer.
	s.GiftUsed = true
	if got := Next(StepReview, MoveForward, s); got != StepCancel {
		t.Fatalf("gift used: %d", got)
	}
	if got := Next(StepCancel, MoveBack, s); got != StepReview {
		t.Fatalf("gift used, back: %d", got)
	}
	// An offer experiment routes by reason (the subscriber's variants).
	s.GiftUsed = false
	s.Offers = map[string]string{SlotReason("cutting_expenses"): OfferPlanChange, SlotReason("other"): OfferSkip}
	if got := Next(StepReview, MoveForward, s); got != StepPlanChange {
		t.Fatalf("routed to the plan change: %d", got)
	}
	s.Reason = "other"
	if got := Next(StepReview, MoveForward, s); got != StepCancel {
		t.Fatalf("routed to no offer: %d", got)
	}
	// An unknown offer id is the spec's.
	s.Offers[SlotReason("other")] = "bogus"
	if got := Next(StepReview, MoveForward, s); got != StepGiftMonth {
		t.Fatalf("unknown offer: %d", got)
	}
}

// The offer steps show the subscriber's slot offers: a step whose offer
// they cannot take (or none) is skipped, both ways.
func TestOfferSlots(t *testing.T) {
	s := Situation{Family: billing.FamilyThreeMonth}
	if s.OfferAt(StepPlanChange) != OfferPlanChange || s.OfferAt(StepGiftMonth) != OfferGiftMonth || s.OfferAt(StepPlan) != OfferNone {
		t.Fatal("defaults")
	}
	s.Offers = map[string]string{SlotStep(StepPlanChange): OfferGiftMonth, SlotStep(StepGiftMonth): OfferSkip}
	if s.OfferAt(StepPlanChange) != OfferGiftMonth {
		t.Fatal("step 3's variant")
	}
	if got := Next(StepPlan, MoveChange, s); got != StepPlanChange {
		t.Fatalf("change: %d", got)
	}
	s.Reason = "other"
	if got := Next(StepReview, MoveForward, s); got != StepCancel {
		t.Fatalf("step 7 shows none, after the review: %d", got)
	}
	if got := Next(StepCancel, MoveBack, s); got != StepReview {
		t.Fatalf("step 7 shows none, back: %d", got)
	}
	// A premium holder may take the free month on step 3.
	s.Family = billing.FamilyPremiumOneMonth
	if got := Next(StepPlan, MoveChange, s); got != StepPlanChange {
		t.Fatalf("premium, gift on step 3: %d", got)
	}
	s.GiftUsed = true
	if got := Next(StepPlan, MoveChange, s); got != StepMadeTheMost {
		t.Fatalf("premium, gift used: %d", got)
	}
}

// A subscriber in the no-offer holdout is offered nothing at any slot,
// whatever the experiments' offers say: the review leads to the final
// cancel, and step 3 is asked for only so that it can record where the
// offer would have been (Passes) and move on. A premium holder, who would
// not be offered the plan change either, does not pass it.
func TestHoldoutShowsNoOffer(t *testing.T) {
	t.Parallel()
	s := Situation{Family: billing.FamilyThreeMonth, Reason: "other", Holdout: true,
		Offers: map[string]string{SlotStep(StepPlanChange): OfferGiftMonth, SlotReason("other"): OfferPlanChange}}
	for _, slot := range []string{SlotStep(StepPlanChange), SlotStep(StepGiftMonth), SlotReason("other"), SlotReason("price")} {
		if o := s.Offer(slot); o != OfferSkip {
			t.Errorf("the holdout's %s offers %q", slot, o)
		}
	}
	if s.Shows(StepPlanChange) || s.Shows(StepGiftMonth) {
		t.Error("an offer step shows for the holdout")
	}
	if !s.Passes(StepPlanChange) || !s.Passes(StepGiftMonth) {
		t.Error("the holdout does not pass where the spec's offers would be")
	}
	if got := Next(StepPlan, MoveChange, s); got != StepPlanChange {
		t.Errorf("plan change from step 2: %v, want step 3 (which moves on)", got)
	}
	if got := Next(StepPlanChange, MoveForward, s); got != StepMadeTheMost {
		t.Errorf("on from step 3: %v", got)
	}
	if got := Next(StepReview, MoveForward, s); got != StepCancel {
		t.Errorf("after the review: %v, want the final cancel", got)
	}
	premium := s
	premium.Family = billing.FamilyPremiumOneMonth
	if premium.Passes(StepPlanChange) || Next(StepPlan, MoveChange, premium) != StepMadeTheMost {
		t.Error("a premium holder in the holdout passes the plan change they would not be offered")
	}
	if w := s.WouldBe(); w.Holdout || w.Offer(SlotStep(StepPlanChange)) != OfferPlanChange {
		t.Errorf("WouldBe: %+v", w)
	}
}

// A variant whose offer at a step is "none" passes that step where the
// spec's offer would show (and is exposed there, as the holdout is), but not
// where the subscriber could not have taken the spec's offer either.
func TestNoOfferVariantPassesWhereTheOfferWouldShow(t *testing.T) {
	t.Parallel()
	s := Situation{Family: billing.FamilyThreeMonth, Offers: map[string]string{SlotStep(StepPlanChange): OfferSkip}}
	if s.Shows(StepPlanChange) || !s.Passes(StepPlanChange) {
		t.Errorf("step 3 with no offer: shows %v, passes %v; want passes only", s.Shows(StepPlanChange), s.Passes(StepPlanChange))
	}
	if s.Passes(StepGiftMonth) {
		t.Error("step 7, whose offer shows, is passed")
	}
	premium := s
	premium.Family = billing.FamilyPremiumOneMonth
	if premium.Passes(StepPlanChange) {
		t.Error("a premium holder passes the plan change they would not be offered")
	}
}
