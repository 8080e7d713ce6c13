package privacy

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/mail"
	"glimpse/engine/store"
)

// activity is when an account was last used. WarnedAt is set once the
// warning mail before deletion has gone, and cleared by the next use.
type activity struct {
	ID           string    `bson:"_id"` // the account id
	LastActiveAt time.Time `bson:"lastActiveAt"`
	WarnedAt     time.Time `bson:"warnedAt,omitzero"`
}

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
	if _, err := s.db.Collection(ActivityCollection).UpdateOne(ctx, bson.M{"_id": userID},
		bson.M{"$set": bson.M{"lastActiveAt": now}, "$unset": bson.M{"warnedAt": ""}},
		options.UpdateOne().SetUpsert(true)); err != nil {
		t.mu.Lock()
		delete(t.days, userID)
		t.mu.Unlock()
		return fmt.Errorf("record account use: %w", err)
	}
	return nil
}

// InactivityStats is what one retention pass did.
type InactivityStats struct {
	Started, Warned, Erased int
}

// retentionPass is how often the retention job runs: daily, once across
// every instance (a claim per day).
const retentionPass = 24 * time.Hour

// RetainInactive runs the retention the privacy policy promises, once per
// day whatever the number of instances (a unique claim for the day):
// accounts not used for Inactivity are deleted (Erase), after a warning
// mail Warning before; an account with a plan that still gives access is
// in use and left alone. Accounts that have no record of use yet start
// counting from today.
func (s *Service) RetainInactive(ctx context.Context) (InactivityStats, error) {
	var st InactivityStats
	now := s.now()
	ok, err := s.claims.Take(ctx, "privacy-retention:"+store.Window(now, retentionPass), s.owner, now.Add(retentionPass))
	if err != nil || !ok {
		return st, err
	}
	if st.Started, err = s.startCounting(ctx, now); err != nil {
		return st, err
	}
	cur, err := s.db.Collection(ActivityCollection).Find(ctx,
		bson.M{"lastActiveAt": bson.M{"$lte": now.Add(-(s.o.Inactivity - s.o.Warning))}})
	if err != nil {
		return st, fmt.Errorf("find unused accounts: %w", err)
	}
	var due []activity
	if err := cur.All(ctx, &due); err != nil {
		return st, fmt.Errorf("find unused accounts: %w", err)
	}
	for _, a := range due {
		u, err := s.o.Auth.User(ctx, a.ID)
		if engine.IsNotFound(err) {
			if err := s.deleteMany(ctx, ActivityCollection, bson.M{"_id": a.ID}); err != nil {
				return st, err
			}
			continue
		}
		if err != nil {
			return st, err
		}
		live, err := s.hasLivePlan(ctx, u, now)
		if err != nil {
			return st, err
		}
		if live {
			continue
		}
		deleteOn := a.LastActiveAt.Add(s.o.Inactivity)
		switch {
		case a.WarnedAt.IsZero():
			// The deletion waits a full warning period after the mail, even
			// for an account that was already past due when counting began.
			if deleteOn.Sub(now) < s.o.Warning {
				deleteOn = now.Add(s.o.Warning)
			}
			if err := s.warn(ctx, u, a, now, deleteOn); err != nil {
				return st, err
			}
			st.Warned++
		case !now.Before(deleteOn) && !now.Before(a.WarnedAt.Add(s.o.Warning)):
			if err := s.Erase(ctx, u, "inactivity"); err != nil && !errors.Is(err, ErrErasing) {
				return st, err
			}
			st.Erased++
		}
	}
	return st, nil
}

func (s *Service) warn(ctx context.Context, u auth.User, a activity, now, deleteOn time.Time) error {
	brandKey := "default"
	if subs, err := s.subscriptionsOf(ctx, u); err == nil {
		for _, sub := range subs {
			if sub.MainPlan && sub.Brand != "" {
				brandKey = sub.Brand
			}
		}
	}
	if err := s.o.Mail.Enqueue(ctx, mail.Message{Key: "inactivity:" + u.ID + ":" + a.LastActiveAt.Format(time.DateOnly),
		To: u.Email, Brand: brandKey, Template: mail.TemplateInactivity,
		Data: map[string]string{"email": u.Email, "date": brand.Date(deleteOn), "link": "/sign-in"}}); err != nil {
		return err
	}
	if _, err := s.db.Collection(ActivityCollection).UpdateOne(ctx, bson.M{"_id": u.ID},
		bson.M{"$set": bson.M{"warnedAt": now}}); err != nil {
		return fmt.Errorf("record inactivity warning: %w", err)
	}
	return nil
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

// startCounting gives every account with no record of use one from now,
// so accounts made before the record existed are not deleted at once.
func (s *Service) startCounting(ctx context.Context, now time.Time) (int, error) {
	n := 0
	err := s.o.Auth.EachUserID(ctx, func(id string) error {
		_, err := s.db.Collection(ActivityCollection).InsertOne(ctx, activity{ID: id, LastActiveAt: now})
		if store.IsDuplicateKey(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("start counting account use: %w", err)
		}
		n++
		return nil
	})
	if err != nil {
		return n, err
	}
	return n, nil
}

// LastActive returns when an account was last recorded as used.
func (s *Service) LastActive(ctx context.Context, userID string) (time.Time, bool, error) {
	var a activity
	err := s.db.Collection(ActivityCollection).FindOne(ctx, bson.M{"_id": userID}).Decode(&a)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("last use: %w", err)
	}
	return a.LastActiveAt, true, nil
}

// RunRetention runs RetainInactive every interval until ctx ends; the
// day's claim makes one pass a day across instances.
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
