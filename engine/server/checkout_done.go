package server

import (
	"errors"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/metrics"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// The done page of a paid plan (#32 item 12): what was bought, when it
// renews, where the account mail went, and, until the account exists and
// for a day, the mail again or to a corrected address. Both actions act on
// the order the page's own URL names (billing.ResendPurchaseMail,
// billing.ChangePurchaseEmail), which the buyer's browser alone was sent to.

// orderState is what the done page shows of an order.
func (s *Server) orderState(r *request, order billing.Order) (screens.OrderState, error) {
	st := screens.OrderState{Found: true, Kind: order.Kind, Status: order.Status, Email: maskEmail(order.Email), Return: order.Return}
	if order.Kind != billing.OrderPlan || order.Status != billing.OrderPaid {
		return st, nil
	}
	p, err := s.Billing.PaidPlan(r.fiber.Context(), order.ID, r.brand.Bundle)
	if errors.Is(err, billing.ErrNoOrder) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	st.Plan, st.Price, st.Period = p.Plan.Name, p.Price.String(), p.Plan.Period
	if !p.RenewsOn.IsZero() {
		st.RenewsOn = brand.Date(p.RenewsOn)
	}
	st.Email, st.AccountReady, st.Fixable = maskEmail(p.Order.Email), p.AccountReady, p.Fixable
	return st, nil
}

// purchaseMailRequest is the done page's form that corrects the address.
type purchaseMailRequest struct {
	Email string `json:"email" validate:"max=254"`
}

// resendPurchaseMail sends the account mail of the page's order again.
func (s *Server) resendPurchaseMail(r *request, _ any) (*ui.Result, error) {
	order := r.query.Get("order")
	err := s.Billing.ResendPurchaseMail(r.fiber.Context(), order, r.brand.Bundle)
	if err != nil {
		return nil, s.purchaseMailError(r, err, "")
	}
	return s.purchaseMailSent(r, order)
}

// changePurchaseEmail corrects the address of the page's order and sends
// the account mail there.
func (s *Server) changePurchaseEmail(r *request, in any) (*ui.Result, error) {
	req := in.(*purchaseMailRequest)
	order := r.query.Get("order")
	err := s.Billing.ChangePurchaseEmail(r.fiber.Context(), order, r.brand.Bundle, req.Email)
	if err != nil {
		return nil, s.purchaseMailError(r, err, "email")
	}
	return s.purchaseMailSent(r, order)
}

// purchaseMailSent is the done page again, saying where the mail went.
func (s *Server) purchaseMailSent(r *request, orderID string) (*ui.Result, error) {
	order, err := s.Billing.Order(r.fiber.Context(), orderID)
	if err != nil {
		return nil, err
	}
	st, err := s.orderState(r, order)
	if err != nil {
		return nil, err
	}
	st.Sent = true
	return s.screenResult(r, screens.CheckoutDone(r.copy, st))
}

// purchaseMailError words a refusal of the done page's actions; field is
// the form's field an address refusal is shown under ("" for none).
func (s *Server) purchaseMailError(r *request, err error, field string) error {
	switch {
	case errors.Is(err, billing.ErrTooManyAttempts):
		s.Business.LimitHit(metrics.LimitOther)
		return engine.Wrap(engine.CodeRateLimited, err, r.copy.T("checkout.done.tooManyMails"))
	case errors.Is(err, billing.ErrNoOrder), errors.Is(err, billing.ErrPurchaseClosed):
		return engine.Wrap(engine.CodeConflict, err, r.copy.T("checkout.done.closed"))
	case errors.Is(err, billing.ErrHasLivePlan) && field != "":
		return &engine.Error{Code: engine.CodeConflict, Fields: map[string]string{field: r.copy.T("checkout.done.hasPlan")}, Err: err}
	case engine.ErrorCode(err) == engine.CodeInvalid && field != "":
		return &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{field: r.copy.T("checkout.wrongEmail")}, Err: err}
	}
	return err
}

// checkoutLimitError words a refused checkout by the limit it hit
// (billing/checkout_limits.go): none of them blames the device.
func checkoutLimitError(r *request, err error) error {
	key := "checkout.tooManyForEmail"
	if errors.Is(err, billing.ErrCheckoutsFromNetwork) {
		key = "checkout.tooManyFromNetwork"
	}
	return engine.Wrap(engine.CodeRateLimited, err, r.copy.T(key))
}
