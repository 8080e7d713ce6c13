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

// SandboxRecords are the sandbox provider's books on the embedded database
// (migration 0024).
type SandboxRecords struct{ db *sqlite.DB }

// NewSandboxRecords returns the sandbox's books on db.
func NewSandboxRecords(db *sqlite.DB) *SandboxRecords { return &SandboxRecords{db: db} }

var _ billing.SandboxRecords = (*SandboxRecords)(nil)

// sandboxChargeDoc is a sandbox charge as the doc column holds it.
type sandboxChargeDoc struct {
	Provider  string        `json:"provider"`
	Reference string        `json:"reference"`
	Amount    billing.Money `json:"amount"`
	Method    string        `json:"method"`
	Status    string        `json:"status"`
	Failure   string        `json:"failure,omitempty"`
	CreatedAt time.Time     `json:"createdAt"`
}

func scanSession(row interface{ Scan(...any) error }) (billing.SandboxSession, error) {
	var (
		s           billing.SandboxSession
		id, status  string
		doc         string
		expiresNano int64
	)
	if err := row.Scan(&id, &status, &expiresNano, &doc); err != nil {
		return billing.SandboxSession{}, err
	}
	if err := json.Unmarshal([]byte(doc), &s); err != nil {
		return billing.SandboxSession{}, fmt.Errorf("sandbox session %s: %w", id, err)
	}
	s.ID, s.Status, s.ExpiresAt = id, status, fromUnixNano(expiresNano)
	return s, nil
}

const sessionColumns = `id, status, expires_at, doc`

func readSession(ctx context.Context, q sqlite.Querier, id string) (billing.SandboxSession, error) {
	s, err := scanSession(q.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sandbox_sessions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return billing.SandboxSession{}, billing.ErrNoSession
	}
	return s, err
}

func writeSession(ctx context.Context, q sqlite.Querier, s billing.SandboxSession) error {
	doc, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `UPDATE sandbox_sessions SET status = ?, expires_at = ?, doc = ? WHERE id = ?`,
		s.Status, unixNano(s.ExpiresAt), string(doc), s.ID)
	return err
}

// OpenSession stores s unless its id is stored, and returns the stored page.
func (r *SandboxRecords) OpenSession(ctx context.Context, s billing.SandboxSession) (billing.SandboxSession, error) {
	doc, err := json.Marshal(s)
	if err != nil {
		return billing.SandboxSession{}, fmt.Errorf("sandbox session %s: %w", s.ID, err)
	}
	var stored billing.SandboxSession
	err = r.db.Update(ctx, func(tx *sqlite.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sandbox_sessions (id, status, expires_at, doc) VALUES (?, ?, ?, ?)
			ON CONFLICT (id) DO NOTHING`, s.ID, s.Status, unixNano(s.ExpiresAt), string(doc)); err != nil {
			return err
		}
		stored, err = readSession(ctx, tx, s.ID)
		return err
	})
	if err != nil {
		return billing.SandboxSession{}, fmt.Errorf("sandbox session %s: %w", s.ID, err)
	}
	return stored, nil
}

// Session returns a page.
func (r *SandboxRecords) Session(ctx context.Context, id string) (billing.SandboxSession, error) {
	s, err := readSession(ctx, r.db.Reader(), id)
	if err != nil && !errors.Is(err, billing.ErrNoSession) {
		return billing.SandboxSession{}, fmt.Errorf("sandbox session %s: %w", id, err)
	}
	return s, err
}

// Challenge sets (or clears) the card waiting for its 3-D Secure step
// while the page is open: read and written in one transaction.
func (r *SandboxRecords) Challenge(ctx context.Context, id string, pm billing.PaymentMethod) error {
	err := r.db.Update(ctx, func(tx *sqlite.Tx) error {
		s, err := readSession(ctx, tx, id)
		if errors.Is(err, billing.ErrNoSession) {
			return nil
		}
		if err != nil {
			return err
		}
		if s.Status != "open" && pm.ID != "" {
			return nil
		}
		s.Challenge = pm
		return writeSession(ctx, tx, s)
	})
	if err != nil {
		return fmt.Errorf("sandbox session %s: %w", id, err)
	}
	return nil
}

func insertCharge(ctx context.Context, q sqlite.Querier, ch billing.Charge) (bool, error) {
	doc, err := json.Marshal(sandboxChargeDoc{Provider: ch.Provider, Reference: ch.Reference, Amount: ch.Amount, Method: ch.Method,
		Status: ch.Status, Failure: ch.Failure, CreatedAt: ch.CreatedAt})
	if err != nil {
		return false, err
	}
	n, err := affected(q.ExecContext(ctx, `INSERT INTO sandbox_charges (id, key, reference, doc) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		ch.ID, ch.Key, ch.Reference, string(doc)))
	return n == 1, err
}

func scanSandboxCharge(row interface{ Scan(...any) error }) (billing.Charge, error) {
	var (
		id, key, doc string
		d            sandboxChargeDoc
	)
	if err := row.Scan(&id, &key, &doc); err != nil {
		return billing.Charge{}, err
	}
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		return billing.Charge{}, fmt.Errorf("sandbox charge %s: %w", id, err)
	}
	return billing.Charge{ID: id, Key: key, Provider: d.Provider, Reference: d.Reference, Amount: d.Amount, Method: d.Method, Status: d.Status,
		Failure: d.Failure, CreatedAt: d.CreatedAt.UTC()}, nil
}

// PaySession stores the page's payment record and completes the page, in
// one transaction: the record's insert decides which caller pays it.
func (r *SandboxRecords) PaySession(ctx context.Context, record billing.Charge, paid billing.SandboxSession) (bool, error) {
	var won bool
	err := r.db.Update(ctx, func(tx *sqlite.Tx) error {
		var err error
		if won, err = insertCharge(ctx, tx, record); err != nil || !won {
			return err
		}
		return writeSession(ctx, tx, paid)
	})
	if err != nil {
		return false, fmt.Errorf("pay sandbox session %s: %w", paid.ID, err)
	}
	return won, nil
}

// Charges stores each charge unless its id is stored, and returns the
// stored ones, in one transaction.
func (r *SandboxRecords) Charges(ctx context.Context, chs []billing.Charge) ([]billing.Charge, []bool, error) {
	stored, created := make([]billing.Charge, len(chs)), make([]bool, len(chs))
	err := r.db.Update(ctx, func(tx *sqlite.Tx) error {
		for i, ch := range chs {
			var err error
			if created[i], err = insertCharge(ctx, tx, ch); err != nil {
				return err
			}
			if created[i] {
				stored[i] = ch
				continue
			}
			if stored[i], err = scanSandboxCharge(tx.QueryRowContext(ctx, `SELECT id, key, doc FROM sandbox_charges WHERE id = ?`, ch.ID)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox charges: %w", err)
	}
	return stored, created, nil
}

// ChargeOf returns the first record under one of ids, else one with the
// reference.
func (r *SandboxRecords) ChargeOf(ctx context.Context, ids []string, reference string) (billing.Charge, error) {
	for _, id := range ids {
		ch, err := scanSandboxCharge(r.db.Reader().QueryRowContext(ctx, `SELECT id, key, doc FROM sandbox_charges WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return billing.Charge{}, fmt.Errorf("sandbox charge: %w", err)
		}
		return ch, nil
	}
	if reference == "" {
		return billing.Charge{}, billing.ErrNoCharge
	}
	ch, err := scanSandboxCharge(r.db.Reader().QueryRowContext(ctx, `SELECT id, key, doc FROM sandbox_charges WHERE reference = ? LIMIT 1`, reference))
	if errors.Is(err, sql.ErrNoRows) {
		return billing.Charge{}, billing.ErrNoCharge
	}
	if err != nil {
		return billing.Charge{}, fmt.Errorf("sandbox charge: %w", err)
	}
	return ch, nil
}

// Rekey rewrites the key of the charges stored with oldKey.
func (r *SandboxRecords) Rekey(ctx context.Context, oldKey, newKey string) error {
	err := r.db.Update(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE sandbox_charges SET key = ? WHERE key = ?`, newKey, oldKey)
		return err
	})
	if err != nil {
		return fmt.Errorf("rekey sandbox charges: %w", err)
	}
	return nil
}

// sandboxRefundDoc is a sandbox refund as the doc column holds it.
type sandboxRefundDoc struct {
	Reference string        `json:"reference"`
	Amount    billing.Money `json:"amount"`
	CreatedAt time.Time     `json:"createdAt"`
}

// Refund stores r unless its key is stored, and returns the stored one.
func (r *SandboxRecords) Refund(ctx context.Context, ref billing.SandboxRefund) (billing.SandboxRefund, error) {
	doc, err := json.Marshal(sandboxRefundDoc{Reference: ref.Reference, Amount: ref.Amount, CreatedAt: ref.CreatedAt})
	if err != nil {
		return billing.SandboxRefund{}, err
	}
	var stored billing.SandboxRefund
	err = r.db.Update(ctx, func(tx *sqlite.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO sandbox_refunds (key, charge_id, doc) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING`,
			ref.ID, ref.ChargeKey, string(doc)); err != nil {
			return err
		}
		var (
			sdoc string
			d    sandboxRefundDoc
		)
		if err := tx.QueryRowContext(ctx, `SELECT key, charge_id, doc FROM sandbox_refunds WHERE key = ?`, ref.ID).
			Scan(&stored.ID, &stored.ChargeKey, &sdoc); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(sdoc), &d); err != nil {
			return err
		}
		stored.Reference, stored.Amount, stored.CreatedAt = d.Reference, d.Amount, d.CreatedAt.UTC()
		return nil
	})
	if err != nil {
		return billing.SandboxRefund{}, fmt.Errorf("sandbox refund %s: %w", ref.ID, err)
	}
	return stored, nil
}

// DeleteSession deletes a page.
func (r *SandboxRecords) DeleteSession(ctx context.Context, id string) error {
	err := r.db.Update(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM sandbox_sessions WHERE id = ?`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("delete sandbox session %s: %w", id, err)
	}
	return nil
}
