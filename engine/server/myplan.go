package server

import (
	"errors"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// My Plan's own management of the plan, beside cancel and resume
// (billing.go): changing what the plan renews as, and undoing that.

type changePlanRequest struct {
	PlanCode string `json:"planCode" validate:"required,max=64"`
}

// changePlan schedules another plan from the next renewal
// (billing.ChangePlan), or, choosing the plan there is now, undoes a
// scheduled change; My Plan opens again with what it renews as.
func (s *Server) changePlan(r *request, in any) (*ui.Result, error) {
	req := in.(*changePlanRequest)
	if !r.authorised || r.mainSub.ID == "" {
		return nil, engine.Errorf(engine.CodeForbidden, "%s", r.copy.T("plan.noPaymentMethod"))
	}
	_, err := s.Billing.ChangePlan(r.fiber.Context(), r.mainSub.ID, req.PlanCode, "user:"+r.principal.User.ID)
	switch {
	case errors.Is(err, billing.ErrSamePlan):
		return ui.Effects(ui.CloseOverlay(screens.ChangePlanOverlay)), nil
	case errors.Is(err, billing.ErrUnknownPlan), errors.Is(err, billing.ErrOfferUnavailable):
		return nil, engine.Wrap(engine.CodeConflict, err, r.copy.T("plan.changeUnavailable"))
	case err != nil:
		return nil, err
	}
	return ui.Effects(ui.Refresh(), ui.OpenOverlay(screens.MyPlanOverlay)), nil
}

// undoPlanChange keeps the plan as it is at the next renewal.
func (s *Server) undoPlanChange(r *request, _ any) (*ui.Result, error) {
	if !r.authorised || r.mainSub.ID == "" {
		return nil, engine.Errorf(engine.CodeForbidden, "%s", r.copy.T("plan.noPaymentMethod"))
	}
	if _, err := s.Billing.UndoPlanChange(r.fiber.Context(), r.mainSub.ID, "user:"+r.principal.User.ID); err != nil {
		return nil, err
	}
	return ui.Effects(ui.Refresh(), ui.OpenOverlay(screens.MyPlanOverlay)), nil
}
