package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	sqlitedriver "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"glimpse/engine/experiment"
	"glimpse/engine/store/sqlite"
)

// Experiments stores the A/B experiments, each person's marks and the
// counters in the experiments, experiment_people and experiment_counts
// tables (migration 0004).
type Experiments struct{ db *sqlite.DB }

// NewExperiments returns the experiments' storage on db.
func NewExperiments(db *sqlite.DB) *Experiments { return &Experiments{db: db} }

var _ experiment.Storage = (*Experiments)(nil)

// experimentDoc is an experiment as its doc column holds it.
type experimentDoc struct {
	Name           string               `json:"name"`
	Kind           string               `json:"kind"`
	Key            string               `json:"key"`
	Variants       []experiment.Variant `json:"variants"`
	Status         string               `json:"status"`
	Phase          int                  `json:"phase"`
	PhaseStartedAt time.Time            `json:"phaseStartedAt,omitzero"`
	Started        bool                 `json:"started"`
	CreatedBy      string               `json:"createdBy"`
	UpdatedBy      string               `json:"updatedBy"`
	UpdatedAt      time.Time            `json:"updatedAt"`
	// Asked at creation (issue #34); absent from older documents.
	Hypothesis string `json:"hypothesis,omitempty"`
	Metric     string `json:"metric,omitempty"`
	Holdout    int    `json:"holdout,omitempty"`
}

func encodeExperiment(e experiment.Experiment) (string, error) {
	b, err := json.Marshal(experimentDoc{Name: e.Name, Kind: e.Kind, Key: e.Key, Variants: e.Variants, Status: e.Status,
		Phase: e.Phase, PhaseStartedAt: e.PhaseStartedAt, Started: e.Started, CreatedBy: e.CreatedBy,
		UpdatedBy: e.UpdatedBy, UpdatedAt: e.UpdatedAt, Hypothesis: e.Hypothesis, Metric: e.Metric, Holdout: e.Holdout})
	if err != nil {
		return "", fmt.Errorf("experiment %s: %w", e.ID, err)
	}
	return string(b), nil
}

func scanExperiment(row rowScanner) (experiment.Experiment, error) {
	var e experiment.Experiment
	var created int64
	var doc string
	if err := row.Scan(&e.ID, &created, &e.Revision, &doc); err != nil {
		return experiment.Experiment{}, err
	}
	var d experimentDoc
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		return experiment.Experiment{}, fmt.Errorf("experiment %s: %w", e.ID, err)
	}
	e.Name, e.Kind, e.Key, e.Variants, e.Status, e.Phase, e.Started = d.Name, d.Kind, d.Key, d.Variants, d.Status, d.Phase, d.Started
	e.PhaseStartedAt, e.CreatedBy, e.UpdatedBy = d.PhaseStartedAt.UTC(), d.CreatedBy, d.UpdatedBy
	e.CreatedAt, e.UpdatedAt = fromUnixNano(created), d.UpdatedAt.UTC()
	e.Hypothesis, e.Metric, e.Holdout = d.Hypothesis, d.Metric, d.Holdout
	return e, nil
}

// All returns every experiment, newest first.
func (s *Experiments) All(ctx context.Context) ([]experiment.Experiment, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT id, created_at, revision, doc FROM experiments ORDER BY created_at DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	defer rows.Close()
	var out []experiment.Experiment
	for rows.Next() {
		e, err := scanExperiment(rows)
		if err != nil {
			return nil, fmt.Errorf("experiments: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Get returns one experiment.
func (s *Experiments) Get(ctx context.Context, id string) (experiment.Experiment, error) {
	e, err := scanExperiment(s.db.Reader().QueryRowContext(ctx, `SELECT id, created_at, revision, doc FROM experiments WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return experiment.Experiment{}, experiment.ErrNoExperiment
	}
	if err != nil {
		return experiment.Experiment{}, fmt.Errorf("experiment %s: %w", id, err)
	}
	return e, nil
}

// Insert stores a new experiment.
func (s *Experiments) Insert(ctx context.Context, e experiment.Experiment) error {
	doc, err := encodeExperiment(e)
	if err != nil {
		return err
	}
	_, err = s.db.Writer().ExecContext(ctx, `INSERT INTO experiments (id, created_at, revision, running_key, doc) VALUES (?, ?, ?, ?, ?)`,
		e.ID, unixNano(e.CreatedAt), e.Revision, nullString(e.RunningKey()), doc)
	if keyTaken(err) {
		return experiment.ErrKeyRunning
	}
	if err != nil {
		return fmt.Errorf("insert experiment %s: %w", e.ID, err)
	}
	return nil
}

// Replace stores e over its previous revision, in one conditional
// statement: a save made from a revision replaced meanwhile matches no row.
func (s *Experiments) Replace(ctx context.Context, e experiment.Experiment) error {
	doc, err := encodeExperiment(e)
	if err != nil {
		return err
	}
	n, err := affected(s.db.Writer().ExecContext(ctx, `UPDATE experiments SET revision = ?, running_key = ?, doc = ? WHERE id = ? AND revision = ?`,
		e.Revision, nullString(e.RunningKey()), doc, e.ID, e.Revision-1))
	switch {
	case keyTaken(err):
		return experiment.ErrKeyRunning
	case err != nil:
		return fmt.Errorf("replace experiment %s: %w", e.ID, err)
	case n == 0:
		if _, err := s.Get(ctx, e.ID); err != nil {
			return err
		}
		return experiment.ErrStale
	}
	return nil
}

// keyTaken reports the UNIQUE running_key refusing a second running
// experiment on a key.
func keyTaken(err error) bool {
	var e *sqlitedriver.Error
	return errors.As(err, &e) && e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
}

// Mark stores a person's mark once: the primary key refuses a second, and
// the statement's row count says which call stored it.
func (s *Experiments) Mark(ctx context.Context, m experiment.Mark) (bool, error) {
	n, err := affected(s.db.Writer().ExecContext(ctx, `INSERT INTO experiment_people (experiment_id, phase, user_id, event, variant, at, revenue)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, m.Experiment, m.Phase, m.UserID, m.Event, m.Variant, unixNano(m.At), m.Revenue))
	if err != nil {
		return false, fmt.Errorf("mark %s in experiment %s: %w", m.Event, m.Experiment, err)
	}
	return n == 1, nil
}

const markColumns = `experiment_id, phase, user_id, event, variant, at, revenue`

func scanMark(row rowScanner) (experiment.Mark, error) {
	var m experiment.Mark
	var at int64
	if err := row.Scan(&m.Experiment, &m.Phase, &m.UserID, &m.Event, &m.Variant, &at, &m.Revenue); err != nil {
		return experiment.Mark{}, err
	}
	m.At = fromUnixNano(at)
	return m, nil
}

// MarkOf returns one mark of a person.
func (s *Experiments) MarkOf(ctx context.Context, experimentID string, phase int, userID, event string) (experiment.Mark, bool, error) {
	m, err := scanMark(s.db.Reader().QueryRowContext(ctx, `SELECT `+markColumns+` FROM experiment_people
		WHERE experiment_id = ? AND phase = ? AND user_id = ? AND event = ?`, experimentID, phase, userID, event))
	if errors.Is(err, sql.ErrNoRows) {
		return experiment.Mark{}, false, nil
	}
	if err != nil {
		return experiment.Mark{}, false, fmt.Errorf("mark of %s: %w", userID, err)
	}
	return m, true, nil
}

// MarksOf returns every mark of a person.
func (s *Experiments) MarksOf(ctx context.Context, userID string) ([]experiment.Mark, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT `+markColumns+` FROM experiment_people WHERE user_id = ?`, userID)
	if err != nil {
		return nil, fmt.Errorf("marks of %s: %w", userID, err)
	}
	defer rows.Close()
	var out []experiment.Mark
	for rows.Next() {
		m, err := scanMark(rows)
		if err != nil {
			return nil, fmt.Errorf("marks of %s: %w", userID, err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// DeleteMarks deletes every mark of a person.
func (s *Experiments) DeleteMarks(ctx context.Context, userID string) (int64, error) {
	return affected(s.db.Writer().ExecContext(ctx, `DELETE FROM experiment_people WHERE user_id = ?`, userID))
}

// Add adds to a counter row in one statement: the row is created, or its
// columns grow by the amounts (n = n + excluded.n), so additions sent
// together all count.
func (s *Experiments) Add(ctx context.Context, experimentID string, phase int, t experiment.Tally) error {
	_, err := s.db.Writer().ExecContext(ctx, `INSERT INTO experiment_counts
		(experiment_id, phase, day, variant, attempts, exposures, saves, cancels, unsaved, revenue, revenue_sq, revenue_max)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (experiment_id, phase, day, variant) DO UPDATE SET
			attempts = attempts + excluded.attempts, exposures = exposures + excluded.exposures,
			saves = saves + excluded.saves, cancels = cancels + excluded.cancels, unsaved = unsaved + excluded.unsaved,
			revenue = revenue + excluded.revenue, revenue_sq = revenue_sq + excluded.revenue_sq,
			revenue_max = max(revenue_max, excluded.revenue_max)`,
		experimentID, phase, t.Day, t.Variant, t.Attempts, t.Exposures, t.Saves, t.Cancels, t.Unsaved, t.Revenue, t.RevenueSq, t.RevenueMax)
	if err != nil {
		return fmt.Errorf("add to experiment %s counts: %w", experimentID, err)
	}
	return nil
}

// Tallies returns a phase's counters.
func (s *Experiments) Tallies(ctx context.Context, experimentID string, phase int) ([]experiment.Tally, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT day, variant, attempts, exposures, saves, cancels, unsaved, revenue, revenue_sq, revenue_max
		FROM experiment_counts WHERE experiment_id = ? AND phase = ?`, experimentID, phase)
	if err != nil {
		return nil, fmt.Errorf("experiment %s counts: %w", experimentID, err)
	}
	defer rows.Close()
	var out []experiment.Tally
	for rows.Next() {
		var t experiment.Tally
		if err := rows.Scan(&t.Day, &t.Variant, &t.Attempts, &t.Exposures, &t.Saves, &t.Cancels, &t.Unsaved, &t.Revenue, &t.RevenueSq, &t.RevenueMax); err != nil {
			return nil, fmt.Errorf("experiment %s counts: %w", experimentID, err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
