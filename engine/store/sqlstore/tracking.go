package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"glimpse/engine/store/sqlite"
	"glimpse/engine/tracking"
)

// Events stores usage events in the events table (migration 0001).
type Events struct{ db *sqlite.DB }

// NewEvents returns tracking's storage on db.
func NewEvents(db *sqlite.DB) *Events { return &Events{db: db} }

var _ tracking.Events = (*Events)(nil)

// eventRest is what an event keeps beside its indexed columns.
type eventRest struct {
	Props          map[string]any `json:"props,omitempty"`
	Brand          string         `json:"brand"`
	Host           string         `json:"host,omitempty"`
	Project        string         `json:"project"`
	SubscriptionID string         `json:"subscriptionId,omitempty"`
	UserAgent      string         `json:"userAgent,omitempty"`
}

// Insert stores a new event.
func (s *Events) Insert(ctx context.Context, e tracking.Event) error {
	return insertEvent(ctx, s.db.Writer(), e)
}

// InsertMany stores new events in one transaction, in multi-row
// statements.
func (s *Events) InsertMany(ctx context.Context, events []tracking.Event) error {
	return s.db.Update(ctx, func(tx *sqlite.Tx) error {
		if _, err := insertRows(ctx, tx, eventsInsert, events, eventValues); err != nil {
			return fmt.Errorf("insert events: %w", err)
		}
		return nil
	})
}

var eventsInsert = newMultiRow("events", "id, user_id, name, at, expires_at, doc", "")

func insertEvent(ctx context.Context, q sqlite.Querier, e tracking.Event) error {
	args, err := eventValues(nil, e)
	if err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, eventsInsert.text(1), args...); err != nil {
		return fmt.Errorf("insert event %s: %w", e.ID, err)
	}
	return nil
}

func eventValues(args []any, e tracking.Event) ([]any, error) {
	rest, err := json.Marshal(eventRest{Props: e.Props, Brand: e.Brand, Host: e.Host, Project: e.Project,
		SubscriptionID: e.SubscriptionID, UserAgent: e.UserAgent})
	if err != nil {
		return nil, fmt.Errorf("event %s: %w", e.ID, err)
	}
	return append(args, e.ID, nullString(e.UserID), e.Name, unixNano(e.At), unixNano(e.ExpiresAt), string(rest)), nil
}

const eventColumns = `id, coalesce(user_id, ''), name, at, expires_at, doc`

// OfUser returns the person's unexpired events, oldest first.
func (s *Events) OfUser(ctx context.Context, userID string, now time.Time) ([]tracking.Event, error) {
	return s.query(ctx, `SELECT `+eventColumns+` FROM events WHERE user_id = ? AND expires_at > ? ORDER BY at`,
		userID, unixNano(now))
}

// Named returns up to limit unexpired events called name, newest first.
func (s *Events) Named(ctx context.Context, name string, limit int, now time.Time) ([]tracking.Event, error) {
	return s.query(ctx, `SELECT `+eventColumns+` FROM events WHERE name = ? AND expires_at > ? ORDER BY at DESC LIMIT ?`,
		name, unixNano(now), limit)
}

// DeleteUser deletes every event of the person.
func (s *Events) DeleteUser(ctx context.Context, userID string) (int64, error) {
	return affected(s.db.Writer().ExecContext(ctx, `DELETE FROM events WHERE user_id = ?`, userID))
}

// DeleteExpired deletes the events expired by now.
func (s *Events) DeleteExpired(ctx context.Context, now time.Time) (int64, error) {
	return affected(s.db.Writer().ExecContext(ctx, `DELETE FROM events WHERE expires_at <= ?`, unixNano(now)))
}

func (s *Events) query(ctx context.Context, query string, args ...any) ([]tracking.Event, error) {
	rows, err := s.db.Reader().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	defer rows.Close()
	var out []tracking.Event
	for rows.Next() {
		var e tracking.Event
		var at, expires int64
		var doc string
		if err := rows.Scan(&e.ID, &e.UserID, &e.Name, &at, &expires, &doc); err != nil {
			return nil, fmt.Errorf("events: %w", err)
		}
		var rest eventRest
		if err := json.Unmarshal([]byte(doc), &rest); err != nil {
			return nil, fmt.Errorf("event %s: %w", e.ID, err)
		}
		e.At, e.ExpiresAt = fromUnixNano(at), fromUnixNano(expires)
		e.Props, e.Brand, e.Host, e.Project, e.SubscriptionID, e.UserAgent =
			rest.Props, rest.Brand, rest.Host, rest.Project, rest.SubscriptionID, rest.UserAgent
		out = append(out, e)
	}
	return out, rows.Err()
}

func affected(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
