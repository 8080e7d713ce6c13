// Package retention is the subscriber's side of canceling: the nine steps of
// the unsubscribe flow (which step follows which, for each kind of plan), the
// survey's reasons, the offers, and every cancel attempt as it happened,
// stored step by step so the 'one decision per 24 hours' rule can be applied
// later (docs/retention.md).
package retention

import (
	"strconv"
	"strings"

	"glimpse/engine/billing"
)

// Step is one page of the flow.
type Step int

// The steps, in the spec's numbering.
const (
	StepBenefits    Step = 0 // what a member keeps
	StepPleaseWait  Step = 1 // advances by itself after PleaseWaitMS
	StepPlan        Step = 2 // the current plan
	StepPlanChange  Step = 3 // the discounted plan change offer
	StepMadeTheMost Step = 4 // 'have you made the most of it'
	StepReason      Step = 5 // the survey
	StepReview      Step = 6 // stars and a review
	StepGiftMonth   Step = 7 // the free month offer
	StepCancel      Step = 8 // the final cancel
	// Close is no step: the move leaves the flow.
	Close Step = -1
)

// PleaseWaitMS is how long the please-wait step shows.
const PleaseWaitMS = 2500

// StepInfo names a step (the names are stable: they are stored and reported).
type StepInfo struct {
	Step Step
	Name string
}

// Steps lists the flow's steps in order.
var Steps = [...]StepInfo{
	{StepBenefits, "benefits"},
	{StepPleaseWait, "please_wait"},
	{StepPlan, "plan"},
	{StepPlanChange, "plan_change"},
	{StepMadeTheMost, "made_the_most"},
	{StepReason, "reason"},
	{StepReview, "review"},
	{StepGiftMonth, "gift_month"},
	{StepCancel, "cancel"},
}

// Valid reports whether s is one of Steps.
func (s Step) Valid() bool { return s >= StepBenefits && s <= StepCancel }

// Name is the step's stable name ("" for none).
func (s Step) Name() string {
	if !s.Valid() {
		return ""
	}
	return Steps[s].Name
}

// Reasons are the survey's eight answers in the spec's order, as stored;
// their words are copy (unsubscribe.reason.1 … .8). The first keeps the
// membership: choosing it closes the flow.
var Reasons = [...]string{
	"keep_membership",    // Forget it - I want to keep my membership
	"not_using_enough",   // Not using it enough
	"no_results",         // Not seeing immediate results
	"priorities_changed", // My social media priorities changed
	"only_trial",         // I only wanted a trial
	"cutting_expenses",   // I'm cutting down on expenses
	"free_alternative",   // Looking for a free alternative
	"other",              // Other
}

// ReasonKeep is the answer that is not a reason to leave.
const ReasonKeep = "keep_membership"

// ValidReason reports whether r is one of Reasons.
func ValidReason(r string) bool {
	for _, x := range Reasons {
		if x == r {
			return true
		}
	}
	return false
}

// Offers. A variant of an offer experiment names one by its id; OfferSkip
// (an experiment's way to say "no offer here") shows none.
const (
	OfferNone       = ""
	OfferPlanChange = "plan_change" // step 3's by default
	OfferGiftMonth  = "gift_month"  // step 7's by default
	OfferSkip       = "none"
)

// Offer slots: what an offer experiment varies (docs/experiments.md).
// SlotStep(StepPlanChange) is "offer.step3", the offer step 3 shows;
// SlotReason(r) is "offer.reason.<r>", the offer the survey's reason r
// routes to after the review.
func SlotStep(s Step) string          { return "offer.step" + strconv.Itoa(int(s)) }
func SlotReason(reason string) string { return "offer.reason." + reason }

// knownOffer reports an offer id the flow can show (or skip).
func knownOffer(o string) bool {
	return o == OfferPlanChange || o == OfferGiftMonth || o == OfferSkip
}

// OfferFor is the spec's offer after the survey and review for a reason:
// the free month for every reason but the first, which keeps the membership
// and gets none (it closes the flow first). A subscriber's offer experiment
// may route otherwise: Situation.RoutedOffer.
func OfferFor(reason string) string {
	if reason == ReasonKeep {
		return OfferNone
	}
	return OfferGiftMonth
}

// DefaultOffer is what an offer slot shows without an experiment: the plan
// change on step 3, the free month on step 7, OfferFor for a reason.
func DefaultOffer(slot string) string {
	switch slot {
	case SlotStep(StepPlanChange):
		return OfferPlanChange
	case SlotStep(StepGiftMonth):
		return OfferGiftMonth
	}
	if reason, ok := strings.CutPrefix(slot, "offer.reason."); ok {
		return OfferFor(reason)
	}
	return OfferNone
}

// offerStep is the step whose default offer o is (StepCancel for none).
func offerStep(o string) Step {
	switch o {
	case OfferPlanChange:
		return StepPlanChange
	case OfferGiftMonth:
		return StepGiftMonth
	}
	return StepCancel
}

// Situation is what the moves depend on: the subscriber's plan, and what
// this attempt has answered so far.
type Situation struct {
	// Family is the main plan's family (billing.FamilyPremiumOneMonth, …).
	Family string
	// GiftUsed: this subscription already had a free month from the flow,
	// so it is not offered again.
	GiftUsed bool
	// Reason is the survey's answer, once given.
	Reason string
	// Offers are this subscriber's offers by slot (SlotStep, SlotReason),
	// from their variants in the running offer experiments; a slot missing
	// (or naming an unknown offer) shows DefaultOffer, the spec's.
	Offers map[string]string
	// Holdout: the subscriber is in the no-offer holdout of an offer
	// experiment, so no slot shows them an offer: where one would be,
	// they go on as if they had declined it (docs/experiments.md §3).
	Holdout bool
}

// Offer is the offer a slot shows this subscriber.
func (s Situation) Offer(slot string) string {
	if s.Holdout {
		return OfferSkip
	}
	if o, ok := s.Offers[slot]; ok && knownOffer(o) {
		return o
	}
	return DefaultOffer(slot)
}

// OfferAt is the offer an offer step (3 or 7) shows, OfferNone on another.
func (s Situation) OfferAt(step Step) string {
	if step != StepPlanChange && step != StepGiftMonth {
		return OfferNone
	}
	return s.Offer(SlotStep(step))
}

// RoutedOffer is the offer the survey's reason leads to after the review.
func (s Situation) RoutedOffer() string {
	if s.Reason == ReasonKeep {
		return OfferNone
	}
	return s.Offer(SlotReason(s.Reason))
}

// CanTake reports whether the subscriber may take an offer: no plan change
// for a premium one-month holder, no free month for a gift holder or a
// subscription that had one.
func (s Situation) CanTake(o string) bool {
	switch o {
	case OfferPlanChange:
		return !s.Premium()
	case OfferGiftMonth:
		return !s.Gift() && !s.GiftUsed
	}
	return false
}

// Shows reports whether an offer step has an offer this subscriber may
// take; a step that does not is skipped.
func (s Situation) Shows(step Step) bool { return s.CanTake(s.OfferAt(step)) }

// WouldBe is the situation of a subscriber in the holdout had they not
// been held out: the spec's offers.
func (s Situation) WouldBe() Situation {
	s.Holdout, s.Offers = false, nil
	return s
}

// Passes reports whether a subscriber whom an offer experiment shows no
// offer at a step (the holdout, or a variant whose offer there is "none")
// reaches that step where the spec's offer would show them: they are
// exposed there as the other arms' people are when theirs shows (every arm
// is measured at the same point, or the "none" arm would never be counted
// and its exposures would fall short of its weight), and go on without it.
func (s Situation) Passes(step Step) bool {
	return s.OfferAt(step) == OfferSkip && s.WouldBe().Shows(step)
}

// Premium reports a premium one-month holder (the sale plan included): the
// plan change offers them nothing.
func (s Situation) Premium() bool { return s.Family == billing.FamilyPremiumOneMonth }

// Gift reports a gift one-month holder, who is not offered a free month.
func (s Situation) Gift() bool { return s.Family == billing.FamilyGiftOneMonth }

// Move is what a person chose on a step.
type Move string

// The moves.
const (
	MoveForward Move = "forward" // the step's main way on ('I'm ready to let go', Continue, 'No thanks')
	MoveChange  Move = "change"  // step 2: 'Change my plan'
	MoveCancel  Move = "cancel"  // step 2: 'Cancel membership'
	MoveBack    Move = "back"    // the back arrow
	MoveStay    Move = "stay"    // 'Stay premium', 'Keep me subscribed', 'Keep my membership'
	MoveNow     Move = "now"     // 'Cancel subscription now', on every step
)

// Next is the step a move leads to, or Close. A move a step does not have
// leads nowhere (it returns the step itself).
//
// The rules beyond the spec's table (docs/retention.md): on the plan step,
// 'Cancel membership' goes to 'have you made the most of it' (4), except
// for premium one-month holders, whose 'Change my plan' already leads there,
// who go straight to the survey (5); declining the plan change goes to 4;
// after the review comes the offer step the reason routes to
// (Situation.RoutedOffer), skipped when the subscriber may not take its offer; the survey's back arrow returns to the step before it for
// this plan (2 for premium one-month holders, else 4); 'Cancel subscription now' always reaches 8.
func Next(from Step, m Move, s Situation) Step {
	if m == MoveNow {
		return StepCancel
	}
	if m == MoveStay {
		switch from {
		case StepBenefits, StepMadeTheMost, StepCancel:
			return Close
		}
		return from
	}
	if m == MoveBack {
		return back(from, s)
	}
	switch from {
	case StepBenefits:
		if m == MoveForward {
			return StepPleaseWait
		}
	case StepPleaseWait:
		if m == MoveForward {
			return StepPlan
		}
	case StepPlan:
		switch m {
		case MoveChange:
			// The holdout asks for step 3 too: showing it records their
			// exposure and moves on (Flow.Show).
			if !s.Shows(StepPlanChange) && !s.Passes(StepPlanChange) {
				return StepMadeTheMost
			}
			return StepPlanChange
		case MoveCancel:
			if s.Premium() {
				return StepReason
			}
			return StepMadeTheMost
		}
	case StepPlanChange:
		if m == MoveForward {
			return StepMadeTheMost
		}
	case StepMadeTheMost:
		if m == MoveForward {
			return StepReason
		}
	case StepReason:
		if m == MoveForward {
			if s.Reason == ReasonKeep {
				return Close
			}
			return StepReview
		}
	case StepReview:
		if m == MoveForward {
			return afterReview(s)
		}
	case StepGiftMonth:
		if m == MoveForward {
			return StepCancel
		}
	}
	return from
}

// afterReview is the offer step the reason routes to (the step whose
// default offer the routed one is), or the final cancel when the routed
// offer is none or that step has nothing this subscriber may take.
func afterReview(s Situation) Step {
	if step := offerStep(s.RoutedOffer()); step != StepCancel && s.Shows(step) {
		return step
	}
	return StepCancel
}

func back(from Step, s Situation) Step {
	switch from {
	case StepPlan:
		return StepBenefits
	case StepPlanChange, StepMadeTheMost:
		return StepPlan
	case StepReason:
		if s.Premium() { // reached straight from the plan step
			return StepPlan
		}
		return StepMadeTheMost
	case StepReview:
		return StepReason
	case StepGiftMonth:
		return StepReview
	case StepCancel:
		if !s.Shows(StepGiftMonth) {
			return StepReview
		}
		return StepGiftMonth
	}
	return from
}
