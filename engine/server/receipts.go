package server

import (
	"errors"
	"strings"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// purchase buys an add-on with the main plan's card, once the subscriber
// confirmed what is charged to which card (screens.PurchaseConfirms), and
// lands on the purchase's receipt, which says the payment went through and
// offers what was bought. A refused card is the confirmation's form error.
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
		receipt, err := s.Billing.BuyAddOn(ctx, billing.PurchaseRequest{UserID: r.principal.User.ID,
			Email: r.principal.User.Email, Main: main, Family: family, Origin: s.Config.BrandOrigin(r.brand.Key)})
		s.Business.Purchase(paymentOutcome(err))
		var authenticate *billing.AuthenticationNeeded
		switch {
		case errors.As(err, &authenticate):
			// The bank asks for the subscriber (3-D Secure): they
			// authenticate and pay on the provider's page.
			return ui.Effects(ui.OpenURL(authenticate.URL, false)), nil
		case errors.Is(err, billing.ErrAlreadyOwned) && receipt.Number == "":
			// Owned without a purchase of its own (granted): nothing to
			// show but My Plan, which now offers it as owned.
			return ui.Effects(ui.CloseOverlay(screens.ConfirmOverlay(family)), ui.Refresh()), nil
		case errors.Is(err, billing.ErrAlreadyOwned):
			// A second tap: the first one bought it.
		case errors.Is(err, billing.ErrCardDeclined), errors.Is(err, billing.ErrCardExpired):
			return nil, engine.Wrap(engine.CodeInvalid, err, r.copy.T("plan.purchaseFailed"))
		case err != nil:
			return nil, err
		}
		return ui.Effects(ui.CloseOverlay(screens.ConfirmOverlay(family)), ui.CloseOverlay(screens.MyPlanOverlay),
			ui.Navigate(screens.ReceiptPath(receipt.Number)+"?"+screens.PurchaseDoneQuery)), nil
	}
}

// itemName is what a charge paid for, as the brand names it: an add-on by
// its My Plan title, a plan by its name.
func itemName(c screens.Context, planCode, family string) string {
	if family != "" {
		return c.T("plan.offer." + family + ".title")
	}
	return billing.Describe(planCode).Name
}

// billingScreen is the subscriber's billing history.
func (s *Server) billingScreen(r *request) (screens.Page, error) {
	lines, err := s.Billing.BillingHistory(r.fiber.Context(), r.principal.User.ID)
	if err != nil {
		return screens.Page{}, err
	}
	views := make([]screens.HistoryLineView, 0, len(lines))
	for _, l := range lines {
		v := screens.HistoryLineView{Date: brand.Date(l.At), Item: itemName(r.copy, l.PlanCode, l.Family),
			Amount: l.Amount.String(), Status: l.Status, Receipt: l.Receipt}
		if l.Refunded.Amount > 0 {
			v.Refunded, v.RefundedOn = l.Refunded.String(), brand.Date(l.RefundedAt)
		}
		views = append(views, v)
	}
	return screens.BillingHistory(r.copy, views), nil
}

// receiptScreen is one of the subscriber's receipts; anyone else's number
// reads as not found.
func (s *Server) receiptScreen(r *request) (screens.Page, error) {
	number := strings.Trim(strings.TrimPrefix(r.path, screens.PathReceipts), "/")
	v, err := s.Billing.ReceiptForUser(r.fiber.Context(), r.principal.User.ID, number)
	if errors.Is(err, billing.ErrNoReceipt) {
		return screens.Receipt(r.copy, nil), nil
	}
	if err != nil {
		return screens.Page{}, err
	}
	state := &screens.ReceiptState{Number: v.Number, Item: itemName(r.copy, v.PlanCode, v.Family()),
		Kind: v.Kind, Family: v.Family(), Amount: v.Amount.String(), Date: brand.Date(v.PaidAt), Card: v.Card(),
		Status: v.Status, Operator: s.Config.OperatorName, Email: v.Email, Period: v.Period(), Refunded: refundedText(r, v),
		JustBought: r.query.Get("purchase") == "done" && v.Kind == billing.ReceiptAddOn}
	if state.JustBought && state.Family == billing.FamilyProfileReport {
		// The report is made from the analysis: with none yet, it is
		// mailed once there is one, and nothing offers to download it.
		if state.ReportPending, err = s.reportPending(r); err != nil {
			return screens.Page{}, err
		}
	}
	return screens.Receipt(r.copy, state), nil
}

// reportPending is whether the request's subscriber has no analysed profile
// yet, so that a profile report they own or buy is still to be mailed.
func (s *Server) reportPending(r *request) (bool, error) {
	sum, err := s.insights(r)
	if err != nil {
		return false, err
	}
	return sum.Engagement == nil, nil
}

// refundedText says what was given back of a receipt's charge, and when;
// "" for nothing.
func refundedText(r *request, v billing.ReceiptView) string {
	if v.Refunded.Amount == 0 {
		return ""
	}
	return strings.NewReplacer("{amount}", v.Refunded.String(), "{date}", brand.Date(v.RefundedAt)).Replace(r.copy.T("receipt.refundedOn"))
}
