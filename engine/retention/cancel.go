package retention

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/experiment"
)

// The flow's use cases: starting an attempt, showing a page of it, the
// survey's answers, taking an offer, canceling and leaving. Each reads the
// attempt and its subscription fresh, decides, and writes through billing,
// the attempt's events and the experiments; the rules that must hold when
// requests arrive together (a free month once per subscription, a plan
// change once) are billing's claims, not reads here.

// Billing is what the flow needs of billing (billing.Service).
type Billing interface {
	Subscription(ctx context.Context, id string) (billing.Subscription, error)
	FreeMonthKey(ctx context.Context, subID string) (string, error)
	ChangePlanAtRenewal(ctx context.Context, subID, saleCode, key, by string) (billing.Subscription, error)
	AddFreeMonth(ctx context.Context, subID, key, by string) (billing.Subscription, error)
	Cancel(ctx context.Context, subID, by string) (billing.Subscription, error)
	Catalogue() *billing.Catalogue
}

// Experiments is the flow's one seam to the A/B experiments
// (experiment.Service): the subscriber's offer per slot, the exposure when
// a slot's offer is shown, and the flow's outcomes.
type Experiments interface {
	Offers(userID string) (offers map[string]string, bySlot map[string]experiment.Assignment)
	Expose(ctx context.Context, userID string, a experiment.Assignment) error
	// RecordOutcome counts an event of the flow with, for a save, its
	// revenue over experiment.SaveWindow in minor units (saveRevenue).
	RecordOutcome(ctx context.Context, userID, event string, revenue int64) error
}

// Flow runs the unsubscribe flow's use cases.
type Flow struct {
	attempts    *Service
	billing     Billing
	experiments Experiments // nil: no experiments run
	logger      *slog.Logger
}

// NewFlow returns the flow over the attempts store, billing and the
// experiments (nil when none are configured). Counting for the experiments
// never breaks the flow: its failures go to logger.
func NewFlow(attempts *Service, b Billing, e Experiments, logger *slog.Logger) *Flow {
	return &Flow{attempts: attempts, billing: b, experiments: e, logger: logger}
}

// Member is the signed-in subscriber and their main subscription: an
// attempt of anyone else's is not found.
type Member struct {
	UserID         string
	SubscriptionID string
}

func (m Member) by() string { return "user:" + m.UserID }

// Outcome pages: what an offer or the final cancel leads to.
const (
	ResultUpdated  = "updated"    // the plan change was taken
	ResultGifted   = "gift-added" // the free month was taken
	ResultCanceled = "canceled"   // the membership is canceled
)

// Place is where the person goes next: a step or an outcome page of an
// attempt, or, with Leave, out of the flow to Return.
type Place struct {
	Attempt string
	Step    Step
	Result  string
	Leave   bool
	Return  string
}

func stepOf(a Attempt, s Step) Place          { return Place{Attempt: a.ID, Step: s} }
func resultOf(a Attempt, result string) Place { return Place{Attempt: a.ID, Result: result} }
func leave(a Attempt) Place                   { return Place{Attempt: a.ID, Leave: true, Return: a.Return} }

// moveOn is the step a move leads to, or out of the flow.
func moveOn(a Attempt, s Step) Place {
	if s == Close {
		return leave(a)
	}
	return stepOf(a, s)
}

// Moved is Show's answer when the page asked for is not the one to show:
// the person goes to To instead.
type Moved struct{ To Place }

func (m *Moved) Error() string {
	return fmt.Sprintf("cancel attempt %s: show %+v instead", m.To.Attempt, m.To)
}

// Errors of the answers, for the handler to word.
var (
	// ErrUnknownReason is a survey answer that is not one of Reasons.
	ErrUnknownReason = engine.Errorf(engine.CodeInvalid, "unknown reason")
	// ErrNoReview is a review with no text.
	ErrNoReview = engine.Errorf(engine.CodeInvalid, "empty review")
	// ErrUnknownOffer is an offer the flow does not have.
	ErrUnknownOffer = engine.Errorf(engine.CodeInvalid, "unknown offer")
)

// View is everything a page of an attempt shows, read fresh.
type View struct {
	Summary      Summary
	Subscription billing.Subscription
	Situation    Situation
	Step         Step
	// Result, when set, is the outcome page shown instead of the step.
	Result string
	// Sale is the plan change's offer, the brand's premium sale plan (zero
	// when the brand has none).
	Sale billing.PlanSpec
	// PeriodEnd is when the current period ends (a canceled plan's access
	// end); zero for a plan without periods.
	PeriodEnd time.Time
	// offerSlots are the subscriber's offer experiments by slot.
	offerSlots map[string]experiment.Assignment
}

// Start begins an attempt on the member's main subscription (or resumes the
// one opened there within ResumeWithin, still without an outcome) and says
// where it starts: step 0, or the canceled page for a plan canceled already.
func (f *Flow) Start(ctx context.Context, m Member, brandKey, entry, returnPath string) (Place, error) {
	sub, err := f.billing.Subscription(ctx, m.SubscriptionID)
	if err != nil {
		return Place{}, fmt.Errorf("start cancel attempt: %w", err)
	}
	a, started, err := f.attempts.Start(ctx, Attempt{UserID: m.UserID, SubscriptionID: sub.ID, Brand: brandKey,
		PlanCode: sub.PlanCode, Entry: entry, Return: returnPath})
	if err != nil {
		return Place{}, err
	}
	if started { // a resumed attempt was counted when it started
		f.recordExperiment(ctx, m, experiment.EventAttempt, 0)
	}
	if sub.Status == billing.StatusCanceled {
		return resultOf(a, ResultCanceled), nil
	}
	return stepOf(a, StepBenefits), nil
}

// Show reads the page of an attempt named page (a step's number or an
// outcome) for the member. A visit (a person's GET, not a form's rule
// check) records the step as reached and an offer as shown. A page that is
// not the one to show answers *Moved; an attempt that is not the member's,
// ErrNoAttempt.
func (f *Flow) Show(ctx context.Context, m Member, attemptID, page string, visit bool) (View, error) {
	v, err := f.load(ctx, m, attemptID)
	if err != nil {
		return View{}, err
	}
	a := v.Summary.Attempt
	canceled := v.Subscription.Canceled() || v.Subscription.Status == billing.StatusExpired
	switch page {
	case ResultUpdated, ResultGifted, ResultCanceled:
		v.Step, v.Result = StepCancel, page
		switch {
		case canceled:
			v.Result = ResultCanceled
		case page == ResultCanceled:
			return View{}, &Moved{stepOf(a, StepCancel)}
		case page == ResultUpdated && v.Subscription.NextPlanCode == "":
			return View{}, &Moved{stepOf(a, StepPlanChange)}
		case page == ResultGifted && !slices.Contains(v.Summary.OffersAccepted, OfferGiftMonth):
			return View{}, &Moved{stepOf(a, StepGiftMonth)}
		}
		return v, nil
	}
	n, err := strconv.Atoi(page)
	step := Step(n)
	if err != nil || !step.Valid() || strconv.Itoa(n) != page {
		return View{}, &Moved{stepOf(a, StepBenefits)}
	}
	if canceled {
		v.Step, v.Result = StepCancel, ResultCanceled
		return v, nil
	}
	// An offer step shows the subscriber's offer for it (their variant of
	// an offer experiment, else the spec's); one they cannot take, or none,
	// is skipped.
	offer := v.Situation.OfferAt(step)
	if offer != OfferNone && !v.Situation.Shows(step) {
		if visit && v.Situation.Passes(step) {
			// The holdout's subscriber is where the offer would be.
			f.expose(ctx, m, v, SlotStep(step))
		}
		return View{}, &Moved{stepOf(a, Next(step, MoveForward, v.Situation))}
	}
	v.Step = step
	if !visit {
		return v, nil
	}
	if err := f.attempts.Record(ctx, a, Event{Kind: EventReached, Step: int(step)}); err != nil {
		return View{}, err
	}
	if offer != OfferNone {
		if err := f.attempts.Record(ctx, a, Event{Kind: EventOfferShown, Step: int(step), Offer: offer}); err != nil {
			return View{}, err
		}
		f.expose(ctx, m, v, SlotStep(step))
	}
	return v, nil
}

// Leave closes the flow ('Stay premium', 'Keep me subscribed', the close
// button): the attempt ends with the subscriber staying.
func (f *Flow) Leave(ctx context.Context, m Member, attemptID string, step Step, exit string) (Place, error) {
	v, err := f.load(ctx, m, attemptID)
	if err != nil {
		return Place{}, err
	}
	if exit == "" {
		exit = "close"
	}
	if err := f.outcome(ctx, m, v, step, OutcomeStayed, exit); err != nil {
		return Place{}, err
	}
	return leave(v.Summary.Attempt), nil
}

// AnswerReason records the survey's answer. The first reason keeps the
// membership and closes the flow.
func (f *Flow) AnswerReason(ctx context.Context, m Member, attemptID, reason string) (Place, error) {
	if !ValidReason(reason) {
		return Place{}, ErrUnknownReason
	}
	v, err := f.load(ctx, m, attemptID)
	if err != nil {
		return Place{}, err
	}
	a := v.Summary.Attempt
	if err := f.attempts.Record(ctx, a, Event{Kind: EventAnswer, Step: int(StepReason), Reason: reason}); err != nil {
		return Place{}, err
	}
	v.Situation.Reason = reason
	next := Next(StepReason, MoveForward, v.Situation)
	if next == Close {
		if err := f.outcome(ctx, m, v, StepReason, OutcomeStayed, "reason"); err != nil {
			return Place{}, err
		}
	}
	return moveOn(a, next), nil
}

// AnswerReview records the stars (0: none given) and the review, which
// needs a text; the offer the survey's reason routes to follows.
func (f *Flow) AnswerReview(ctx context.Context, m Member, attemptID string, stars int, review string) (Place, error) {
	review = strings.TrimSpace(review)
	if review == "" {
		return Place{}, ErrNoReview
	}
	v, err := f.load(ctx, m, attemptID)
	if err != nil {
		return Place{}, err
	}
	a := v.Summary.Attempt
	if err := f.attempts.Record(ctx, a, Event{Kind: EventAnswer, Step: int(StepReview), Review: review, Stars: stars}); err != nil {
		return Place{}, err
	}
	// The reason's offer slot decided where the review leads.
	f.expose(ctx, m, v, SlotReason(v.Situation.Reason))
	if s := v.Situation; s.Holdout {
		// The holdout goes straight to the final cancel; the offer step
		// the review would have led to is where they are exposed.
		if step := afterReview(s.WouldBe()); step != StepCancel {
			f.expose(ctx, m, v, SlotStep(step))
		}
	}
	return moveOn(a, Next(StepReview, MoveForward, v.Situation)), nil
}

// AcceptOffer takes an offer of the flow: the plan change (the brand's
// premium sale plan from the next period) or the free month (once per
// subscription: billing's claim decides, so attempts racing each other get
// one month between them). One the subscriber may not take answers
// billing.ErrOfferUnavailable.
func (f *Flow) AcceptOffer(ctx context.Context, m Member, attemptID, offer string) (Place, error) {
	v, err := f.load(ctx, m, attemptID)
	if err != nil {
		return Place{}, err
	}
	a, sub := v.Summary.Attempt, v.Subscription
	if !v.Situation.CanTake(offer) {
		if offer != OfferPlanChange && offer != OfferGiftMonth {
			return Place{}, ErrUnknownOffer
		}
		return Place{}, billing.ErrOfferUnavailable
	}
	var step Step
	var outcome, result string
	switch offer {
	case OfferPlanChange:
		if v.Sale.Code == "" {
			return Place{}, billing.ErrOfferUnavailable
		}
		if _, err := f.billing.ChangePlanAtRenewal(ctx, sub.ID, v.Sale.Code, offerKey(a), m.by()); err != nil {
			return Place{}, err
		}
		step, outcome, result = StepPlanChange, OutcomePlanChanged, ResultUpdated
	case OfferGiftMonth:
		if _, err := f.billing.AddFreeMonth(ctx, sub.ID, offerKey(a), m.by()); err != nil {
			return Place{}, err
		}
		step, outcome, result = StepGiftMonth, OutcomeGiftMonth, ResultGifted
	}
	if err := f.attempts.Record(ctx, a, Event{Kind: EventOfferAccepted, Step: int(step), Offer: offer}); err != nil {
		return Place{}, err
	}
	if err := f.outcome(ctx, m, v, step, outcome, ""); err != nil {
		return Place{}, err
	}
	return resultOf(a, result), nil
}

// Cancel is the final cancel: the plan stops renewing and stays usable
// until its period ends; the canceled page follows.
func (f *Flow) Cancel(ctx context.Context, m Member, attemptID string) (Place, error) {
	v, err := f.load(ctx, m, attemptID)
	if err != nil {
		return Place{}, err
	}
	if _, err := f.billing.Cancel(ctx, v.Subscription.ID, m.by()); err != nil {
		return Place{}, err
	}
	if err := f.outcome(ctx, m, v, StepCancel, OutcomeCanceled, ""); err != nil {
		return Place{}, err
	}
	return resultOf(v.Summary.Attempt, ResultCanceled), nil
}

// offerKey keys an attempt's offers in billing: a retry of the same
// attempt's offer is the same change.
func offerKey(a Attempt) string { return "retention:" + a.ID }

// load reads the member's attempt with its subscription, what happened so
// far, and the situation the moves depend on.
func (f *Flow) load(ctx context.Context, m Member, attemptID string) (View, error) {
	a, err := f.attempts.Get(ctx, attemptID, m.UserID)
	if err != nil {
		return View{}, err
	}
	if a.SubscriptionID != m.SubscriptionID {
		return View{}, ErrNoAttempt
	}
	sub, err := f.billing.Subscription(ctx, a.SubscriptionID)
	if err != nil {
		return View{}, err
	}
	sum, err := f.attempts.Summary(ctx, a)
	if err != nil {
		return View{}, err
	}
	giftKey, err := f.billing.FreeMonthKey(ctx, sub.ID)
	if err != nil {
		return View{}, err
	}
	v := View{Summary: sum, Subscription: sub,
		// A free month taken in an earlier attempt takes the offer away
		// (this attempt's own does not, so its outcome page still reads right).
		Situation: Situation{Family: billing.FamilyOf(sub.PlanCode), GiftUsed: giftKey != "" && giftKey != offerKey(a), Reason: sum.Reason}}
	if f.experiments != nil {
		v.Situation.Offers, v.offerSlots = f.experiments.Offers(m.UserID)
		for _, a := range v.offerSlots {
			v.Situation.Holdout = v.Situation.Holdout || a.Variant == experiment.HoldoutID
		}
	}
	v.PeriodEnd = sub.CurrentPeriodEnd
	if sub.ExpiresAt != nil && sub.Canceled() {
		v.PeriodEnd = *sub.ExpiresAt
	}
	if sale, err := f.billing.Catalogue().SaleOf(sub.Brand, billing.FamilyPremiumOneMonth); err == nil {
		v.Sale = sale
	}
	return v, nil
}

// outcome records how the attempt ended, and hands it to the experiments.
func (f *Flow) outcome(ctx context.Context, m Member, v View, step Step, outcome, exit string) error {
	if err := f.attempts.Record(ctx, v.Summary.Attempt, Event{Kind: EventOutcome, Step: int(step), Outcome: outcome, Exit: exit}); err != nil {
		return err
	}
	f.recordExperiment(ctx, m, experimentEvent(outcome), saveRevenue(f.billing.Catalogue(), v, outcome))
	return nil
}

// saveRevenue is what a save brings in over the experiments' save window
// (experiment.SaveWindow, 30 days), in minor units, net of the offer taken:
// staying pays the plan's price for 30 days, a plan change the new plan's, a
// free month nothing (it covers the window), a cancel nothing. A plan is
// valued per 30 days (a weekly $1 plan at 30/7 × $1, a 12-week $49 one at
// 30/84 × $49) so that where in a period the subscriber stands does not
// change the value of their save.
func saveRevenue(cat *billing.Catalogue, v View, outcome string) int64 {
	switch outcome {
	case OutcomeStayed:
		if cat == nil {
			return 0
		}
		if plan, err := cat.Plan(v.Subscription.PlanCode); err == nil {
			return perWindow(plan.Price.Amount, plan.Period)
		}
		return perWindow(v.Subscription.Price.Amount, billing.Interval{Unit: "month", Count: 1})
	case OutcomePlanChanged:
		return perWindow(v.Sale.Price.Amount, v.Sale.Period)
	}
	return 0
}

// perWindow is a price per period valued over the 30-day save window; a
// plan without a period (an add-on) brings nothing more in.
func perWindow(amount int64, period billing.Interval) int64 {
	days := 0.0
	switch {
	case period.Count <= 0:
		return 0
	case period.Unit == "month":
		days = 30 * float64(period.Count)
	default:
		days = 7 * float64(period.Count)
	}
	return int64(math.Round(float64(amount) * experiment.SaveWindow.Hours() / 24 / days))
}

// experimentEvent is what an outcome counts as in an experiment: a cancel
// is a cancel; staying, closing the flow and taking an offer are saves
// (taken back by a cancel within experiment.SaveWindow).
func experimentEvent(outcome string) string {
	if outcome == OutcomeCanceled {
		return experiment.EventCanceled
	}
	return experiment.EventSaved
}

// recordExperiment counts an event of the flow; counting must not break
// the flow, so a failure is logged.
func (f *Flow) recordExperiment(ctx context.Context, m Member, event string, revenue int64) {
	if f.experiments == nil {
		return
	}
	if err := f.experiments.RecordOutcome(ctx, m.UserID, event, revenue); err != nil {
		f.logger.Error("record experiment outcome", "event", event, "error", err)
	}
}

// expose records that the subscriber was shown their variant of an offer
// slot (once per experiment, phase and subscriber); a slot no experiment
// runs on records nothing, and a failure is logged.
func (f *Flow) expose(ctx context.Context, m Member, v View, slot string) {
	a, ok := v.offerSlots[slot]
	if !ok || f.experiments == nil {
		return
	}
	if err := f.experiments.Expose(ctx, m.UserID, a); err != nil {
		f.logger.Error("record experiment exposure", "slot", slot, "error", err)
	}
}
