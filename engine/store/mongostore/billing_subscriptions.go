package mongostore

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/billing"
)

// Billing's collections. A subscription document keeps the field names the
// subscriptions collection had before the move, so documents written then
// read as they are (a missing version reads as 0 and is applied over as
// such). A change is one conditional update of the document on its version
// which also pushes the change's lines and mails onto its pending part;
// they are then copied out by inserts keyed by their ids, and the pending
// part removed. A stop between the two leaves them pending, and the next
// change of the subscription or the outbox's drain (Notices.Pending)
// copies them out: no multi-document transaction is needed.
var (
	subscriptionsCollection = collection{name: "subscriptions", indexes: []index{
		{name: "by_user", keys: bson.D{{Key: "userId", Value: 1}}, partial: bson.D{{Key: "userId", Value: bson.D{{Key: "$gt", Value: ""}}}}},
		{name: "by_email", keys: bson.D{{Key: "email", Value: 1}, {Key: "bundle", Value: 1}}},
		{name: "due", keys: bson.D{{Key: "dueAt", Value: 1}, {Key: "lease.until", Value: 1}},
			partial: bson.D{{Key: "dueAt", Value: bson.D{{Key: "$exists", Value: true}}}}},
		// Only an erasure sets retainUntil: the purge's query on it alone is
		// served by this partial index.
		{name: "retain_until", keys: bson.D{{Key: "retainUntil", Value: 1}},
			partial: bson.D{{Key: "retainUntil", Value: bson.D{{Key: "$exists", Value: true}}}}},
		// The support desk's lookup by a card's last four digits, in
		// address order (Subscriptions.WithCard).
		{name: "by_card", keys: bson.D{{Key: "paymentMethod.last4", Value: 1}, {Key: "email", Value: 1}}},
		{name: "pending", keys: bson.D{{Key: "pendingSince", Value: 1}},
			partial: bson.D{{Key: "pendingSince", Value: bson.D{{Key: "$exists", Value: true}}}}},
	}}
	historyCollection = collection{name: "subscription_history", indexes: []index{
		{name: "of_subscription", keys: bson.D{{Key: "subscriptionId", Value: 1}, {Key: "at", Value: 1}}},
	}}
	outboxCollection = collection{name: "billing_outbox", indexes: []index{
		{name: "by_at", keys: bson.D{{Key: "at", Value: 1}}},
		{name: "by_recipient", keys: bson.D{{Key: "to", Value: 1}}},
	}}
	billingKeysCollection = collection{name: "billing_keys", indexes: []index{
		{name: "expiry", keys: bson.D{{Key: "expiresAt", Value: 1}}, expires: true},
	}}
)

// Billing is billing's storage on MongoDB.
type Billing struct {
	subs, history, outbox, keys *mongo.Collection
	// failAt makes the nth write fail, those before it done (the crash
	// tests' process stopped between two writes); nil in the application.
	failAt *failAfter
}

// failAfter counts writes and fails the nth.
type failAfter struct {
	mu   sync.Mutex
	n    int
	seen int
}

var errStopped = errors.New("mongostore: stopped here (a crash test)")

// step is called before each write.
func (b *Billing) step() error {
	if b.failAt == nil {
		return nil
	}
	b.failAt.mu.Lock()
	defer b.failAt.mu.Unlock()
	b.failAt.seen++
	if b.failAt.seen == b.failAt.n {
		return errStopped
	}
	return nil
}

// NewBilling returns billing's storage on db.
func NewBilling(db *mongo.Database) *Billing {
	return &Billing{subs: db.Collection(subscriptionsCollection.name), history: db.Collection(historyCollection.name),
		outbox: db.Collection(outboxCollection.name), keys: db.Collection(billingKeysCollection.name)}
}

var _ billing.Store = (*Billing)(nil)

// Subscriptions returns the subscriptions' store.
func (b *Billing) Subscriptions() billing.Subscriptions { return mongoSubscriptions{b} }

// Notices returns the outbox.
func (b *Billing) Notices() billing.Notices { return mongoOutbox{b} }

// Keys returns the keys' store.
func (b *Billing) Keys() billing.Keys { return mongoKeys{b} }

// Atomically runs fn as is: each write it makes is one atomic document
// write or an idempotent step a rerun completes.
func (b *Billing) Atomically(_ context.Context, fn func(billing.Store) error) error { return fn(b) }

type moneyDoc struct {
	Amount   int64  `bson:"amount"`
	Currency string `bson:"currency"`
}

type paymentMethodDoc struct {
	Provider string `bson:"provider"`
	ID       string `bson:"id"`
	Customer string `bson:"customer,omitempty"`
	Brand    string `bson:"brand"`
	Last4    string `bson:"last4"`
}

type leaseDoc struct {
	Owner string    `bson:"owner,omitempty"`
	Until time.Time `bson:"until,omitempty"`
}

type freeMonthDoc struct {
	Key    string    `bson:"key"`
	Base   time.Time `bson:"base"`
	Target time.Time `bson:"target"`
}

type subscriptionDoc struct {
	ID                 string           `bson:"_id"`
	Version            int              `bson:"version"`
	UserID             string           `bson:"userId"`
	Email              string           `bson:"email"`
	Emails             []string         `bson:"emails"`
	Bundle             string           `bson:"bundle"`
	Brand              string           `bson:"brand"`
	PlanCode           string           `bson:"planCode"`
	Status             string           `bson:"status"`
	MainPlan           bool             `bson:"mainPlan"`
	Price              moneyDoc         `bson:"price"`
	Provider           string           `bson:"provider"`
	StartedAt          time.Time        `bson:"startedAt"`
	CurrentPeriodStart time.Time        `bson:"currentPeriodStart,omitempty"`
	CurrentPeriodEnd   time.Time        `bson:"currentPeriodEnd,omitempty"`
	ExpiresAt          *time.Time       `bson:"expiresAt,omitempty"`
	CancelAtPeriodEnd  bool             `bson:"cancelAtPeriodEnd,omitempty"`
	CanceledAt         *time.Time       `bson:"canceledAt,omitempty"`
	ResumedAt          *time.Time       `bson:"resumedAt,omitempty"`
	PaymentMethod      paymentMethodDoc `bson:"paymentMethod"`
	DueAt              time.Time        `bson:"dueAt,omitempty"`
	FailedAttempts     int              `bson:"failedAttempts,omitempty"`
	NextPlanCode       string           `bson:"nextPlanCode,omitempty"`
	MainSubscriptionID string           `bson:"mainSubscriptionId,omitempty"`
	PaidBy             string           `bson:"paidBy,omitempty"`
	Suspended          bool             `bson:"suspended,omitempty"`
	Lease              *leaseDoc        `bson:"lease,omitempty"`
	FreeMonth          *freeMonthDoc    `bson:"freeMonth,omitempty"`
	Erased             bool             `bson:"erased,omitempty"`
	RetainUntil        time.Time        `bson:"retainUntil,omitempty"`
	Extensions         []string         `bson:"extensions,omitempty"`
	// Pending holds the effects of changes not yet copied out.
	Pending      *pendingDoc `bson:"pending,omitempty"`
	PendingSince time.Time   `bson:"pendingSince,omitempty"`
}

// optionalSubscriptionFields are the fields a subscription may lack: a
// change that clears one unsets it.
var optionalSubscriptionFields = []string{"currentPeriodStart", "currentPeriodEnd", "expiresAt", "cancelAtPeriodEnd",
	"canceledAt", "resumedAt", "dueAt", "failedAttempts", "nextPlanCode", "mainSubscriptionId", "paidBy", "suspended",
	"lease", "freeMonth", "erased", "retainUntil", "extensions"}

type pendingDoc struct {
	Lines   []lineDoc   `bson:"lines,omitempty"`
	Notices []noticeDoc `bson:"notices,omitempty"`
}

type lineDoc struct {
	ID             string    `bson:"_id"`
	SubscriptionID string    `bson:"subscriptionId"`
	At             time.Time `bson:"at"`
	By             string    `bson:"by"`
	Kind           string    `bson:"kind"`
	From           string    `bson:"from,omitempty"`
	To             string    `bson:"to,omitempty"`
	Detail         string    `bson:"detail,omitempty"`
}

type noticeDoc struct {
	Key      string            `bson:"_id"`
	To       string            `bson:"to"`
	Brand    string            `bson:"brand"`
	Kind     string            `bson:"kind"`
	Data     map[string]string `bson:"data,omitempty"`
	ByCharge bool              `bson:"byCharge,omitempty"`
	At       time.Time         `bson:"at"`
}

func toSubscriptionDoc(s billing.Subscription) subscriptionDoc {
	d := subscriptionDoc{ID: s.ID, Version: s.Version, UserID: s.UserID, Email: s.Email, Emails: s.Emails, Bundle: s.Bundle,
		Brand: s.Brand, PlanCode: s.PlanCode, Status: s.Status, MainPlan: s.MainPlan, Price: moneyDoc(s.Price),
		Provider: s.Provider, StartedAt: s.StartedAt, CurrentPeriodStart: s.CurrentPeriodStart, CurrentPeriodEnd: s.CurrentPeriodEnd,
		ExpiresAt: s.ExpiresAt, CancelAtPeriodEnd: s.CancelAtPeriodEnd, CanceledAt: s.CanceledAt, ResumedAt: s.ResumedAt,
		PaymentMethod: paymentMethodDoc(s.PaymentMethod), DueAt: s.DueAt, FailedAttempts: s.FailedAttempts,
		NextPlanCode: s.NextPlanCode, MainSubscriptionID: s.MainSubscriptionID, PaidBy: s.PaidBy, Suspended: s.Suspended,
		Erased: s.Erased, RetainUntil: s.RetainUntil, Extensions: s.Extensions}
	if s.Lease.Owner != "" {
		d.Lease = &leaseDoc{Owner: s.Lease.Owner, Until: s.Lease.Until}
	}
	if s.FreeMonth != nil {
		d.FreeMonth = &freeMonthDoc{Key: s.FreeMonth.Key, Base: s.FreeMonth.Base, Target: s.FreeMonth.Target}
	}
	return d
}

func (d subscriptionDoc) subscription() billing.Subscription {
	utc := func(t *time.Time) *time.Time {
		if t == nil {
			return nil
		}
		u := t.UTC()
		return &u
	}
	s := billing.Subscription{ID: d.ID, Version: d.Version, UserID: d.UserID, Email: d.Email, Emails: d.Emails, Bundle: d.Bundle,
		Brand: d.Brand, PlanCode: d.PlanCode, Status: d.Status, MainPlan: d.MainPlan, Price: billing.Money(d.Price),
		Provider: d.Provider, StartedAt: d.StartedAt.UTC(), CurrentPeriodStart: d.CurrentPeriodStart.UTC(),
		CurrentPeriodEnd: d.CurrentPeriodEnd.UTC(), ExpiresAt: utc(d.ExpiresAt), CancelAtPeriodEnd: d.CancelAtPeriodEnd,
		CanceledAt: utc(d.CanceledAt), ResumedAt: utc(d.ResumedAt), PaymentMethod: billing.PaymentMethod(d.PaymentMethod),
		DueAt: d.DueAt.UTC(), FailedAttempts: d.FailedAttempts, NextPlanCode: d.NextPlanCode,
		MainSubscriptionID: d.MainSubscriptionID, PaidBy: d.PaidBy, Suspended: d.Suspended, Erased: d.Erased,
		RetainUntil: d.RetainUntil.UTC(), Extensions: d.Extensions}
	if d.Lease != nil {
		s.Lease = billing.Lease{Owner: d.Lease.Owner, Until: d.Lease.Until.UTC()}
	}
	if d.FreeMonth != nil {
		s.FreeMonth = &billing.FreeMonth{Key: d.FreeMonth.Key, Base: d.FreeMonth.Base.UTC(), Target: d.FreeMonth.Target.UTC()}
	}
	return s
}

// pendingOf returns effects as a pending part; receipts are stored with
// the ledger (part C of the move), so effects holding one are refused.
func pendingOf(fx billing.Effects, now time.Time) (pendingDoc, error) {
	if len(fx.Receipts) > 0 {
		return pendingDoc{}, errors.New("mongostore: receipts are not stored here yet")
	}
	var p pendingDoc
	for _, c := range fx.Lines {
		p.Lines = append(p.Lines, lineDoc(c))
	}
	for i, n := range fx.Notices {
		// Ordered by when it was decided, and within one decision as given.
		p.Notices = append(p.Notices, noticeDoc{Key: n.Key, To: n.To, Brand: n.Brand, Kind: n.Kind, Data: n.Data,
			ByCharge: n.ByCharge, At: now.Add(time.Duration(i))})
	}
	return p, nil
}

type mongoSubscriptions struct{ b *Billing }

// Get returns one subscription by id.
func (s mongoSubscriptions) Get(ctx context.Context, id string) (billing.Subscription, error) {
	var d subscriptionDoc
	err := s.b.subs.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return billing.Subscription{}, billing.ErrNoSubscription
	}
	if err != nil {
		return billing.Subscription{}, fmt.Errorf("subscription %s: %w", id, err)
	}
	return d.subscription(), nil
}

// OfUser returns the account's subscriptions, oldest start first.
func (s mongoSubscriptions) OfUser(ctx context.Context, userID string) ([]billing.Subscription, error) {
	if userID == "" {
		return nil, nil
	}
	return s.find(ctx, bson.D{{Key: "userId", Value: userID}})
}

// ByEmail returns the subscriptions whose current address is email.
func (s mongoSubscriptions) ByEmail(ctx context.Context, email string) ([]billing.Subscription, error) {
	return s.find(ctx, bson.D{{Key: "email", Value: email}})
}

// WithEmailPrefix returns up to n subscriptions whose current address
// starts with prefix, by address: a range on the by_email index.
func (s mongoSubscriptions) WithEmailPrefix(ctx context.Context, prefix string, n int) ([]billing.Subscription, error) {
	if prefix == "" || n < 1 {
		return nil, nil
	}
	filter := bson.D{{Key: "email", Value: bson.D{{Key: "$gte", Value: prefix}, {Key: "$lt", Value: billing.PrefixEnd(prefix)}}}}
	return s.findBounded(ctx, filter, bson.D{{Key: "email", Value: 1}}, n)
}

// WithEmailContaining returns up to n subscriptions, not erased, whose
// address contains part, by address. MongoDB has no substring index (its
// text index matches words, Atlas Search is not MongoDB), so this walks the
// by_email index in address order, hinted so no other plan is tried,
// testing each key against an unanchored regular expression of the quoted
// part: the keys are read and tested in the index alone, a document is
// fetched only for a key that matches, and the walk stops at the nth. Its
// cost is the keys read before the nth match: few for a common part
// ("example.com"), every key for one that matches fewer than n (at a
// million subscriptions, a million index keys; docs/support.md).
// Addresses are stored lower case (auth.NormaliseEmail) and part comes
// lower-cased, so no case-insensitive option is needed. An erased
// subscription's address is billing.ErasedEmail, kept out on the key too.
func (s mongoSubscriptions) WithEmailContaining(ctx context.Context, part string, n int) ([]billing.Subscription, error) {
	if !billing.Containable(part) || n < 1 {
		return nil, nil
	}
	filter := bson.D{{Key: "email", Value: bson.D{
		{Key: "$regex", Value: regexp.QuoteMeta(part)},
		{Key: "$ne", Value: billing.ErasedEmail},
	}}}
	return s.findBounded(ctx, filter, bson.D{{Key: "email", Value: 1}}, n, "by_email")
}

// WithCard returns up to n subscriptions whose card ends in last4, by
// address (the by_card index).
func (s mongoSubscriptions) WithCard(ctx context.Context, last4 string, n int) ([]billing.Subscription, error) {
	if last4 == "" || n < 1 {
		return nil, nil
	}
	filter := bson.D{{Key: "paymentMethod.last4", Value: last4}}
	return s.findBounded(ctx, filter, bson.D{{Key: "email", Value: 1}}, n)
}

// findBounded reads at most n subscriptions in the index's order (the
// index named by hint, when one is).
func (s mongoSubscriptions) findBounded(ctx context.Context, filter, sort bson.D, n int, hint ...string) ([]billing.Subscription, error) {
	opts := options.Find().SetSort(sort).SetLimit(int64(n))
	for _, h := range hint {
		opts.SetHint(h)
	}
	cur, err := s.b.subs.Find(ctx, filter, opts)
	if err != nil {
		return nil, fmt.Errorf("subscriptions: %w", err)
	}
	var docs []subscriptionDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("subscriptions: %w", err)
	}
	out := make([]billing.Subscription, len(docs))
	for i, d := range docs {
		out[i] = d.subscription()
	}
	return out, nil
}

// find reads one person's few subscriptions, sorted here.
func (s mongoSubscriptions) find(ctx context.Context, filter bson.D) ([]billing.Subscription, error) {
	cur, err := s.b.subs.Find(ctx, filter)
	if err != nil {
		return nil, fmt.Errorf("subscriptions: %w", err)
	}
	var docs []subscriptionDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("subscriptions: %w", err)
	}
	out := make([]billing.Subscription, len(docs))
	for i, d := range docs {
		out[i] = d.subscription()
	}
	slices.SortFunc(out, billing.ByStart)
	return out, nil
}

// Create inserts a new subscription with its effects pending, then copies
// them out; a stored one with the id is returned as it is.
func (s mongoSubscriptions) Create(ctx context.Context, sub billing.Subscription, fx billing.Effects) (billing.Subscription, bool, error) {
	now := time.Now().UTC()
	pending, err := pendingOf(fx, now)
	if err != nil {
		return billing.Subscription{}, false, err
	}
	sub.Version = 1
	d := toSubscriptionDoc(sub)
	if !fx.Empty() {
		d.Pending, d.PendingSince = &pending, now
	}
	if err := s.b.step(); err != nil {
		return billing.Subscription{}, false, err
	}
	if _, err := s.b.subs.InsertOne(ctx, d); err != nil {
		if mongo.IsDuplicateKeyError(err) {
			stored, err := s.Get(ctx, sub.ID)
			return stored, false, err
		}
		return billing.Subscription{}, false, fmt.Errorf("create subscription %s: %w", sub.ID, err)
	}
	if d.Pending != nil {
		if err := s.b.settle(ctx, d); err != nil {
			return billing.Subscription{}, false, err
		}
	}
	return sub, true, nil
}

// Apply writes next over the stored version next.Version: one conditional
// update of the document, which carries the effects as pending.
func (s mongoSubscriptions) Apply(ctx context.Context, next billing.Subscription, fx billing.Effects) (billing.Subscription, error) {
	return s.applyWhere(ctx, next, fx, nil)
}

// applyWhere is Apply with more conditions on the stored document (the
// renewal's lease).
func (s mongoSubscriptions) applyWhere(ctx context.Context, next billing.Subscription, fx billing.Effects, also bson.D) (billing.Subscription, error) {
	now := time.Now().UTC()
	pending, err := pendingOf(fx, now)
	if err != nil {
		return billing.Subscription{}, err
	}
	read := next.Version
	next.Version++
	update, err := replacement(toSubscriptionDoc(next))
	if err != nil {
		return billing.Subscription{}, err
	}
	if !fx.Empty() {
		push := bson.D{}
		if len(pending.Lines) > 0 {
			push = append(push, bson.E{Key: "pending.lines", Value: bson.D{{Key: "$each", Value: pending.Lines}}})
		}
		if len(pending.Notices) > 0 {
			push = append(push, bson.E{Key: "pending.notices", Value: bson.D{{Key: "$each", Value: pending.Notices}}})
		}
		update = append(update, bson.E{Key: "$push", Value: push})
		update[0].Value = append(update[0].Value.(bson.D), bson.E{Key: "pendingSince", Value: now})
	}
	if err := s.b.step(); err != nil {
		return billing.Subscription{}, err
	}
	filter := append(bson.D{{Key: "_id", Value: next.ID}, {Key: "version", Value: versionFilter(read)}}, also...)
	var d subscriptionDoc
	err = s.b.subs.FindOneAndUpdate(ctx, filter, update,
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		if _, err := s.Get(ctx, next.ID); err != nil {
			return billing.Subscription{}, err
		}
		return billing.Subscription{}, billing.ErrStale
	}
	if err != nil {
		return billing.Subscription{}, fmt.Errorf("apply to subscription %s: %w", next.ID, err)
	}
	if d.Pending != nil {
		if err := s.b.settle(ctx, d); err != nil {
			return billing.Subscription{}, err
		}
	}
	return d.subscription(), nil
}

// versionFilter matches a stored version: 0 is also a document written
// before subscriptions had versions (no field).
func versionFilter(v int) any {
	if v == 0 {
		return bson.D{{Key: "$in", Value: bson.A{0, nil}}}
	}
	return v
}

// replacement is an update that makes the document d, keeping its pending
// part: $set of every field d has, $unset of the optional ones it lacks.
func replacement(d subscriptionDoc) (bson.D, error) {
	raw, err := bson.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("subscription %s: %w", d.ID, err)
	}
	var fields bson.D
	if err := bson.Unmarshal(raw, &fields); err != nil {
		return nil, fmt.Errorf("subscription %s: %w", d.ID, err)
	}
	set, have := bson.D{}, map[string]bool{}
	for _, f := range fields {
		if f.Key == "_id" {
			continue
		}
		set = append(set, f)
		have[f.Key] = true
	}
	unset := bson.D{}
	for _, f := range optionalSubscriptionFields {
		if !have[f] {
			unset = append(unset, bson.E{Key: f, Value: ""})
		}
	}
	update := bson.D{{Key: "$set", Value: set}}
	if len(unset) > 0 {
		update = append(update, bson.E{Key: "$unset", Value: unset})
	}
	return update, nil
}

// settle copies a document's pending effects out, each by its id (so
// copying twice writes once), then removes them unless another change
// came meanwhile (whose own settling copies them with its own).
func (b *Billing) settle(ctx context.Context, d subscriptionDoc) error {
	if d.Pending == nil {
		return nil
	}
	for _, l := range d.Pending.Lines {
		if err := b.step(); err != nil {
			return err
		}
		if _, err := b.history.InsertOne(ctx, l); err != nil && !mongo.IsDuplicateKeyError(err) {
			return fmt.Errorf("history line %s: %w", l.ID, err)
		}
	}
	for _, n := range d.Pending.Notices {
		if err := b.step(); err != nil {
			return err
		}
		if _, err := b.outbox.InsertOne(ctx, n); err != nil && !mongo.IsDuplicateKeyError(err) {
			return fmt.Errorf("notice %s: %w", n.Key, err)
		}
	}
	if err := b.step(); err != nil {
		return err
	}
	if _, err := b.subs.UpdateOne(ctx, bson.D{{Key: "_id", Value: d.ID}, {Key: "version", Value: versionFilter(d.Version)}},
		bson.D{{Key: "$unset", Value: bson.D{{Key: "pending", Value: ""}, {Key: "pendingSince", Value: ""}}}}); err != nil {
		return fmt.Errorf("settle subscription %s: %w", d.ID, err)
	}
	return nil
}

// settleAll copies out what changes stopped before copying.
func (b *Billing) settleAll(ctx context.Context, n int) error {
	cur, err := b.subs.Find(ctx, bson.D{{Key: "pendingSince", Value: bson.D{{Key: "$gt", Value: time.Time{}}}}},
		options.Find().SetSort(bson.D{{Key: "pendingSince", Value: 1}}).SetLimit(int64(n)))
	if err != nil {
		return fmt.Errorf("pending changes: %w", err)
	}
	var docs []subscriptionDoc
	if err := cur.All(ctx, &docs); err != nil {
		return fmt.Errorf("pending changes: %w", err)
	}
	for _, d := range docs {
		if err := b.settle(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// Put writes the subscription as given.
func (s mongoSubscriptions) Put(ctx context.Context, sub billing.Subscription) error {
	if _, err := s.b.subs.ReplaceOne(ctx, bson.D{{Key: "_id", Value: sub.ID}}, toSubscriptionDoc(sub),
		options.Replace().SetUpsert(true)); err != nil {
		return fmt.Errorf("put subscription %s: %w", sub.ID, err)
	}
	return nil
}

// free are the two ways a subscription is held by no worker at now: no
// lease, or one that ended. (Two filters, not one $or: each is served by
// the due index, and each conditional update below is atomic per
// document.)
func free(now time.Time) []bson.E {
	return []bson.E{
		{Key: "lease", Value: bson.D{{Key: "$exists", Value: false}}},
		{Key: "lease.until", Value: bson.D{{Key: "$lte", Value: now}}},
	}
}

// ClaimDue finds up to n due subscriptions no worker holds, leases them with
// updates conditional on the lease still being free (so of two workers
// each lease goes to one), and reads back those it leased.
func (s mongoSubscriptions) ClaimDue(ctx context.Context, now time.Time, owner string, lease time.Duration, n int) ([]billing.Subscription, error) {
	now = now.UTC()
	type dueDoc struct {
		ID    string    `bson:"_id"`
		DueAt time.Time `bson:"dueAt"`
	}
	var found []dueDoc
	for _, f := range free(now) {
		cur, err := s.b.subs.Find(ctx, bson.D{{Key: "dueAt", Value: bson.D{{Key: "$lte", Value: now}}}, f},
			options.Find().SetSort(bson.D{{Key: "dueAt", Value: 1}}).SetLimit(int64(n)).
				SetProjection(bson.D{{Key: "_id", Value: 1}, {Key: "dueAt", Value: 1}}))
		if err != nil {
			return nil, fmt.Errorf("due subscriptions: %w", err)
		}
		var docs []dueDoc
		if err := cur.All(ctx, &docs); err != nil {
			return nil, fmt.Errorf("due subscriptions: %w", err)
		}
		found = append(found, docs...)
	}
	if len(found) == 0 {
		return nil, nil
	}
	slices.SortFunc(found, func(a, b dueDoc) int {
		if c := a.DueAt.Compare(b.DueAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	found = found[:min(n, len(found))]
	ids := make(bson.A, len(found))
	for i, f := range found {
		ids[i] = f.ID
	}
	until := now.Add(lease)
	for _, f := range free(now) {
		if err := s.b.step(); err != nil {
			return nil, err
		}
		if _, err := s.b.subs.UpdateMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}, f},
			bson.D{{Key: "$set", Value: bson.D{{Key: "lease", Value: leaseDoc{Owner: owner, Until: until}}}}}); err != nil {
			return nil, fmt.Errorf("lease due subscriptions: %w", err)
		}
	}
	// Those this call leased: the owner and the lease's end name the claim.
	leased, err := s.find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}},
		{Key: "lease.owner", Value: owner}, {Key: "lease.until", Value: until}})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(leased, billing.ByDue)
	return leased, nil
}

// Renew writes each renewal as Apply does, conditional on owner's lease
// too, and clears the lease. Each renewal's charge is inserted (if absent)
// before its subscription's update: a rerun after a stop between the two
// finds the charge and writes the renewal.
func (s mongoSubscriptions) Renew(ctx context.Context, owner string, rs []billing.Renewal) ([]error, error) {
	for _, r := range rs {
		if (r.Charge.ID == "") != (r.Charge.Key == "") {
			return nil, errors.New("mongostore: a renewal's charge needs its id and key")
		}
	}
	errs := make([]error, len(rs))
	for i, r := range rs {
		if r.Charge.Key != "" {
			if _, err := s.b.Ledger().Record(ctx, []billing.Charge{r.Charge}); err != nil {
				return nil, fmt.Errorf("renew subscription %s: %w", r.Next.ID, err)
			}
		}
		next := r.Next
		next.Lease = billing.Lease{}
		_, err := s.applyWhere(ctx, next, r.Fx, bson.D{{Key: "lease.owner", Value: owner}})
		if errors.Is(err, billing.ErrStale) || errors.Is(err, billing.ErrNoSubscription) {
			errs[i] = err
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("renew subscription %s: %w", r.Next.ID, err)
		}
	}
	return errs, nil
}

// Release clears owner's leases of ids; another worker's lease stays.
func (s mongoSubscriptions) Release(ctx context.Context, owner string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if err := s.b.step(); err != nil {
		return err
	}
	if _, err := s.b.subs.UpdateMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}, {Key: "lease.owner", Value: owner}},
		bson.D{{Key: "$unset", Value: bson.D{{Key: "lease", Value: ""}}}}); err != nil {
		return fmt.Errorf("release subscriptions: %w", err)
	}
	return nil
}

// InsertMany writes seeded subscriptions, then their lines, then their
// charges, each batch unordered; what is stored already stays as it was
// (a charge by its id and its unique key), so a batch written again (a
// seeding stopped half-way) completes it. Seeded charges have no events
// to catch up with.
func (s mongoSubscriptions) InsertMany(ctx context.Context, seeded []billing.Seeded) error {
	var subs, lines, charges []any
	for _, x := range seeded {
		for _, ch := range x.Charges {
			charges = append(charges, toChargeDoc(ch))
		}
		sub := x.Sub
		if sub.Version == 0 {
			sub.Version = 1
		}
		subs = append(subs, toSubscriptionDoc(sub))
		for _, l := range x.Lines {
			lines = append(lines, lineDoc(l))
		}
	}
	for _, batch := range []struct {
		coll *mongo.Collection
		docs []any
	}{{s.b.subs, subs}, {s.b.history, lines}, {s.b.subs.Database().Collection(chargesCollection.name), charges}} {
		if len(batch.docs) == 0 {
			continue
		}
		if err := s.b.step(); err != nil {
			return err
		}
		if _, err := batch.coll.InsertMany(ctx, batch.docs, options.InsertMany().SetOrdered(false)); err != nil && !onlyDuplicates(err) {
			return fmt.Errorf("seed %s: %w", batch.coll.Name(), err)
		}
	}
	return nil
}

// History returns a subscription's lines, oldest first, with those of a
// change not yet copied out.
func (s mongoSubscriptions) History(ctx context.Context, id string) ([]billing.Change, error) {
	cur, err := s.b.history.Find(ctx, bson.D{{Key: "subscriptionId", Value: id}},
		options.Find().SetSort(bson.D{{Key: "at", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", id, err)
	}
	var lines []lineDoc
	if err := cur.All(ctx, &lines); err != nil {
		return nil, fmt.Errorf("history of %s: %w", id, err)
	}
	var d subscriptionDoc
	err = s.b.subs.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return nil, fmt.Errorf("history of %s: %w", id, err)
	}
	if d.Pending != nil {
		for _, l := range d.Pending.Lines {
			if !slices.ContainsFunc(lines, func(x lineDoc) bool { return x.ID == l.ID }) {
				lines = append(lines, l)
			}
		}
	}
	out := make([]billing.Change, len(lines))
	for i, l := range lines {
		out[i] = billing.Change(l)
		out[i].At = l.At.UTC()
	}
	slices.SortStableFunc(out, func(a, b billing.Change) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// EraseLines strips a subscription's lines of a person: the lines still
// pending are copied out first, so none is written later unstripped; then
// each line is rewritten by its id.
func (s mongoSubscriptions) EraseLines(ctx context.Context, id string, personal []string) error {
	var d subscriptionDoc
	err := s.b.subs.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return fmt.Errorf("erase history of %s: %w", id, err)
	}
	if err := s.b.settle(ctx, d); err != nil {
		return err
	}
	cur, err := s.b.history.Find(ctx, bson.D{{Key: "subscriptionId", Value: id}})
	if err != nil {
		return fmt.Errorf("erase history of %s: %w", id, err)
	}
	var lines []lineDoc
	if err := cur.All(ctx, &lines); err != nil {
		return fmt.Errorf("erase history of %s: %w", id, err)
	}
	for _, l := range lines {
		if err := s.b.step(); err != nil {
			return err
		}
		erased := lineDoc(billing.ErasedLine(billing.Change(l), personal))
		if _, err := s.b.history.ReplaceOne(ctx, bson.D{{Key: "_id", Value: l.ID}}, erased); err != nil {
			return fmt.Errorf("erase history of %s: %w", id, err)
		}
	}
	return nil
}

// Retained returns kept subscriptions whose retention ended, earliest
// first.
func (s mongoSubscriptions) Retained(ctx context.Context, before time.Time, n int) ([]billing.Subscription, error) {
	docs, err := findRetained[subscriptionDoc](ctx, s.b.subs, before, n)
	if err != nil {
		return nil, fmt.Errorf("retained subscriptions: %w", err)
	}
	out := make([]billing.Subscription, 0, len(docs))
	for _, d := range docs {
		if d.Erased {
			out = append(out, d.subscription())
		}
	}
	return out, nil
}

// findRetained finds up to n documents an erasure kept whose retention ended
// before before, earliest first, by the partial index on retainUntil.
func findRetained[D any](ctx context.Context, coll *mongo.Collection, before time.Time, n int) ([]D, error) {
	cur, err := coll.Find(ctx, bson.D{{Key: "retainUntil", Value: bson.D{{Key: "$lt", Value: before}}}},
		options.Find().SetSort(bson.D{{Key: "retainUntil", Value: 1}}).SetLimit(int64(n)))
	if err != nil {
		return nil, err
	}
	var docs []D
	if err := cur.All(ctx, &docs); err != nil {
		return nil, err
	}
	return docs, nil
}

// Purge deletes a kept subscription whose retention ended: its lines
// first, then the subscription, so a purge stopped between the two finds
// the subscription again and finishes.
func (s mongoSubscriptions) Purge(ctx context.Context, id string, now time.Time) (bool, error) {
	sub, err := s.Get(ctx, id)
	if errors.Is(err, billing.ErrNoSubscription) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !sub.Erased || !sub.RetainUntil.Before(now) {
		return false, nil
	}
	if err := s.b.step(); err != nil {
		return false, err
	}
	if _, err := s.b.history.DeleteMany(ctx, bson.D{{Key: "subscriptionId", Value: id}}); err != nil {
		return false, fmt.Errorf("purge history of %s: %w", id, err)
	}
	if err := s.b.step(); err != nil {
		return false, err
	}
	res, err := s.b.subs.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "erased", Value: true},
		{Key: "retainUntil", Value: bson.D{{Key: "$lt", Value: now}}}})
	if err != nil {
		return false, fmt.Errorf("purge subscription %s: %w", id, err)
	}
	return res.DeletedCount > 0, nil
}

type mongoOutbox struct{ b *Billing }

// Pending returns up to n notices, oldest first, after copying out those
// of changes that stopped before doing so.
func (o mongoOutbox) Pending(ctx context.Context, n int) ([]billing.Notice, error) {
	if err := o.b.settleAll(ctx, n); err != nil {
		return nil, err
	}
	cur, err := o.b.outbox.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "at", Value: 1}}).SetLimit(int64(n)))
	if err != nil {
		return nil, fmt.Errorf("outbox: %w", err)
	}
	var docs []noticeDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("outbox: %w", err)
	}
	out := make([]billing.Notice, len(docs))
	for i, d := range docs {
		out[i] = billing.Notice{Key: d.Key, To: d.To, Brand: d.Brand, Kind: d.Kind, Data: d.Data, ByCharge: d.ByCharge}
	}
	return out, nil
}

// Done removes the notices handed to the mailer.
func (o mongoOutbox) Done(ctx context.Context, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	if err := o.b.step(); err != nil {
		return err
	}
	if _, err := o.b.outbox.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: keys}}}}); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	return nil
}

type keyDoc struct {
	Key       string    `bson:"_id"`
	Value     string    `bson:"value"`
	N         int       `bson:"n"`
	ExpiresAt time.Time `bson:"expiresAt"`
}

type mongoKeys struct{ b *Billing }

// Bind binds key to value unless it is bound and unexpired: an upsert
// filtered on expiry, whose insert the unique _id refuses when the key is
// bound.
func (k mongoKeys) Bind(ctx context.Context, key, value string, now, expires time.Time) (string, error) {
	_, err := k.b.keys.UpdateOne(ctx,
		bson.D{{Key: "_id", Value: key}, {Key: "expiresAt", Value: bson.D{{Key: "$lte", Value: now}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "value", Value: value}, {Key: "n", Value: 0}, {Key: "expiresAt", Value: expires}}}},
		options.UpdateOne().SetUpsert(true))
	if err == nil {
		// This call bound it, unless another bound it again since (its
		// value is then the one bound).
		return k.value(ctx, key, value)
	}
	if !mongo.IsDuplicateKeyError(err) {
		return "", fmt.Errorf("bind %s: %w", key, err)
	}
	return k.value(ctx, key, "")
}

func (k mongoKeys) value(ctx context.Context, key, otherwise string) (string, error) {
	var d keyDoc
	err := k.b.keys.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return otherwise, nil
	}
	if err != nil {
		return "", fmt.Errorf("bind %s: %w", key, err)
	}
	return d.Value, nil
}

// Bound returns the value key is bound to at now, or "".
func (k mongoKeys) Bound(ctx context.Context, key string, now time.Time) (string, error) {
	d, err := k.get(ctx, key, now)
	return d.Value, err
}

func (k mongoKeys) get(ctx context.Context, key string, now time.Time) (keyDoc, error) {
	var d keyDoc
	err := k.b.keys.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) || (err == nil && !d.ExpiresAt.After(now)) {
		return keyDoc{}, nil
	}
	if err != nil {
		return keyDoc{}, fmt.Errorf("key %s: %w", key, err)
	}
	return d, nil
}

// Unbind removes key.
func (k mongoKeys) Unbind(ctx context.Context, key string) error {
	if _, err := k.b.keys.DeleteOne(ctx, bson.D{{Key: "_id", Value: key}}); err != nil {
		return fmt.Errorf("unbind %s: %w", key, err)
	}
	return nil
}

// Take counts one more under key while its count is below limit: an
// increment filtered on the count (atomic on MongoDB), or, for a new or
// expired key, an upsert whose insert the unique _id lets one caller make.
func (k mongoKeys) Take(ctx context.Context, key string, limit int, now, expires time.Time) (bool, error) {
	if limit <= 0 {
		return false, nil
	}
	for range 3 {
		res, err := k.b.keys.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}, {Key: "n", Value: bson.D{{Key: "$lt", Value: limit}}},
			{Key: "expiresAt", Value: bson.D{{Key: "$gt", Value: now}}}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}})
		if err != nil {
			return false, fmt.Errorf("take %s: %w", key, err)
		}
		if res.MatchedCount == 1 {
			return true, nil
		}
		_, err = k.b.keys.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}, {Key: "expiresAt", Value: bson.D{{Key: "$lte", Value: now}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "value", Value: ""}, {Key: "n", Value: 1}, {Key: "expiresAt", Value: expires}}}},
			options.UpdateOne().SetUpsert(true))
		if err == nil {
			return true, nil
		}
		if !mongo.IsDuplicateKeyError(err) {
			return false, fmt.Errorf("take %s: %w", key, err)
		}
		// The key exists unexpired: at its limit, or another caller made it
		// between the two updates; look again.
		d, err := k.get(ctx, key, now)
		if err != nil {
			return false, err
		}
		if d.N >= limit {
			return false, nil
		}
	}
	return false, nil
}

// Give takes one off key's count.
func (k mongoKeys) Give(ctx context.Context, key string) error {
	if _, err := k.b.keys.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}, {Key: "n", Value: bson.D{{Key: "$gt", Value: 0}}}},
		bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: -1}}}}); err != nil {
		return fmt.Errorf("give %s: %w", key, err)
	}
	return nil
}

// Count returns key's count at now.
func (k mongoKeys) Count(ctx context.Context, key string, now time.Time) (int, error) {
	d, err := k.get(ctx, key, now)
	return d.N, err
}

// DeleteExpired deletes the keys expired by now.
func (k mongoKeys) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	res, err := k.b.keys.DeleteMany(ctx, bson.D{{Key: "expiresAt", Value: bson.D{{Key: "$lte", Value: now}}}})
	if err != nil {
		return 0, fmt.Errorf("delete expired keys: %w", err)
	}
	return res.DeletedCount, nil
}
