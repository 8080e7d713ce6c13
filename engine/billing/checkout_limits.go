package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"glimpse/engine"
)

// The checkout's limits (#32 item 13). What abuse of a checkout costs is
// card testing (many cards tried on pages we open) and mail sent to
// somebody else's address; neither is a client address's doing. An office,
// a school or a mobile carrier puts many real buyers behind one address, so
// counting checkouts per address blocked them all after the twentieth. Each
// limit now counts what it is about, each by a conditional count at the
// write (Keys.Take), so requests sent together never pass one between
// them:
//
//   - an email address may start CheckoutsPerEmailPerHour checkouts an hour:
//     someone mistyping or flooding one address's inbox;
//   - a hosted page may decline SandboxDeclinesPerSession cards: card testing
//     on one page (Stripe limits its own pages, and Radar its cards);
//   - a client address may start CheckoutsPerClientPerHour an hour: floods
//     only, far above what a shared address's buyers need.
const (
	CheckoutsPerEmailPerHour  = 10
	CheckoutsPerClientPerHour = 300
	SandboxDeclinesPerSession = 5
)

// ErrCheckoutsForEmail is an address that started CheckoutsPerEmailPerHour
// checkouts this hour; ErrCheckoutsFromNetwork is a client address over
// the flood limit. Both are ErrTooManyAttempts for errors.Is.
var (
	ErrCheckoutsForEmail = engine.Wrap(engine.CodeRateLimited, ErrTooManyAttempts,
		"Too many checkouts for this email address. Please try again in an hour.")
	ErrCheckoutsFromNetwork = engine.Wrap(engine.CodeRateLimited, ErrTooManyAttempts,
		"Too many checkouts from your network right now. Please try again in a few minutes.")
	// ErrTooManyDeclines is a hosted page that declined
	// SandboxDeclinesPerSession cards: it takes no more, and the buyer
	// starts again from the checkout.
	ErrTooManyDeclines = engine.Wrap(engine.CodeRateLimited, ErrTooManyAttempts,
		"Too many cards were declined on this page.")
)

// takeCheckoutAttempts counts a checkout against its client's flood limit
// and its address's limit. A request with no client (a tool, a test) counts
// nothing.
func (s *Service) takeCheckoutAttempts(ctx context.Context, client, email string) error {
	if client == "" {
		return nil
	}
	ok, err := s.TakeAttempt(ctx, "checkout:"+client, CheckoutsPerClientPerHour, time.Hour)
	if err != nil {
		return err
	}
	if !ok {
		return ErrCheckoutsFromNetwork
	}
	// The address is hashed: a claim's id is no place for it.
	ok, err = s.TakeAttempt(ctx, "checkout-email:"+engine.HashToken("checkout-email:" + email)[:32], CheckoutsPerEmailPerHour, time.Hour)
	if err != nil {
		return err
	}
	if !ok {
		return ErrCheckoutsForEmail
	}
	return nil
}

// declinesKey counts a sandbox page's declined cards.
func declinesKey(sessionID string) string { return "sandbox-declines:" + sessionID }

// PayOnSandboxLimited is PayOnSandbox with the page's declines counted: a
// card step first takes a slot of the page's SandboxDeclinesPerSession
// (so cards sent together cannot pass the limit between them), and gives it
// back unless the bank declined the card (or the 3-D Secure step failed). A
// page with every slot taken answers ErrTooManyDeclines before asking the
// bank. Typing mistakes (an invalid number, a past date) cost nothing: the
// page refuses them itself, as Stripe's does.
func (s *Service) PayOnSandboxLimited(ctx context.Context, req SandboxPayRequest) (SandboxPage, error) {
	if req.Step != "card" && req.Step != "saved" && req.Step != "fail" {
		return s.PayOnSandbox(ctx, req)
	}
	key := declinesKey(req.Session)
	now := s.clock.Now()
	ok, err := s.st.Keys().Take(ctx, key, SandboxDeclinesPerSession, now, now.Add(2*sandboxSessionLifetime))
	if err != nil {
		return SandboxPage{}, fmt.Errorf("count declines of %s: %w", req.Session, err)
	}
	if !ok {
		return SandboxPage{}, ErrTooManyDeclines
	}
	page, err := s.PayOnSandbox(ctx, req)
	if !errors.Is(err, ErrCardDeclined) && !errors.Is(err, ErrAuthenticationFailed) {
		if rerr := s.st.Keys().Give(ctx, key); rerr != nil {
			s.logger.Error("give back a sandbox page's attempt", "session", req.Session, "error", rerr)
		}
	}
	return page, err
}
