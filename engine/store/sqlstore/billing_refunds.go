package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/store/sqlite"
)

// Refunds returns the refunds' store (migration 0027).
func (b *Billing) Refunds() billing.Refunds { return refunds{b} }

type refunds struct{ b *Billing }

// refundDoc is the part of a refund the doc column holds.
type refundDoc struct {
	Currency  string `json:"currency"`
	Full      bool   `json:"full,omitempty"`
	Reference string `json:"reference,omitempty"`
	Failure   string `json:"failure,omitempty"`
	By        string `json:"by"`
	Reason    string `json:"reason"`
}

const refundColumns = `charge_id, seq, coalesce(key, ''), status, amount, created_at, coalesce(subscription_id, ''), erased,
	coalesce(retain_until, 0), doc`

func scanRefund(row interface{ Scan(...any) error }) (billing.Refund, error) {
	var (
		r               billing.Refund
		created, retain int64
		doc             string
	)
	if err := row.Scan(&r.ChargeID, &r.Seq, &r.Key, &r.Status, &r.Amount.Amount, &created, &r.SubscriptionID, &r.Erased,
		&retain, &doc); err != nil {
		return billing.Refund{}, err
	}
	var d refundDoc
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		return billing.Refund{}, fmt.Errorf("refund %s#%d: %w", r.ChargeID, r.Seq, err)
	}
	r.ID = billing.RefundID(r.ChargeID, r.Seq)
	r.Amount.Currency, r.Full, r.Reference, r.Failure, r.By, r.Reason = d.Currency, d.Full, d.Reference, d.Failure, d.By, d.Reason
	r.CreatedAt = fromUnixNano(created)
	if retain != 0 {
		r.RetainUntil = fromUnixNano(retain)
	}
	return r, nil
}

func refundDocOf(r billing.Refund) (string, error) {
	doc, err := json.Marshal(refundDoc{Currency: r.Amount.Currency, Full: r.Full, Reference: r.Reference, Failure: r.Failure,
		By: r.By, Reason: r.Reason})
	return string(doc), err
}

// splitRefundID is a refund id's charge id and number.
func splitRefundID(id string) (string, int, bool) {
	i := strings.LastIndexByte(id, '#')
	if i < 0 {
		return "", 0, false
	}
	seq, err := strconv.Atoi(id[i+1:])
	return id[:i], seq, err == nil
}

// Of returns a charge's refunds in the order they were claimed.
func (s refunds) Of(ctx context.Context, chargeID string) ([]billing.Refund, error) {
	return refundsOf(ctx, s.b.read(), chargeID)
}

func refundsOf(ctx context.Context, q sqlite.Querier, chargeID string) ([]billing.Refund, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+refundColumns+` FROM refunds WHERE charge_id = ? ORDER BY seq`, chargeID)
	if err != nil {
		return nil, fmt.Errorf("refunds of %s: %w", chargeID, err)
	}
	defer rows.Close()
	var out []billing.Refund
	for rows.Next() {
		r, err := scanRefund(rows)
		if err != nil {
			return nil, fmt.Errorf("refunds of %s: %w", chargeID, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("refunds of %s: %w", chargeID, err)
	}
	return out, nil
}

// Claim reads the charge's refunds, decides and inserts in one
// transaction, which SQLite runs whole before any other write.
func (s refunds) Claim(ctx context.Context, r billing.Refund, chargeAmount int64) (billing.Refund, bool, error) {
	var (
		out billing.Refund
		won bool
	)
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		earlier, err := refundsOf(ctx, q, r.ChargeID)
		if err != nil {
			return err
		}
		for _, e := range earlier {
			if r.Key != "" && e.Key == r.Key {
				out = e
				return nil
			}
		}
		if len(earlier) != r.Seq {
			return billing.ErrRefundInProgress
		}
		if billing.Refunded(earlier)+r.Amount.Amount > chargeAmount {
			return billing.ErrRefundTooLarge
		}
		r.ID, r.Status = billing.RefundID(r.ChargeID, r.Seq), billing.RefundPending
		doc, err := refundDocOf(r)
		if err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO refunds (charge_id, seq, key, status, amount, created_at, subscription_id,
			erased, retain_until, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.ChargeID, r.Seq, nullIfEmpty(r.Key), r.Status,
			r.Amount.Amount, unixNano(r.CreatedAt), nullIfEmpty(r.SubscriptionID), r.Erased, optionalNano(r.RetainUntil), doc); err != nil {
			return err
		}
		out, won = r, true
		return nil
	})
	if errors.Is(err, billing.ErrRefundInProgress) || errors.Is(err, billing.ErrRefundTooLarge) {
		return billing.Refund{}, false, err
	}
	if err != nil {
		return billing.Refund{}, false, fmt.Errorf("claim refund of %s: %w", r.ChargeID, err)
	}
	return out, won, nil
}

// refundByID reads one refund by id in q.
func refundByID(ctx context.Context, q sqlite.Querier, id string) (billing.Refund, error) {
	chargeID, seq, ok := splitRefundID(id)
	if !ok {
		return billing.Refund{}, billing.ErrNoRefund
	}
	r, err := scanRefund(q.QueryRowContext(ctx, `SELECT `+refundColumns+` FROM refunds WHERE charge_id = ? AND seq = ?`, chargeID, seq))
	if errors.Is(err, sql.ErrNoRows) {
		return billing.Refund{}, billing.ErrNoRefund
	}
	return r, err
}

// Settle records the provider's answer on a pending refund: the update is
// conditional on the status, so a refund is settled once.
func (s refunds) Settle(ctx context.Context, id, status, reference, failure string) (billing.Refund, error) {
	var out billing.Refund
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		r, err := refundByID(ctx, q, id)
		if err != nil {
			return err
		}
		if r.Status != billing.RefundPending {
			out = r
			return nil
		}
		r.Status, r.Reference, r.Failure = status, reference, failure
		doc, err := refundDocOf(r)
		if err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, `UPDATE refunds SET status = ?, doc = ? WHERE charge_id = ? AND seq = ? AND status = ?`,
			status, doc, r.ChargeID, r.Seq, billing.RefundPending); err != nil {
			return err
		}
		out = r
		return nil
	})
	if err != nil {
		return billing.Refund{}, fmt.Errorf("settle refund %s: %w", id, err)
	}
	return out, nil
}

// Pending returns up to n pending refunds claimed before before.
func (s refunds) Pending(ctx context.Context, before time.Time, n int) ([]billing.Refund, error) {
	rows, err := s.b.read().QueryContext(ctx, `SELECT `+refundColumns+` FROM refunds WHERE status = 'pending' AND created_at < ?
		ORDER BY created_at LIMIT ?`, unixNano(before), n)
	if err != nil {
		return nil, fmt.Errorf("pending refunds: %w", err)
	}
	defer rows.Close()
	var out []billing.Refund
	for rows.Next() {
		r, err := scanRefund(rows)
		if err != nil {
			return nil, fmt.Errorf("pending refunds: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pending refunds: %w", err)
	}
	return out, nil
}

// Anonymise strips a refund of staff's reason and keeps it until
// retainUntil.
func (s refunds) Anonymise(ctx context.Context, id string, retainUntil time.Time) error {
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		r, err := refundByID(ctx, q, id)
		if errors.Is(err, billing.ErrNoRefund) {
			return nil
		}
		if err != nil {
			return err
		}
		r.Reason = "erased"
		doc, err := refundDocOf(r)
		if err != nil {
			return err
		}
		_, err = q.ExecContext(ctx, `UPDATE refunds SET doc = ?, erased = 1, retain_until = ? WHERE charge_id = ? AND seq = ?`,
			doc, unixNano(retainUntil), r.ChargeID, r.Seq)
		return err
	})
	if err != nil {
		return fmt.Errorf("anonymise refund %s: %w", id, err)
	}
	return nil
}

// DeleteRetained deletes the refund if it was kept and its period ended.
func (s refunds) DeleteRetained(ctx context.Context, id string, now time.Time) (int64, error) {
	chargeID, seq, ok := splitRefundID(id)
	if !ok {
		return 0, nil
	}
	var n int64
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		var err error
		n, err = affected(q.ExecContext(ctx, `DELETE FROM refunds WHERE charge_id = ? AND seq = ? AND erased = 1 AND retain_until < ?`,
			chargeID, seq, unixNano(now)))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("purge refund %s: %w", id, err)
	}
	return n, nil
}
