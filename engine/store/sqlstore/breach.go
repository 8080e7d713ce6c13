package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"glimpse/engine/breach"
	"glimpse/engine/store/sqlite"
)

// BreachRecords stores the breach catalogue and each person's last check in
// the breach_catalogue and breach_checks tables (migration 0010).
type BreachRecords struct{ db *sqlite.DB }

// NewBreachRecords returns the breach service's storage on db.
func NewBreachRecords(db *sqlite.DB) *BreachRecords { return &BreachRecords{db: db} }

var _ breach.Records = (*BreachRecords)(nil)

// breachRow is a catalogue entry as stored. It is not breach.Breach's JSON,
// whose decoding reads HIBP's model (and would rewrite what it reads).
type breachRow struct {
	Title        string   `json:"title"`
	Domain       string   `json:"domain,omitempty"`
	BreachDate   string   `json:"breachDate,omitempty"`
	AddedDate    int64    `json:"addedDate,omitempty"` // Unix nanoseconds
	PwnCount     int64    `json:"pwnCount,omitempty"`
	Description  string   `json:"description,omitempty"`
	DataClasses  []string `json:"dataClasses,omitempty"`
	LogoPath     string   `json:"logoPath,omitempty"`
	IsVerified   bool     `json:"isVerified,omitempty"`
	IsFabricated bool     `json:"isFabricated,omitempty"`
	IsSensitive  bool     `json:"isSensitive,omitempty"`
	IsRetired    bool     `json:"isRetired,omitempty"`
	IsSpamList   bool     `json:"isSpamList,omitempty"`
	IsMalware    bool     `json:"isMalware,omitempty"`
}

// SyncCatalogue upserts every breach and deletes the other source's
// entries, in one transaction.
func (s *BreachRecords) SyncCatalogue(ctx context.Context, breaches []breach.Breach, sample bool) error {
	return s.db.Update(ctx, func(tx *sqlite.Tx) error {
		for _, b := range breaches {
			doc, err := json.Marshal(breachRow{Title: b.Title, Domain: b.Domain, BreachDate: b.BreachDate,
				AddedDate: nanoOrZero(b.AddedDate), PwnCount: b.PwnCount, Description: b.Description, DataClasses: b.DataClasses,
				LogoPath: b.LogoPath, IsVerified: b.IsVerified, IsFabricated: b.IsFabricated, IsSensitive: b.IsSensitive,
				IsRetired: b.IsRetired, IsSpamList: b.IsSpamList, IsMalware: b.IsMalware})
			if err != nil {
				return fmt.Errorf("breach %s: %w", b.Name, err)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO breach_catalogue (name, sample, doc) VALUES (?, ?, ?)
				ON CONFLICT (name) DO UPDATE SET sample = excluded.sample, doc = excluded.doc`, b.Name, sample, string(doc)); err != nil {
				return fmt.Errorf("store breach %s: %w", b.Name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM breach_catalogue WHERE sample <> ?`, sample); err != nil {
			return fmt.Errorf("remove the other source's breaches: %w", err)
		}
		return nil
	})
}

// Catalogued returns the stored entries with these names.
func (s *BreachRecords) Catalogued(ctx context.Context, names []string) (map[string]breach.Breach, error) {
	list, err := json.Marshal(names)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT name, doc FROM breach_catalogue
		WHERE name IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, fmt.Errorf("breach catalogue: %w", err)
	}
	defer rows.Close()
	out := make(map[string]breach.Breach, len(names))
	for rows.Next() {
		var name, doc string
		if err := rows.Scan(&name, &doc); err != nil {
			return nil, fmt.Errorf("breach catalogue: %w", err)
		}
		var r breachRow
		if err := json.Unmarshal([]byte(doc), &r); err != nil {
			return nil, fmt.Errorf("breach %s: %w", name, err)
		}
		out[name] = breach.Breach{Name: name, Title: r.Title, Domain: r.Domain, BreachDate: r.BreachDate,
			AddedDate: timeOrZero(r.AddedDate), PwnCount: r.PwnCount, Description: r.Description, DataClasses: r.DataClasses,
			LogoPath: r.LogoPath, IsVerified: r.IsVerified, IsFabricated: r.IsFabricated, IsSensitive: r.IsSensitive,
			IsRetired: r.IsRetired, IsSpamList: r.IsSpamList, IsMalware: r.IsMalware}
	}
	return out, rows.Err()
}

// Check returns the person's stored check.
func (s *BreachRecords) Check(ctx context.Context, userID string) (breach.Check, bool, error) {
	c := breach.Check{UserID: userID}
	var names string
	var checked, lookup int64
	err := s.db.Reader().QueryRowContext(ctx, `SELECT email_hash, names, checked_at, sample, lookup_at FROM breach_checks WHERE user_id = ?`,
		userID).Scan(&c.EmailHash, &names, &checked, &c.Sample, &lookup)
	if errors.Is(err, sql.ErrNoRows) {
		return breach.Check{}, false, nil
	}
	if err != nil {
		return breach.Check{}, false, fmt.Errorf("breach check: %w", err)
	}
	if err := json.Unmarshal([]byte(names), &c.Names); err != nil {
		return breach.Check{}, false, fmt.Errorf("breach check of %s: %w", userID, err)
	}
	c.CheckedAt, c.LookupAt = timeOrZero(checked), timeOrZero(lookup)
	return c, true, nil
}

// BeginLookup sets lookup_at to now unless a lookup began after since: one
// upsert whose update is conditional, so of lookups sent together (which
// SQLite runs one after the other) the first wins and the rest see its
// time.
func (s *BreachRecords) BeginLookup(ctx context.Context, userID string, now, since time.Time) (bool, error) {
	rows, err := s.db.Writer().QueryContext(ctx, `INSERT INTO breach_checks (user_id, lookup_at) VALUES (?, ?)
		ON CONFLICT (user_id) DO UPDATE SET lookup_at = excluded.lookup_at WHERE breach_checks.lookup_at <= ?
		RETURNING user_id`, userID, unixNano(now), unixNano(since))
	if err != nil {
		return false, fmt.Errorf("begin breach lookup: %w", err)
	}
	defer rows.Close()
	began := rows.Next()
	return began, rows.Err()
}

// PutResult stores a lookup's result and clears lookup_at.
func (s *BreachRecords) PutResult(ctx context.Context, c breach.Check) error {
	names, err := json.Marshal(c.Names)
	if err != nil {
		return err
	}
	if c.Names == nil {
		names = []byte("[]")
	}
	_, err = s.db.Writer().ExecContext(ctx, `INSERT INTO breach_checks (user_id, email_hash, names, checked_at, sample, lookup_at)
		VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT (user_id) DO UPDATE SET email_hash = excluded.email_hash, names = excluded.names,
		checked_at = excluded.checked_at, sample = excluded.sample, lookup_at = 0`,
		c.UserID, c.EmailHash, string(names), nanoOrZero(c.CheckedAt), c.Sample)
	if err != nil {
		return fmt.Errorf("store breach check of %s: %w", c.UserID, err)
	}
	return nil
}

// DeleteCheck deletes the person's check.
func (s *BreachRecords) DeleteCheck(ctx context.Context, userID string) error {
	if _, err := s.db.Writer().ExecContext(ctx, `DELETE FROM breach_checks WHERE user_id = ?`, userID); err != nil {
		return fmt.Errorf("delete breach check of %s: %w", userID, err)
	}
	return nil
}

// nanoOrZero stores the zero time as 0 (its Unix nanoseconds do not fit an
// int64).
func nanoOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return unixNano(t)
}

func timeOrZero(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return fromUnixNano(n)
}
