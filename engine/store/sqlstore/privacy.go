package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"glimpse/engine/privacy"
	"glimpse/engine/store/sqlite"
)

// privacyDB is the database under privacy's four stores, with the hook the
// crash tests stop a use case with.
type privacyDB struct {
	db *sqlite.DB
	// beforeWrite, when set, runs before each write and fails it with its
	// error (tests: a use case stopped between two writes).
	beforeWrite func() error
}

func (p *privacyDB) write(ctx context.Context, q sqlite.Querier, query string, args ...any) (sql.Result, error) {
	if p.beforeWrite != nil {
		if err := p.beforeWrite(); err != nil {
			return nil, err
		}
	}
	return q.ExecContext(ctx, query, args...)
}

// PrivacyExports stores data exports in privacy_exports,
// privacy_export_chunks and privacy_export_keys (migration 0030).
type PrivacyExports struct{ *privacyDB }

// PrivacyErasures stores erasures in privacy_erasures_pending,
// privacy_erasures and privacy_farewells.
type PrivacyErasures struct{ *privacyDB }

// AccountActivity stores the accounts' last uses in account_activity.
type AccountActivity struct{ *privacyDB }

// InstagramDeletions stores Meta's deletion requests in
// instagram_deletion_requests.
type InstagramDeletions struct{ *privacyDB }

// NewPrivacy returns privacy's stores on db.
func NewPrivacy(db *sqlite.DB) privacy.Stores {
	p := &privacyDB{db: db}
	return privacy.Stores{Exports: PrivacyExports{p}, Erasures: PrivacyErasures{p}, Activity: AccountActivity{p},
		InstagramDeletions: InstagramDeletions{p}}
}

var (
	_ privacy.Exports            = PrivacyExports{}
	_ privacy.Erasures           = PrivacyErasures{}
	_ privacy.Activity           = AccountActivity{}
	_ privacy.InstagramDeletions = InstagramDeletions{}
)

// exportRest is what an export keeps beside its indexed columns.
type exportRest struct {
	Brand   string    `json:"brand"`
	ReadyAt time.Time `json:"readyAt,omitzero"`
	Size    int64     `json:"size,omitempty"`
	Chunks  int       `json:"chunks,omitempty"`
}

const exportColumns = `id, user_id, request_window, status, requested_at, expires_at, doc`

func scanExport(row rowScanner) (privacy.Export, error) {
	var e privacy.Export
	var requested, expires int64
	var doc string
	if err := row.Scan(&e.ID, &e.UserID, &e.Window, &e.Status, &requested, &expires, &doc); err != nil {
		return privacy.Export{}, err
	}
	var rest exportRest
	if err := json.Unmarshal([]byte(doc), &rest); err != nil {
		return privacy.Export{}, fmt.Errorf("export %s: %w", e.ID, err)
	}
	e.RequestedAt, e.ExpiresAt = fromUnixNano(requested), fromUnixNano(expires)
	e.Brand, e.Size, e.Chunks = rest.Brand, rest.Size, rest.Chunks
	if !rest.ReadyAt.IsZero() {
		e.ReadyAt = rest.ReadyAt.UTC()
	}
	return e, nil
}

func exportDoc(e privacy.Export) (string, error) {
	b, err := json.Marshal(exportRest{Brand: e.Brand, ReadyAt: e.ReadyAt, Size: e.Size, Chunks: e.Chunks})
	return string(b), err
}

// Request stores e unless the person has an export of that window (the
// unique index privacy_exports_one_per_window decides).
func (s PrivacyExports) Request(ctx context.Context, e privacy.Export) (bool, error) {
	doc, err := exportDoc(e)
	if err != nil {
		return false, err
	}
	n, err := affected(s.write(ctx, s.db.Writer(), `INSERT INTO privacy_exports (`+exportColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id, request_window) DO NOTHING`,
		e.ID, e.UserID, e.Window, e.Status, unixNano(e.RequestedAt), unixNano(e.ExpiresAt), doc))
	if err != nil {
		return false, fmt.Errorf("request export: %w", err)
	}
	return n == 1, nil
}

// Get returns an export.
func (s PrivacyExports) Get(ctx context.Context, id string) (privacy.Export, bool, error) {
	e, err := scanExport(s.db.Reader().QueryRowContext(ctx, `SELECT `+exportColumns+` FROM privacy_exports WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return privacy.Export{}, false, nil
	}
	if err != nil {
		return privacy.Export{}, false, fmt.Errorf("export %s: %w", id, err)
	}
	return e, true, nil
}

// Latest returns the person's newest export expiring after now.
func (s PrivacyExports) Latest(ctx context.Context, userID string, now time.Time) (privacy.Export, bool, error) {
	e, err := scanExport(s.db.Reader().QueryRowContext(ctx, `SELECT `+exportColumns+` FROM privacy_exports
		WHERE user_id = ? AND expires_at > ? ORDER BY requested_at DESC LIMIT 1`, userID, unixNano(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return privacy.Export{}, false, nil
	}
	if err != nil {
		return privacy.Export{}, false, fmt.Errorf("latest export of %s: %w", userID, err)
	}
	return e, true, nil
}

// ClaimQueued leases queued exports whose lease has lapsed in one
// conditional update.
func (s PrivacyExports) ClaimQueued(ctx context.Context, owner string, now, leaseUntil time.Time, n int) ([]privacy.Export, error) {
	var out []privacy.Export
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		if s.beforeWrite != nil {
			if err := s.beforeWrite(); err != nil {
				return err
			}
		}
		rows, err := tx.QueryContext(ctx, `UPDATE privacy_exports SET lease_until = ?
			WHERE id IN (SELECT id FROM privacy_exports WHERE status = ? AND lease_until <= ? LIMIT ?)
			RETURNING `+exportColumns, unixNano(leaseUntil), privacy.ExportQueued, unixNano(now), n)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			e, err := scanExport(rows)
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("lease queued exports: %w", err)
	}
	return out, nil
}

// Finish stores the parts and marks the export ready in one transaction,
// if it is still queued.
func (s PrivacyExports) Finish(ctx context.Context, id string, readyAt time.Time, parts [][]byte) (bool, error) {
	done := false
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		e, err := scanExport(tx.QueryRowContext(ctx, `SELECT `+exportColumns+` FROM privacy_exports WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if e.Status != privacy.ExportQueued {
			return nil
		}
		e.Status, e.ReadyAt, e.Chunks = privacy.ExportReady, readyAt, len(parts)
		e.Size = 0
		for _, p := range parts {
			e.Size += int64(len(p))
		}
		if _, err := s.write(ctx, tx, `DELETE FROM privacy_export_chunks WHERE export_id = ?`, id); err != nil {
			return err
		}
		for i, p := range parts {
			if _, err := s.write(ctx, tx, `INSERT INTO privacy_export_chunks (export_id, n, data) VALUES (?, ?, ?)`, id, i, p); err != nil {
				return err
			}
		}
		doc, err := exportDoc(e)
		if err != nil {
			return err
		}
		if _, err := s.write(ctx, tx, `UPDATE privacy_exports SET status = ?, doc = ? WHERE id = ? AND status = ?`,
			e.Status, doc, id, privacy.ExportQueued); err != nil {
			return err
		}
		done = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("finish export %s: %w", id, err)
	}
	return done, nil
}

// Fail marks a queued export failed.
func (s PrivacyExports) Fail(ctx context.Context, id string) error {
	if _, err := s.write(ctx, s.db.Writer(), `UPDATE privacy_exports SET status = ? WHERE id = ? AND status = ?`,
		privacy.ExportFailed, id, privacy.ExportQueued); err != nil {
		return fmt.Errorf("fail export %s: %w", id, err)
	}
	return nil
}

// Parts returns an export's parts in order.
func (s PrivacyExports) Parts(ctx context.Context, id string) ([][]byte, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT data FROM privacy_export_chunks WHERE export_id = ? ORDER BY n`, id)
	if err != nil {
		return nil, fmt.Errorf("parts of export %s: %w", id, err)
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return nil, fmt.Errorf("parts of export %s: %w", id, err)
		}
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("parts of export %s: %w", id, err)
	}
	return out, nil
}

// InsertKey stores a download key.
func (s PrivacyExports) InsertKey(ctx context.Context, k privacy.ExportKey) error {
	if _, err := s.write(ctx, s.db.Writer(), `INSERT INTO privacy_export_keys (hash, export_id, user_id, expires_at) VALUES (?, ?, ?, ?)`,
		k.Hash, k.ExportID, k.UserID, unixNano(k.ExpiresAt)); err != nil {
		return fmt.Errorf("insert export key: %w", err)
	}
	return nil
}

// Key returns the download key of a hash.
func (s PrivacyExports) Key(ctx context.Context, hash string) (privacy.ExportKey, bool, error) {
	k := privacy.ExportKey{Hash: hash}
	var expires int64
	err := s.db.Reader().QueryRowContext(ctx, `SELECT export_id, user_id, expires_at FROM privacy_export_keys WHERE hash = ?`, hash).
		Scan(&k.ExportID, &k.UserID, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return privacy.ExportKey{}, false, nil
	}
	if err != nil {
		return privacy.ExportKey{}, false, fmt.Errorf("export key: %w", err)
	}
	k.ExpiresAt = fromUnixNano(expires)
	return k, true, nil
}

// DeleteUser deletes the person's exports, parts and keys in one
// transaction.
func (s PrivacyExports) DeleteUser(ctx context.Context, userID string) error {
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		for _, q := range []string{
			`DELETE FROM privacy_export_chunks WHERE export_id IN (SELECT id FROM privacy_exports WHERE user_id = ?)`,
			`DELETE FROM privacy_export_keys WHERE user_id = ?`,
			`DELETE FROM privacy_exports WHERE user_id = ?`,
		} {
			if _, err := s.write(ctx, tx, q, userID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete exports of %s: %w", userID, err)
	}
	return nil
}

// DeleteExpired deletes the expired exports with their parts and keys, and
// the expired keys, in one transaction.
func (s PrivacyExports) DeleteExpired(ctx context.Context, now time.Time) error {
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		for _, q := range []string{
			`DELETE FROM privacy_export_chunks WHERE export_id IN (SELECT id FROM privacy_exports WHERE expires_at <= ?)`,
			`DELETE FROM privacy_export_keys WHERE export_id IN (SELECT id FROM privacy_exports WHERE expires_at <= ?)`,
			`DELETE FROM privacy_export_keys WHERE expires_at <= ?`,
			`DELETE FROM privacy_exports WHERE expires_at <= ?`,
		} {
			if _, err := s.write(ctx, tx, q, unixNano(now)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete expired exports: %w", err)
	}
	return nil
}

const pendingColumns = `user_id, email, why, at, farewell`

func scanPending(row rowScanner) (privacy.PendingErasure, error) {
	var p privacy.PendingErasure
	var at int64
	if err := row.Scan(&p.UserID, &p.Email, &p.Why, &at, &p.Farewell); err != nil {
		return privacy.PendingErasure{}, err
	}
	p.At = fromUnixNano(at)
	return p, nil
}

// Begin inserts the pending erasure if absent, then leases it if its lease
// has lapsed: one transaction.
func (s PrivacyErasures) Begin(ctx context.Context, p privacy.PendingErasure, owner string, now, leaseUntil time.Time) (privacy.PendingErasure, bool, error) {
	var stored privacy.PendingErasure
	won := false
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		n, err := affected(s.write(ctx, tx, `INSERT INTO privacy_erasures_pending (`+pendingColumns+`, lease_owner, lease_until)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id) DO NOTHING`,
			p.UserID, p.Email, p.Why, unixNano(p.At), p.Farewell, owner, unixNano(leaseUntil)))
		if err != nil {
			return err
		}
		if n == 1 {
			stored, won = p, true
			return nil
		}
		if s.beforeWrite != nil {
			if err := s.beforeWrite(); err != nil {
				return err
			}
		}
		stored, err = scanPending(tx.QueryRowContext(ctx, `UPDATE privacy_erasures_pending SET lease_owner = ?, lease_until = ?
			WHERE user_id = ? AND lease_until <= ? RETURNING `+pendingColumns, owner, unixNano(leaseUntil), p.UserID, unixNano(now)))
		if err == nil {
			won = true
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		stored, err = scanPending(tx.QueryRowContext(ctx, `SELECT `+pendingColumns+` FROM privacy_erasures_pending WHERE user_id = ?`, p.UserID))
		return err
	})
	if err != nil {
		return privacy.PendingErasure{}, false, fmt.Errorf("begin erasure of %s: %w", p.UserID, err)
	}
	return stored, won, nil
}

// Pending returns every erasure under way (a handful at most).
func (s PrivacyErasures) Pending(ctx context.Context) ([]privacy.PendingErasure, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT `+pendingColumns+` FROM privacy_erasures_pending ORDER BY user_id`)
	if err != nil {
		return nil, fmt.Errorf("pending erasures: %w", err)
	}
	defer rows.Close()
	var out []privacy.PendingErasure
	for rows.Next() {
		p, err := scanPending(rows)
		if err != nil {
			return nil, fmt.Errorf("pending erasures: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pending erasures: %w", err)
	}
	return out, nil
}

// Finish writes the ledger line and the farewell and deletes the pending
// erasure in one transaction.
func (s PrivacyErasures) Finish(ctx context.Context, e privacy.Erasure, f privacy.Farewell) error {
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		if _, err := s.write(ctx, tx, `INSERT INTO privacy_erasures (user_id, at, why) VALUES (?, ?, ?) ON CONFLICT (user_id) DO NOTHING`,
			e.UserID, unixNano(e.At), e.Why); err != nil {
			return err
		}
		if _, err := s.write(ctx, tx, `INSERT INTO privacy_farewells (key, at) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`,
			f.Key, unixNano(f.At)); err != nil {
			return err
		}
		_, err := s.write(ctx, tx, `DELETE FROM privacy_erasures_pending WHERE user_id = ?`, e.UserID)
		return err
	})
	if err != nil {
		return fmt.Errorf("finish erasure of %s: %w", e.UserID, err)
	}
	return nil
}

// Erased returns an account's ledger line.
func (s PrivacyErasures) Erased(ctx context.Context, userID string) (privacy.Erasure, bool, error) {
	e := privacy.Erasure{UserID: userID}
	var at int64
	err := s.db.Reader().QueryRowContext(ctx, `SELECT at, why FROM privacy_erasures WHERE user_id = ?`, userID).Scan(&at, &e.Why)
	if errors.Is(err, sql.ErrNoRows) {
		return privacy.Erasure{}, false, nil
	}
	if err != nil {
		return privacy.Erasure{}, false, fmt.Errorf("erasure of %s: %w", userID, err)
	}
	e.At = fromUnixNano(at)
	return e, true, nil
}

// Farewells returns the last mails remembered (the last week's at most).
func (s PrivacyErasures) Farewells(ctx context.Context) ([]privacy.Farewell, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT key, at FROM privacy_farewells ORDER BY key`)
	if err != nil {
		return nil, fmt.Errorf("last mails: %w", err)
	}
	defer rows.Close()
	var out []privacy.Farewell
	for rows.Next() {
		var f privacy.Farewell
		var at int64
		if err := rows.Scan(&f.Key, &at); err != nil {
			return nil, fmt.Errorf("last mails: %w", err)
		}
		f.At = fromUnixNano(at)
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("last mails: %w", err)
	}
	return out, nil
}

// Forget forgets a last mail.
func (s PrivacyErasures) Forget(ctx context.Context, key string) error {
	if _, err := s.write(ctx, s.db.Writer(), `DELETE FROM privacy_farewells WHERE key = ?`, key); err != nil {
		return fmt.Errorf("forget last mail: %w", err)
	}
	return nil
}

// Touch upserts the account's last use (the later of the two) and clears
// its warning.
func (s AccountActivity) Touch(ctx context.Context, userID string, at time.Time) error {
	if _, err := s.write(ctx, s.db.Writer(), `INSERT INTO account_activity (user_id, last_active_at) VALUES (?, ?)
		ON CONFLICT (user_id) DO UPDATE SET last_active_at = max(last_active_at, excluded.last_active_at), warned_at = NULL`,
		userID, unixNano(at)); err != nil {
		return fmt.Errorf("record use of %s: %w", userID, err)
	}
	return nil
}

// InsertMany records first uses in one transaction of multi-row
// statements, leaving the accounts already recorded as they are.
func (s AccountActivity) InsertMany(ctx context.Context, uses []privacy.LastUse) error {
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		_, err := insertRows(ctx, beforeEach{tx, s.beforeWrite}, activityInsert, uses, func(args []any, u privacy.LastUse) ([]any, error) {
			return append(args, u.UserID, unixNano(u.LastActiveAt), nullTime(u.WarnedAt)), nil
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("record first uses: %w", err)
	}
	return nil
}

var activityInsert = newMultiRow("account_activity", "user_id, last_active_at, warned_at", "ON CONFLICT (user_id) DO NOTHING")

func scanUse(row rowScanner) (privacy.LastUse, error) {
	var u privacy.LastUse
	var last int64
	var warned sql.NullInt64
	if err := row.Scan(&u.UserID, &last, &warned); err != nil {
		return privacy.LastUse{}, err
	}
	u.LastActiveAt = fromUnixNano(last)
	if warned.Valid {
		u.WarnedAt = fromUnixNano(warned.Int64)
	}
	return u, nil
}

// Idle returns a page of accounts unused since before, oldest use first.
func (s AccountActivity) Idle(ctx context.Context, before time.Time, after privacy.LastUse, n int) ([]privacy.LastUse, error) {
	afterAt := int64(-1 << 63)
	if !after.LastActiveAt.IsZero() {
		afterAt = unixNano(after.LastActiveAt)
	}
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT user_id, last_active_at, warned_at FROM account_activity
		WHERE (last_active_at, user_id) > (?, ?) AND last_active_at <= ? ORDER BY last_active_at, user_id LIMIT ?`,
		afterAt, after.UserID, unixNano(before), n)
	if err != nil {
		return nil, fmt.Errorf("unused accounts: %w", err)
	}
	defer rows.Close()
	var out []privacy.LastUse
	for rows.Next() {
		u, err := scanUse(rows)
		if err != nil {
			return nil, fmt.Errorf("unused accounts: %w", err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("unused accounts: %w", err)
	}
	return out, nil
}

// Warn sets warned_at if it is unset and the use is the one read.
func (s AccountActivity) Warn(ctx context.Context, userID string, lastActiveAt, at time.Time) (bool, error) {
	n, err := affected(s.write(ctx, s.db.Writer(), `UPDATE account_activity SET warned_at = ?
		WHERE user_id = ? AND last_active_at = ? AND warned_at IS NULL`, unixNano(at), userID, unixNano(lastActiveAt)))
	if err != nil {
		return false, fmt.Errorf("record warning of %s: %w", userID, err)
	}
	return n == 1, nil
}

// Get returns an account's last use.
func (s AccountActivity) Get(ctx context.Context, userID string) (privacy.LastUse, bool, error) {
	u, err := scanUse(s.db.Reader().QueryRowContext(ctx, `SELECT user_id, last_active_at, warned_at FROM account_activity WHERE user_id = ?`, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return privacy.LastUse{}, false, nil
	}
	if err != nil {
		return privacy.LastUse{}, false, fmt.Errorf("last use of %s: %w", userID, err)
	}
	return u, true, nil
}

// Delete forgets an account's use.
func (s AccountActivity) Delete(ctx context.Context, userID string) error {
	if _, err := s.write(ctx, s.db.Writer(), `DELETE FROM account_activity WHERE user_id = ?`, userID); err != nil {
		return fmt.Errorf("forget use of %s: %w", userID, err)
	}
	return nil
}

// Record inserts the request unless its code exists.
func (s InstagramDeletions) Record(ctx context.Context, r privacy.DeletionRequest) (bool, error) {
	n, err := affected(s.write(ctx, s.db.Writer(), `INSERT INTO instagram_deletion_requests (code, status, requested_at, completed_at, expires_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (code) DO NOTHING`,
		r.Code, r.Status, unixNano(r.RequestedAt), unixNano(r.CompletedAt), unixNano(r.ExpiresAt)))
	if err != nil {
		return false, fmt.Errorf("record deletion request: %w", err)
	}
	return n == 1, nil
}

// Complete marks a request completed.
func (s InstagramDeletions) Complete(ctx context.Context, code string, at time.Time) error {
	if _, err := s.write(ctx, s.db.Writer(), `UPDATE instagram_deletion_requests SET status = ?, completed_at = ? WHERE code = ?`,
		privacy.DeletionCompleted, unixNano(at), code); err != nil {
		return fmt.Errorf("complete deletion request: %w", err)
	}
	return nil
}

// Get returns a request by code.
func (s InstagramDeletions) Get(ctx context.Context, code string) (privacy.DeletionRequest, bool, error) {
	r := privacy.DeletionRequest{Code: code}
	var requested, completed, expires int64
	err := s.db.Reader().QueryRowContext(ctx, `SELECT status, requested_at, completed_at, expires_at FROM instagram_deletion_requests WHERE code = ?`, code).
		Scan(&r.Status, &requested, &completed, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return privacy.DeletionRequest{}, false, nil
	}
	if err != nil {
		return privacy.DeletionRequest{}, false, fmt.Errorf("deletion request: %w", err)
	}
	r.RequestedAt, r.CompletedAt, r.ExpiresAt = fromUnixNano(requested), fromUnixNano(completed), fromUnixNano(expires)
	return r, true, nil
}

// DeleteExpired deletes the requests that expired before now.
func (s InstagramDeletions) DeleteExpired(ctx context.Context, now time.Time) error {
	if _, err := s.write(ctx, s.db.Writer(), `DELETE FROM instagram_deletion_requests WHERE expires_at < ?`, unixNano(now)); err != nil {
		return fmt.Errorf("delete expired deletion requests: %w", err)
	}
	return nil
}
