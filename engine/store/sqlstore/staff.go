package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"glimpse/engine/staff"
	"glimpse/engine/store/sqlite"
)

// StaffAccounts stores staff members and their sessions in the staff and
// staff_sessions tables (migration 0008).
type StaffAccounts struct{ db *sqlite.DB }

// NewStaffAccounts returns staff's storage on db.
func NewStaffAccounts(db *sqlite.DB) *StaffAccounts { return &StaffAccounts{db: db} }

var _ staff.Accounts = (*StaffAccounts)(nil)

// PutMember creates or replaces the member and deletes its sessions, in one
// transaction.
func (s *StaffAccounts) PutMember(ctx context.Context, m staff.Member) error {
	return s.db.Update(ctx, func(tx *sqlite.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO staff (email, role, password_hash, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (email) DO UPDATE SET role = excluded.role, password_hash = excluded.password_hash, created_at = excluded.created_at`,
			m.Email, m.Role, m.PasswordHash, unixNano(m.CreatedAt)); err != nil {
			return fmt.Errorf("put staff member %s: %w", m.Email, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM staff_sessions WHERE email = ?`, m.Email); err != nil {
			return fmt.Errorf("end staff sessions of %s: %w", m.Email, err)
		}
		return nil
	})
}

// RemoveMember deletes the member and its sessions, in one transaction.
func (s *StaffAccounts) RemoveMember(ctx context.Context, email string) (bool, error) {
	var found bool
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		n, err := affected(tx.ExecContext(ctx, `DELETE FROM staff WHERE email = ?`, email))
		if err != nil {
			return fmt.Errorf("remove staff member %s: %w", email, err)
		}
		found = n > 0
		if _, err := tx.ExecContext(ctx, `DELETE FROM staff_sessions WHERE email = ?`, email); err != nil {
			return fmt.Errorf("end staff sessions of %s: %w", email, err)
		}
		return nil
	})
	return found, err
}

// Member returns the member with the email, or staff.ErrNoMember.
func (s *StaffAccounts) Member(ctx context.Context, email string) (staff.Member, error) {
	var m staff.Member
	var created int64
	err := s.db.Reader().QueryRowContext(ctx, `SELECT email, role, password_hash, created_at FROM staff WHERE email = ?`, email).
		Scan(&m.Email, &m.Role, &m.PasswordHash, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return staff.Member{}, staff.ErrNoMember
	}
	if err != nil {
		return staff.Member{}, fmt.Errorf("staff member %s: %w", email, err)
	}
	m.CreatedAt = fromUnixNano(created)
	return m, nil
}

// OpenSession stores a new session.
func (s *StaffAccounts) OpenSession(ctx context.Context, sess staff.Session) error {
	if _, err := s.db.Writer().ExecContext(ctx, `INSERT INTO staff_sessions (id, email, credential, expires_at) VALUES (?, ?, ?, ?)`,
		sess.ID, sess.Email, sess.Credential, unixNano(sess.ExpiresAt)); err != nil {
		return fmt.Errorf("open staff session: %w", err)
	}
	return nil
}

// Session returns the session with the id, or staff.ErrNoSession.
func (s *StaffAccounts) Session(ctx context.Context, id string) (staff.Session, error) {
	var sess staff.Session
	var expires int64
	err := s.db.Reader().QueryRowContext(ctx, `SELECT id, email, credential, expires_at FROM staff_sessions WHERE id = ?`, id).
		Scan(&sess.ID, &sess.Email, &sess.Credential, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return staff.Session{}, staff.ErrNoSession
	}
	if err != nil {
		return staff.Session{}, fmt.Errorf("staff session: %w", err)
	}
	sess.ExpiresAt = fromUnixNano(expires)
	return sess, nil
}

// EndSession deletes the session with the id.
func (s *StaffAccounts) EndSession(ctx context.Context, id string) error {
	if _, err := s.db.Writer().ExecContext(ctx, `DELETE FROM staff_sessions WHERE id = ?`, id); err != nil {
		return fmt.Errorf("end staff session: %w", err)
	}
	return nil
}

// DeleteExpiredSessions deletes the sessions expired by now.
func (s *StaffAccounts) DeleteExpiredSessions(ctx context.Context, now time.Time) (int64, error) {
	n, err := affected(s.db.Writer().ExecContext(ctx, `DELETE FROM staff_sessions WHERE expires_at <= ?`, unixNano(now)))
	if err != nil {
		return n, fmt.Errorf("delete expired staff sessions: %w", err)
	}
	return n, nil
}
