package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"glimpse/engine/auth"
	"glimpse/engine/store/sqlite"
)

// AuthStores returns auth's storage on db (migration 0002): accounts,
// sessions, one-time links and counters.
func AuthStores(db *sqlite.DB) auth.Stores {
	return auth.Stores{Users: NewUsers(db), Sessions: NewSessions(db), Links: NewLinks(db), Counters: NewCounters(db)}
}

// Users stores accounts in the users table, whose email is UNIQUE.
type Users struct{ db *sqlite.DB }

// NewUsers returns auth's accounts on db.
func NewUsers(db *sqlite.DB) *Users { return &Users{db: db} }

var _ auth.Users = (*Users)(nil)

// Create stores a new account; the UNIQUE email refuses a second account
// of one address, whoever inserts first.
func (s *Users) Create(ctx context.Context, u auth.User) error {
	return insertUser(ctx, s.db.Writer(), u)
}

// CreateMany stores new accounts in one transaction, in multi-row
// statements; an address taken fails them all with auth.ErrEmailTaken.
func (s *Users) CreateMany(ctx context.Context, users []auth.User) error {
	return s.db.Update(ctx, func(tx *sqlite.Tx) error {
		_, err := insertRows(ctx, tx, usersInsert, users, userValues)
		if isUnique(err, "users.email") {
			return auth.ErrEmailTaken
		}
		if err != nil {
			return fmt.Errorf("insert users: %w", err)
		}
		return nil
	})
}

var usersInsert = newMultiRow("users", userColumns, "")

func userValues(args []any, u auth.User) ([]any, error) {
	return append(args, u.ID, u.Email, u.PasswordHash, unixNano(u.CreatedAt), u.Disabled, u.SessionEpoch), nil
}

func insertUser(ctx context.Context, q sqlite.Querier, u auth.User) error {
	args, _ := userValues(nil, u)
	_, err := q.ExecContext(ctx, usersInsert.text(1), args...)
	if isUnique(err, "users.email") {
		return auth.ErrEmailTaken
	}
	if err != nil {
		return fmt.Errorf("insert user %s: %w", u.ID, err)
	}
	return nil
}

// isUnique reports SQLite's "UNIQUE constraint failed" on column (table.column).
func isUnique(err error, column string) bool {
	return err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed: "+column)
}

const userColumns = `id, email, password_hash, created_at, disabled, session_epoch`

// ByID returns an account by its primary key.
func (s *Users) ByID(ctx context.Context, id string) (auth.User, error) {
	return scanUser(s.db.Reader().QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id))
}

// ByEmail returns an account by its unique email.
func (s *Users) ByEmail(ctx context.Context, email string) (auth.User, error) {
	return scanUser(s.db.Reader().QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE email = ?`, email))
}

func scanUser(row *sql.Row) (auth.User, error) {
	var u auth.User
	var created int64
	err := row.Scan(&u.ID, &u.Email, &u.PasswordHash, &created, &u.Disabled, &u.SessionEpoch)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.User{}, auth.ErrUserNotFound
	}
	if err != nil {
		return auth.User{}, fmt.Errorf("user: %w", err)
	}
	u.CreatedAt = fromUnixNano(created)
	return u, nil
}

// IDs returns up to limit account ids after after, in order of the primary
// key.
func (s *Users) IDs(ctx context.Context, after string, limit int) ([]string, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT id FROM users WHERE id > ? ORDER BY id LIMIT ?`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("user ids: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("user ids: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// ResetPassword sets the hash and moves the epoch on in one statement
// conditional on the epoch, so one reset from an epoch wins.
func (s *Users) ResetPassword(ctx context.Context, id string, fromEpoch int, hash string) (bool, error) {
	n, err := affected(s.db.Writer().ExecContext(ctx,
		`UPDATE users SET password_hash = ?, session_epoch = session_epoch + 1 WHERE id = ? AND session_epoch = ?`,
		hash, id, fromEpoch))
	if err != nil {
		return false, fmt.Errorf("reset password: %w", err)
	}
	return n == 1, nil
}

// EndSessions moves the account's epoch on by one in one statement, so
// calls made together each count.
func (s *Users) EndSessions(ctx context.Context, id string) error {
	return s.exec(ctx, `UPDATE users SET session_epoch = session_epoch + 1 WHERE id = ?`, id)
}

// Disable marks the account disabled and moves its epoch on.
func (s *Users) Disable(ctx context.Context, id string) error {
	return s.exec(ctx, `UPDATE users SET disabled = 1, session_epoch = session_epoch + 1 WHERE id = ?`, id)
}

// Delete deletes an account.
func (s *Users) Delete(ctx context.Context, id string) error {
	return s.exec(ctx, `DELETE FROM users WHERE id = ?`, id)
}

func (s *Users) exec(ctx context.Context, query string, args ...any) error {
	if _, err := s.db.Writer().ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("users: %w", err)
	}
	return nil
}

// Sessions stores sessions in the sessions table.
type Sessions struct{ db *sqlite.DB }

// NewSessions returns auth's sessions on db.
func NewSessions(db *sqlite.DB) *Sessions { return &Sessions{db: db} }

var _ auth.Sessions = (*Sessions)(nil)

// Insert stores a new session.
func (s *Sessions) Insert(ctx context.Context, sess auth.Session) error {
	return insertSession(ctx, s.db.Writer(), sess)
}

// InsertMany stores new sessions in one transaction, in multi-row
// statements.
func (s *Sessions) InsertMany(ctx context.Context, sessions []auth.Session) error {
	return s.db.Update(ctx, func(tx *sqlite.Tx) error {
		if _, err := insertRows(ctx, tx, sessionsInsert, sessions, sessionValues); err != nil {
			return fmt.Errorf("insert sessions: %w", err)
		}
		return nil
	})
}

var sessionsInsert = newMultiRow("sessions", "id, user_id, created_at, expires_at, epoch, device, country", "")

func sessionValues(args []any, sess auth.Session) ([]any, error) {
	return append(args, sess.ID, sess.UserID, unixNano(sess.CreatedAt), unixNano(sess.ExpiresAt), sess.Epoch, sess.Device, sess.Country), nil
}

func insertSession(ctx context.Context, q sqlite.Querier, sess auth.Session) error {
	args, _ := sessionValues(nil, sess)
	if _, err := q.ExecContext(ctx, sessionsInsert.text(1), args...); err != nil {
		return fmt.Errorf("insert session: %w", err)
	}
	return nil
}

// WithUser reads a session and its account in one statement: two lookups
// by primary key.
func (s *Sessions) WithUser(ctx context.Context, id string) (auth.Session, auth.User, error) {
	var sess auth.Session
	var u auth.User
	var sessCreated, sessExpires, userCreated int64
	err := s.db.Reader().QueryRowContext(ctx, `SELECT s.id, s.user_id, s.created_at, s.expires_at, s.epoch, s.device, s.country,
		u.id, u.email, u.password_hash, u.created_at, u.disabled, u.session_epoch
		FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = ?`, id).
		Scan(&sess.ID, &sess.UserID, &sessCreated, &sessExpires, &sess.Epoch, &sess.Device, &sess.Country,
			&u.ID, &u.Email, &u.PasswordHash, &userCreated, &u.Disabled, &u.SessionEpoch)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.Session{}, auth.User{}, auth.ErrNoSession
	}
	if err != nil {
		return auth.Session{}, auth.User{}, fmt.Errorf("session: %w", err)
	}
	sess.CreatedAt, sess.ExpiresAt, u.CreatedAt = fromUnixNano(sessCreated), fromUnixNano(sessExpires), fromUnixNano(userCreated)
	return sess, u, nil
}

// OfUser returns the account's sessions, newest first.
func (s *Sessions) OfUser(ctx context.Context, userID string) ([]auth.Session, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT id, user_id, created_at, expires_at, epoch, device, country
		FROM sessions WHERE user_id = ? ORDER BY created_at DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("sessions of %s: %w", userID, err)
	}
	defer rows.Close()
	var out []auth.Session
	for rows.Next() {
		var sess auth.Session
		var created, expires int64
		if err := rows.Scan(&sess.ID, &sess.UserID, &created, &expires, &sess.Epoch, &sess.Device, &sess.Country); err != nil {
			return nil, fmt.Errorf("sessions of %s: %w", userID, err)
		}
		sess.CreatedAt, sess.ExpiresAt = fromUnixNano(created), fromUnixNano(expires)
		out = append(out, sess)
	}
	return out, rows.Err()
}

// Delete deletes one session.
func (s *Sessions) Delete(ctx context.Context, id string) error {
	if _, err := s.db.Writer().ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// DeleteUser deletes every session of the account.
func (s *Sessions) DeleteUser(ctx context.Context, userID string) (int64, error) {
	return affected(s.db.Writer().ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, userID))
}

// DeleteExpired deletes the sessions expired by now.
func (s *Sessions) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	return affected(s.db.Writer().ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= ?`, unixNano(now)))
}

// Links stores one-time links in the auth_links table.
type Links struct{ db *sqlite.DB }

// NewLinks returns auth's one-time links on db.
func NewLinks(db *sqlite.DB) *Links { return &Links{db: db} }

var _ auth.OneTimeLinks = (*Links)(nil)

// Insert stores a new link.
func (s *Links) Insert(ctx context.Context, l auth.Link) error {
	_, err := s.db.Writer().ExecContext(ctx, `INSERT INTO auth_links (id, kind, owner, expires_at, epoch, email)
		VALUES (?, ?, ?, ?, ?, ?)`, l.ID, string(l.Kind), l.Owner, unixNano(l.ExpiresAt), l.Epoch, l.Email)
	if err != nil {
		return fmt.Errorf("insert %s link: %w", l.Kind, err)
	}
	return nil
}

const linkColumns = `id, kind, owner, expires_at, epoch, email`

// Find reads a link by its primary key.
func (s *Links) Find(ctx context.Context, kind auth.LinkKind, id string) (auth.Link, error) {
	return scanLink(s.db.Reader().QueryRowContext(ctx, `SELECT `+linkColumns+` FROM auth_links WHERE id = ? AND kind = ?`,
		id, string(kind)))
}

// Take deletes a link and returns it, in one statement: of callers taking
// it together, one gets the row and the others none.
func (s *Links) Take(ctx context.Context, kind auth.LinkKind, id string) (auth.Link, error) {
	return scanLink(s.db.Writer().QueryRowContext(ctx, `DELETE FROM auth_links WHERE id = ? AND kind = ? RETURNING `+linkColumns,
		id, string(kind)))
}

func scanLink(row *sql.Row) (auth.Link, error) {
	var l auth.Link
	var kind string
	var expires int64
	err := row.Scan(&l.ID, &kind, &l.Owner, &expires, &l.Epoch, &l.Email)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.Link{}, auth.ErrLinkNotFound
	}
	if err != nil {
		return auth.Link{}, fmt.Errorf("link: %w", err)
	}
	l.Kind, l.ExpiresAt = auth.LinkKind(kind), fromUnixNano(expires)
	return l, nil
}

// DeleteOwner deletes an owner's links of one kind.
func (s *Links) DeleteOwner(ctx context.Context, kind auth.LinkKind, owner string) (int64, error) {
	return affected(s.db.Writer().ExecContext(ctx, `DELETE FROM auth_links WHERE owner = ? AND kind = ?`, owner, string(kind)))
}

// DeleteExpired deletes the links expired by now.
func (s *Links) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	return affected(s.db.Writer().ExecContext(ctx, `DELETE FROM auth_links WHERE expires_at <= ?`, unixNano(now)))
}

// Counters keeps bounded counters in the auth_counters table.
type Counters struct{ db *sqlite.DB }

// NewCounters returns auth's counters on db.
func NewCounters(db *sqlite.DB) *Counters { return &Counters{db: db} }

var _ auth.Counters = (*Counters)(nil)

// Take counts one unless limit are counted, in one transaction on the
// single writer: the count it reads cannot change before it writes, so
// takers together never pass the limit.
func (s *Counters) Take(ctx context.Context, key string, limit int, expires time.Time) (bool, error) {
	var took bool
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		var count int
		err := tx.QueryRowContext(ctx, `SELECT count FROM auth_counters WHERE key = ?`, key).Scan(&count)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if limit < 1 {
				return nil
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO auth_counters (key, count, expires_at) VALUES (?, 1, ?)`, key, unixNano(expires))
		case err != nil:
			return err
		case count >= limit:
			return nil
		default:
			_, err = tx.ExecContext(ctx, `UPDATE auth_counters SET count = count + 1 WHERE key = ?`, key)
		}
		took = err == nil
		return err
	})
	if err != nil {
		return false, fmt.Errorf("take counter: %w", err)
	}
	return took, nil
}

// Release takes one back, never below zero.
func (s *Counters) Release(ctx context.Context, key string) error {
	if _, err := s.db.Writer().ExecContext(ctx, `UPDATE auth_counters SET count = count - 1 WHERE key = ? AND count > 0`, key); err != nil {
		return fmt.Errorf("release counter: %w", err)
	}
	return nil
}

// Reset forgets the counter.
func (s *Counters) Reset(ctx context.Context, key string) error {
	if _, err := s.db.Writer().ExecContext(ctx, `DELETE FROM auth_counters WHERE key = ?`, key); err != nil {
		return fmt.Errorf("reset counter: %w", err)
	}
	return nil
}

// DeleteExpired deletes the counters expired by now.
func (s *Counters) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	return affected(s.db.Writer().ExecContext(ctx, `DELETE FROM auth_counters WHERE expires_at <= ?`, unixNano(now)))
}
