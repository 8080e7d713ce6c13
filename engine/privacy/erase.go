package privacy

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/breach"
	"glimpse/engine/experiment"
	"glimpse/engine/mail"
	"glimpse/engine/retention"
	"glimpse/engine/store"
	"glimpse/engine/tracking"
)

// Errors of account deletion.
var (
	// ErrWrongPassword is a deletion asked with a password that is not the
	// account's.
	ErrWrongPassword = engine.Errorf(engine.CodeInvalid, "the password is not the account's")
	// ErrErasing is a deletion of an account another request is deleting.
	ErrErasing = engine.Errorf(engine.CodeConflict, "the account is being deleted")
)

// DeleteRequest is a subscriber deleting their own account.
type DeleteRequest struct {
	UserID   string
	Password string
	IP       string // the client, for the sign-in limits the password check counts in
}

// erasureLease is how long one deletion holds the account's claim; a
// deletion that dies half way may be run again after it.
const erasureLease = 10 * time.Minute

// DeleteAccount checks the password, then erases the account (Erase). Of
// requests deleting one account together, one erases and the others get
// ErrErasing.
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
	return s.Erase(ctx, u, "request")
}

// Erase deletes an account and everything Glimpse holds about the person,
// collection by collection as Fates declares: their subscriptions end now,
// the charges and subscriptions stay anonymised for the tax period, every
// session ends, and one last mail says so. why ("request", "inactivity")
// is kept in the erasure ledger with the account id and time.
func (s *Service) Erase(ctx context.Context, u auth.User, why string) error {
	now := s.now()
	// The claim's id is hashed so that it does not name the account after
	// the erasure it guards.
	ok, err := s.claims.Take(ctx, "privacy-erase:"+engine.HashToken(u.ID), s.owner, now.Add(erasureLease))
	if err != nil {
		return fmt.Errorf("erase account: %w", err)
	}
	if !ok {
		return ErrErasing
	}
	subs, err := s.subscriptionsOf(ctx, u)
	if err != nil {
		return err
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
	// A random key: the mail outlives the account for a while, and its key
	// should not name it.
	farewell := "account-erased:" + engine.NewID()
	steps := []struct {
		what string
		run  func() error
	}{
		{"subscriptions and charges", func() error {
			if err := s.o.Billing.EraseSubscriber(ctx, subs, emails, now.Add(s.o.TaxPeriod)); err != nil {
				return err
			}
			return s.o.Billing.ForgetAccount(ctx, u.ID)
		}},
		{"connected profile", func() error { return s.o.Profiles.Disconnect(ctx, u.ID) }},
		{"breach check", func() error { return s.deleteMany(ctx, breach.ChecksCollection, bson.M{"_id": u.ID}) }},
		{"cancel attempts", func() error { return s.eraseAttempts(ctx, u.ID, subIDs) }},
		{"events", func() error {
			return s.deleteMany(ctx, tracking.Collection, bson.M{"$or": bson.A{bson.M{"userId": u.ID},
				bson.M{"subscriptionId": bson.M{"$in": subIDs}}}})
		}},
		{"experiment exposures", func() error {
			return s.deleteMany(ctx, experiment.PeopleCollection, bson.M{"_id": bson.M{"$regex": idPattern(u.ID)}})
		}},
		{"claims", func() error { return s.eraseClaims(ctx, u.ID, emails) }},
		{"data exports", func() error { return s.deleteExports(ctx, bson.M{"userId": u.ID}) }},
		{"activity", func() error { return s.deleteMany(ctx, ActivityCollection, bson.M{"_id": u.ID}) }},
		{"mail", func() error {
			_, err := s.o.Mail.EraseTo(ctx, emails, farewell)
			return err
		}},
		{"account and sessions", func() error { return s.o.Auth.EraseUser(ctx, u, subIDs) }},
	}
	for _, step := range steps {
		if err := step.run(); err != nil {
			return fmt.Errorf("erase account %s: %s: %w", u.ID, step.what, err)
		}
	}
	if _, err := s.db.Collection(ErasuresCollection).InsertOne(ctx, erasure{ID: u.ID, At: now, Why: why, Farewell: farewell}); err != nil && !store.IsDuplicateKey(err) {
		return fmt.Errorf("erase account %s: record in the ledger: %w", u.ID, err)
	}
	// The last mail goes to the account's address; it is deleted once sent
	// (Sweep), so the address does not outlive the account.
	if err := s.o.Mail.Enqueue(ctx, mail.Message{Key: farewell, To: u.Email, Brand: brandKey, Template: mail.TemplateAccountErased,
		Data: map[string]string{"email": u.Email, "years": strconv.Itoa(s.TaxPeriodYears())}, Unlisted: true}); err != nil {
		s.o.Logger.Error("queue the account-deleted mail", "error", err)
	}
	s.o.Logger.Info("account erased", "userId", u.ID, "why", why, "subscriptions", len(subs))
	return nil
}

// erasure is one line of the erasure ledger.
type erasure struct {
	ID  string    `bson:"_id"` // the account id
	At  time.Time `bson:"at"`
	Why string    `bson:"why"`
	// Farewell is the key of the last mail, deleted once sent.
	Farewell string `bson:"farewell,omitempty"`
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

// eraseAttempts deletes the unsubscribe flow's attempts of the person and
// every answer given in them (reasons, stars, review text).
func (s *Service) eraseAttempts(ctx context.Context, userID string, subIDs []string) error {
	filter := bson.M{"$or": bson.A{bson.M{"userId": userID}, bson.M{"subscriptionId": bson.M{"$in": subIDs}}}}
	cur, err := s.db.Collection(retention.AttemptsCollection).Find(ctx, filter)
	if err != nil {
		return fmt.Errorf("find attempts: %w", err)
	}
	var attempts []retention.Attempt
	if err := cur.All(ctx, &attempts); err != nil {
		return fmt.Errorf("find attempts: %w", err)
	}
	ids := make([]string, 0, len(attempts))
	for _, a := range attempts {
		ids = append(ids, a.ID)
	}
	if err := s.deleteMany(ctx, retention.StepsCollection, bson.M{"$or": bson.A{bson.M{"attemptId": bson.M{"$in": ids}},
		bson.M{"subscriptionId": bson.M{"$in": subIDs}}}}); err != nil {
		return err
	}
	if err := s.deleteMany(ctx, retention.AttemptsCollection, filter); err != nil {
		return err
	}
	return store.NewLists(s.db, retention.AttemptsByUserCollection).Erase(ctx, userID)
}

// eraseClaims deletes the claims that name the account (in their id or as
// their owner) or one of its addresses (a checkout key is bound to the
// plan and address it bought).
func (s *Service) eraseClaims(ctx context.Context, userID string, emails []string) error {
	or := bson.A{bson.M{"_id": bson.M{"$regex": idPattern(userID)}}, bson.M{"owner": userID}}
	for _, e := range emails {
		or = append(or, bson.M{"owner": bson.M{"$regex": regexp.QuoteMeta(e)}})
	}
	return s.deleteMany(ctx, store.ClaimsCollection, bson.M{"$or": or})
}

func (s *Service) deleteMany(ctx context.Context, coll string, filter bson.M) error {
	if _, err := s.db.Collection(coll).DeleteMany(ctx, filter); err != nil {
		return fmt.Errorf("delete from %s: %w", coll, err)
	}
	return nil
}

// idPattern matches a document id that names the user id as one of its
// colon-separated parts ("exp:<exp>:<phase>:<user>", "profile-write:<user>").
func idPattern(userID string) string {
	return `(^|:)` + regexp.QuoteMeta(userID) + `(:|$)`
}
