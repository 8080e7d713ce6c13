package server

import (
	"context"
	"errors"
	"net/url"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/retention"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// The unsubscribe flow (docs/retention.md): /dashboard/unsubscribe starts an
// attempt and sends the person to its step 0; /dashboard/unsubscribe/<step>
// and /dashboard/unsubscribe/<result> show one page of it; the actions below
// record answers, take offers and cancel. Each calls one use case of
// retention.Flow, which answers where the person goes next
// (screens.UnsubscribePlacePath); the screen's reason and review forms are
// checked by their own rules (form: true).

type unsubscribeAttemptRequest struct {
	Attempt string `json:"/attempt" validate:"required,max=64"`
}

type unsubscribeLeaveRequest struct {
	Attempt string `json:"/attempt" validate:"required,max=64"`
	Step    int    `json:"/step" validate:"min=0,max=8"`
	Exit    string `json:"/exit" validate:"omitempty,oneof=stay keep close"`
}

// unsubscribeReasonRequest is the survey's form: that a reason is chosen is
// its screen's rule; that it is one of the survey's, retention's.
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

// flowMember is the subscriber whose attempt an action or a page is.
func flowMember(r *request) retention.Member {
	return retention.Member{UserID: r.principal.User.ID, SubscriptionID: r.mainSub.ID}
}

// unsubscribeStart begins an attempt and sends the person to its first
// step (or, for a plan canceled already, to the canceled page).
func (s *Server) unsubscribeStart(r *request) (screens.Page, error) {
	entry := "link"
	if r.query.Get("entry") == "my_plan" {
		entry = "my_plan"
	}
	p, err := s.flow.Start(r.fiber.Context(), flowMember(r), r.brand.Key, entry, returnPath(r.query.Get("from")))
	if err != nil {
		return screens.Page{}, err
	}
	return screens.Page{}, redirect(screens.UnsubscribePlacePath(p))
}

// unsubscribeScreen shows one step or outcome page of an attempt (a
// person's visit, a GET, records that it was reached; a form action
// composing the page to check its rules does not). An attempt that is not
// this subscriber's (an old link, another account) starts a new one.
func (s *Server) unsubscribeScreen(r *request) (screens.Page, error) {
	page := strings.TrimPrefix(r.path, screens.PathUnsubscribe+"/")
	v, err := s.flow.Show(r.fiber.Context(), flowMember(r), r.query.Get("attempt"), page, r.fiber.Method() == fiber.MethodGet)
	var moved *retention.Moved
	switch {
	case errors.Is(err, retention.ErrNoAttempt):
		return screens.Page{}, redirect(screens.PathUnsubscribe)
	case errors.As(err, &moved):
		return screens.Page{}, redirect(screens.UnsubscribePlacePath(moved.To))
	case err != nil:
		return screens.Page{}, err
	}
	return s.unsubscribePage(r, screens.UnsubscribeStateOf(v, r.principal.User.Email)), nil
}

// unsubscribePage composes a page of the flow for the signed-in subscriber:
// their copy experiments' texts layered over the brand's copy, the
// exposures of the experiment keys the page read (on a person's visit, not
// when a form action composes the page again to check its rules), and
// their assignments in meta.experiments.
func (s *Server) unsubscribePage(r *request, st screens.UnsubscribeState) screens.Page {
	c, assigned, expose := s.experimentContext(r)
	page := screens.UnsubscribeStep(c, st)
	if r.fiber.Method() == fiber.MethodGet {
		if err := expose(r.fiber.Context()); err != nil {
			// Counting must not break the flow.
			s.Logger.Error("record experiment exposure", "error", err)
		}
	}
	if s.Experiments != nil && r.signedIn {
		// The offer experiments the subscriber is in are theirs too.
		_, bySlot := s.Experiments.Offers(r.principal.User.ID)
		for _, a := range bySlot {
			assigned = append(assigned, ui.Experiment{Key: a.Experiment, Variant: a.Variant})
		}
		sort.Slice(assigned, func(i, j int) bool { return assigned[i].Key < assigned[j].Key })
	}
	r.experiments = assigned
	return page
}

// flowAction runs a use case of the flow for the request's subscriber.
func (s *Server) flowAction(r *request, use func(context.Context, retention.Member) (retention.Place, error)) (retention.Place, error) {
	if !r.authorised {
		return retention.Place{}, engine.Errorf(engine.CodeUnauthenticated, "%s", r.copy.T("error.generic"))
	}
	p, err := use(r.fiber.Context(), flowMember(r))
	return p, flowError(r, err)
}

// flowError words what the flow refused.
func flowError(r *request, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, retention.ErrNoAttempt):
		return engine.Wrap(engine.CodeNotFound, err, r.copy.T("error.generic"))
	case errors.Is(err, billing.ErrOfferUnavailable), errors.Is(err, billing.ErrUnknownPlan), errors.Is(err, retention.ErrUnknownOffer):
		return engine.Wrap(engine.CodeConflict, err, r.copy.T("unsubscribe.offerUnavailable"))
	case errors.Is(err, retention.ErrUnknownReason):
		return &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{"reason": r.copy.T("unsubscribe.step5.required")}, Err: err}
	case errors.Is(err, retention.ErrNoReview):
		return &engine.Error{Code: engine.CodeInvalid, Fields: map[string]string{"review": r.copy.T("unsubscribe.step6.required")}, Err: err}
	}
	return err
}

// goTo is the effect that takes the person where the flow says: a next
// step is a new history entry, leaving or an outcome replaces the page.
func goTo(p retention.Place) *ui.Result {
	if p.Leave || p.Result != "" {
		return ui.Effects(ui.Replace(screens.UnsubscribePlacePath(p)))
	}
	return ui.Effects(ui.Navigate(screens.UnsubscribePlacePath(p)))
}

// unsubscribeLeave closes the flow ('Stay premium', 'Keep me subscribed',
// the close button) and goes back where it was opened.
func (s *Server) unsubscribeLeave(r *request, in any) (*ui.Result, error) {
	req := in.(*unsubscribeLeaveRequest)
	p, err := s.flowAction(r, func(ctx context.Context, m retention.Member) (retention.Place, error) {
		return s.flow.Leave(ctx, m, req.Attempt, retention.Step(req.Step), req.Exit)
	})
	if engine.ErrorCode(err) == engine.CodeNotFound {
		return ui.Effects(ui.Replace(screens.PathDashboard)), nil
	}
	if err != nil {
		return nil, err
	}
	return goTo(p), nil
}

// unsubscribeReason records the survey's answer.
func (s *Server) unsubscribeReason(r *request, in any) (*ui.Result, error) {
	req := in.(*unsubscribeReasonRequest)
	p, err := s.flowAction(r, func(ctx context.Context, m retention.Member) (retention.Place, error) {
		return s.flow.AnswerReason(ctx, m, req.Attempt, req.Reason)
	})
	if err != nil {
		return nil, err
	}
	return goTo(p), nil
}

// unsubscribeReview records the stars (optional) and the review.
func (s *Server) unsubscribeReview(r *request, in any) (*ui.Result, error) {
	req := in.(*unsubscribeReviewRequest)
	stars := 0
	if req.Stars != nil {
		stars = *req.Stars
	}
	p, err := s.flowAction(r, func(ctx context.Context, m retention.Member) (retention.Place, error) {
		return s.flow.AnswerReview(ctx, m, req.Attempt, stars, req.Review)
	})
	if err != nil {
		return nil, err
	}
	return goTo(p), nil
}

// unsubscribeOffer takes one of the flow's offers.
func (s *Server) unsubscribeOffer(offer string) func(*request, any) (*ui.Result, error) {
	return func(r *request, in any) (*ui.Result, error) {
		attempt := in.(*unsubscribeAttemptRequest).Attempt
		p, err := s.flowAction(r, func(ctx context.Context, m retention.Member) (retention.Place, error) {
			return s.flow.AcceptOffer(ctx, m, attempt, offer)
		})
		if err != nil {
			return nil, err
		}
		return goTo(p), nil
	}
}

// unsubscribeCancel is the final cancel: the plan stops renewing and stays
// usable until its period ends. The canceled page follows, composed from
// the subscription read again (the spec's re-check; the cancel dropped
// this instance's cached copy of it).
func (s *Server) unsubscribeCancel(r *request, in any) (*ui.Result, error) {
	if !r.authorised || r.mainSub.ID == "" || r.principal.User.ID == "" {
		return nil, engine.Errorf(engine.CodeForbidden, "%s", r.copy.T("unsubscribe.noSubscription"))
	}
	attempt := in.(*unsubscribeAttemptRequest).Attempt
	p, err := s.flowAction(r, func(ctx context.Context, m retention.Member) (retention.Place, error) {
		return s.flow.Cancel(ctx, m, attempt)
	})
	if err != nil {
		return nil, err
	}
	return ui.Effects(ui.Track("cancel_success", map[string]any{"source": "unsubscribe_flow", "subscription": r.mainSub.ID}),
		ui.Replace(screens.UnsubscribePlacePath(p))), nil
}
