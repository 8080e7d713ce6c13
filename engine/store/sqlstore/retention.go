package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"glimpse/engine/retention"
	"glimpse/engine/store/sqlite"
)

// Attempts stores cancel attempts and their events in the cancel_attempts
// and cancel_steps tables (migration 0003).
type Attempts struct{ db *sqlite.DB }

// NewAttempts returns retention's storage on db.
func NewAttempts(db *sqlite.DB) *Attempts { return &Attempts{db: db} }

var _ retention.Attempts = (*Attempts)(nil)

// attemptRest is what an attempt keeps beside its indexed columns.
type attemptRest struct {
	Brand    string `json:"brand"`
	PlanCode string `json:"planCode,omitempty"`
	Entry    string `json:"entry,omitempty"`
	Return   string `json:"return,omitempty"`
}

// stepRest is what an event keeps beside its indexed columns.
type stepRest struct {
	SubscriptionID string `json:"subscriptionId"`
	Kind           string `json:"kind"`
	Step           int    `json:"step"`
	Reason         string `json:"reason,omitempty"`
	Stars          int    `json:"stars,omitempty"`
	Review         string `json:"review,omitempty"`
	Offer          string `json:"offer,omitempty"`
	Outcome        string `json:"outcome,omitempty"`
	Exit           string `json:"exit,omitempty"`
}

const attemptColumns = `id, user_id, subscription_id, started_at, doc`

// Open resumes the subscription's open attempt or stores a, in one
// transaction: BEGIN IMMEDIATE holds the write lock from the first read, and
// the UNIQUE open_key refuses a second open attempt whatever the code does.
func (s *Attempts) Open(ctx context.Context, a retention.Attempt) (got retention.Attempt, started bool, err error) {
	err = s.db.Update(ctx, func(tx *sqlite.Tx) error {
		got, started = a, true
		if a.SubscriptionID == "" {
			return insertAttempt(ctx, tx, a, false)
		}
		open, err := scanAttempt(tx.QueryRowContext(ctx, `SELECT `+attemptColumns+` FROM cancel_attempts WHERE open_key = ?`, a.SubscriptionID))
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return err
		case open.Resumable(a.StartedAt):
			got, started = open, false
			return nil
		default: // abandoned long ago: no longer the open one
			if _, err := tx.ExecContext(ctx, `UPDATE cancel_attempts SET open_key = NULL WHERE id = ?`, open.ID); err != nil {
				return err
			}
		}
		return insertAttempt(ctx, tx, a, true)
	})
	if err != nil {
		return retention.Attempt{}, false, fmt.Errorf("open cancel attempt: %w", err)
	}
	return got, started, nil
}

func insertAttempt(ctx context.Context, q sqlite.Querier, a retention.Attempt, open bool) error {
	args, err := attemptValues(open)(nil, a)
	if err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, attemptsInsert.text(1), args...); err != nil {
		return fmt.Errorf("insert cancel attempt %s: %w", a.ID, err)
	}
	return nil
}

var attemptsInsert = newMultiRow("cancel_attempts", "id, user_id, subscription_id, open_key, started_at, doc", "")

// attemptValues returns an attempt's values, open (holding its
// subscription's open_key) or not.
func attemptValues(open bool) func(args []any, a retention.Attempt) ([]any, error) {
	return func(args []any, a retention.Attempt) ([]any, error) {
		rest, err := json.Marshal(attemptRest{Brand: a.Brand, PlanCode: a.PlanCode, Entry: a.Entry, Return: a.Return})
		if err != nil {
			return nil, err
		}
		openKey := sql.NullString{}
		if open {
			openKey = nullString(a.SubscriptionID)
		}
		return append(args, a.ID, a.UserID, a.SubscriptionID, openKey, unixNano(a.StartedAt), string(rest)), nil
	}
}

type rowScanner interface{ Scan(dest ...any) error }

func scanAttempt(row rowScanner) (retention.Attempt, error) {
	var a retention.Attempt
	var started int64
	var doc string
	if err := row.Scan(&a.ID, &a.UserID, &a.SubscriptionID, &started, &doc); err != nil {
		return retention.Attempt{}, err
	}
	var rest attemptRest
	if err := json.Unmarshal([]byte(doc), &rest); err != nil {
		return retention.Attempt{}, fmt.Errorf("cancel attempt %s: %w", a.ID, err)
	}
	a.StartedAt = fromUnixNano(started)
	a.Brand, a.PlanCode, a.Entry, a.Return = rest.Brand, rest.PlanCode, rest.Entry, rest.Return
	return a, nil
}

// InsertMany stores finished attempts and their events in one
// transaction, in multi-row statements.
func (s *Attempts) InsertMany(ctx context.Context, attempts []retention.Attempt, events []retention.Event) error {
	return s.db.Update(ctx, func(tx *sqlite.Tx) error {
		if _, err := insertRows(ctx, tx, attemptsInsert, attempts, attemptValues(false)); err != nil {
			return fmt.Errorf("insert cancel attempts: %w", err)
		}
		if _, err := insertRows(ctx, tx, stepsInsert, events, stepValues); err != nil {
			return fmt.Errorf("insert cancel steps: %w", err)
		}
		return nil
	})
}

// Get returns an attempt.
func (s *Attempts) Get(ctx context.Context, id string) (retention.Attempt, error) {
	a, err := scanAttempt(s.db.Reader().QueryRowContext(ctx, `SELECT `+attemptColumns+` FROM cancel_attempts WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return retention.Attempt{}, retention.ErrNoAttempt
	}
	if err != nil {
		return retention.Attempt{}, fmt.Errorf("cancel attempt %s: %w", id, err)
	}
	return a, nil
}

// OfUser returns the person's attempts, newest first, and their events:
// two statements, each on an index of its table.
func (s *Attempts) OfUser(ctx context.Context, userID string) ([]retention.Attempt, []retention.Event, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT `+attemptColumns+` FROM cancel_attempts WHERE user_id = ? ORDER BY started_at DESC`, userID)
	if err != nil {
		return nil, nil, fmt.Errorf("cancel attempts of %s: %w", userID, err)
	}
	defer rows.Close()
	var attempts []retention.Attempt
	for rows.Next() {
		a, err := scanAttempt(rows)
		if err != nil {
			return nil, nil, fmt.Errorf("cancel attempts of %s: %w", userID, err)
		}
		attempts = append(attempts, a)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("cancel attempts of %s: %w", userID, err)
	}
	if len(attempts) == 0 {
		return nil, nil, nil
	}
	events, err := s.steps(ctx, `SELECT `+stepColumns+` FROM cancel_steps WHERE user_id = ?`, userID)
	if err != nil {
		return nil, nil, err
	}
	return attempts, events, nil
}

// Events returns an attempt's events, oldest first.
func (s *Attempts) Events(ctx context.Context, attemptID string) ([]retention.Event, error) {
	return s.steps(ctx, `SELECT `+stepColumns+` FROM cancel_steps WHERE attempt_id = ? ORDER BY at, id`, attemptID)
}

// Record stores a new event (once per id).
func (s *Attempts) Record(ctx context.Context, e retention.Event) error {
	return insertStep(ctx, s.db.Writer(), e)
}

// End records the outcome and closes the attempt in one transaction.
func (s *Attempts) End(ctx context.Context, e retention.Event) error {
	return s.db.Update(ctx, func(tx *sqlite.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE cancel_attempts SET open_key = NULL WHERE id = ?`, e.AttemptID); err != nil {
			return fmt.Errorf("close cancel attempt %s: %w", e.AttemptID, err)
		}
		return insertStep(ctx, tx, e)
	})
}

// DeleteUser deletes the person's attempts and events in one transaction.
func (s *Attempts) DeleteUser(ctx context.Context, userID string) (int64, error) {
	var n int64
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM cancel_steps WHERE user_id = ?`, userID); err != nil {
			return err
		}
		var err error
		n, err = affected(tx.ExecContext(ctx, `DELETE FROM cancel_attempts WHERE user_id = ?`, userID))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("delete cancel attempts of %s: %w", userID, err)
	}
	return n, nil
}

const stepColumns = `id, attempt_id, user_id, at, doc`

func insertStep(ctx context.Context, q sqlite.Querier, e retention.Event) error {
	args, err := stepValues(nil, e)
	if err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, stepsInsert.text(1), args...); err != nil {
		return fmt.Errorf("insert cancel step %s: %w", e.ID, err)
	}
	return nil
}

var stepsInsert = newMultiRow("cancel_steps", "id, attempt_id, user_id, at, doc", "ON CONFLICT (id) DO NOTHING")

func stepValues(args []any, e retention.Event) ([]any, error) {
	rest, err := json.Marshal(stepRest{SubscriptionID: e.SubscriptionID, Kind: e.Kind, Step: e.Step, Reason: e.Reason,
		Stars: e.Stars, Review: e.Review, Offer: e.Offer, Outcome: e.Outcome, Exit: e.Exit})
	if err != nil {
		return nil, err
	}
	return append(args, e.ID, e.AttemptID, e.UserID, unixNano(e.At), string(rest)), nil
}

func (s *Attempts) steps(ctx context.Context, query string, args ...any) ([]retention.Event, error) {
	rows, err := s.db.Reader().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("cancel steps: %w", err)
	}
	defer rows.Close()
	var out []retention.Event
	for rows.Next() {
		var e retention.Event
		var at int64
		var doc string
		if err := rows.Scan(&e.ID, &e.AttemptID, &e.UserID, &at, &doc); err != nil {
			return nil, fmt.Errorf("cancel steps: %w", err)
		}
		var rest stepRest
		if err := json.Unmarshal([]byte(doc), &rest); err != nil {
			return nil, fmt.Errorf("cancel step %s: %w", e.ID, err)
		}
		e.At = fromUnixNano(at)
		e.SubscriptionID, e.Kind, e.Step, e.Reason, e.Stars, e.Review, e.Offer, e.Outcome, e.Exit =
			rest.SubscriptionID, rest.Kind, rest.Step, rest.Reason, rest.Stars, rest.Review, rest.Offer, rest.Outcome, rest.Exit
		out = append(out, e)
	}
	return out, rows.Err()
}
