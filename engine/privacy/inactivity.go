package privacy

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/mail"
)

// touched remembers, per instance, the day each account was last recorded
// as used, so a busy account costs one write a day, not one per request.
type touched struct {
	mu   sync.Mutex
	days map[string]string
}

// Touch records that the account was used today (a signed-in request). It
// writes at most once a day per account and instance, and clears a warning
// already sent: the account is in use again.
func (s *Service) Touch(ctx context.Context, userID string) error {
	now := s.now()
	day := now.Format(time.DateOnly)
	t := s.seen
	t.mu.Lock()
	seen := t.days[userID] == day
	if !seen {
		if len(t.days) > 100_000 { // a new day's map, rather than an unbounded one
			t.days = map[string]string{}
		}
		t.days[userID] = day
	}
	t.mu.Unlock()
	if seen {
		return nil
	}
	if err := s.st.Activity.Touch(ctx, userID, now); err != nil {
		t.mu.Lock()
		delete(t.days, userID)
		t.mu.Unlock()
		return fmt.Errorf("record account use: %w", err)
	}
	return nil
}

// Started records an account's first use at its creation (auth's
// account-creation hook, wired in engine/app), so that the retention job
// counts from then an account never signed in to. A failure is logged:
// the account is made, and its first signed-in request records a use.
func (s *Service) Started(ctx context.Context, userID string) {
	if err := s.st.Activity.Touch(ctx, userID, s.now()); err != nil {
		s.o.Logger.Error("record account creation", "userId", userID, "error", err)
	}
}

// InactivityStats is what one retention pass did.
type InactivityStats struct {
	Warned, Erased int
}

// idlePage is how many unused accounts one read of the retention pass
// returns.
const idlePage = 500

// RetainInactive runs the retention the privacy policy promises: accounts
// not used for Inactivity are deleted (Erase), after a warning mail Warning
// before; an account with a plan that still gives access is in use and left
// alone. Any number of instances may run it together: the warning is
// recorded by a conditional write (Activity.Warn: one pass counts it, and
// the mail's key makes it one mail) and the erasure is leased (Erase).
func (s *Service) RetainInactive(ctx context.Context) (InactivityStats, error) {
	var st InactivityStats
	now := s.now()
	var after LastUse
	for {
		due, err := s.st.Activity.Idle(ctx, now.Add(-(s.o.Inactivity - s.o.Warning)), after, idlePage)
		if err != nil {
			return st, fmt.Errorf("find unused accounts: %w", err)
		}
		for _, a := range due {
			if err := s.retain(ctx, a, now, &st); err != nil {
				return st, err
			}
		}
		if len(due) < idlePage {
			return st, nil
		}
		after = due[len(due)-1]
	}
}

// retain warns or erases one unused account, as its time has come.
func (s *Service) retain(ctx context.Context, a LastUse, now time.Time, st *InactivityStats) error {
	u, err := s.o.Auth.User(ctx, a.UserID)
	if engine.IsNotFound(err) {
		return s.st.Activity.Delete(ctx, a.UserID)
	}
	if err != nil {
		return err
	}
	live, err := s.hasLivePlan(ctx, u, now)
	if err != nil {
		return err
	}
	if live {
		return nil
	}
	deleteOn := a.LastActiveAt.Add(s.o.Inactivity)
	switch {
	case a.WarnedAt.IsZero():
		// The deletion waits a full warning period after the mail, even
		// for an account that was already past due when counting began.
		if deleteOn.Sub(now) < s.o.Warning {
			deleteOn = now.Add(s.o.Warning)
		}
		warned, err := s.warn(ctx, u, a, now, deleteOn)
		if err != nil {
			return err
		}
		if warned {
			st.Warned++
		}
	case !now.Before(deleteOn) && !now.Before(a.WarnedAt.Add(s.o.Warning)):
		if err := s.Erase(ctx, u, "inactivity"); err != nil && !errors.Is(err, ErrErasing) {
			return err
		}
		st.Erased++
	}
	return nil
}

// warn mails the warning and records it, unless another pass did or the
// account was used since a was read.
func (s *Service) warn(ctx context.Context, u auth.User, a LastUse, now, deleteOn time.Time) (bool, error) {
	brandKey := "default"
	if subs, err := s.subscriptionsOf(ctx, u); err == nil {
		for _, sub := range subs {
			if sub.MainPlan && sub.Brand != "" {
				brandKey = sub.Brand
			}
		}
	}
	// Queued before it is recorded, so that a crash between the two sends
	// it on the next pass rather than never; the key (the account and the
	// use it follows) makes passes that race one mail.
	if err := s.o.Mail.Enqueue(ctx, mail.Message{Key: "inactivity:" + u.ID + ":" + a.LastActiveAt.Format(time.DateOnly),
		To: u.Email, Brand: brandKey, Template: mail.TemplateInactivity,
		Data: map[string]string{"email": u.Email, "date": brand.Date(deleteOn), "link": "/sign-in"}}); err != nil {
		return false, err
	}
	warned, err := s.st.Activity.Warn(ctx, u.ID, a.LastActiveAt, now)
	if err != nil {
		return false, fmt.Errorf("record inactivity warning: %w", err)
	}
	return warned, nil
}

// hasLivePlan reports whether any of the account's plans still gives
// access: a paying subscriber is using the service, signed in or not.
func (s *Service) hasLivePlan(ctx context.Context, u auth.User, now time.Time) (bool, error) {
	subs, err := s.o.Billing.ForUser(ctx, u.ID)
	if err != nil {
		return false, err
	}
	for _, sub := range subs {
		if sub.MainPlan && (sub.Status == billing.StatusActive || sub.Status == billing.StatusCanceled) && !sub.Expired(now) {
			return true, nil
		}
	}
	return false, nil
}

// LastActive returns when an account was last recorded as used.
func (s *Service) LastActive(ctx context.Context, userID string) (time.Time, bool, error) {
	a, ok, err := s.st.Activity.Get(ctx, userID)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("last use: %w", err)
	}
	return a.LastActiveAt, ok, nil
}

// RunRetention runs RetainInactive every interval until ctx ends.
func (s *Service) RunRetention(ctx context.Context, every time.Duration) {
	engine.Every(ctx, every, func(ctx context.Context) {
		st, err := s.RetainInactive(ctx)
		if err != nil && ctx.Err() == nil {
			s.o.Logger.Error("retention of unused accounts", "error", err)
			return
		}
		if st.Warned+st.Erased > 0 {
			s.o.Logger.Info("retention of unused accounts", "warned", st.Warned, "erased", st.Erased)
		}
	})
}
