package server

import (
	"errors"
	"time"

	"glimpse/engine"
	"glimpse/engine/brand"
	"glimpse/engine/breach"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// passwordSafetyScreen shows the stored breach check, or the pending state
// that starts one. A screen request never calls the breach service itself.
func (s *Server) passwordSafetyScreen(r *request) (screens.Page, error) {
	res, ok, err := s.Breach.Cached(r.fiber.Context(), r.principal.User.ID, r.principal.User.Email)
	if err != nil {
		return screens.Page{}, err
	}
	if !ok {
		return screens.PasswordSafety(r.copy, screens.PasswordSafetyState{Email: r.principal.User.Email,
			Outcome: screens.BreachPending, Sample: s.Breach.Sample()}), nil
	}
	return screens.PasswordSafety(r.copy, s.breachState(r, res)), nil
}

// checkBreaches runs the check (a forced re-check when a result is stored)
// and answers the whole screen in its new state, logging the spec's events.
func (s *Server) checkBreaches(r *request, _ any) (*ui.Result, error) {
	if !r.authorised {
		return ui.Effects(ui.Replace(screens.PathSignIn)), nil
	}
	ctx := r.fiber.Context()
	email := r.principal.User.Email
	prev, cached, err := s.Breach.Cached(ctx, r.principal.User.ID, email)
	if err != nil {
		return nil, err
	}
	res, err := s.Breach.Check(ctx, r.principal.User.ID, email, cached)
	state := screens.PasswordSafetyState{Email: email, Sample: s.Breach.Sample()}
	switch {
	case err == nil:
		s.event(r, "Pwned success response", "breachedSitesCount", len(res.Breaches))
		state = s.breachState(r, res)
	case engine.ErrorCode(err) == engine.CodeRateLimited:
		s.event(r, "Pwned rate limit error", "status", 429)
		state.Outcome = screens.BreachRateLimited
	default:
		s.event(r, "Pwned error", "error", errorText(err), "status", statusOf(engine.ErrorCode(err)))
		state.Outcome = screens.BreachFailed
	}
	if err != nil && cached {
		// A refused re-check keeps showing the stored result with the message.
		kept := s.breachState(r, prev)
		kept.Notice = state.Outcome
		state = kept
	}
	return s.screenResult(r, screens.PasswordSafety(r.copy, state))
}

func (s *Server) breachState(r *request, res breach.Result) screens.PasswordSafetyState {
	state := screens.PasswordSafetyState{Email: r.principal.User.Email, Outcome: screens.BreachClean,
		CheckedAt: brand.DateTime(res.CheckedAt), Sample: res.Sample,
		CanRecheck: !s.Clock.Now().Before(res.RecheckAt)}
	if len(res.Breaches) > 0 {
		state.Outcome = screens.BreachCompromised
	}
	for _, b := range res.Breaches {
		date := b.BreachDate
		if t, err := time.Parse(time.DateOnly, b.BreachDate); err == nil {
			date = t.Format("January 2006")
		}
		state.Breaches = append(state.Breaches, screens.BreachView{Title: b.Title, Logo: b.LogoPath, Domain: b.Domain, Date: date,
			DataClasses: b.DataClasses, Description: b.Description})
	}
	return state
}

// event logs a product analytics event with the fields the spec names for
// it: host, project and the subscriber's email.
func (s *Server) event(r *request, name string, attrs ...any) {
	base := []any{"event", name, "host", r.fiber.Hostname(), "project", r.brand.Key,
		"email", r.principal.User.Email, "requestId", requestID(r.fiber)}
	s.Logger.Info("event", append(base, attrs...)...)
}

func errorText(err error) string {
	var e *engine.Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return "unknown"
}
