package server

import (
	"errors"
	"net/url"
	"strconv"
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

// checkoutRequest is the checkout form. Its screen's rules say what a valid
// value looks like (form: true); the tags only bound sizes.
type checkoutRequest struct {
	cardFields
	Plan  string `json:"plan" validate:"max=64"`
	Email string `json:"email" validate:"max=254"`
	Key   string `json:"/checkoutKey" validate:"required,max=128"`
}

type updateCardRequest struct {
	cardFields
	Subscription string `json:"/subscription" validate:"required,max=64"`
}

// cardFields are the card inputs both card forms share (screens.cardInputs).
type cardFields struct {
	Card   string `json:"card" validate:"max=32"`
	Expiry string `json:"expiry" validate:"max=16"`
	CVC    string `json:"cvc" validate:"max=8"`
}

// card is the typed card as billing takes it.
func (f cardFields) card() billing.Card {
	month, year := parseExpiry(f.Expiry)
	return billing.Card{Number: f.Card, ExpMonth: month, ExpYear: year, CVC: f.CVC}
}

func (s *Server) checkoutScreen(r *request) (screens.Page, error) {
	email := ""
	if r.signedIn {
		email = r.principal.User.Email
	}
	plans := s.Billing.Catalogue().ForBrand(r.brand.Key, billing.KindMain)
	return screens.Checkout(r.copy, screens.CheckoutState{Plans: plans, Key: engine.NewToken(), Email: email,
		Sandbox: s.Billing.Provider().Name() == "sandbox"}), nil
}

func (s *Server) checkoutDoneScreen(r *request) (screens.Page, error) {
	sub, err := s.Billing.Subscription(r.fiber.Context(), r.query.Get("id"))
	if errors.Is(err, billing.ErrNoSubscription) || (err == nil && sub.Bundle != r.brand.Bundle) {
		return screens.CheckoutDone(r.copy, "", false), nil
	}
	if err != nil {
		return screens.Page{}, err
	}
	return screens.CheckoutDone(r.copy, maskEmail(sub.Email), true), nil
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

// parseExpiry reads "MM/YY" or "MM/YYYY".
func parseExpiry(s string) (month, year int) {
	m, y, ok := strings.Cut(strings.ReplaceAll(s, " ", ""), "/")
	if !ok {
		return 0, 0
	}
	month, _ = strconv.Atoi(m)
	year, _ = strconv.Atoi(y)
	return month, year
}

// cardError puts a card refusal under the input it is about, in the
// brand's words; a decline is the form's error.
func cardError(r *request, err error) error {
	field := func(id, key string) error {
		return &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{id: r.copy.T(key)}, Err: err}
	}
	switch {
	case errors.Is(err, billing.ErrCardInvalid):
		return field("card", "checkout.cardInvalid")
	case errors.Is(err, billing.ErrCardExpired):
		return field("expiry", "checkout.expired")
	case errors.Is(err, billing.ErrCVCInvalid):
		return field("cvc", "checkout.cvcInvalid")
	case errors.Is(err, billing.ErrCardDeclined):
		return engine.Wrap(engine.CodeInvalid, err, r.copy.T("checkout.declined"))
	}
	return err
}

func (s *Server) checkoutPay(r *request, in any) (*ui.Result, error) {
	req := in.(*checkoutRequest)
	ctx := r.fiber.Context()
	sub, err := s.Billing.Checkout(ctx, billing.CheckoutRequest{Brand: r.brand.Key, Bundle: r.brand.Bundle,
		PlanCode: req.Plan, Email: req.Email, Key: req.Key, Card: req.card(), Client: r.fiber.IP()})
	s.Business.Checkout(paymentOutcome(err))
	switch {
	case errors.Is(err, billing.ErrTooManyAttempts):
		s.Business.LimitHit(metrics.LimitCheckout)
		return nil, engine.Wrap(engine.CodeRateLimited, err, r.copy.T("auth.tooManyRequests"))
	case errors.Is(err, billing.ErrKeyReused), errors.Is(err, billing.ErrIdempotencyMismatch):
		return nil, engine.Wrap(engine.CodeConflict, err, r.copy.T("checkout.keyReused"))
	case errors.Is(err, billing.ErrUnknownPlan):
		return nil, &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{"plan": r.copy.T("checkout.planRequired")}, Err: err}
	case err != nil:
		return nil, cardError(r, err)
	}
	return ui.Effects(ui.Replace(screens.PathCheckoutDone + "?id=" + url.QueryEscape(sub.ID))), nil
}

// purchase buys an add-on with the main plan's card. The course then opens;
// the report is made and mailed by billing's notice, and the screen is
// checked again 2 s later (the spec's re-check delay) as the mail goes out.
func (s *Server) purchase(family string) func(r *request, _ any) (*ui.Result, error) {
	return func(r *request, _ any) (*ui.Result, error) {
		if !r.authorised {
			return nil, engine.Errorf(engine.CodeUnauthenticated, "%s", r.copy.T("error.generic"))
		}
		ctx := r.fiber.Context()
		main, err := s.Billing.Subscription(ctx, r.mainSub.ID)
		if err != nil {
			return nil, err
		}
		_, err = s.Billing.Purchase(ctx, billing.PurchaseRequest{UserID: r.principal.User.ID,
			Email: r.principal.User.Email, Main: main, Family: family})
		s.Business.Purchase(paymentOutcome(err))
		switch {
		case errors.Is(err, billing.ErrAlreadyOwned):
			// A second tap: the first one bought it.
		case errors.Is(err, billing.ErrCardDeclined):
			return nil, engine.Wrap(engine.CodeInvalid, err, r.copy.T("plan.purchaseFailed"))
		case err != nil:
			return nil, err
		}
		switch family {
		case billing.FamilyPDFCourse:
			return ui.Effects(ui.CloseOverlay(screens.CoursePurchaseOverlay), ui.CloseOverlay(screens.MyPlanOverlay),
				ui.Navigate(screens.PathCourse)), nil
		case billing.FamilyProfileReport:
			// The report is made and mailed (billing.NoticeProfileReport).
			return ui.Effects(ui.Refresh(), ui.After(2000, ui.Refresh())), nil
		}
		return ui.Effects(ui.Refresh()), nil
	}
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
	return ui.Effects(ui.Refresh()), nil
}

// cancelFromLink is the public cancel page's one call: the link's value
// names a cancel request; any failure reads as 'No subscriptions'.
func (s *Server) cancelFromLink(r *request, _ any) (*ui.Result, error) {
	done, err := s.Billing.CancelByLink(r.fiber.Context(), r.query.Get("from"), r.brand.Bundle)
	if err != nil {
		s.Logger.Error("cancel from link", "requestId", requestID(r.fiber), "error", err)
		done = billing.LinkCancel{}
	}
	page := screens.UnsubscriptionResult(r.copy, done.Canceled, done.AccessEnds)
	return &ui.Result{Screen: ptr(page.Envelope(s.meta(r)))}, nil
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
	return screens.UpdateCard(r.copy, sub.ID, current), nil
}

func (s *Server) updateCard(r *request, in any) (*ui.Result, error) {
	req := in.(*updateCardRequest)
	if !r.authorised {
		return nil, engine.Errorf(engine.CodeUnauthenticated, "%s", r.copy.T("error.generic"))
	}
	ctx := r.fiber.Context()
	sub, err := s.Billing.Subscription(ctx, req.Subscription)
	if err != nil || sub.UserID != r.principal.User.ID {
		return nil, engine.Errorf(engine.CodeForbidden, "%s", r.copy.T("plan.noPaymentMethod"))
	}
	if _, err := s.Billing.UpdateCard(ctx, sub.ID, req.card(), "user:"+r.principal.User.ID); err != nil {
		return nil, cardError(r, err)
	}
	return ui.Effects(ui.Replace(screens.PathDashboard + "?plan=updated")), nil
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
	for _, a := range billing.AddOns {
		p, err := s.Billing.Catalogue().Find(r.brand.Key, a.Family)
		if err != nil {
			continue
		}
		h.Offers = append(h.Offers, screens.Offer{Family: a.Family, Price: p.Price, FullPrice: p.FullPrice,
			Discount: p.Discount, Owned: ent[a.Entitlement]})
	}
	return h
}
