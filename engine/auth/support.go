package auth

import (
	"context"
	"fmt"
	"strconv"

	"glimpse/engine/mail"
)

// What the support desk reads and does for a subscriber: their sign-ins
// and a new activation mail. Neither tells the desk a token: sessions are
// listed by when they opened and end, and the activation link goes only
// into the mail.

// Sessions returns a user's sessions, newest first (sign-ins that have not
// been swept since they expired included: they are the recent sign-ins),
// each marked Ended when a sign-out everywhere ended it. One read on the
// sessions' index by account.
func (s *Service) Sessions(ctx context.Context, userID string) ([]Session, error) {
	u, err := s.userByID(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("sessions of %s: %w", userID, err)
	}
	out, err := s.sessions.OfUser(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("sessions of %s: %w", userID, err)
	}
	for i := range out {
		out[i].Ended = !out[i].Current(u)
	}
	return out, nil
}

// ResendActivation mails a new activation link for a subscription that
// waits for its account, at staff's request: unlike SendActivation it is
// not coalesced per address (staff act once per request, and each act is
// audited), and it does not answer alike for every address, since staff
// already see the subscriber. A subscription that has its account, or
// authorises nothing on its brand any more, gets ErrNoPendingSubscription.
func (a *Accounts) ResendActivation(ctx context.Context, subID, brandKey, bundle string) error {
	if a.mail == nil {
		return fmt.Errorf("resend activation: no outbox")
	}
	sub, err := a.subs.Subscription(ctx, subID)
	if err != nil {
		return err
	}
	if sub.UserID != "" || !sub.Authorises(bundle, a.auth.clock.Now()) {
		return ErrNoPendingSubscription
	}
	link, err := a.ActivationLinkTo(ctx, sub.ID, sub.Email)
	if err != nil {
		return err
	}
	return a.mail.Enqueue(ctx, mail.Message{Key: "activation:" + sub.ID + ":staff:" + strconv.FormatInt(a.auth.clock.Now().UnixNano(), 10),
		To: sub.Email, Brand: brandKey, Template: mail.TemplateActivation, Data: map[string]string{"email": sub.Email, "link": link}})
}
