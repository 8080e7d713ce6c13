package server

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/experiment"
	"glimpse/engine/retention"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// The unsubscribe flow (docs/retention.md): /dashboard/unsubscribe starts an
// attempt and sends the person to its step 0; /dashboard/unsubscribe/<step>
// and /dashboard/unsubscribe/<result> show one page of it, composed from a
// fresh read of the subscription; the actions below record answers, take
// offers and cancel.

// unsubscribeActions are the flow's actions.
func (s *Server) unsubscribeActions() map[string]actionSpec {
	return map[string]actionSpec{
		"unsubscribe.leave":       {newRequest: func() any { return &unsubscribeLeaveRequest{} }, handle: s.unsubscribeLeave},
		"unsubscribe.reason":      {newRequest: func() any { return &unsubscribeReasonRequest{} }, handle: s.unsubscribeReason},
		"unsubscribe.review":      {newRequest: func() any { return &unsubscribeReviewRequest{} }, handle: s.unsubscribeReview},
		"unsubscribe.change_plan": {newRequest: func() any { return &unsubscribeAttemptRequest{} }, handle: s.unsubscribeChangePlan},
		"unsubscribe.gift_month":  {newRequest: func() any { return &unsubscribeAttemptRequest{} }, handle: s.unsubscribeGiftMonth},
		"unsubscribe.cancel":      {newRequest: func() any { return &unsubscribeAttemptRequest{} }, handle: s.unsubscribeCancel},
	}
}

type unsubscribeAttemptRequest struct {
	Attempt string `json:"/attempt" validate:"required,max=64"`
}

type unsubscribeLeaveRequest struct {
	Attempt string `json:"/attempt" validate:"required,max=64"`
	Step    int    `json:"/step" validate:"min=0,max=8"`
	Exit    string `json:"/exit" validate:"omitempty,oneof=stay keep close"`
}

type unsubscribeReasonRequest struct {
	Attempt string `json:"/attempt" validate:"required,max=64"`
	Reason  string `json:"reason" validate:"max=64"`
}

type unsubscribeReviewRequest struct {
	Attempt string `json:"/attempt" validate:"required,max=64"`
	Stars   *int   `json:"stars" validate:"omitempty,min=1,max=5"`
	Review  string `json:"review" validate:"max=2000"`
}

// unsubscribeEntry is where ?unsubscription=true on a signed-in screen
// sends the person: the flow, which returns to that screen when closed.
func unsubscribeEntry(path string, query url.Values) string {
	q := url.Values{}
	for k, v := range query {
		if k != "unsubscription" {
			q[k] = v
		}
	}
	from := path
	if len(q) > 0 {
		from += "?" + q.Encode()
	}
	return screens.PathUnsubscribe + "?" + url.Values{"entry": {"link"}, "from": {from}}.Encode()
}

// returnPath is an in-app path the flow may go back to, or the dashboard.
func returnPath(from string) string {
	u, err := url.Parse(from)
	if err != nil || len(from) > 512 || !strings.HasPrefix(from, "/") || strings.HasPrefix(from, "//") ||
		strings.Contains(from, "\\") || u.Host != "" || u.Scheme != "" || strings.HasPrefix(u.Path, screens.PathUnsubscribe) {
		return screens.PathDashboard
	}
	return from
}

// unsubscribeStart begins an attempt and sends the person to its first
// step (or, for a plan canceled already, to the canceled page).
func (s *Server) unsubscribeStart(r *request) (screens.Page, error) {
	ctx := r.fiber.Context()
	entry := "link"
	if r.query.Get("entry") == "my_plan" {
		entry = "my_plan"
	}
	a, err := s.Retention.Start(ctx, retention.Attempt{UserID: r.principal.User.ID, SubscriptionID: r.mainSub.ID,
		Brand: r.brand.Key, PlanCode: r.mainSub.PlanCode, Entry: entry, Return: returnPath(r.query.Get("from"))})
	if err != nil {
		return screens.Page{}, err
	}
	s.unsubscribeExperimentOutcome(ctx, r, "")
	if r.mainSub.Status == billing.StatusCanceled {
		return screens.Page{}, redirect(screens.UnsubscribeResultPath(a.ID, screens.UnsubscribeCanceled))
	}
	return screens.Page{}, redirect(screens.UnsubscribeStepPath(a.ID, retention.StepBenefits))
}

// unsubscribeFlow is one attempt of the request's subscriber with its
// subscription, read fresh.
type unsubscribeFlow struct {
	attempt retention.Attempt
	sub     billing.Subscription
	summary retention.Summary
	sit     retention.Situation
	// offerExps are the subscriber's offer experiments by slot, for the
	// exposure when a slot's offer is shown (experimentOffers).
	offerExps map[string]experiment.Assignment
}

// errNoFlow is an attempt that is not the request's subscriber's.
var errNoFlow = errors.New("no such cancel attempt for this subscriber")

func (s *Server) loadFlow(r *request, attemptID string) (unsubscribeFlow, error) {
	ctx := r.fiber.Context()
	a, err := s.Retention.Get(ctx, attemptID, r.principal.User.ID)
	if errors.Is(err, retention.ErrNoAttempt) || (err == nil && a.SubscriptionID != r.mainSub.ID) {
		return unsubscribeFlow{}, errNoFlow
	}
	if err != nil {
		return unsubscribeFlow{}, err
	}
	sub, err := s.Billing.Subscription(ctx, a.SubscriptionID)
	if err != nil {
		return unsubscribeFlow{}, err
	}
	sum, err := s.Retention.Summary(ctx, a)
	if err != nil {
		return unsubscribeFlow{}, err
	}
	history, err := s.Billing.History(ctx, sub.ID)
	if err != nil {
		return unsubscribeFlow{}, err
	}
	// A free month is offered once per subscription: one taken in an
	// earlier attempt takes the offer away (this attempt's own does not,
	// so its outcome page still reads right).
	giftUsed := slices.ContainsFunc(history, func(c billing.Change) bool {
		return c.Kind == billing.ChangeExtended && c.ID != sub.ID+"/extended:"+giftKey(a)
	})
	offers, offerExps := s.experimentOffers(r)
	return unsubscribeFlow{attempt: a, sub: sub, summary: sum, offerExps: offerExps,
		sit: retention.Situation{Family: billing.FamilyOf(sub.PlanCode), GiftUsed: giftUsed, Reason: sum.Reason, Offers: offers}}, nil
}

func giftKey(a retention.Attempt) string       { return "retention:" + a.ID }
func planChangeKey(a retention.Attempt) string { return "retention:" + a.ID }

// unsubscribeState is what the step shows.
func (s *Server) unsubscribeState(r *request, f unsubscribeFlow, step retention.Step) screens.UnsubscribeState {
	st := screens.UnsubscribeState{Attempt: f.attempt.ID, Step: step, Situation: f.sit, Return: f.attempt.Return,
		Email: r.principal.User.Email, Plan: billing.Describe(f.sub.PlanCode),
		Reason: f.summary.Reason, Stars: f.summary.Stars, Review: f.summary.Review}
	end := f.sub.CurrentPeriodEnd
	if f.sub.ExpiresAt != nil && f.sub.Canceled() {
		end = *f.sub.ExpiresAt
	}
	if !end.IsZero() {
		st.PeriodEnd = end.Format("Jan 2, 2006")
		st.GiftEnd = end.AddDate(0, 1, 0).Format("Jan 2, 2006")
	}
	if sale, err := s.Billing.Catalogue().SaleOf(f.sub.Brand, billing.FamilyPremiumOneMonth); err == nil {
		st.Sale = sale
	}
	return st
}

// unsubscribePage composes a page of the flow: the one place its steps
// are composed for a subscriber (an experiment's copy is layered over
// r.ctx here).
func (s *Server) unsubscribePage(r *request, st screens.UnsubscribeState) screens.Page {
	return s.experimentUnsubscribePage(r, st)
}

// unsubscribeExperimentOutcome is where the flow's outcomes reach the
// experiments ("" is a new attempt).
func (s *Server) unsubscribeExperimentOutcome(ctx context.Context, r *request, outcome string) {
	s.experimentFlowOutcome(ctx, r, outcome)
}

// unsubscribeScreen shows one step or outcome page of an attempt, and
// records that it was reached. An attempt that is not this subscriber's
// (an old link, another account) starts a new one.
func (s *Server) unsubscribeScreen(r *request) (screens.Page, error) {
	ctx := r.fiber.Context()
	f, err := s.loadFlow(r, r.query.Get("attempt"))
	if errors.Is(err, errNoFlow) {
		return screens.Page{}, redirect(screens.PathUnsubscribe)
	}
	if err != nil {
		return screens.Page{}, err
	}
	name := strings.TrimPrefix(r.path, screens.PathUnsubscribe+"/")
	canceled := f.sub.Canceled() || f.sub.Status == billing.StatusExpired
	switch name {
	case screens.UnsubscribeUpdated, screens.UnsubscribeGifted, screens.UnsubscribeCanceled:
		st := s.unsubscribeState(r, f, retention.StepCancel)
		st.Result = name
		switch {
		case canceled:
			st.Result = screens.UnsubscribeCanceled
		case name == screens.UnsubscribeCanceled:
			return screens.Page{}, redirect(screens.UnsubscribeStepPath(f.attempt.ID, retention.StepCancel))
		case name == screens.UnsubscribeUpdated && f.sub.NextPlanCode == "":
			return screens.Page{}, redirect(screens.UnsubscribeStepPath(f.attempt.ID, retention.StepPlanChange))
		case name == screens.UnsubscribeGifted && !slices.Contains(f.summary.OffersAccepted, retention.OfferGiftMonth):
			return screens.Page{}, redirect(screens.UnsubscribeStepPath(f.attempt.ID, retention.StepGiftMonth))
		}
		return s.unsubscribePage(r, st), nil
	}
	n, err := strconv.Atoi(name)
	step := retention.Step(n)
	if err != nil || !step.Valid() || strconv.Itoa(n) != name {
		return screens.Page{}, redirect(screens.UnsubscribeStepPath(f.attempt.ID, retention.StepBenefits))
	}
	if canceled {
		st := s.unsubscribeState(r, f, retention.StepCancel)
		st.Result = screens.UnsubscribeCanceled
		return s.unsubscribePage(r, st), nil
	}
	// An offer step shows the subscriber's offer for it (their variant of
	// an offer experiment, else the spec's); one they cannot take, or none,
	// is skipped.
	offer := f.sit.OfferAt(step)
	if offer != retention.OfferNone && !f.sit.Shows(step) {
		return screens.Page{}, redirect(screens.UnsubscribeStepPath(f.attempt.ID, retention.Next(step, retention.MoveForward, f.sit)))
	}
	// Only a person's visit counts as reaching a step: a form action
	// composes the page again to check its rules (checkForm), with a POST.
	if r.fiber.Method() == "GET" {
		if err := s.Retention.Record(ctx, f.attempt, retention.Event{Kind: retention.EventReached, Step: int(step)}); err != nil {
			return screens.Page{}, err
		}
		if offer != retention.OfferNone {
			if err := s.Retention.Record(ctx, f.attempt, retention.Event{Kind: retention.EventOfferShown, Step: int(step), Offer: offer}); err != nil {
				return screens.Page{}, err
			}
			s.exposeOffer(ctx, r, f, retention.SlotStep(step))
		}
	}
	return s.unsubscribePage(r, s.unsubscribeState(r, f, step)), nil
}

// flowFor loads the action's attempt; a stale or foreign one is refused.
func (s *Server) flowFor(r *request, attemptID string) (unsubscribeFlow, error) {
	if !r.authorised {
		return unsubscribeFlow{}, engine.Errorf(engine.CodeUnauthenticated, "%s", r.ctx.T("error.generic"))
	}
	f, err := s.loadFlow(r, attemptID)
	if errors.Is(err, errNoFlow) {
		return unsubscribeFlow{}, engine.Wrap(engine.CodeNotFound, err, r.ctx.T("error.generic"))
	}
	return f, err
}

// outcome records how the attempt ended.
func (s *Server) outcome(r *request, f unsubscribeFlow, step retention.Step, outcome, exit string) error {
	if err := s.Retention.Record(r.fiber.Context(), f.attempt,
		retention.Event{Kind: retention.EventOutcome, Step: int(step), Outcome: outcome, Exit: exit}); err != nil {
		return err
	}
	s.unsubscribeExperimentOutcome(r.fiber.Context(), r, outcome)
	return nil
}

// unsubscribeLeave closes the flow ('Stay premium', 'Keep me subscribed',
// the close button) and goes back where it was opened.
func (s *Server) unsubscribeLeave(r *request, in any) (*ui.Result, error) {
	req := in.(*unsubscribeLeaveRequest)
	f, err := s.flowFor(r, req.Attempt)
	if err != nil {
		if engine.ErrorCode(err) == engine.CodeNotFound {
			return ui.Effects(ui.Replace(screens.PathDashboard)), nil
		}
		return nil, err
	}
	exit := req.Exit
	if exit == "" {
		exit = "close"
	}
	if err := s.outcome(r, f, retention.Step(req.Step), retention.OutcomeStayed, exit); err != nil {
		return nil, err
	}
	return ui.Effects(ui.Replace(f.attempt.Return)), nil
}

// unsubscribeReason records the survey's answer. The first reason keeps
// the membership and closes the flow.
func (s *Server) unsubscribeReason(r *request, in any) (*ui.Result, error) {
	req := in.(*unsubscribeReasonRequest)
	if !retention.ValidReason(req.Reason) {
		return nil, &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{"reason": r.ctx.T("unsubscribe.step5.required")}}
	}
	f, err := s.flowFor(r, req.Attempt)
	if err != nil {
		return nil, err
	}
	if err := s.Retention.Record(r.fiber.Context(), f.attempt,
		retention.Event{Kind: retention.EventAnswer, Step: int(retention.StepReason), Reason: req.Reason}); err != nil {
		return nil, err
	}
	f.sit.Reason = req.Reason
	next := retention.Next(retention.StepReason, retention.MoveForward, f.sit)
	if next == retention.Close {
		if err := s.outcome(r, f, retention.StepReason, retention.OutcomeStayed, "reason"); err != nil {
			return nil, err
		}
		return ui.Effects(ui.Replace(f.attempt.Return)), nil
	}
	return ui.Effects(ui.Navigate(screens.UnsubscribeStepPath(f.attempt.ID, next))), nil
}

// unsubscribeReview records the stars (optional) and the review (needed).
func (s *Server) unsubscribeReview(r *request, in any) (*ui.Result, error) {
	req := in.(*unsubscribeReviewRequest)
	review := strings.TrimSpace(req.Review)
	if review == "" {
		return nil, &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{"review": r.ctx.T("unsubscribe.step6.required")}}
	}
	f, err := s.flowFor(r, req.Attempt)
	if err != nil {
		return nil, err
	}
	e := retention.Event{Kind: retention.EventAnswer, Step: int(retention.StepReview), Review: review}
	if req.Stars != nil {
		e.Stars = *req.Stars
	}
	if err := s.Retention.Record(r.fiber.Context(), f.attempt, e); err != nil {
		return nil, err
	}
	next := retention.Next(retention.StepReview, retention.MoveForward, f.sit)
	// The reason's offer slot decided where the review leads.
	s.exposeOffer(r.fiber.Context(), r, f, retention.SlotReason(f.sit.Reason))
	return ui.Effects(ui.Navigate(screens.UnsubscribeStepPath(f.attempt.ID, next))), nil
}

// offerError is what a refused offer shows on its form.
func offerError(r *request, err error) error {
	if errors.Is(err, billing.ErrOfferUnavailable) || errors.Is(err, billing.ErrUnknownPlan) {
		return engine.Wrap(engine.CodeConflict, err, r.ctx.T("unsubscribe.offerUnavailable"))
	}
	return err
}

// unsubscribeChangePlan takes the plan change: the brand's premium sale
// plan from the next period.
func (s *Server) unsubscribeChangePlan(r *request, in any) (*ui.Result, error) {
	f, err := s.flowFor(r, in.(*unsubscribeAttemptRequest).Attempt)
	if err != nil {
		return nil, err
	}
	sale, err := s.Billing.Catalogue().SaleOf(f.sub.Brand, billing.FamilyPremiumOneMonth)
	if err != nil || !f.sit.CanTake(retention.OfferPlanChange) {
		return nil, offerError(r, billing.ErrOfferUnavailable)
	}
	if _, err := s.Billing.ChangePlanAtRenewal(r.fiber.Context(), f.sub.ID, sale.Code, planChangeKey(f.attempt),
		"user:"+r.principal.User.ID); err != nil {
		return nil, offerError(r, err)
	}
	if err := s.Retention.Record(r.fiber.Context(), f.attempt, retention.Event{Kind: retention.EventOfferAccepted,
		Step: int(retention.StepPlanChange), Offer: retention.OfferPlanChange}); err != nil {
		return nil, err
	}
	if err := s.outcome(r, f, retention.StepPlanChange, retention.OutcomePlanChanged, ""); err != nil {
		return nil, err
	}
	return ui.Effects(ui.Replace(screens.UnsubscribeResultPath(f.attempt.ID, screens.UnsubscribeUpdated))), nil
}

// unsubscribeGiftMonth takes the free month, once per attempt (and the
// flow offers it once per subscription).
func (s *Server) unsubscribeGiftMonth(r *request, in any) (*ui.Result, error) {
	f, err := s.flowFor(r, in.(*unsubscribeAttemptRequest).Attempt)
	if err != nil {
		return nil, err
	}
	if !f.sit.CanTake(retention.OfferGiftMonth) {
		return nil, offerError(r, billing.ErrOfferUnavailable)
	}
	if _, err := s.Billing.AddFreeMonth(r.fiber.Context(), f.sub.ID, giftKey(f.attempt), "user:"+r.principal.User.ID); err != nil {
		return nil, offerError(r, err)
	}
	if err := s.Retention.Record(r.fiber.Context(), f.attempt, retention.Event{Kind: retention.EventOfferAccepted,
		Step: int(retention.StepGiftMonth), Offer: retention.OfferGiftMonth}); err != nil {
		return nil, err
	}
	if err := s.outcome(r, f, retention.StepGiftMonth, retention.OutcomeGiftMonth, ""); err != nil {
		return nil, err
	}
	return ui.Effects(ui.Replace(screens.UnsubscribeResultPath(f.attempt.ID, screens.UnsubscribeGifted))), nil
}

// unsubscribeCancel is the final cancel: the plan stops renewing and stays
// usable until its period ends. The canceled page follows, composed from
// the subscription read again (the spec's re-check; the cancel dropped
// this instance's cached copy of it). No extra refresh: one racing the
// person's next tap showed an error.
func (s *Server) unsubscribeCancel(r *request, in any) (*ui.Result, error) {
	if !r.authorised || r.mainSub.ID == "" || r.principal.User.ID == "" {
		return nil, engine.Errorf(engine.CodeForbidden, "%s", r.ctx.T("unsubscribe.noSubscription"))
	}
	f, err := s.flowFor(r, in.(*unsubscribeAttemptRequest).Attempt)
	if err != nil {
		return nil, err
	}
	if _, err := s.Billing.Cancel(r.fiber.Context(), f.sub.ID, "user:"+r.principal.User.ID); err != nil {
		return nil, err
	}
	if err := s.outcome(r, f, retention.StepCancel, retention.OutcomeCanceled, ""); err != nil {
		return nil, err
	}
	return ui.Effects(ui.Track("cancel_success", map[string]any{"source": "unsubscribe_flow", "subscription": f.sub.ID}),
		ui.Replace(screens.UnsubscribeResultPath(f.attempt.ID, screens.UnsubscribeCanceled))), nil
}
