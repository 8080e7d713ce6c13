package server

import (
	"errors"
	"strconv"
	"strings"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/staff"
	"glimpse/engine/support"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// The support desk's screen and actions. The route's guard (guardSupport)
// and the actions' staff role (staff.RoleSupport) admit support staff and
// admins; editors and testers are refused with 403.

// deskRequest is what every desk action carries besides its form: the
// subscriber open on the desk and the key naming the view's requests.
type deskRequest struct {
	Email string `json:"/desk/email" validate:"required,max=254"`
	Key   string `json:"/desk/key" validate:"required,max=64"`
	// Query is the search the desk was opened from, kept so its matches
	// stay listed after the action.
	Query string `json:"/desk/q" validate:"max=254"`
}

// act is the desk's Act for this request and reason.
func (q deskRequest) act(r *request, reason string) support.Act {
	return support.Act{Staff: r.member.Email, Subscriber: q.Email, Reason: reason, Key: q.Key}
}

type supportFindRequest struct {
	Query string `json:"query" validate:"max=254"`
}

type supportRefundRequest struct {
	deskRequest
	Charge string `json:"refundCharge" validate:"max=300"`
	// Kind is "full" (all that is left) or "part" (Amount): a choice, so an
	// amount left empty never refunds everything by accident.
	Kind   string `json:"refundKind" validate:"omitempty,oneof=full part"`
	Amount string `json:"refundAmount" validate:"max=20"`
	Reason string `json:"refundReason" validate:"max=2000"`
}

type supportCancelRequest struct {
	deskRequest
	Subscription string `json:"cancelSubscription" validate:"max=200"`
	When         string `json:"cancelWhen" validate:"oneof=now period_end"`
	Reason       string `json:"cancelReason" validate:"max=2000"`
}

type supportExtendRequest struct {
	deskRequest
	Subscription string `json:"extendSubscription" validate:"max=200"`
	Days         string `json:"extendDays" validate:"max=2"`
	Reason       string `json:"extendReason" validate:"max=2000"`
}

type supportResendRequest struct {
	deskRequest
	What   string `json:"resendWhat" validate:"max=320"`
	Reason string `json:"resendReason" validate:"max=2000"`
}

type supportSignOutRequest struct {
	deskRequest
	Reason string `json:"signOutReason" validate:"max=2000"`
}

// supportOn refuses the desk's actions on a server without a desk.
func (s *Server) supportOn(h func(*request, any) (*ui.Result, error)) func(*request, any) (*ui.Result, error) {
	return func(r *request, in any) (*ui.Result, error) {
		if s.Support == nil {
			return nil, engine.Errorf(engine.CodeUnavailable, "%s", r.copy.T("support.unavailable"))
		}
		return h(r, in)
	}
}

// supportDesk composes the desk for the search in ?q= and the subscriber
// in ?email= (each optional); ?done= names the action just taken, which
// the desk confirms.
func (s *Server) supportDesk(r *request) (screens.Page, error) {
	if s.Support == nil {
		return screens.Page{}, engine.Errorf(engine.CodeUnavailable, "%s", r.copy.T("support.unavailable"))
	}
	ctx := r.fiber.Context()
	st := screens.SupportState{Staff: r.member.Email + " (" + r.member.Role + ")", Query: strings.TrimSpace(r.query.Get("q")),
		Email: strings.TrimSpace(r.query.Get("email")), Done: r.query.Get("done"),
		Key: engine.NewToken()[:24], Admin: r.member.Role == staff.RoleAdmin}
	if st.Query != "" {
		matches, err := s.Support.Search(ctx, st.Query)
		if err != nil && !errors.Is(err, support.ErrQuery) {
			return screens.Page{}, err
		}
		st.Matches = matches
		// One match is opened at once.
		if st.Email == "" && len(matches) == 1 {
			st.Email = matches[0].Email
		}
	}
	if st.Email != "" {
		d, err := s.Support.Find(ctx, st.Email)
		switch {
		case err == nil:
			st.Dossier = &d
			return screens.SupportDesk(r.copy, st), nil
		case !errors.Is(err, support.ErrNoSubscriber):
			return screens.Page{}, err
		}
	}
	audit, err := s.Support.Audit(ctx)
	if err != nil {
		return screens.Page{}, err
	}
	st.Audit = audit
	return screens.SupportDesk(r.copy, st), nil
}

// supportFind searches: one match opens that subscriber; several are
// listed to choose from; none says so.
func (s *Server) supportFind(r *request, in any) (*ui.Result, error) {
	req := in.(*supportFindRequest)
	q := strings.TrimSpace(req.Query)
	matches, err := s.Support.Search(r.fiber.Context(), q)
	if err != nil {
		var e *engine.Error
		if errors.As(err, &e) && e.Code == engine.CodeInvalid {
			return nil, &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{"query": e.Message}, Err: err}
		}
		return nil, err
	}
	if len(matches) == 1 {
		return ui.Effects(ui.Replace(screens.SupportPath("", matches[0].Email, ""))), nil
	}
	return ui.Effects(ui.Replace(screens.SupportPath(q, "", ""))), nil
}

// deskDone closes an action's dialog and shows the desk again, with what
// the action changed, its audit entry and a line confirming it.
func deskDone(dialog string, q deskRequest, action string) *ui.Result {
	return ui.Effects(ui.CloseOverlay(dialog), ui.Replace(screens.SupportPath(q.Query, auth.NormaliseEmail(q.Email), action)))
}

// deskProblem words the desk's errors for the dialog: a reason that breaks
// its rules under the reason input, anything else as the form's line.
func deskProblem(err error, reasonInput string) error {
	if errors.Is(err, support.ErrReason) {
		var e *engine.Error
		errors.As(err, &e)
		return &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{reasonInput: e.Message}, Err: err}
	}
	return err
}

func (s *Server) supportRefund(r *request, in any) (*ui.Result, error) {
	req := in.(*supportRefundRequest)
	var amount int64
	switch req.Kind {
	case screens.SupportRefundFull:
	case screens.SupportRefundPart:
		var err error
		if amount, err = parseAmount(req.Amount); err != nil {
			return nil, err
		}
		if amount == 0 {
			return nil, &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{"refundAmount": r.copy.T("support.amountNeeded")}}
		}
	default:
		return nil, &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{"refundKind": r.copy.T("support.chooseRefundKind")}}
	}
	if _, err := s.Support.Refund(r.fiber.Context(), req.act(r, req.Reason), req.Charge, req.Kind == screens.SupportRefundFull, amount); err != nil {
		return nil, deskProblem(err, "refundReason")
	}
	return deskDone(screens.SupportRefund, req.deskRequest, support.ActionRefund), nil
}

// parseAmount reads the refund dialog's amount, its error under the input.
func parseAmount(typed string) (int64, error) {
	amount, err := billing.ParseAmount(typed)
	if err != nil {
		var e *engine.Error
		errors.As(err, &e)
		return 0, &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{"refundAmount": e.Message}, Err: err}
	}
	return amount, nil
}

func (s *Server) supportCancel(r *request, in any) (*ui.Result, error) {
	req := in.(*supportCancelRequest)
	now := req.When == screens.SupportWhenNow
	if err := s.Support.Cancel(r.fiber.Context(), req.act(r, req.Reason), req.Subscription, now); err != nil {
		return nil, deskProblem(err, "cancelReason")
	}
	action := support.ActionCancelAtEnd
	if now {
		action = support.ActionCancelNow
	}
	return deskDone(screens.SupportCancel, req.deskRequest, action), nil
}

func (s *Server) supportExtend(r *request, in any) (*ui.Result, error) {
	req := in.(*supportExtendRequest)
	days, err := strconv.Atoi(req.Days)
	if err != nil {
		return nil, &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{"extendDays": r.copy.T("support.daysInvalid")}, Err: err}
	}
	if err := s.Support.Extend(r.fiber.Context(), req.act(r, req.Reason), req.Subscription, days); err != nil {
		return nil, deskProblem(err, "extendReason")
	}
	return deskDone(screens.SupportExtend, req.deskRequest, support.ActionExtend), nil
}

func (s *Server) supportResend(r *request, in any) (*ui.Result, error) {
	req := in.(*supportResendRequest)
	kind, id, _ := strings.Cut(req.What, ":")
	var err error
	action := support.ActionResendActivation
	switch kind {
	case screens.SupportResendActivation:
		err = s.Support.ResendActivation(r.fiber.Context(), req.act(r, req.Reason), id)
	case screens.SupportResendReceipt:
		action = support.ActionResendReceipt
		err = s.Support.ResendReceipt(r.fiber.Context(), req.act(r, req.Reason), id)
	default:
		return nil, &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{"resendWhat": r.copy.T("support.chooseMail")}}
	}
	if err != nil {
		return nil, deskProblem(err, "resendReason")
	}
	return deskDone(screens.SupportResend, req.deskRequest, action), nil
}

func (s *Server) supportSignOut(r *request, in any) (*ui.Result, error) {
	req := in.(*supportSignOutRequest)
	if err := s.Support.SignOutEverywhere(r.fiber.Context(), req.act(r, req.Reason)); err != nil {
		return nil, deskProblem(err, "signOutReason")
	}
	return deskDone(screens.SupportSignOut, req.deskRequest, support.ActionSignOut), nil
}

// staffMayOpen says whether a signed-in member may open a studio route:
// the desk is support's and admins'; the content and experiment screens
// are everyone's but support's, who are sent from /studio to their desk.
func (s *Server) staffMayOpen(r *request, rt route, m staff.Member) error {
	switch {
	case rt.guard == guardSupport && !m.CanSupport():
		return engine.Errorf(engine.CodeForbidden, "%s", r.copy.T("support.supportOnly"))
	case rt.guard == guardStaff && !m.CanStudio() && r.path == screens.PathStudio:
		return redirect(screens.PathStudioSupport)
	case rt.guard == guardStaff && !m.CanStudio():
		return engine.Errorf(engine.CodeForbidden, "%s", r.copy.T("support.notForSupport"))
	}
	return nil
}
