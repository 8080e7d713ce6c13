package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/store/sqlite"
)

// Billing is billing's storage on the embedded database (migration 0020):
// subscriptions with their history, the outbox of mails, and the keys.
// Outside Atomically each use case is one transaction of its own; inside,
// every call runs in Atomically's transaction.
type Billing struct {
	db *sqlite.DB
	tx *sqlite.Tx // set inside Atomically
	// failAt makes the nth statement of a write fail (the crash tests'
	// stop between two writes); nil in the application.
	failAt *failAfter
}

// NewBilling returns billing's storage on db.
func NewBilling(db *sqlite.DB) *Billing { return &Billing{db: db} }

var _ billing.Store = (*Billing)(nil)

// Subscriptions returns the subscriptions' store.
func (b *Billing) Subscriptions() billing.Subscriptions { return subscriptions{b} }

// Notices returns the outbox.
func (b *Billing) Notices() billing.Notices { return outbox{b} }

// Keys returns the keys' store.
func (b *Billing) Keys() billing.Keys { return billingKeys{b} }

// Atomically runs fn in one write transaction.
func (b *Billing) Atomically(ctx context.Context, fn func(billing.Store) error) error {
	if b.tx != nil {
		return fn(b)
	}
	return b.db.Update(ctx, func(tx *sqlite.Tx) error { return fn(&Billing{db: b.db, tx: tx, failAt: b.failAt}) })
}

// write runs fn in the current transaction or in one of its own.
func (b *Billing) write(ctx context.Context, fn func(q sqlite.Querier) error) error {
	wrap := func(q sqlite.Querier) sqlite.Querier {
		if b.failAt != nil {
			return failingQuerier{q, b.failAt}
		}
		return q
	}
	if b.tx != nil {
		return fn(wrap(b.tx))
	}
	return b.db.Update(ctx, func(tx *sqlite.Tx) error { return fn(wrap(tx)) })
}

// failAfter counts statements and fails the nth.
type failAfter struct {
	mu   sync.Mutex
	n    int
	seen int
}

var errStopped = errors.New("sqlstore: stopped here (a crash test)")

func (f *failAfter) next() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen++
	if f.seen == f.n {
		return errStopped
	}
	return nil
}

type failingQuerier struct {
	q    sqlite.Querier
	fail *failAfter
}

func (f failingQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if err := f.fail.next(); err != nil {
		return nil, err
	}
	return f.q.ExecContext(ctx, query, args...)
}

func (f failingQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := f.fail.next(); err != nil {
		return nil, err
	}
	return f.q.QueryContext(ctx, query, args...)
}

func (f failingQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if err := f.fail.next(); err != nil {
		// A row whose Scan reports the stop: a cancelled context's.
		cancelled, cancel := context.WithCancelCause(ctx)
		cancel(err)
		return f.q.QueryRowContext(cancelled, query, args...)
	}
	return f.q.QueryRowContext(ctx, query, args...)
}

// read returns where reads go: the current transaction (which sees its own
// writes) or the read pool.
func (b *Billing) read() sqlite.Querier {
	if b.tx != nil {
		return b.tx
	}
	return b.db.Reader()
}

// subscriptionDoc is a subscription as the doc column holds it. The
// indexed columns repeat some fields; on reading, the columns win.
type subscriptionDoc struct {
	ID                 string                `json:"id"`
	Version            int                   `json:"version"`
	UserID             string                `json:"userId,omitempty"`
	Email              string                `json:"email"`
	Emails             []string              `json:"emails,omitempty"`
	Bundle             string                `json:"bundle"`
	Brand              string                `json:"brand"`
	PlanCode           string                `json:"planCode"`
	Status             string                `json:"status"`
	MainPlan           bool                  `json:"mainPlan"`
	Price              billing.Money         `json:"price"`
	Provider           string                `json:"provider"`
	StartedAt          time.Time             `json:"startedAt"`
	CurrentPeriodStart time.Time             `json:"currentPeriodStart,omitzero"`
	CurrentPeriodEnd   time.Time             `json:"currentPeriodEnd,omitzero"`
	ExpiresAt          *time.Time            `json:"expiresAt,omitempty"`
	CancelAtPeriodEnd  bool                  `json:"cancelAtPeriodEnd,omitempty"`
	CanceledAt         *time.Time            `json:"canceledAt,omitempty"`
	ResumedAt          *time.Time            `json:"resumedAt,omitempty"`
	PaymentMethod      billing.PaymentMethod `json:"paymentMethod"`
	DueAt              time.Time             `json:"dueAt,omitzero"`
	FailedAttempts     int                   `json:"failedAttempts,omitempty"`
	NextPlanCode       string                `json:"nextPlanCode,omitempty"`
	MainSubscriptionID string                `json:"mainSubscriptionId,omitempty"`
	PaidBy             string                `json:"paidBy,omitempty"`
	Suspended          bool                  `json:"suspended,omitempty"`
	FreeMonth          *freeMonthDoc         `json:"freeMonth,omitempty"`
	Erased             bool                  `json:"erased,omitempty"`
	RetainUntil        time.Time             `json:"retainUntil,omitzero"`
	Extensions         []string              `json:"extensions,omitempty"`
}

type freeMonthDoc struct {
	Key    string    `json:"key"`
	Base   time.Time `json:"base"`
	Target time.Time `json:"target"`
}

func toSubscriptionDoc(s billing.Subscription) subscriptionDoc {
	d := subscriptionDoc{ID: s.ID, Version: s.Version, UserID: s.UserID, Email: s.Email, Emails: s.Emails, Bundle: s.Bundle,
		Brand: s.Brand, PlanCode: s.PlanCode, Status: s.Status, MainPlan: s.MainPlan, Price: s.Price, Provider: s.Provider,
		StartedAt: s.StartedAt, CurrentPeriodStart: s.CurrentPeriodStart, CurrentPeriodEnd: s.CurrentPeriodEnd,
		ExpiresAt: s.ExpiresAt, CancelAtPeriodEnd: s.CancelAtPeriodEnd, CanceledAt: s.CanceledAt, ResumedAt: s.ResumedAt,
		PaymentMethod: s.PaymentMethod, DueAt: s.DueAt, FailedAttempts: s.FailedAttempts, NextPlanCode: s.NextPlanCode,
		MainSubscriptionID: s.MainSubscriptionID, PaidBy: s.PaidBy, Suspended: s.Suspended, Erased: s.Erased,
		RetainUntil: s.RetainUntil, Extensions: s.Extensions}
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
		Brand: d.Brand, PlanCode: d.PlanCode, Status: d.Status, MainPlan: d.MainPlan, Price: d.Price, Provider: d.Provider,
		StartedAt: d.StartedAt.UTC(), CurrentPeriodStart: d.CurrentPeriodStart.UTC(), CurrentPeriodEnd: d.CurrentPeriodEnd.UTC(),
		ExpiresAt: utc(d.ExpiresAt), CancelAtPeriodEnd: d.CancelAtPeriodEnd, CanceledAt: utc(d.CanceledAt), ResumedAt: utc(d.ResumedAt),
		PaymentMethod: d.PaymentMethod, DueAt: d.DueAt.UTC(), FailedAttempts: d.FailedAttempts, NextPlanCode: d.NextPlanCode,
		MainSubscriptionID: d.MainSubscriptionID, PaidBy: d.PaidBy, Suspended: d.Suspended, Erased: d.Erased,
		RetainUntil: d.RetainUntil.UTC(), Extensions: d.Extensions}
	if d.FreeMonth != nil {
		s.FreeMonth = &billing.FreeMonth{Key: d.FreeMonth.Key, Base: d.FreeMonth.Base.UTC(), Target: d.FreeMonth.Target.UTC()}
	}
	return s
}

type subscriptions struct{ b *Billing }

const subscriptionColumns = `version, coalesce(lease_owner, ''), coalesce(lease_until, 0), doc`

func scanSubscription(row interface{ Scan(...any) error }) (billing.Subscription, error) {
	var version int
	var owner, doc string
	var until int64
	if err := row.Scan(&version, &owner, &until, &doc); err != nil {
		return billing.Subscription{}, err
	}
	var d subscriptionDoc
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		return billing.Subscription{}, fmt.Errorf("subscription: %w", err)
	}
	s := d.subscription()
	s.Version = version
	if owner != "" {
		s.Lease = billing.Lease{Owner: owner, Until: fromUnixNano(until)}
	}
	return s, nil
}

// Get returns one subscription by id.
func (s subscriptions) Get(ctx context.Context, id string) (billing.Subscription, error) {
	return getSubscription(ctx, s.b.read(), id)
}

func getSubscription(ctx context.Context, q sqlite.Querier, id string) (billing.Subscription, error) {
	sub, err := scanSubscription(q.QueryRowContext(ctx, `SELECT `+subscriptionColumns+` FROM subscriptions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return billing.Subscription{}, billing.ErrNoSubscription
	}
	if err != nil {
		return billing.Subscription{}, fmt.Errorf("subscription %s: %w", id, err)
	}
	return sub, nil
}

// OfUser returns the account's subscriptions, oldest start first.
func (s subscriptions) OfUser(ctx context.Context, userID string) ([]billing.Subscription, error) {
	if userID == "" {
		return nil, nil
	}
	return s.list(ctx, `SELECT `+subscriptionColumns+` FROM subscriptions WHERE user_id = ?`, userID)
}

// ByEmail returns the subscriptions whose current address is email.
func (s subscriptions) ByEmail(ctx context.Context, email string) ([]billing.Subscription, error) {
	return s.list(ctx, `SELECT `+subscriptionColumns+` FROM subscriptions WHERE email = ?`, email)
}

// WithEmailPrefix returns up to n subscriptions whose current address
// starts with prefix, by address: a range on subscriptions_email, so it
// reads n rows at most, never the table.
func (s subscriptions) WithEmailPrefix(ctx context.Context, prefix string, n int) ([]billing.Subscription, error) {
	if prefix == "" || n < 1 {
		return nil, nil
	}
	out, err := queryAll(ctx, s.b.read(), scanSubscription, `SELECT `+subscriptionColumns+` FROM subscriptions
		WHERE email >= ? AND email < ? ORDER BY email LIMIT ?`, prefix, billing.PrefixEnd(prefix), n)
	if err != nil {
		return nil, fmt.Errorf("subscriptions from %q: %w", prefix, err)
	}
	return out, nil
}

// WithEmailContaining returns up to n subscriptions, not erased, whose
// address contains part, by address. subscriptions_email_fts (0044) holds
// every live address's trigrams: the part, quoted as one FTS5 string (its
// double quotes doubled), is a phrase of them, and the index yields the
// matching rows in its own order until LIMIT, so at most n are read
// whatever the table's size; those n are then put in address order here.
func (s subscriptions) WithEmailContaining(ctx context.Context, part string, n int) ([]billing.Subscription, error) {
	if !billing.Containable(part) || n < 1 {
		return nil, nil
	}
	phrase := `"` + strings.ReplaceAll(part, `"`, `""`) + `"`
	out, err := queryAll(ctx, s.b.read(), scanSubscription, `SELECT `+subscriptionColumns+` FROM subscriptions
		WHERE id IN (SELECT id FROM subscriptions_email_fts WHERE subscriptions_email_fts MATCH ? LIMIT ?) AND erased = 0`, phrase, n)
	if err != nil {
		return nil, fmt.Errorf("subscriptions containing %q: %w", part, err)
	}
	slices.SortFunc(out, func(a, b billing.Subscription) int {
		return cmp.Or(strings.Compare(a.Email, b.Email), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// WithCard returns up to n subscriptions whose card ends in last4, by
// address: subscriptions_card (0040) serves both the match and the order.
func (s subscriptions) WithCard(ctx context.Context, last4 string, n int) ([]billing.Subscription, error) {
	if last4 == "" || n < 1 {
		return nil, nil
	}
	out, err := queryAll(ctx, s.b.read(), scanSubscription, `SELECT `+subscriptionColumns+` FROM subscriptions
		WHERE json_extract(doc, '$.paymentMethod.last4') = ? ORDER BY email LIMIT ?`, last4, n)
	if err != nil {
		return nil, fmt.Errorf("subscriptions with card %s: %w", last4, err)
	}
	return out, nil
}

// list reads the rows of one person: a handful, sorted here rather than by
// an index that every write would pay for.
func (s subscriptions) list(ctx context.Context, query string, args ...any) ([]billing.Subscription, error) {
	out, err := queryAll(ctx, s.b.read(), scanSubscription, query, args...)
	if err != nil {
		return nil, fmt.Errorf("subscriptions: %w", err)
	}
	sortSubscriptions(out)
	return out, nil
}

func sortSubscriptions(subs []billing.Subscription) {
	slices.SortFunc(subs, billing.ByStart)
}

// subscriptionArgs are the row's values in insert order, after the id.
func subscriptionArgs(sub billing.Subscription) ([]any, error) {
	doc, err := json.Marshal(toSubscriptionDoc(sub))
	if err != nil {
		return nil, fmt.Errorf("subscription %s: %w", sub.ID, err)
	}
	var due, leaseUntil, retain sql.NullInt64
	if !sub.DueAt.IsZero() {
		due = sql.NullInt64{Int64: unixNano(sub.DueAt), Valid: true}
	}
	if sub.Lease.Owner != "" {
		leaseUntil = sql.NullInt64{Int64: unixNano(sub.Lease.Until), Valid: true}
	}
	if !sub.RetainUntil.IsZero() {
		retain = sql.NullInt64{Int64: unixNano(sub.RetainUntil), Valid: true}
	}
	return []any{sub.Version, nullString(sub.UserID), sub.Email, sub.Bundle, sub.MainPlan, sub.Status, due,
		nullString(sub.Lease.Owner), leaseUntil, sub.Erased, retain, string(doc)}, nil
}

// Create inserts a new subscription at version 1 with its effects, or
// returns the stored one.
func (s subscriptions) Create(ctx context.Context, sub billing.Subscription, fx billing.Effects) (billing.Subscription, bool, error) {
	if err := checkEffects(fx); err != nil {
		return billing.Subscription{}, false, err
	}
	sub.Version = 1
	created := false
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		args, err := subscriptionArgs(sub)
		if err != nil {
			return err
		}
		res, err := q.ExecContext(ctx, `INSERT INTO subscriptions (id, version, user_id, email, bundle, main_plan, status,
			due_at, lease_owner, lease_until, erased, retain_until, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO NOTHING`, append([]any{sub.ID}, args...)...)
		if err != nil {
			return fmt.Errorf("create subscription %s: %w", sub.ID, err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err != nil {
				return fmt.Errorf("create subscription %s: %w", sub.ID, err)
			}
			sub, err = getSubscription(ctx, q, sub.ID)
			return err
		}
		created = true
		return writeEffects(ctx, q, fx)
	})
	if err != nil {
		return billing.Subscription{}, false, err
	}
	return sub, created, nil
}

// Apply writes next over the stored version next.Version.
func (s subscriptions) Apply(ctx context.Context, next billing.Subscription, fx billing.Effects) (billing.Subscription, error) {
	if err := checkEffects(fx); err != nil {
		return billing.Subscription{}, err
	}
	read := next.Version
	next.Version++
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		args, err := subscriptionArgs(next)
		if err != nil {
			return err
		}
		res, err := q.ExecContext(ctx, `UPDATE subscriptions SET version = ?, user_id = ?, email = ?, bundle = ?, main_plan = ?,
			status = ?, due_at = ?, lease_owner = ?, lease_until = ?, erased = ?, retain_until = ?, doc = ?
			WHERE id = ? AND version = ?`, append(args, next.ID, read)...)
		if err != nil {
			return fmt.Errorf("apply to subscription %s: %w", next.ID, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("apply to subscription %s: %w", next.ID, err)
		}
		if n == 0 {
			if _, err := getSubscription(ctx, q, next.ID); err != nil {
				return err
			}
			return billing.ErrStale
		}
		return writeEffects(ctx, q, fx)
	})
	if err != nil {
		return billing.Subscription{}, err
	}
	return next, nil
}

// Put writes the subscription as given.
func (s subscriptions) Put(ctx context.Context, sub billing.Subscription) error {
	args, err := subscriptionArgs(sub)
	if err != nil {
		return err
	}
	return s.b.write(ctx, func(q sqlite.Querier) error {
		_, err := q.ExecContext(ctx, `INSERT INTO subscriptions (id, version, user_id, email, bundle, main_plan, status,
			due_at, lease_owner, lease_until, erased, retain_until, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET version = excluded.version, user_id = excluded.user_id, email = excluded.email,
			bundle = excluded.bundle, main_plan = excluded.main_plan, status = excluded.status, due_at = excluded.due_at,
			lease_owner = excluded.lease_owner, lease_until = excluded.lease_until, erased = excluded.erased,
			retain_until = excluded.retain_until, doc = excluded.doc`, append([]any{sub.ID}, args...)...)
		if err != nil {
			return fmt.Errorf("put subscription %s: %w", sub.ID, err)
		}
		return nil
	})
}

// ClaimDue leases up to n subscriptions due by now whose lease is absent or
// lapsed, earliest due first, and returns them as the claiming UPDATE left
// them: a worker acts on the state it leased, never on an older read.
func (s subscriptions) ClaimDue(ctx context.Context, now time.Time, owner string, lease time.Duration, n int) ([]billing.Subscription, error) {
	var out []billing.Subscription
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		out = out[:0]
		rows, err := q.QueryContext(ctx, `UPDATE subscriptions SET lease_owner = ?, lease_until = ?
			WHERE id IN (SELECT id FROM subscriptions WHERE due_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
				ORDER BY due_at LIMIT ?)
			RETURNING `+subscriptionColumns, owner, unixNano(now.Add(lease)), unixNano(now), unixNano(now), n)
		if err != nil {
			return fmt.Errorf("claim due subscriptions: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			sub, err := scanSubscription(rows)
			if err != nil {
				return fmt.Errorf("claim due subscriptions: %w", err)
			}
			out = append(out, sub)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("claim due subscriptions: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, billing.ByDue)
	return out, nil
}

// Renew writes each renewal over the version read, provided owner still
// holds its lease, and clears the lease: one transaction for the batch,
// each item's outcome its own.
func (s subscriptions) Renew(ctx context.Context, owner string, rs []billing.Renewal) ([]error, error) {
	for _, r := range rs {
		if err := checkRenewal(r); err != nil {
			return nil, err
		}
	}
	errs := make([]error, len(rs))
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		clear(errs)
		for i, r := range rs {
			// The charge is recorded whether or not the renewal is
			// written: the money was taken (a stale one is given back).
			if r.Charge.Key != "" {
				if _, err := recordCharge(ctx, q, r.Charge); err != nil {
					return err
				}
			}
			next := r.Next
			read := next.Version
			next.Version++
			next.Lease = billing.Lease{}
			args, err := subscriptionArgs(next)
			if err != nil {
				return err
			}
			res, err := q.ExecContext(ctx, `UPDATE subscriptions SET version = ?, user_id = ?, email = ?, bundle = ?, main_plan = ?,
				status = ?, due_at = ?, lease_owner = ?, lease_until = ?, erased = ?, retain_until = ?, doc = ?
				WHERE id = ? AND version = ? AND lease_owner = ?`, append(args, next.ID, read, owner)...)
			if err != nil {
				return fmt.Errorf("renew subscription %s: %w", next.ID, err)
			}
			n, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("renew subscription %s: %w", next.ID, err)
			}
			if n == 0 {
				// Changed since the claim (a cancel), or leased by another
				// worker after this one's lease lapsed.
				errs[i] = billing.ErrStale
				if _, err := getSubscription(ctx, q, next.ID); errors.Is(err, billing.ErrNoSubscription) {
					errs[i] = err
				}
				continue
			}
			if err := writeEffects(ctx, q, r.Fx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return errs, nil
}

// checkRenewal refuses a renewal this store cannot write: a charge
// without its key and id, or effects it does not keep.
func checkRenewal(r billing.Renewal) error {
	if (r.Charge.ID == "") != (r.Charge.Key == "") {
		return errors.New("sqlstore: a renewal's charge needs its id and key")
	}
	return checkEffects(r.Fx)
}

// Release clears owner's leases of ids; another worker's lease stays.
func (s subscriptions) Release(ctx context.Context, owner string, ids []string) error {
	return s.b.write(ctx, func(q sqlite.Querier) error {
		for _, id := range ids {
			if _, err := q.ExecContext(ctx, `UPDATE subscriptions SET lease_owner = NULL, lease_until = NULL
				WHERE id = ? AND lease_owner = ?`, id, owner); err != nil {
				return fmt.Errorf("release subscription %s: %w", id, err)
			}
		}
		return nil
	})
}

// InsertMany writes seeded subscriptions, their lines and their charges in
// one transaction; what is already stored stays as it was, so a batch
// written again (a seeding stopped half-way) writes nothing twice.
func (s subscriptions) InsertMany(ctx context.Context, seeded []billing.Seeded) error {
	return s.b.write(ctx, func(q sqlite.Querier) error {
		// Multi-row statements: the subscriptions, then all their lines.
		if _, err := insertRows(ctx, q, seededSubscriptions, seeded, func(args []any, x billing.Seeded) ([]any, error) {
			sub := x.Sub
			if sub.Version == 0 {
				sub.Version = 1
			}
			rest, err := subscriptionArgs(sub)
			if err != nil {
				return nil, err
			}
			return append(append(args, sub.ID), rest...), nil
		}); err != nil {
			return fmt.Errorf("seed subscriptions: %w", err)
		}
		var lines []billing.Change
		for _, x := range seeded {
			lines = append(lines, x.Lines...)
		}
		if _, err := insertRows(ctx, q, seededLines, lines, func(args []any, c billing.Change) ([]any, error) {
			doc, err := json.Marshal(lineDoc(c))
			if err != nil {
				return nil, fmt.Errorf("history line %s: %w", c.ID, err)
			}
			return append(args, c.ID, c.SubscriptionID, unixNano(c.At), string(doc)), nil
		}); err != nil {
			return fmt.Errorf("seed history lines: %w", err)
		}
		// Seeded charges as they are given: a seed has received no
		// provider events to apply (Ledger.Record applies them).
		var charges []billing.Charge
		for _, x := range seeded {
			charges = append(charges, x.Charges...)
		}
		if _, err := insertRows(ctx, q, seededCharges, charges, func(args []any, ch billing.Charge) ([]any, error) {
			doc, err := json.Marshal(chargeDoc{Provider: ch.Provider, Amount: ch.Amount.Amount, Currency: ch.Amount.Currency,
				Method: ch.Method, Failure: ch.Failure, Duplicate: ch.Duplicate, PlanCode: ch.PlanCode})
			if err != nil {
				return nil, fmt.Errorf("charge %s: %w", ch.ID, err)
			}
			return append(args, ch.ID, ch.Key, nullIfEmpty(ch.SubscriptionID), nullIfEmpty(ch.Reference), ch.Status,
				unixNano(ch.CreatedAt), string(doc)), nil
		}); err != nil {
			return fmt.Errorf("seed charges: %w", err)
		}
		return nil
	})
}

var (
	seededSubscriptions = newMultiRow("subscriptions", `id, version, user_id, email, bundle, main_plan, status,
		due_at, lease_owner, lease_until, erased, retain_until, doc`, "ON CONFLICT (id) DO NOTHING")
	seededLines   = newMultiRow("subscription_history", "id, subscription_id, at, doc", "ON CONFLICT (id) DO NOTHING")
	seededCharges = newMultiRow("charges", "id, key, subscription_id, reference, status, created_at, doc", "ON CONFLICT DO NOTHING")
)

// History returns a subscription's lines, oldest first.
func (s subscriptions) History(ctx context.Context, id string) ([]billing.Change, error) {
	rows, err := s.b.read().QueryContext(ctx, `SELECT doc FROM subscription_history WHERE subscription_id = ? ORDER BY at`, id)
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", id, err)
	}
	defer rows.Close()
	var out []billing.Change
	for rows.Next() {
		var doc string
		if err := rows.Scan(&doc); err != nil {
			return nil, fmt.Errorf("history of %s: %w", id, err)
		}
		var l lineDoc
		if err := json.Unmarshal([]byte(doc), &l); err != nil {
			return nil, fmt.Errorf("history of %s: %w", id, err)
		}
		out = append(out, l.change())
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history of %s: %w", id, err)
	}
	// Lines of one instant in a fixed order, as on MongoDB.
	slices.SortStableFunc(out, func(a, b billing.Change) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// EraseLines strips a subscription's lines of a person, in one transaction.
func (s subscriptions) EraseLines(ctx context.Context, id string, personal []string) error {
	return s.b.write(ctx, func(q sqlite.Querier) error {
		rows, err := q.QueryContext(ctx, `SELECT doc FROM subscription_history WHERE subscription_id = ?`, id)
		if err != nil {
			return fmt.Errorf("erase history of %s: %w", id, err)
		}
		var lines []lineDoc
		for rows.Next() {
			var doc string
			if err := rows.Scan(&doc); err != nil {
				rows.Close()
				return fmt.Errorf("erase history of %s: %w", id, err)
			}
			var l lineDoc
			if err := json.Unmarshal([]byte(doc), &l); err != nil {
				rows.Close()
				return fmt.Errorf("erase history of %s: %w", id, err)
			}
			lines = append(lines, l)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("erase history of %s: %w", id, err)
		}
		for _, l := range lines {
			l = lineDoc(billing.ErasedLine(l.change(), personal))
			doc, err := json.Marshal(l)
			if err != nil {
				return fmt.Errorf("erase history of %s: %w", id, err)
			}
			if _, err := q.ExecContext(ctx, `UPDATE subscription_history SET doc = ? WHERE id = ?`, string(doc), l.ID); err != nil {
				return fmt.Errorf("erase history of %s: %w", id, err)
			}
		}
		return nil
	})
}

// Retained returns kept subscriptions whose retention ended, earliest
// first (the partial index subscriptions_retained).
func (s subscriptions) Retained(ctx context.Context, before time.Time, n int) ([]billing.Subscription, error) {
	out, err := queryAll(ctx, s.b.read(), scanSubscription, `SELECT `+subscriptionColumns+` FROM subscriptions
		WHERE erased = 1 AND retain_until < ? ORDER BY retain_until LIMIT ?`, unixNano(before), n)
	if err != nil {
		return nil, fmt.Errorf("retained subscriptions: %w", err)
	}
	return out, nil
}

// Purge deletes a kept subscription whose retention ended, with its
// lines, in one transaction.
func (s subscriptions) Purge(ctx context.Context, id string, now time.Time) (bool, error) {
	purged := false
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		res, err := q.ExecContext(ctx, `DELETE FROM subscriptions WHERE id = ? AND erased = 1 AND retain_until < ?`, id, unixNano(now))
		if err != nil {
			return fmt.Errorf("purge subscription %s: %w", id, err)
		}
		n, err := res.RowsAffected()
		if err != nil || n == 0 {
			return err
		}
		if _, err := q.ExecContext(ctx, `DELETE FROM subscription_history WHERE subscription_id = ?`, id); err != nil {
			return fmt.Errorf("purge history of %s: %w", id, err)
		}
		purged = true
		return nil
	})
	return purged, err
}

// lineDoc is a history line as the doc column holds it.
type lineDoc struct {
	ID             string    `json:"id"`
	SubscriptionID string    `json:"subscriptionId"`
	At             time.Time `json:"at"`
	By             string    `json:"by"`
	Kind           string    `json:"kind"`
	From           string    `json:"from,omitempty"`
	To             string    `json:"to,omitempty"`
	Detail         string    `json:"detail,omitempty"`
}

func (l lineDoc) change() billing.Change {
	return billing.Change{ID: l.ID, SubscriptionID: l.SubscriptionID, At: l.At.UTC(), By: l.By, Kind: l.Kind, From: l.From,
		To: l.To, Detail: l.Detail}
}

// noticeDoc is a mail waiting in the outbox.
type noticeDoc struct {
	Key      string            `json:"key"`
	To       string            `json:"to"`
	Brand    string            `json:"brand"`
	Kind     string            `json:"kind"`
	Data     map[string]string `json:"data,omitempty"`
	ByCharge bool              `json:"byCharge,omitempty"`
}

// checkEffects refuses effects this store cannot write yet: receipts are
// stored with the ledger (part C of the move).
func checkEffects(fx billing.Effects) error {
	if len(fx.Receipts) > 0 {
		return errors.New("sqlstore: receipts are not stored here yet")
	}
	return nil
}

// writeEffects writes a decision's lines and mails: each once by its id or
// key, so a change written again (a retry) writes nothing twice.
func writeEffects(ctx context.Context, q sqlite.Querier, fx billing.Effects) error {
	for _, c := range fx.Lines {
		doc, err := json.Marshal(lineDoc(c))
		if err != nil {
			return fmt.Errorf("history line %s: %w", c.ID, err)
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO subscription_history (id, subscription_id, at, doc) VALUES (?, ?, ?, ?)
			ON CONFLICT (id) DO NOTHING`, c.ID, c.SubscriptionID, unixNano(c.At), string(doc)); err != nil {
			return fmt.Errorf("history line %s: %w", c.ID, err)
		}
	}
	for i, n := range fx.Notices {
		doc, err := json.Marshal(noticeDoc(n))
		if err != nil {
			return fmt.Errorf("notice %s: %w", n.Key, err)
		}
		// Ordered by when it was decided, and within one decision as given.
		at := time.Now().UnixNano() + int64(i)
		if _, err := q.ExecContext(ctx, `INSERT INTO billing_outbox (key, recipient, at, doc) VALUES (?, ?, ?, ?)
			ON CONFLICT (key) DO NOTHING`, n.Key, n.To, at, string(doc)); err != nil {
			return fmt.Errorf("notice %s: %w", n.Key, err)
		}
	}
	return nil
}

type outbox struct{ b *Billing }

// Pending returns up to n notices, oldest first.
func (o outbox) Pending(ctx context.Context, n int) ([]billing.Notice, error) {
	rows, err := o.b.read().QueryContext(ctx, `SELECT doc FROM billing_outbox WHERE at >= ? ORDER BY at LIMIT ?`, int64(0), n)
	if err != nil {
		return nil, fmt.Errorf("outbox: %w", err)
	}
	defer rows.Close()
	var out []billing.Notice
	for rows.Next() {
		var doc string
		if err := rows.Scan(&doc); err != nil {
			return nil, fmt.Errorf("outbox: %w", err)
		}
		var d noticeDoc
		if err := json.Unmarshal([]byte(doc), &d); err != nil {
			return nil, fmt.Errorf("outbox: %w", err)
		}
		out = append(out, billing.Notice(d))
	}
	return out, rows.Err()
}

// Done removes the notices handed to the mailer.
func (o outbox) Done(ctx context.Context, keys []string) error {
	return o.b.write(ctx, func(q sqlite.Querier) error {
		for _, k := range keys {
			if _, err := q.ExecContext(ctx, `DELETE FROM billing_outbox WHERE key = ?`, k); err != nil {
				return fmt.Errorf("outbox: %w", err)
			}
		}
		return nil
	})
}

type billingKeys struct{ b *Billing }

// Bind binds key to value unless it is bound and unexpired, and returns
// the value bound: one statement, so of two binders one wins.
func (k billingKeys) Bind(ctx context.Context, key, value string, now, expires time.Time) (string, error) {
	var bound string
	err := k.b.write(ctx, func(q sqlite.Querier) error {
		err := q.QueryRowContext(ctx, `INSERT INTO billing_keys (key, value, n, expires_at) VALUES (?, ?, 0, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value, n = 0, expires_at = excluded.expires_at
			WHERE billing_keys.expires_at <= ? RETURNING value`, key, value, unixNano(expires), unixNano(now)).Scan(&bound)
		if errors.Is(err, sql.ErrNoRows) {
			err = q.QueryRowContext(ctx, `SELECT value FROM billing_keys WHERE key = ?`, key).Scan(&bound)
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("bind %s: %w", key, err)
	}
	return bound, nil
}

// Bound returns the value key is bound to at now, or "".
func (k billingKeys) Bound(ctx context.Context, key string, now time.Time) (string, error) {
	var value string
	err := k.b.read().QueryRowContext(ctx, `SELECT value FROM billing_keys WHERE key = ? AND expires_at > ?`,
		key, unixNano(now)).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("bound %s: %w", key, err)
	}
	return value, nil
}

// Unbind removes key.
func (k billingKeys) Unbind(ctx context.Context, key string) error {
	return k.b.write(ctx, func(q sqlite.Querier) error {
		if _, err := q.ExecContext(ctx, `DELETE FROM billing_keys WHERE key = ?`, key); err != nil {
			return fmt.Errorf("unbind %s: %w", key, err)
		}
		return nil
	})
}

// Take counts one more under key while its count is below limit: one
// statement, which SQLite runs whole before any other write.
func (k billingKeys) Take(ctx context.Context, key string, limit int, now, expires time.Time) (bool, error) {
	if limit <= 0 {
		return false, nil
	}
	took := false
	err := k.b.write(ctx, func(q sqlite.Querier) error {
		var n int
		err := q.QueryRowContext(ctx, `INSERT INTO billing_keys (key, value, n, expires_at) VALUES (?, '', 1, ?)
			ON CONFLICT (key) DO UPDATE SET
				n = CASE WHEN billing_keys.expires_at <= ?3 THEN 1 ELSE billing_keys.n + 1 END,
				expires_at = CASE WHEN billing_keys.expires_at <= ?3 THEN excluded.expires_at ELSE billing_keys.expires_at END
			WHERE billing_keys.n < ?4 OR billing_keys.expires_at <= ?3 RETURNING n`,
			key, unixNano(expires), unixNano(now), limit).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		took = err == nil
		return err
	})
	if err != nil {
		return false, fmt.Errorf("take %s: %w", key, err)
	}
	return took, nil
}

// Give takes one off key's count.
func (k billingKeys) Give(ctx context.Context, key string) error {
	return k.b.write(ctx, func(q sqlite.Querier) error {
		if _, err := q.ExecContext(ctx, `UPDATE billing_keys SET n = n - 1 WHERE key = ? AND n > 0`, key); err != nil {
			return fmt.Errorf("give %s: %w", key, err)
		}
		return nil
	})
}

// Count returns key's count at now.
func (k billingKeys) Count(ctx context.Context, key string, now time.Time) (int, error) {
	var n int
	err := k.b.read().QueryRowContext(ctx, `SELECT n FROM billing_keys WHERE key = ? AND expires_at > ?`,
		key, unixNano(now)).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("count %s: %w", key, err)
	}
	return n, nil
}

// DeleteExpired deletes the keys expired by now.
func (k billingKeys) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := k.b.write(ctx, func(q sqlite.Querier) error {
		var err error
		n, err = affected(q.ExecContext(ctx, `DELETE FROM billing_keys WHERE expires_at <= ?`, unixNano(now)))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("delete expired keys: %w", err)
	}
	return n, nil
}
