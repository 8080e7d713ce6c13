package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"glimpse/engine/settings"
	"glimpse/engine/store/sqlite"
)

// Settings stores the deployment's named values in the settings table
// (migration 0013).
type Settings struct{ db *sqlite.DB }

// NewSettings returns the settings' storage on db.
func NewSettings(db *sqlite.DB) *Settings { return &Settings{db: db} }

var _ settings.Store = (*Settings)(nil)

// Get returns the value stored under name.
func (s *Settings) Get(ctx context.Context, name string) (string, bool, error) {
	var v string
	err := s.db.Reader().QueryRowContext(ctx, `SELECT value FROM settings WHERE name = ?`, name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("setting %s: %w", name, err)
	}
	return v, true, nil
}

// PutOnce stores value under name unless one is there, and returns the
// value name holds, in one transaction.
func (s *Settings) PutOnce(ctx context.Context, name, value string) (string, error) {
	var stored string
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`, name, value); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = ?`, name).Scan(&stored)
	})
	if err != nil {
		return "", fmt.Errorf("setting %s: %w", name, err)
	}
	return stored, nil
}
