package server

import (
	"context"
	"errors"
	"strings"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/metrics"
	"glimpse/engine/ui"
	"glimpse/screens"
)

// The public cancel page (/unsubscription): the mailed link's page, which
// cancels with one tap (cancelFromLink, billing.go) and never on its load,
// and, reached without a live link, a form that asks for one.

// cancelLinkAskRequest is the page's form: an address to mail a cancel
// link to.
type cancelLinkAskRequest struct {
	Email string `json:"email" validate:"max=254"`
}

// cancelPageKey keeps the page reached without a link (the same for every
// visitor); a link's page depends on the link and is composed each time.
func cancelPageKey(r *request) string {
	if r.query.Has("from") {
		return ""
	}
	return "unsubscription"
}

// cancelPage is what the link's page says before any tap: reading the
// link changes nothing (billing.CancelLinkView).
func (s *Server) cancelPage(r *request) (screens.Page, error) {
	if !r.query.Has("from") {
		return s.cancelByEmailScreen(r)
	}
	view, err := s.Billing.CancelLinkView(r.fiber.Context(), r.query.Get("from"), r.brand.Bundle)
	if err != nil {
		return screens.Page{}, err
	}
	return screens.UnsubscriptionFor(r.copy, linkState(view)), nil
}

// linkState is the page for what a link is now.
func linkState(v billing.LinkView) screens.UnsubscriptionState {
	switch {
	case v.State == billing.LinkUnknown:
		return screens.UnsubscriptionState{Outcome: screens.UnsubscriptionNone}
	case v.State == billing.LinkExpired:
		return screens.UnsubscriptionState{Spent: true}
	case v.Canceled:
		return screens.UnsubscriptionState{Outcome: screens.UnsubscriptionAlreadyCanceled, AccessEnds: v.AccessEnds}
	case v.State == billing.LinkUsed:
		// Used, and no plan of it is canceled now (resumed since, or
		// ended): a new link is what helps.
		return screens.UnsubscriptionState{Spent: true}
	case v.Running:
		return screens.UnsubscriptionState{Outcome: screens.UnsubscriptionConfirm, AccessEnds: v.AccessEnds}
	}
	return screens.UnsubscriptionState{Outcome: screens.UnsubscriptionNone}
}

// askCancelLink mails a cancel link to the address typed on the page
// (billing.SendCancelLinkTo) and answers the same whether or not it has a
// plan, in words and in time: the work runs after the answer. Asks are
// limited per address and per client alike for every address.
func (s *Server) askCancelLink(r *request, in any) (*ui.Result, error) {
	req := in.(*cancelLinkAskRequest)
	email := strings.TrimSpace(req.Email)
	ask := billing.CancelLinkAsk{Email: email, Brand: r.brand.Key, Bundle: r.brand.Bundle, Client: r.fiber.IP()}
	err := s.Billing.AdmitCancelLinkAsk(r.fiber.Context(), ask)
	if errors.Is(err, billing.ErrTooManyAttempts) {
		s.Business.LimitHit(metrics.LimitCancelMail)
		return nil, engine.Wrap(engine.CodeRateLimited, err, r.copy.T("unsubscription.tooMany"))
	}
	if err != nil {
		return nil, err
	}
	s.detach("cancel link mail", func(ctx context.Context) error {
		u, err := s.Auth.UserByEmail(ctx, auth.NormaliseEmail(email))
		switch {
		case err == nil:
			ask.UserID = u.ID
		case !engine.IsNotFound(err):
			return err
		}
		return s.Billing.SendCancelLinkTo(ctx, ask)
	})
	return s.screenResult(r, screens.UnsubscriptionFor(r.copy, screens.UnsubscriptionState{SentTo: email}))
}
