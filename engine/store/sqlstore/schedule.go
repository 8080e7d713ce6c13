package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"glimpse/engine/library"
	"glimpse/engine/store/sqlite"
)

// ContentSchedules stores scheduled publishes in content_schedules
// (migration 0045).
type ContentSchedules struct{ db *sqlite.DB }

// NewContentSchedules returns scheduled publishing's storage on db.
func NewContentSchedules(db *sqlite.DB) *ContentSchedules { return &ContentSchedules{db: db} }

var _ library.Schedules = (*ContentSchedules)(nil)

const scheduleColumns = `id, kind, slug, at, by_whom, created_at, state, changed_at, changed_by`

// Add stores a new schedule, or returns library.ErrScheduleExists.
func (s *ContentSchedules) Add(ctx context.Context, sc library.Schedule) error {
	n, err := affected(s.db.Writer().ExecContext(ctx, `INSERT INTO content_schedules (`+scheduleColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, sc.ID, sc.Kind, sc.Slug, unixNano(sc.At), sc.By,
		unixNano(sc.CreatedAt), sc.State, unixNano(sc.ChangedAt), sc.ChangedBy))
	if err != nil {
		return fmt.Errorf("add schedule %s: %w", sc.ID, err)
	}
	if n == 0 {
		return library.ErrScheduleExists
	}
	return nil
}

func scanSchedule(row interface{ Scan(...any) error }) (library.Schedule, error) {
	var sc library.Schedule
	var at, created, changed int64
	err := row.Scan(&sc.ID, &sc.Kind, &sc.Slug, &at, &sc.By, &created, &sc.State, &changed, &sc.ChangedBy)
	sc.At, sc.CreatedAt, sc.ChangedAt = fromUnixNano(at), fromUnixNano(created), fromUnixNano(changed)
	return sc, err
}

// Get returns the schedule with the id, or library.ErrNoSchedule.
func (s *ContentSchedules) Get(ctx context.Context, id string) (library.Schedule, error) {
	sc, err := scanSchedule(s.db.Reader().QueryRowContext(ctx, `SELECT `+scheduleColumns+` FROM content_schedules WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return library.Schedule{}, library.ErrNoSchedule
	}
	if err != nil {
		return library.Schedule{}, fmt.Errorf("schedule %s: %w", id, err)
	}
	return sc, nil
}

// Pending returns the schedules scheduled or publishing.
func (s *ContentSchedules) Pending(ctx context.Context) ([]library.Schedule, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT `+scheduleColumns+` FROM content_schedules
		WHERE state IN (?, ?)`, library.ScheduleScheduled, library.SchedulePublishing)
	if err != nil {
		return nil, fmt.Errorf("pending schedules: %w", err)
	}
	defer rows.Close()
	var out []library.Schedule
	for rows.Next() {
		sc, err := scanSchedule(rows)
		if err != nil {
			return nil, fmt.Errorf("pending schedules: %w", err)
		}
		out = append(out, sc)
	}
	return out, rows.Err()
}

// Claim moves a due scheduled (or a stale publishing) schedule to
// publishing; the WHERE on state and time makes one claimer win.
func (s *ContentSchedules) Claim(ctx context.Context, id string, now, stale time.Time) (bool, error) {
	n, err := affected(s.db.Writer().ExecContext(ctx, `UPDATE content_schedules SET state = ?, changed_at = ?
		WHERE id = ? AND ((state = ? AND at <= ?) OR (state = ? AND changed_at < ?))`,
		library.SchedulePublishing, unixNano(now), id, library.ScheduleScheduled, unixNano(now),
		library.SchedulePublishing, unixNano(stale)))
	if err != nil {
		return false, fmt.Errorf("claim schedule %s: %w", id, err)
	}
	return n == 1, nil
}

// Finish moves a schedule still claimed at claimedAt to published.
func (s *ContentSchedules) Finish(ctx context.Context, id string, claimedAt, now time.Time) (bool, error) {
	n, err := affected(s.db.Writer().ExecContext(ctx, `UPDATE content_schedules SET state = ?, changed_at = ?
		WHERE id = ? AND state = ? AND changed_at = ?`,
		library.SchedulePublished, unixNano(now), id, library.SchedulePublishing, unixNano(claimedAt)))
	if err != nil {
		return false, fmt.Errorf("finish schedule %s: %w", id, err)
	}
	return n == 1, nil
}

// Cancel moves a scheduled schedule to cancelled; a claimed one stays.
func (s *ContentSchedules) Cancel(ctx context.Context, id, by string, now time.Time) (bool, error) {
	n, err := affected(s.db.Writer().ExecContext(ctx, `UPDATE content_schedules SET state = ?, changed_at = ?, changed_by = ?
		WHERE id = ? AND state = ?`, library.ScheduleCancelled, unixNano(now), by, id, library.ScheduleScheduled))
	if err != nil {
		return false, fmt.Errorf("cancel schedule %s: %w", id, err)
	}
	return n == 1, nil
}
