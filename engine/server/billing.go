package server

import (
	"errors"
	"strings"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/metrics"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// cancelByEmailScreen is the public page a cancel-by-email link opens.
func (s *Server) cancelByEmailScreen(r *request) (screens.Page, error) {
	return screens.Unsubscription(r.copy), nil
}

// checkoutRequest is the checkout form: a plan and an address. The card is
// typed on the payment provider's page, never sent to an action here.
type checkoutRequest struct {
	Plan  string `json:"plan" validate:"max=64"`
	Email string `json:"email" validate:"max=254"`
	Key   string `json:"/checkoutKey" validate:"required,max=128"`
}

type updateCardRequest struct {
	Subscription string `json:"/subscription" validate:"required,max=64"`
	// Return is the add-on family whose purchase the card update
	// interrupted, "" for none.
	Return string `json:"/return" validate:"max=64"`
}

type confirmPaymentRequest struct {
	Token string `json:"/token" validate:"required,max=128"`
}

func (s *Server) checkoutScreen(r *request) (screens.Page, error) {
	email := ""
	if r.signedIn {
		email = r.principal.User.Email
	}
	// Back from the hosted page: the plan chosen, and the address typed,
	// read from the order (billing.CheckoutBack), never from the URL.
	if typed, err := s.Billing.CheckoutBack(r.fiber.Context(), r.query.Get("order"), r.brand.Bundle); err != nil {
		return screens.Page{}, err
	} else if typed != "" {
		email = typed
	}
	plans := s.Billing.Catalogue().ForBrand(r.brand.Key, billing.KindMain)
	return screens.Checkout(r.copy, screens.CheckoutState{Plans: plans, Key: engine.NewToken(), Email: email,
		Sandbox: s.Billing.Provider().Name() == "sandbox", Plan: r.query.Get("plan")}), nil
}

// checkoutDoneScreen is where the provider's page sends the buyer back. It
// only reads the order: what was bought is made by the provider's verified
// event, and until then the page says the payment is being confirmed and
// looks again.
func (s *Server) checkoutDoneScreen(r *request) (screens.Page, error) {
	order, err := s.Billing.Order(r.fiber.Context(), r.query.Get("order"))
	if errors.Is(err, billing.ErrNoOrder) || (err == nil && order.Bundle != r.brand.Bundle) {
		return screens.CheckoutDone(r.copy, screens.OrderState{}), nil
	}
	if err != nil {
		return screens.Page{}, err
	}
	st, err := s.orderState(r, order)
	if err != nil {
		return screens.Page{}, err
	}
	return screens.CheckoutDone(r.copy, st), nil
}

// maskEmail shows enough of an address for its owner to recognise it and
// little for anyone else holding the page's link: "a•••@example.com".
func maskEmail(email string) string {
	local, domain, ok := strings.Cut(email, "@")
	if !ok || local == "" {
		return "•••"
	}
	return local[:1] + "•••@" + domain
}

// checkoutPay sends the buyer to the payment provider's hosted page for the
// chosen plan (billing.StartCheckout); it takes no card.
func (s *Server) checkoutPay(r *request, in any) (*ui.Result, error) {
	req := in.(*checkoutRequest)
	start, err := s.Billing.StartCheckout(r.fiber.Context(), billing.CheckoutRequest{Brand: r.brand.Key, Bundle: r.brand.Bundle,
		PlanCode: req.Plan, Email: req.Email, Key: req.Key, Client: r.fiber.IP(), Origin: s.Config.BrandOrigin(r.brand.Key)})
	s.Business.Checkout(paymentOutcome(err))
	switch {
	case errors.Is(err, billing.ErrTooManyAttempts):
		s.Business.LimitHit(metrics.LimitCheckout)
		return nil, checkoutLimitError(r, err)
	case errors.Is(err, billing.ErrKeyReused), errors.Is(err, billing.ErrIdempotencyMismatch):
		return nil, engine.Wrap(engine.CodeConflict, err, r.copy.T("checkout.keyReused"))
	case errors.Is(err, billing.ErrUnknownPlan):
		return nil, &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{"plan": r.copy.T("checkout.planRequired")}, Err: err}
	case err != nil:
		return nil, err
	}
	return ui.Effects(ui.OpenURL(start.URL, false)), nil
}

// cancelRequest sends the cancel-by-email confirmation
// (billing.RequestCancelEmail).
func (s *Server) cancelRequest(r *request, _ any) (*ui.Result, error) {
	if !r.authorised || r.mainSub.ID == "" {
		return nil, engine.Errorf(engine.CodeForbidden, "%s", r.copy.T("plan.noPaymentMethod"))
	}
	err := s.Billing.RequestCancelEmail(r.fiber.Context(), billing.CancelEmailRequest{SubscriptionID: r.mainSub.ID,
		UserID: r.principal.User.ID, Email: r.principal.User.Email, Bundle: r.brand.Bundle, Brand: r.brand.Key})
	if errors.Is(err, billing.ErrTooManyAttempts) {
		s.Business.LimitHit(metrics.LimitCancelMail)
		return nil, engine.Wrap(engine.CodeRateLimited, err, r.copy.T("cancelByEmail.tooMany"))
	}
	if err != nil {
		return nil, err
	}
	return ui.Effects(ui.Track("cancel_success", map[string]any{"source": "my_plan", "subscription": r.mainSub.ID}),
		ui.CloseOverlay(screens.CancelByEmailOverlay), ui.OpenOverlay(screens.CancelSentOverlay)), nil
}

// resumePlan takes back a cancel at period end (billing.Resume).
func (s *Server) resumePlan(r *request, _ any) (*ui.Result, error) {
	if !r.authorised || r.mainSub.ID == "" {
		return nil, engine.Errorf(engine.CodeForbidden, "%s", r.copy.T("plan.noPaymentMethod"))
	}
	_, err := s.Billing.Resume(r.fiber.Context(), r.mainSub.ID, "user:"+r.principal.User.ID)
	if errors.Is(err, billing.ErrNotResumable) {
		return nil, engine.Wrap(engine.CodeConflict, err, r.copy.T("plan.notResumable"))
	}
	if err != nil {
		return nil, err
	}
	// The dashboard again with My Plan open, and over it what resumed.
	return ui.Effects(ui.Refresh(), ui.OpenOverlay(screens.MyPlanOverlay), ui.OpenOverlay(screens.ResumedOverlay)), nil
}

// cancelFromLink is the public cancel page's one tap (a POST; loading the
// page cancels nothing): the link's value names a cancel request. A tap
// that cancels nothing (a second tap, a spent or unknown link) shows what
// the link is now: already canceled, or a form that asks for a new link.
func (s *Server) cancelFromLink(r *request, _ any) (*ui.Result, error) {
	done, err := s.Billing.CancelByLink(r.fiber.Context(), r.query.Get("from"), r.brand.Bundle)
	if err != nil {
		s.Logger.Error("cancel from link", "requestId", requestID(r.fiber), "error", err)
		done = billing.LinkCancel{}
	}
	if done.Canceled {
		return s.screenResult(r, screens.UnsubscriptionFor(r.copy, screens.UnsubscriptionState{
			Outcome: screens.UnsubscriptionCanceled, AccessEnds: done.AccessEnds}))
	}
	page, err := s.cancelPage(r)
	if err != nil {
		s.Logger.Error("cancel from link", "requestId", requestID(r.fiber), "error", err)
		page = screens.UnsubscriptionFor(r.copy, screens.UnsubscriptionState{Outcome: screens.UnsubscriptionNone})
	}
	return s.screenResult(r, page)
}

func (s *Server) updateCardScreen(r *request) (screens.Page, error) {
	sub, err := s.Billing.Subscription(r.fiber.Context(), r.query.Get("subscription"))
	if err != nil || sub.UserID != r.principal.User.ID {
		sub, err = s.Billing.Subscription(r.fiber.Context(), r.mainSub.ID)
		if err != nil {
			return screens.Page{}, err
		}
	}
	current := ""
	if sub.PaymentMethod.Last4 != "" {
		current = brand.CardLabel(sub.PaymentMethod.Brand, sub.PaymentMethod.Last4)
	}
	back := r.query.Get("return")
	if !billing.FamilyKnown(back) {
		back = ""
	}
	return screens.UpdateCard(r.copy, sub.ID, current, back), nil
}

// updateCard sends the subscriber to the provider's hosted page in setup
// mode (billing.StartCardUpdate); the new card is saved from its event.
func (s *Server) updateCard(r *request, in any) (*ui.Result, error) {
	req := in.(*updateCardRequest)
	if !r.authorised {
		return nil, engine.Errorf(engine.CodeUnauthenticated, "%s", r.copy.T("error.generic"))
	}
	start, err := s.Billing.StartCardUpdate(r.fiber.Context(), billing.CardUpdateRequest{SubscriptionID: req.Subscription,
		UserID: r.principal.User.ID, Origin: s.Config.BrandOrigin(r.brand.Key), Return: req.Return})
	if errors.Is(err, billing.ErrNoSubscription) {
		return nil, engine.Wrap(engine.CodeForbidden, err, r.copy.T("plan.noPaymentMethod"))
	}
	if err != nil {
		return nil, err
	}
	return ui.Effects(ui.OpenURL(start.URL, false)), nil
}

// confirmPaymentScreen is the page a renewal's confirmation mail links to:
// the bank asked for the subscriber, and this page sends them to the
// provider's page to authenticate and pay.
func (s *Server) confirmPaymentScreen(r *request) (screens.Page, error) {
	token := r.query.Get("token")
	order, err := s.Billing.Confirmation(r.fiber.Context(), token)
	switch {
	case errors.Is(err, billing.ErrNoOrder), err == nil && order.Bundle != r.brand.Bundle:
		return screens.ConfirmPayment(r.copy, screens.ConfirmState{}), nil
	case errors.Is(err, billing.ErrConfirmationClosed):
		return screens.ConfirmPayment(r.copy, screens.ConfirmState{Found: true, Closed: true}), nil
	case err != nil:
		return screens.Page{}, err
	}
	return screens.ConfirmPayment(r.copy, screens.ConfirmState{Found: true, Token: token,
		Plan: billing.Describe(order.PlanCode).Name, Price: order.Amount.String()}), nil
}

func (s *Server) confirmPayment(r *request, in any) (*ui.Result, error) {
	req := in.(*confirmPaymentRequest)
	start, err := s.Billing.StartConfirmation(r.fiber.Context(), req.Token, s.Config.BrandOrigin(r.brand.Key))
	if errors.Is(err, billing.ErrNoOrder) || errors.Is(err, billing.ErrConfirmationClosed) {
		return nil, engine.Wrap(engine.CodeConflict, err, r.copy.T("confirm.closed"))
	}
	if err != nil {
		return nil, err
	}
	return ui.Effects(ui.OpenURL(start.URL, false)), nil
}

// planState is My Plan for the request's subscriber, from what the session
// already loaded (no database read on the dashboard's path).
func (s *Server) planState(r *request) screens.HomeState {
	ent := s.entitlements(r)
	now := s.Clock.Now()
	h := screens.HomeState{
		Email:       r.principal.User.Email,
		Plan:        billing.Describe(r.mainSub.PlanCode),
		Canceled:    r.mainSub.Status == billing.StatusCanceled,
		CourseOwned: ent[billing.PDFCourse],
		Fetching:    r.mainSub.FetchingPlans(now),
	}
	if !r.mainSub.CurrentPeriodEnd.IsZero() {
		h.PeriodEnd = brand.Date(r.mainSub.CurrentPeriodEnd)
	}
	if code := r.mainSub.NextPlanCode; code != "" && !h.Canceled {
		if next, err := s.Billing.Catalogue().Plan(code); err == nil {
			h.Next = &screens.NextPlan{Name: billing.Describe(code).Name, Price: next.Price.String(),
				Period: billing.Describe(code).Period, From: h.PeriodEnd}
		}
	}
	if pm := r.mainSub.PaymentMethod; pm.Last4 != "" {
		h.Card = brand.CardLabel(pm.Brand, pm.Last4)
	}
	if r.mainSub.MainPlan && r.mainSub.Status == billing.StatusActive {
		for _, p := range s.Billing.Catalogue().ForBrand(r.brand.Key, billing.KindMain) {
			d := billing.Describe(p.Code)
			h.Plans = append(h.Plans, screens.PlanChoice{Code: p.Code, Name: d.Name, Price: p.Price.String(), Period: d.Period,
				Current: p.Code == r.mainSub.PlanCode, Next: p.Code == r.mainSub.NextPlanCode})
		}
	}
	for _, a := range billing.AddOns {
		p, err := s.Billing.Catalogue().Find(r.brand.Key, a.Family)
		if err != nil {
			continue
		}
		o := screens.Offer{Family: a.Family, Price: p.Price, FullPrice: p.FullPrice,
			Discount: p.Discount, Owned: ent[a.Entitlement]}
		if a.Entitlement == billing.ProfileReport {
			// Made from the analysis: before the first, it is sold, and
			// shown, as mailed once there is one. The dashboard has read
			// the profile's summary already (homeScreen); a failure to read
			// it is that screen's error.
			o.Pending, _ = s.reportPending(r)
		}
		h.Offers = append(h.Offers, o)
	}
	return h
}
