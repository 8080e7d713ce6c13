package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"glimpse/engine"
)

// What a cancel link is, read without spending it (LinkView.State).
const (
	LinkUnknown = "unknown" // no such link, or another brand's
	LinkExpired = "expired" // past CancelLinkLifetime, never used
	LinkLive    = "live"    // unspent: the one tap on its page cancels
	LinkUsed    = "used"    // spent by a tap (CancelByLink)
)

// LinkView is what a cancel link's page shows before anything is tapped:
// what the link is, whether a tap would cancel a running plan, and whether
// the plans it names are canceled already, with the day the last of them
// stops authorising (a running plan's period end, a canceled one's end).
type LinkView struct {
	State      string
	Running    bool // a running main plan the tap would cancel
	Canceled   bool // a canceled main plan still authorising, none running
	AccessEnds time.Time
}

// CancelLinkView reads what a cancel link would do on bundle, changing
// nothing: a mail scanner that opens the link's page cancels nothing, and
// a used link says the plan is canceled rather than that there is none.
func (s *Service) CancelLinkView(ctx context.Context, token, bundle string) (LinkView, error) {
	link, found, err := s.cancelLink(ctx, token)
	if err != nil || !found || link.Bundle != bundle {
		return LinkView{State: LinkUnknown}, err
	}
	view := LinkView{State: LinkLive}
	switch {
	case !link.SpentAt.IsZero():
		view.State = LinkUsed
	case !s.clock.Now().Before(link.ExpiresAt):
		return LinkView{State: LinkExpired}, nil
	}
	subs, err := s.linkSubscriptions(ctx, link)
	if err != nil {
		return LinkView{}, err
	}
	now := s.clock.Now()
	var running, canceled time.Time
	for _, sub := range subs {
		if sub.Bundle != bundle || !sub.MainPlan || sub.Expired(now) || sub.Suspended {
			continue
		}
		switch sub.Status {
		case StatusActive:
			view.Running = true
			if end := s.periodEnd(sub, now); end.After(running) {
				running = end
			}
		case StatusCanceled:
			view.Canceled = true
			if sub.ExpiresAt != nil && sub.ExpiresAt.After(canceled) {
				canceled = *sub.ExpiresAt
			}
		}
	}
	view.AccessEnds = canceled
	if view.Running {
		view.Canceled, view.AccessEnds = false, running
	}
	return view, nil
}

// cancelLink reads a link by its token; found is false for a token that
// names none.
func (s *Service) cancelLink(ctx context.Context, token string) (cancelLink, bool, error) {
	if token == "" || len(token) > 256 {
		return cancelLink{}, false, nil
	}
	link, err := s.st.CancelLinks().Get(ctx, engine.HashToken(token))
	if errors.Is(err, ErrNoCancelLink) {
		return cancelLink{}, false, nil
	}
	if err != nil {
		return cancelLink{}, false, fmt.Errorf("read cancel link: %w", err)
	}
	return link, true, nil
}

// linkSubscriptions are the plans a link names: its address's, and those
// of the account that asked (whose plans may predate the email index).
func (s *Service) linkSubscriptions(ctx context.Context, link cancelLink) ([]Subscription, error) {
	subs, err := s.SubscriptionsByEmail(ctx, link.Email)
	if err != nil {
		return nil, err
	}
	if link.UserID != "" {
		mine, err := s.ForUser(ctx, link.UserID)
		if err != nil {
			return nil, err
		}
		subs = append(subs, mine...)
	}
	return subs, nil
}
