package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/store/sqlite"
)

// Ledger returns the charges' store (migrations 0028, 0029).
func (b *Billing) Ledger() billing.Ledger { return ledger{b} }

type ledger struct{ b *Billing }

// chargeDoc is the part of a charge the doc column holds.
type chargeDoc struct {
	Provider  string `json:"provider"`
	Amount    int64  `json:"amount"`
	Currency  string `json:"currency"`
	Method    string `json:"method"`
	Failure   string `json:"failure,omitempty"`
	Duplicate bool   `json:"duplicate,omitempty"`
	PlanCode  string `json:"planCode,omitempty"`
}

const chargeColumns = `id, key, coalesce(subscription_id, ''), coalesce(reference, ''), status, created_at, erased, retain_until, doc`

func scanCharge(row interface{ Scan(...any) error }) (billing.Charge, error) {
	var (
		ch      billing.Charge
		created int64
		retain  sql.NullInt64
		doc     string
	)
	if err := row.Scan(&ch.ID, &ch.Key, &ch.SubscriptionID, &ch.Reference, &ch.Status, &created, &ch.Erased, &retain, &doc); err != nil {
		return billing.Charge{}, err
	}
	var d chargeDoc
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		return billing.Charge{}, fmt.Errorf("charge %s: %w", ch.ID, err)
	}
	ch.Provider, ch.Amount, ch.Method, ch.Failure = d.Provider, billing.Money{Amount: d.Amount, Currency: d.Currency}, d.Method, d.Failure
	ch.Duplicate, ch.PlanCode = d.Duplicate, d.PlanCode
	ch.CreatedAt = fromUnixNano(created)
	if retain.Valid {
		ch.RetainUntil = fromUnixNano(retain.Int64)
	}
	return ch, nil
}

// chargeEventID is an event's primary key: one row per event and charge
// (or reference, when the event named only that).
func chargeEventID(ev billing.ChargeEvent) string {
	if ev.ChargeID != "" {
		return ev.EventID + "|" + ev.ChargeID
	}
	return ev.EventID + "|ref:" + ev.Reference
}

// Record inserts each charge unless its key or id is taken, then applies
// the newest event already received about it, all in one transaction.
func (s ledger) Record(ctx context.Context, chs []billing.Charge) ([]billing.Charge, error) {
	out := make([]billing.Charge, 0, len(chs))
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		out = out[:0]
		for _, ch := range chs {
			stored, err := recordCharge(ctx, q, ch)
			if err != nil {
				return err
			}
			out = append(out, stored)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// recordCharge is Record of one charge, in the caller's transaction (the
// renewal pass and seed-scale record theirs with their subscriptions).
func recordCharge(ctx context.Context, q sqlite.Querier, ch billing.Charge) (billing.Charge, error) {
	doc, err := json.Marshal(chargeDoc{Provider: ch.Provider, Amount: ch.Amount.Amount, Currency: ch.Amount.Currency,
		Method: ch.Method, Failure: ch.Failure, Duplicate: ch.Duplicate, PlanCode: ch.PlanCode})
	if err != nil {
		return billing.Charge{}, err
	}
	if _, err := q.ExecContext(ctx, `INSERT INTO charges (id, key, subscription_id, reference, status, created_at, doc)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, ch.ID, ch.Key, nullIfEmpty(ch.SubscriptionID),
		nullIfEmpty(ch.Reference), ch.Status, unixNano(ch.CreatedAt), string(doc)); err != nil {
		return billing.Charge{}, fmt.Errorf("record charge %s: %w", ch.ID, err)
	}
	stored, err := chargeWhere(ctx, q, `key = ?`, ch.Key)
	if err != nil {
		return billing.Charge{}, fmt.Errorf("record charge %s: %w", ch.ID, err)
	}
	newest, ok, err := newestEventOf(ctx, q, stored)
	if err != nil || !ok {
		return stored, err
	}
	if _, err := applyEvent(ctx, q, `id = ?`, stored.ID, newest); err != nil {
		return billing.Charge{}, err
	}
	return chargeWhere(ctx, q, `id = ?`, stored.ID)
}

// newestEventOf is the newest event received about ch, by its id or, from
// before it was recorded, by its reference alone.
func newestEventOf(ctx context.Context, q sqlite.Querier, ch billing.Charge) (billing.ChargeEvent, bool, error) {
	var (
		newest billing.ChargeEvent
		found  bool
	)
	read := func(query string, arg string) error {
		var (
			ev billing.ChargeEvent
			at int64
		)
		err := q.QueryRowContext(ctx, query, arg).Scan(&ev.EventID, &ev.Status, &at)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("newest event of charge %s: %w", ch.ID, err)
		}
		ev.At = fromUnixNano(at)
		if !found || ev.Newer(newest.At, newest.EventID) {
			newest, found = ev, true
		}
		return nil
	}
	if err := read(`SELECT event_id, status, at FROM charge_events WHERE charge_id = ? ORDER BY at DESC, event_id DESC LIMIT 1`,
		ch.ID); err != nil {
		return newest, false, err
	}
	if ch.Reference != "" {
		if err := read(`SELECT event_id, status, at FROM charge_events WHERE charge_id IS NULL AND reference = ?
			ORDER BY at DESC, event_id DESC LIMIT 1`, ch.Reference); err != nil {
			return newest, false, err
		}
	}
	return newest, found, nil
}

// applyEvent sets the status of the charge where column = arg to ev's when
// ev is newer than the event applied: the condition is in the write.
func applyEvent(ctx context.Context, q sqlite.Querier, where, arg string, ev billing.ChargeEvent) (bool, error) {
	res, err := q.ExecContext(ctx, `UPDATE charges SET status = ?, last_event_at = ?, last_event_id = ? WHERE `+where+`
		AND (last_event_at IS NULL OR (last_event_at, last_event_id) < (?, ?))`,
		ev.Status, unixNano(ev.At), ev.EventID, arg, unixNano(ev.At), ev.EventID)
	if err != nil {
		return false, fmt.Errorf("apply event %s: %w", ev.EventID, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func chargeWhere(ctx context.Context, q sqlite.Querier, where string, arg string) (billing.Charge, error) {
	ch, err := scanCharge(q.QueryRowContext(ctx, `SELECT `+chargeColumns+` FROM charges WHERE `+where+` LIMIT 1`, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return billing.Charge{}, billing.ErrNoCharge
	}
	return ch, err
}

// Charge returns the charge with the opaque id.
func (s ledger) Charge(ctx context.Context, id string) (billing.Charge, error) {
	return chargeWhere(ctx, s.b.read(), `id = ?`, id)
}

// ByKey returns the charge with the idempotency key.
func (s ledger) ByKey(ctx context.Context, key string) (billing.Charge, error) {
	return chargeWhere(ctx, s.b.read(), `key = ?`, key)
}

// ByReference returns the first charge recorded with the reference.
func (s ledger) ByReference(ctx context.Context, ref string) (billing.Charge, error) {
	if ref == "" {
		return billing.Charge{}, billing.ErrNoCharge
	}
	return chargeWhere(ctx, s.b.read(), `reference = ? ORDER BY created_at, id`, ref)
}

// OfSubscriptions reads each subscription's charges by the index, then
// orders them all by time.
func (s ledger) OfSubscriptions(ctx context.Context, ids []string) ([]billing.Charge, error) {
	var out []billing.Charge
	for _, id := range ids {
		rows, err := s.b.read().QueryContext(ctx, `SELECT `+chargeColumns+` FROM charges WHERE subscription_id = ?
			ORDER BY created_at`, id)
		if err != nil {
			return nil, fmt.Errorf("charges of %s: %w", id, err)
		}
		for rows.Next() {
			ch, err := scanCharge(rows)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("charges of %s: %w", id, err)
			}
			out = append(out, ch)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("charges of %s: %w", id, err)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// AddEvent inserts the event once and applies it by the conditional update,
// in one transaction. An event about a charge not yet recorded is applied
// by Record; it reports whether nothing newer is known about that charge.
func (s ledger) AddEvent(ctx context.Context, ev billing.ChargeEvent) (bool, error) {
	if ev.EventID == "" || ev.Status == "" || ev.ChargeID == "" && ev.Reference == "" {
		return false, errors.New("add charge event: a charge id or reference, an event id and a status are required")
	}
	var applied bool
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		if _, err := q.ExecContext(ctx, `INSERT INTO charge_events (id, charge_id, reference, event_id, status, at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, chargeEventID(ev), nullIfEmpty(ev.ChargeID),
			nullIfEmpty(ev.Reference), ev.EventID, ev.Status, unixNano(ev.At)); err != nil {
			return fmt.Errorf("record charge event %s: %w", ev.EventID, err)
		}
		where, arg := `id = ?`, ev.ChargeID
		if ev.ChargeID == "" {
			where, arg = `id = (SELECT id FROM charges WHERE reference = ? ORDER BY created_at, id LIMIT 1)`, ev.Reference
		}
		var err error
		if applied, err = applyEvent(ctx, q, where, arg, ev); err != nil || applied {
			return err
		}
		if _, err := chargeWhere(ctx, q, where, arg); err == nil {
			return nil // recorded, and a newer event is applied
		} else if !errors.Is(err, billing.ErrNoCharge) {
			return err
		}
		// Not recorded yet: newest if no other event about it is newer.
		newest, _, err := newestEventOf(ctx, q, billing.Charge{ID: ev.ChargeID, Reference: ev.Reference})
		applied = err == nil && newest.EventID == ev.EventID && newest.At.Equal(ev.At)
		return err
	})
	return applied, err
}

// MarkDuplicate sets the charge's duplicate mark in its doc.
func (s ledger) MarkDuplicate(ctx context.Context, id, planCode string) error {
	return s.b.write(ctx, func(q sqlite.Querier) error {
		res, err := q.ExecContext(ctx, `UPDATE charges SET doc = json_set(doc, '$.duplicate', json('true'), '$.planCode', ?)
			WHERE id = ?`, planCode, id)
		if err != nil {
			return fmt.Errorf("mark charge %s duplicate: %w", id, err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				err = billing.ErrNoCharge
			}
			return err
		}
		return nil
	})
}

// Erase rewrites the charge's key and marks it kept until retainUntil; a
// charge erased already keeps its first key and period.
func (s ledger) Erase(ctx context.Context, id, newKey string, retainUntil time.Time) error {
	return s.b.write(ctx, func(q sqlite.Querier) error {
		if _, err := q.ExecContext(ctx, `UPDATE charges SET key = ?, erased = 1, retain_until = ? WHERE id = ? AND erased = 0`,
			newKey, unixNano(retainUntil), id); err != nil {
			return fmt.Errorf("erase charge %s: %w", id, err)
		}
		_, err := chargeWhere(ctx, q, `id = ?`, id)
		return err
	})
}

// Retained returns kept charges whose retention ended, earliest first
// (the partial index charges_retained).
func (s ledger) Retained(ctx context.Context, before time.Time, n int) ([]billing.Charge, error) {
	rows, err := s.b.read().QueryContext(ctx, `SELECT `+chargeColumns+` FROM charges
		WHERE erased = 1 AND retain_until < ? ORDER BY retain_until LIMIT ?`, unixNano(before), n)
	if err != nil {
		return nil, fmt.Errorf("retained charges: %w", err)
	}
	defer rows.Close()
	var out []billing.Charge
	for rows.Next() {
		ch, err := scanCharge(rows)
		if err != nil {
			return nil, fmt.Errorf("retained charges: %w", err)
		}
		out = append(out, ch)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("retained charges: %w", err)
	}
	return out, nil
}

// Purge deletes a kept charge whose retention ended, with its events, in
// one transaction.
func (s ledger) Purge(ctx context.Context, id string, now time.Time) (bool, error) {
	purged := false
	err := s.b.write(ctx, func(q sqlite.Querier) error {
		res, err := q.ExecContext(ctx, `DELETE FROM charges WHERE id = ? AND erased = 1 AND retain_until < ?`, id, unixNano(now))
		if err != nil {
			return fmt.Errorf("purge charge %s: %w", id, err)
		}
		n, err := res.RowsAffected()
		if err != nil || n == 0 {
			return err
		}
		if _, err := q.ExecContext(ctx, `DELETE FROM charge_events WHERE charge_id = ?`, id); err != nil {
			return fmt.Errorf("purge events of charge %s: %w", id, err)
		}
		purged = true
		return nil
	})
	return purged, err
}
