package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/store/sqlite"
)

// CancelLinks returns the cancel links' store (migration 0025).
func (b *Billing) CancelLinks() billing.CancelLinks { return cancelLinks{b} }

// StripeEvents returns the handled webhook events' store (migration 0025).
func (b *Billing) StripeEvents() billing.StripeEvents { return stripeEvents{b} }

type cancelLinks struct{ b *Billing }

// Insert stores a new link.
func (c cancelLinks) Insert(ctx context.Context, l billing.CancelLink) error {
	return c.b.write(ctx, func(q sqlite.Querier) error {
		if _, err := q.ExecContext(ctx, `INSERT INTO cancel_links (id, email, user_id, bundle, expires_at, spent_at)
			VALUES (?, ?, ?, ?, ?, ?)`, l.ID, l.Email, l.UserID, l.Bundle, unixNano(l.ExpiresAt), optionalNano(l.SpentAt)); err != nil {
			return fmt.Errorf("insert cancel link: %w", err)
		}
		return nil
	})
}

// optionalNano is t as Unix nanoseconds, or NULL when t is zero.
func optionalNano(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return unixNano(t)
}

// Get returns a link by id.
func (c cancelLinks) Get(ctx context.Context, id string) (billing.CancelLink, error) {
	var (
		l              billing.CancelLink
		expires, spent sql.NullInt64
	)
	err := c.b.read().QueryRowContext(ctx, `SELECT id, email, user_id, bundle, expires_at, spent_at FROM cancel_links WHERE id = ?`, id).
		Scan(&l.ID, &l.Email, &l.UserID, &l.Bundle, &expires, &spent)
	if errors.Is(err, sql.ErrNoRows) {
		return billing.CancelLink{}, billing.ErrNoCancelLink
	}
	if err != nil {
		return billing.CancelLink{}, fmt.Errorf("read cancel link: %w", err)
	}
	l.ExpiresAt = fromUnixNano(expires.Int64)
	if spent.Valid {
		l.SpentAt = fromUnixNano(spent.Int64)
	}
	return l, nil
}

// Spend marks the link spent unless it is: one statement, so of racing
// taps one changes the row.
func (c cancelLinks) Spend(ctx context.Context, id string, at time.Time) (bool, error) {
	var n int64
	err := c.b.write(ctx, func(q sqlite.Querier) error {
		var err error
		n, err = affected(q.ExecContext(ctx, `UPDATE cancel_links SET spent_at = ? WHERE id = ? AND spent_at IS NULL`, unixNano(at), id))
		return err
	})
	if err != nil {
		return false, fmt.Errorf("spend cancel link: %w", err)
	}
	return n == 1, nil
}

// DeleteOf deletes an address's links.
func (c cancelLinks) DeleteOf(ctx context.Context, email string) (int64, error) {
	var n int64
	err := c.b.write(ctx, func(q sqlite.Querier) error {
		var err error
		n, err = affected(q.ExecContext(ctx, `DELETE FROM cancel_links WHERE email = ?`, email))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("delete cancel links: %w", err)
	}
	return n, nil
}

// DeleteExpired deletes the links expired before before.
func (c cancelLinks) DeleteExpired(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := c.b.write(ctx, func(q sqlite.Querier) error {
		var err error
		n, err = affected(q.ExecContext(ctx, `DELETE FROM cancel_links WHERE expires_at < ?`, unixNano(before)))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("delete expired cancel links: %w", err)
	}
	return n, nil
}

type stripeEvents struct{ b *Billing }

// Get returns the event recorded under id; found is false when none is.
func (e stripeEvents) Get(ctx context.Context, id string) (billing.StripeEventRecord, bool, error) {
	var (
		r                 billing.StripeEventRecord
		created, received int64
	)
	err := e.b.read().QueryRowContext(ctx, `SELECT id, type, charge_id, order_id, applied, created, received_at
		FROM stripe_events WHERE id = ?`, id).Scan(&r.ID, &r.Type, &r.ChargeID, &r.Order, &r.Applied, &created, &received)
	if errors.Is(err, sql.ErrNoRows) {
		return billing.StripeEventRecord{}, false, nil
	}
	if err != nil {
		return billing.StripeEventRecord{}, false, fmt.Errorf("read stripe event: %w", err)
	}
	r.Created, r.ReceivedAt = fromUnixNano(created), fromUnixNano(received)
	return r, true, nil
}

// Record stores the event unless its id is recorded.
func (e stripeEvents) Record(ctx context.Context, r billing.StripeEventRecord) error {
	return e.b.write(ctx, func(q sqlite.Querier) error {
		if _, err := q.ExecContext(ctx, `INSERT INTO stripe_events (id, type, charge_id, order_id, applied, created, received_at)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`, r.ID, r.Type, r.ChargeID, r.Order, r.Applied,
			unixNano(r.Created), unixNano(r.ReceivedAt)); err != nil {
			return fmt.Errorf("record stripe event: %w", err)
		}
		return nil
	})
}

// DeleteReceivedBefore forgets the events received before before.
func (e stripeEvents) DeleteReceivedBefore(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := e.b.write(ctx, func(q sqlite.Querier) error {
		var err error
		n, err = affected(q.ExecContext(ctx, `DELETE FROM stripe_events WHERE received_at < ?`, unixNano(before)))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("forget stripe events: %w", err)
	}
	return n, nil
}
