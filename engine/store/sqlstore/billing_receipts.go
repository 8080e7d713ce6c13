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
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/store/sqlite"
)

// Receipts returns the receipts' store (migration 0026).
func (b *Billing) Receipts() billing.Receipts { return receipts{b} }

type receipts struct{ b *Billing }

// receiptDoc is the part of a receipt the doc column holds.
type receiptDoc struct {
	Brand       string        `json:"brand"`
	Kind        string        `json:"kind"`
	PlanCode    string        `json:"planCode"`
	Amount      billing.Money `json:"amount"`
	CardBrand   string        `json:"cardBrand,omitempty"`
	CardLast4   string        `json:"cardLast4,omitempty"`
	PaidAt      time.Time     `json:"paidAt"`
	PeriodStart time.Time     `json:"periodStart,omitzero"`
	PeriodEnd   time.Time     `json:"periodEnd,omitzero"`
}

const receiptColumns = `number, coalesce(charge_id, ''), subscription_id, email, erased, coalesce(retain_until, 0), doc`

func scanReceipt(row interface{ Scan(...any) error }) (billing.Receipt, error) {
	var (
		r      billing.Receipt
		retain int64
		doc    string
	)
	if err := row.Scan(&r.Number, &r.ChargeID, &r.SubscriptionID, &r.Email, &r.Erased, &retain, &doc); err != nil {
		return billing.Receipt{}, err
	}
	var d receiptDoc
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		return billing.Receipt{}, fmt.Errorf("receipt %s: %w", r.Number, err)
	}
	r.Brand, r.Kind, r.PlanCode, r.Amount, r.CardBrand, r.CardLast4 = d.Brand, d.Kind, d.PlanCode, d.Amount, d.CardBrand, d.CardLast4
	r.PaidAt, r.PeriodStart, r.PeriodEnd = d.PaidAt.UTC(), d.PeriodStart.UTC(), d.PeriodEnd.UTC()
	if retain != 0 {
		r.RetainUntil = fromUnixNano(retain)
	}
	return r, nil
}

// Issue inserts each receipt unless its number is taken, then reads what
// each number holds: one transaction.
func (s receipts) Issue(ctx context.Context, rs []billing.Receipt) ([]billing.Receipt, error) {
	out := make([]billing.Receipt, len(rs))
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		for i, r := range rs {
			doc, err := json.Marshal(receiptDoc{Brand: r.Brand, Kind: r.Kind, PlanCode: r.PlanCode, Amount: r.Amount,
				CardBrand: r.CardBrand, CardLast4: r.CardLast4, PaidAt: r.PaidAt, PeriodStart: r.PeriodStart, PeriodEnd: r.PeriodEnd})
			if err != nil {
				return fmt.Errorf("receipt %s: %w", r.Number, err)
			}
			if _, err := q.ExecContext(ctx, `INSERT INTO receipts (number, charge_id, subscription_id, email, erased, retain_until, doc)
				VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (number) DO NOTHING`, r.Number, nullIfEmpty(r.ChargeID), r.SubscriptionID,
				r.Email, r.Erased, optionalNano(r.RetainUntil), string(doc)); err != nil {
				return fmt.Errorf("receipt %s: %w", r.Number, err)
			}
			if out[i], err = scanReceipt(q.QueryRowContext(ctx, `SELECT `+receiptColumns+` FROM receipts WHERE number = ?`, r.Number)); err != nil {
				return fmt.Errorf("receipt %s: %w", r.Number, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("issue receipts: %w", err)
	}
	return out, nil
}

// nullIfEmpty is s, or NULL when it is empty.
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// ByNumber returns a receipt by number.
func (s receipts) ByNumber(ctx context.Context, number string) (billing.Receipt, error) {
	return s.one(ctx, `SELECT `+receiptColumns+` FROM receipts WHERE number = ?`, number)
}

// OfCharge returns the receipt of the charge with this opaque id.
func (s receipts) OfCharge(ctx context.Context, chargeID string) (billing.Receipt, error) {
	return s.one(ctx, `SELECT `+receiptColumns+` FROM receipts WHERE charge_id = ? LIMIT 1`, chargeID)
}

// OfSubscriptions returns the receipts of the subscriptions, oldest paid
// first.
func (s receipts) OfSubscriptions(ctx context.Context, subIDs []string) ([]billing.Receipt, error) {
	if len(subIDs) == 0 {
		return nil, nil
	}
	args := make([]any, len(subIDs))
	for i, id := range subIDs {
		args[i] = id
	}
	out, err := queryAll(ctx, s.b.read(), scanReceipt, `SELECT `+receiptColumns+` FROM receipts WHERE subscription_id IN (`+placeholders(len(subIDs))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("receipts of subscriptions: %w", err)
	}
	slices.SortStableFunc(out, func(a, b billing.Receipt) int {
		return cmp.Or(a.PaidAt.Compare(b.PaidAt), strings.Compare(a.Number, b.Number))
	})
	return out, nil
}

func (s receipts) one(ctx context.Context, query string, arg string) (billing.Receipt, error) {
	r, err := scanReceipt(s.b.read().QueryRowContext(ctx, query, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return billing.Receipt{}, billing.ErrNoReceipt
	}
	if err != nil {
		return billing.Receipt{}, fmt.Errorf("read receipt: %w", err)
	}
	return r, nil
}

// Anonymise strips a receipt of the person and keeps it until retainUntil.
func (s receipts) Anonymise(ctx context.Context, number string, retainUntil time.Time) error {
	return s.b.write(ctx, func(q sqlite.Querier) error {
		if _, err := q.ExecContext(ctx, `UPDATE receipts SET email = ?, charge_id = NULL, erased = 1, retain_until = ? WHERE number = ?`,
			billing.ErasedEmail, unixNano(retainUntil), number); err != nil {
			return fmt.Errorf("anonymise receipt %s: %w", number, err)
		}
		return nil
	})
}

// DeleteRetained deletes the receipt if it was kept and its period ended.
func (s receipts) DeleteRetained(ctx context.Context, number string, now time.Time) (int64, error) {
	var n int64
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		var err error
		n, err = affected(q.ExecContext(ctx, `DELETE FROM receipts WHERE number = ? AND erased = 1 AND retain_until < ?`,
			number, unixNano(now)))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("purge receipt %s: %w", number, err)
	}
	return n, nil
}
