package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/store/sqlite"
)

// Orders returns the hosted-page orders' store (migration 0022).
func (b *Billing) Orders() billing.Orders { return orders{b} }

type orders struct{ b *Billing }

const orderColumns = `id, email, subscription_id, status, session, url, created_at, doc`

func scanOrder(row interface{ Scan(...any) error }) (billing.Order, error) {
	var (
		o       billing.Order
		created int64
		doc     string
	)
	var id, email, sub, status, session, url string
	if err := row.Scan(&id, &email, &sub, &status, &session, &url, &created, &doc); err != nil {
		return billing.Order{}, err
	}
	if err := json.Unmarshal([]byte(doc), &o); err != nil {
		return billing.Order{}, fmt.Errorf("order %s: %w", id, err)
	}
	// The columns win over the doc: they are what the updates write.
	o.ID, o.Email, o.SubscriptionID, o.Status, o.Session, o.URL = id, email, sub, status, session, url
	o.CreatedAt = fromUnixNano(created)
	return o, nil
}

// Open stores o unless its id is stored, and returns the stored order.
func (s orders) Open(ctx context.Context, o billing.Order) (billing.Order, bool, error) {
	doc, err := json.Marshal(o)
	if err != nil {
		return billing.Order{}, false, fmt.Errorf("open order %s: %w", o.ID, err)
	}
	var (
		stored  billing.Order
		created bool
	)
	err = s.b.write(ctx, func(q sqlite.Querier) error {
		n, err := affected(q.ExecContext(ctx, `INSERT INTO checkout_orders (id, email, subscription_id, status, session, url, created_at, doc)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`, o.ID, o.Email, o.SubscriptionID, o.Status, o.Session, o.URL,
			unixNano(o.CreatedAt), string(doc)))
		if err != nil {
			return err
		}
		created = n == 1
		stored, err = scanOrder(q.QueryRowContext(ctx, `SELECT `+orderColumns+` FROM checkout_orders WHERE id = ?`, o.ID))
		return err
	})
	if err != nil {
		return billing.Order{}, false, fmt.Errorf("open order %s: %w", o.ID, err)
	}
	return stored, created, nil
}

// Get returns an order.
func (s orders) Get(ctx context.Context, id string) (billing.Order, error) {
	o, err := scanOrder(s.b.read().QueryRowContext(ctx, `SELECT `+orderColumns+` FROM checkout_orders WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return billing.Order{}, billing.ErrNoOrder
	}
	if err != nil {
		return billing.Order{}, fmt.Errorf("read order %s: %w", id, err)
	}
	return o, nil
}

func (s orders) exec(ctx context.Context, what, query string, args ...any) (int64, error) {
	var n int64
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		var err error
		n, err = affected(q.ExecContext(ctx, query, args...))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return n, nil
}

// SetSession records the order's hosted page.
func (s orders) SetSession(ctx context.Context, id, session, url string) error {
	_, err := s.exec(ctx, "order "+id, `UPDATE checkout_orders SET session = ?, url = ? WHERE id = ?`, session, url, id)
	return err
}

// Processing moves a pending order to processing: the condition is in the
// write, so a settled order is never moved back.
func (s orders) Processing(ctx context.Context, id string) error {
	_, err := s.exec(ctx, "order "+id, `UPDATE checkout_orders SET status = 'processing' WHERE id = ? AND status = 'pending'`, id)
	return err
}

// ClaimOutcome sets the outcome unless one is set, in one statement, and
// returns the one that stands (an order settled without one stands as its
// status says).
func (s orders) ClaimOutcome(ctx context.Context, id, outcome string) (string, error) {
	var first sql.NullString
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		if _, err := q.ExecContext(ctx, `UPDATE checkout_orders SET outcome = ?
			WHERE id = ? AND outcome IS NULL AND status IN ('pending', 'processing')`, outcome, id); err != nil {
			return err
		}
		return q.QueryRowContext(ctx, `SELECT coalesce(outcome, status) FROM checkout_orders WHERE id = ?`, id).Scan(&first)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return "", billing.ErrNoOrder
	}
	if err != nil {
		return "", fmt.Errorf("claim the outcome of order %s: %w", id, err)
	}
	return first.String, nil
}

// Settled writes the order's final status.
func (s orders) Settled(ctx context.Context, id, status string) error {
	_, err := s.exec(ctx, "settle order "+id, `UPDATE checkout_orders SET status = ? WHERE id = ?`, status, id)
	return err
}

// ChangeEmail writes the buyer's corrected address.
func (s orders) ChangeEmail(ctx context.Context, id, email string) error {
	_, err := s.exec(ctx, "order "+id, `UPDATE checkout_orders SET email = ? WHERE id = ?`, email, id)
	return err
}

func (s orders) list(ctx context.Context, query string, args ...any) ([]billing.Order, error) {
	rows, err := s.b.read().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []billing.Order
	for rows.Next() {
		o, err := scanOrder(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// ByEmail returns an address's orders.
func (s orders) ByEmail(ctx context.Context, email string) ([]billing.Order, error) {
	out, err := s.list(ctx, `SELECT `+orderColumns+` FROM checkout_orders WHERE email = ?`, email)
	if err != nil {
		return nil, fmt.Errorf("orders of an address: %w", err)
	}
	return out, nil
}

// OfSubscription returns a subscription's orders.
func (s orders) OfSubscription(ctx context.Context, subID string) ([]billing.Order, error) {
	out, err := s.list(ctx, `SELECT `+orderColumns+` FROM checkout_orders WHERE subscription_id = ?`, subID)
	if err != nil {
		return nil, fmt.Errorf("orders of %s: %w", subID, err)
	}
	return out, nil
}

// Unsettled returns up to n unsettled orders due for a check, on the
// partial index of unsettled orders (its condition repeated word for word,
// which is how SQLite knows it may use it).
func (s orders) Unsettled(ctx context.Context, now time.Time, n int) ([]billing.Order, error) {
	out, err := s.list(ctx, `SELECT `+orderColumns+` FROM checkout_orders
		WHERE status IN ('pending', 'processing') AND check_at <= ? ORDER BY check_at LIMIT ?`, unixNano(now), n)
	if err != nil {
		return nil, fmt.Errorf("unsettled orders: %w", err)
	}
	return out, nil
}

// Recheck sets the order's check time (NULL for none).
func (s orders) Recheck(ctx context.Context, id string, at time.Time) error {
	_, err := s.exec(ctx, "order "+id, `UPDATE checkout_orders SET check_at = ? WHERE id = ?`, optionalNano(at), id)
	return err
}

// Delete deletes an order.
func (s orders) Delete(ctx context.Context, id string) error {
	_, err := s.exec(ctx, "delete order "+id, `DELETE FROM checkout_orders WHERE id = ?`, id)
	return err
}
