package billing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"glimpse/engine"
)

// cancelLinksCollection names the cancel links' table and collection in
// billing's store (CancelLinks), for privacy's fates.
const cancelLinksCollection = "cancel_links"

// cancelLink is a cancel-by-email request, kept by the SHA-256 of its
// token (ID), so the database never holds a usable link. SpentAt is set
// by the one tap that spends it (CancelLinks.Spend); the link stays, so
// its page can say what it did, until it expires (SweepLedger) or its
// address is erased.
type cancelLink struct {
	ID        string
	Email     string
	UserID    string
	Bundle    string
	ExpiresAt time.Time
	SpentAt   time.Time
}

// CancelLinkGrace is how long an expired cancel link is kept, so its page
// says "expired" rather than "unknown" to someone who opens it late.
const CancelLinkGrace = 7 * 24 * time.Hour

// The cancel-by-email request's policy: a link works for a day, and a
// subscription may ask for CancelMailsPer mails in a CancelMailWindow (one
// mail goes out per window whatever the taps: the notice's key).
const (
	CancelLinkLifetime = 24 * time.Hour
	CancelMailsPer     = 3
	CancelMailWindow   = 10 * time.Minute
)

// CancelEmailRequest is a subscriber asking to cancel by email.
type CancelEmailRequest struct {
	SubscriptionID string // the main plan
	UserID         string
	Email          string
	Bundle         string
	Brand          string
}

// RequestCancelEmail sends the cancel-by-email confirmation: a link whose
// page cancels with one tap without signing in, valid for CancelLinkLifetime, of which only
// the hash is stored. Asked too often it answers ErrTooManyAttempts.
func (s *Service) RequestCancelEmail(ctx context.Context, req CancelEmailRequest) error {
	ok, err := s.TakeAttempt(ctx, "cancel-mail:"+req.SubscriptionID, CancelMailsPer, CancelMailWindow)
	if err != nil {
		return err
	}
	if !ok {
		return ErrTooManyAttempts
	}
	token, err := s.NewCancelLink(ctx, req.Email, req.UserID, req.Bundle, CancelLinkLifetime)
	if err != nil {
		return err
	}
	s.send(ctx, Notice{Key: "cancel-confirm:" + req.SubscriptionID + ":" + engine.Window(s.clock.Now(), CancelMailWindow),
		To: req.Email, Brand: req.Brand, Kind: NoticeCancelLink, Data: map[string]string{"token": token, "email": req.Email}})
	return nil
}

// An address may be asked a cancel link for on the public cancel page
// CancelMailsPer times in a CancelMailWindow, and one client may ask
// CancelAsksPerClient times in it (floods only: an office shares one
// address), whether or not the address has a plan.
const CancelAsksPerClient = 30

// CancelLinkAsk is someone on the public cancel page, signed out, asking
// for a cancel link by address.
type CancelLinkAsk struct {
	Email  string
	Brand  string
	Bundle string
	Client string // the client's IP address
	// UserID is the address's account, if any, whose plans may predate
	// the email index.
	UserID string
}

// AdmitCancelLinkAsk counts an ask against its address and its client and
// answers ErrTooManyAttempts over either limit. Every address is counted
// alike, so the answer says nothing of which have plans.
func (s *Service) AdmitCancelLinkAsk(ctx context.Context, ask CancelLinkAsk) error {
	for _, limit := range []struct {
		key string
		n   int
	}{{"cancel-ask-client:" + ask.Client, CancelAsksPerClient}, {"cancel-ask:" + engine.HashToken(normaliseEmail(ask.Email)), CancelMailsPer}} {
		ok, err := s.TakeAttempt(ctx, limit.key, limit.n, CancelMailWindow)
		if err != nil {
			return err
		}
		if !ok {
			return ErrTooManyAttempts
		}
	}
	return nil
}

// SendCancelLinkTo mails the address's cancel link (RequestCancelEmail,
// with its limit per plan) when it has a main plan on the bundle that
// authorises now, and otherwise nothing. It says nothing of which: the
// page answers alike before it runs.
func (s *Service) SendCancelLinkTo(ctx context.Context, ask CancelLinkAsk) error {
	email := normaliseEmail(ask.Email)
	subs, err := s.linkSubscriptions(ctx, cancelLink{Email: email, UserID: ask.UserID})
	if err != nil {
		return err
	}
	now := s.clock.Now()
	var plan Subscription
	for _, sub := range subs {
		// A running plan first; a canceled one's link says until when.
		if sub.Authorises(ask.Bundle, now) && (plan.ID == "" || sub.Status == StatusActive && plan.Status != StatusActive) {
			plan = sub
		}
	}
	if plan.ID == "" {
		return nil
	}
	err = s.RequestCancelEmail(ctx, CancelEmailRequest{SubscriptionID: plan.ID, UserID: cmp.Or(plan.UserID, ask.UserID), Email: email,
		Bundle: ask.Bundle, Brand: ask.Brand})
	if errors.Is(err, ErrTooManyAttempts) {
		return nil
	}
	return err
}

// NewCancelLink makes the token of a cancel-by-email link for an address
// (and the account asking, whose plans may predate the email index) on a
// bundle, valid for lifetime. One tap on the link's page cancels without
// signing in, as the click-to-cancel rules ask (opening it cancels
// nothing: mail scanners open links); the token is 256 random bits.
func (s *Service) NewCancelLink(ctx context.Context, email, userID, bundle string, lifetime time.Duration) (string, error) {
	token := engine.NewToken()
	link := cancelLink{ID: engine.HashToken(token), Email: normaliseEmail(email), UserID: userID, Bundle: bundle,
		ExpiresAt: s.clock.Now().Add(lifetime)}
	if err := s.st.CancelLinks().Insert(ctx, link); err != nil {
		return "", fmt.Errorf("new cancel link: %w", err)
	}
	return token, nil
}

// LinkCancel is what a cancel link did: whether it canceled any plan, and
// when the last of the canceled plans stops authorising (their period end;
// zero when nothing was canceled).
type LinkCancel struct {
	Canceled   bool
	AccessEnds time.Time
}

// CancelByLink cancels the main plans of the link's address on bundle and
// reports whether any is canceled now, and until when they keep working.
// It is the tap on the link's page (a POST), never the page's load, so a
// mail scanner that opens links cancels nothing (CancelLinkView reads the
// page). The link is spent by the first call; an unknown, spent, expired
// or other brand's link cancels nothing.
func (s *Service) CancelByLink(ctx context.Context, token, bundle string) (LinkCancel, error) {
	link, found, err := s.cancelLink(ctx, token)
	if err != nil {
		return LinkCancel{}, fmt.Errorf("cancel by link: %w", err)
	}
	if !found || !s.clock.Now().Before(link.ExpiresAt) || link.Bundle != bundle {
		return LinkCancel{}, nil
	}
	// A link works once: whoever spends it (a conditional update, one
	// winner) cancels; a second tap, or a copy of the link read later,
	// cancels nothing. The link itself stays, so its page can say what it
	// did.
	spent, err := s.st.CancelLinks().Spend(ctx, link.ID, s.clock.Now())
	if err != nil {
		return LinkCancel{}, fmt.Errorf("cancel by link: spend it: %w", err)
	}
	if !spent {
		return LinkCancel{}, nil
	}
	subs, err := s.linkSubscriptions(ctx, link)
	if err != nil {
		return LinkCancel{}, err
	}
	n, ends, err := s.cancelAll(ctx, subs, link.Bundle, "email-link")
	if n == 0 {
		return LinkCancel{}, err
	}
	return LinkCancel{Canceled: true, AccessEnds: ends}, err
}
