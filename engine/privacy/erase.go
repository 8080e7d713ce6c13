package privacy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/mail"
)

// Errors of account deletion.
var (
	// ErrWrongPassword is a deletion asked with a password that is not the
	// account's.
	ErrWrongPassword = engine.Errorf(engine.CodeInvalid, "the password is not the account's")
	// ErrErasing is a deletion of an account another request is deleting.
	ErrErasing = engine.Errorf(engine.CodeConflict, "the account is being deleted")
)

// ErrErasureUnfinished wraps the failure of an erasure begun and not
// finished: the account is closed and the sweep finishes the erasure
// (ResumeErasures).
var ErrErasureUnfinished = errors.New("the erasure is begun and the sweep finishes it")

func unfinished(err error) error { return fmt.Errorf("%w: %w", ErrErasureUnfinished, err) }

// DeleteRequest is a subscriber deleting their own account.
type DeleteRequest struct {
	UserID   string
	Password string
	IP       string // the client, for the sign-in limits the password check counts in
}

// erasureLease is how long one deletion holds the account's pending
// erasure; a deletion that dies half way may be run again after it.
const erasureLease = 10 * time.Minute

// DeleteAccount checks the password, then erases the account (Erase). Of
// requests deleting one account together, one erases and the others get
// ErrErasing. An erasure that fails once begun is finished by the sweep,
// so the request succeeds.
func (s *Service) DeleteAccount(ctx context.Context, req DeleteRequest) error {
	u, err := s.o.Auth.User(ctx, req.UserID)
	if err != nil {
		return fmt.Errorf("delete account: %w", err)
	}
	if _, err := s.o.Auth.VerifyPassword(ctx, u.Email, req.Password, req.IP); err != nil {
		if errors.Is(err, auth.ErrInvalidCredential) {
			return ErrWrongPassword
		}
		return fmt.Errorf("delete account: %w", err)
	}
	err = s.Erase(ctx, u, "request")
	if errors.Is(err, ErrErasureUnfinished) {
		// The request is kept and the account closed: the person is told
		// it is deleted, which the sweep makes true within minutes, and
		// the last mail says so when it is.
		s.o.Logger.Error("delete account: finished later by the sweep", "userId", u.ID, "error", err)
		return nil
	}
	return err
}

// Erase deletes an account and everything Glimpse holds about the person,
// collection by collection as Fates declares: their subscriptions end now,
// the charges and subscriptions stay anonymised for the tax period, every
// session ends, and one last mail says so. why ("request", "inactivity")
// is kept in the erasure ledger with the account id and time.
func (s *Service) Erase(ctx context.Context, u auth.User, why string) error {
	now := s.now()
	// Begun before anything is deleted, so that an erasure that fails or
	// dies half way is finished by the sweep, not left half done; and
	// leased, so that one request erases at a time.
	pending, won, err := s.st.Erasures.Begin(ctx, PendingErasure{UserID: u.ID, Email: u.Email, Why: why, At: now,
		Farewell: "account-erased:" + engine.NewID()}, s.owner, now, now.Add(erasureLease))
	if err != nil {
		return fmt.Errorf("erase account %s: begin: %w", u.ID, err)
	}
	if !won {
		return ErrErasing
	}
	farewell := pending.Farewell
	if err := s.o.Auth.Close(ctx, u.ID); err != nil {
		return unfinished(err)
	}
	subs, err := s.subscriptionsOf(ctx, u)
	if err != nil {
		return unfinished(err)
	}
	subIDs := make([]string, 0, len(subs))
	emails := []string{u.Email}
	brandKey := "default"
	for _, sub := range subs {
		subIDs = append(subIDs, sub.ID)
		for _, e := range append(slices.Clone(sub.Emails), sub.Email) {
			if e != "" && !slices.Contains(emails, e) {
				emails = append(emails, e)
			}
		}
		if sub.MainPlan && sub.Brand != "" {
			brandKey = sub.Brand
		}
	}
	// The renewals' receipts are mailed unlisted and found through their
	// charges, read before the billing step rekeys them.
	charges, err := s.o.Billing.ChargesOf(ctx, subIDs)
	if err != nil {
		return unfinished(err)
	}
	receiptMails, err := s.receiptMails(ctx, charges)
	if err != nil {
		return unfinished(err)
	}
	steps := []struct {
		what string
		run  func() error
	}{
		{"subscriptions and charges", func() error {
			return s.o.Billing.EraseSubscriber(ctx, subs, emails, now.Add(s.o.TaxPeriod))
		}},
		{"connected profile", func() error { return s.o.Profiles.Disconnect(ctx, u.ID) }},
		{"breach check", func() error { return s.o.Breach.EraseUser(ctx, u.ID) }},
		{"cancel attempts", func() error { return s.o.Retention.EraseUser(ctx, u.ID) }},
		{"events", func() error { return s.o.Events.EraseUser(ctx, u.ID) }},
		{"experiment exposures", func() error { return s.o.Experiments.ForgetPerson(ctx, u.ID) }},
		{"data exports", func() error { return s.st.Exports.DeleteUser(ctx, u.ID) }},
		{"activity", func() error { return s.st.Activity.Delete(ctx, u.ID) }},
		{"mail", func() error {
			_, err := s.o.Mail.EraseTo(ctx, emails, receiptMails, farewell)
			return err
		}},
		{"account and sessions", func() error { return s.o.Auth.EraseUser(ctx, u, subIDs) }},
	}
	for _, step := range steps {
		if err := step.run(); err != nil {
			return unfinished(fmt.Errorf("erase account %s: %s: %w", u.ID, step.what, err))
		}
	}
	// The last mail goes to the account's address; it is deleted once sent
	// (Sweep), so the address does not outlive the account. It is queued
	// before the erasure ends: a rerun queues it again under its key, which
	// the outbox keeps once.
	if err := s.o.Mail.Enqueue(ctx, mail.Message{Key: farewell, To: u.Email, Brand: brandKey, Template: mail.TemplateAccountErased,
		Data: map[string]string{"email": u.Email, "years": strconv.Itoa(s.TaxPeriodYears())}, Unlisted: true}); err != nil {
		s.o.Logger.Error("queue the account-deleted mail", "error", err)
	}
	if err := s.st.Erasures.Finish(ctx, Erasure{UserID: u.ID, At: now, Why: why}, Farewell{Key: farewell, At: now}); err != nil {
		return unfinished(fmt.Errorf("erase account %s: end: %w", u.ID, err))
	}
	s.o.Logger.Info("account erased", "userId", u.ID, "why", why, "subscriptions", len(subs))
	return nil
}

// ResumeErasures finishes the erasures a failure or a crash left half done
// (the sweep runs it), and returns how many it finished. One still held by
// the instance running it (its claim has not lapsed) is left to it.
func (s *Service) ResumeErasures(ctx context.Context) (int, error) {
	pending, err := s.st.Erasures.Pending(ctx)
	if err != nil {
		return 0, fmt.Errorf("resume erasures: %w", err)
	}
	finished := 0
	for _, p := range pending {
		u, err := s.o.Auth.User(ctx, p.UserID)
		if engine.IsNotFound(err) {
			// The account went in the last step; the rest is still to do.
			u, err = auth.User{ID: p.UserID, Email: p.Email}, nil
		}
		if err != nil {
			return finished, fmt.Errorf("resume erasures: %w", err)
		}
		switch err := s.Erase(ctx, u, p.Why); {
		case errors.Is(err, ErrErasing):
		case err != nil:
			s.o.Logger.Error("resume an erasure", "userId", p.UserID, "error", err)
		default:
			finished++
		}
	}
	return finished, nil
}

// receiptMails are the keys of the receipts mailed for charges.
func (s *Service) receiptMails(ctx context.Context, charges []billing.Charge) ([]string, error) {
	var keys []string
	for _, ch := range charges {
		r, err := s.o.Billing.ReceiptOfCharge(ctx, ch.ID)
		if errors.Is(err, billing.ErrNoReceipt) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("receipts: %w", err)
		}
		keys = append(keys, r.MailKey())
	}
	return keys, nil
}

// subscriptionsOf returns an account's subscriptions: those linked to it
// and those bought with its address and not yet linked.
func (s *Service) subscriptionsOf(ctx context.Context, u auth.User) ([]billing.Subscription, error) {
	subs, err := s.o.Billing.ForUser(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	byEmail, err := s.o.Billing.SubscriptionsByEmail(ctx, u.Email)
	if err != nil {
		return nil, err
	}
	for _, sub := range byEmail {
		if !slices.ContainsFunc(subs, func(x billing.Subscription) bool { return x.ID == sub.ID }) &&
			(sub.UserID == "" || sub.UserID == u.ID) {
			subs = append(subs, sub)
		}
	}
	return subs, nil
}
