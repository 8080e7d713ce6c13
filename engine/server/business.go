package server

import (
	"errors"

	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/metrics"
)

// The labels the business metrics (engine/metrics) get from this package's
// errors: each handler counts in one line, and what a label means is
// decided here, once.

// paymentOutcome is the outcome label of a checkout or a purchase: a card
// the bank declined apart from the other refusals.
func paymentOutcome(err error) string {
	if errors.Is(err, billing.ErrCardDeclined) {
		return metrics.OutcomeDeclined
	}
	return metrics.Outcome(err)
}

// countSignIn counts a refused sign-in by its reason, and a sign-in limit
// hit as a limit too; a sign-in that worked counts nothing here (the
// request metrics count the action).
func (s *Server) countSignIn(err error) {
	if err == nil || s.Business == nil {
		return
	}
	reason := metrics.SignInError
	switch {
	case errors.Is(err, auth.ErrInvalidCredential):
		reason = metrics.SignInBadCredential
	case errors.Is(err, auth.ErrNoSubscription):
		reason = metrics.SignInNoSubscription
	case errors.Is(err, auth.ErrSubscriptionExpired):
		reason = metrics.SignInExpired
	case errors.Is(err, auth.ErrUserDisabled):
		reason = metrics.SignInDisabled
	case errors.Is(err, auth.ErrLinkInvalid):
		reason = metrics.SignInLinkInvalid
	case errors.Is(err, auth.ErrTooManyRequests):
		reason = metrics.SignInRateLimited
		s.Business.LimitHit(metrics.LimitSignIn)
	}
	s.Business.SignInFailed(reason)
}

// webhookResult is the result label of a Stripe delivery billing handled.
// A checkout.session.* event concerns an order, not a charge (it has no
// Key): it is applied when it settled its order (a status: paid, failed,
// processing), and ignored only when it settled nothing (an unknown order,
// another order's session).
func webhookResult(res billing.StripeEventResult, err error) string {
	switch {
	case err != nil:
		return metrics.WebhookError
	case res.Duplicate:
		return metrics.WebhookDuplicate
	case res.Order != "" && res.Status != "":
		return metrics.WebhookApplied
	case res.Key == "":
		return metrics.WebhookIgnored
	case res.Applied:
		return metrics.WebhookApplied
	}
	return metrics.WebhookRecorded
}
