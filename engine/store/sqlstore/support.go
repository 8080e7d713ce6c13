package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"glimpse/engine/store/sqlite"
	"glimpse/engine/support"
)

// SupportAudit stores the support desk's audit log in the support_audit
// table (migration 0009), whose triggers refuse any change to an entry.
// This file only inserts and reads.
type SupportAudit struct{ db *sqlite.DB }

// NewSupportAudit returns the audit log's storage on db.
func NewSupportAudit(db *sqlite.DB) *SupportAudit { return &SupportAudit{db: db} }

var _ support.AuditLog = (*SupportAudit)(nil)

// auditRest is what an entry keeps beside its indexed columns.
type auditRest struct {
	At      int64  `json:"at"` // Unix nanoseconds
	Staff   string `json:"staff"`
	Action  string `json:"action"`
	Target  string `json:"target,omitempty"`
	Reason  string `json:"reason"`
	Detail  string `json:"detail,omitempty"`
	Outcome string `json:"outcome"`
	Problem string `json:"problem,omitempty"`
	Intent  string `json:"intent,omitempty"`
}

// Append adds an entry, or returns support.ErrEntryExists.
func (s *SupportAudit) Append(ctx context.Context, e support.Entry) error {
	rest, err := json.Marshal(auditRest{At: unixNano(e.At), Staff: e.Staff, Action: e.Action, Target: e.Target,
		Reason: e.Reason, Detail: e.Detail, Outcome: e.Outcome, Problem: e.Problem, Intent: e.Intent})
	if err != nil {
		return fmt.Errorf("audit entry %s: %w", e.ID, err)
	}
	n, err := affected(s.db.Writer().ExecContext(ctx, `INSERT INTO support_audit (id, subscriber, doc) VALUES (?, ?, ?)
		ON CONFLICT DO NOTHING`, e.ID, e.Subscriber, string(rest)))
	if err != nil {
		return fmt.Errorf("append audit entry %s: %w", e.ID, err)
	}
	if n == 0 {
		return support.ErrEntryExists
	}
	return nil
}

// Newest returns up to limit entries, newest first: a walk of the primary
// key backwards that stops at limit. Every id is above ”, so the bound
// changes no answer; it states the walk as a range on the key, the shape
// the plan check (sqlite.Unindexed) accepts.
func (s *SupportAudit) Newest(ctx context.Context, limit int) ([]support.Entry, error) {
	return s.query(ctx, `SELECT id, subscriber, doc FROM support_audit WHERE id > '' ORDER BY id DESC LIMIT ?`, limit)
}

// NewestOf returns up to limit of the subscriber's entries, newest first.
func (s *SupportAudit) NewestOf(ctx context.Context, subscriber string, limit int) ([]support.Entry, error) {
	return s.query(ctx, `SELECT id, subscriber, doc FROM support_audit WHERE subscriber = ? ORDER BY id DESC LIMIT ?`, subscriber, limit)
}

func (s *SupportAudit) query(ctx context.Context, query string, args ...any) ([]support.Entry, error) {
	rows, err := s.db.Reader().QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	defer rows.Close()
	var out []support.Entry
	for rows.Next() {
		var e support.Entry
		var doc string
		if err := rows.Scan(&e.ID, &e.Subscriber, &doc); err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		var r auditRest
		if err := json.Unmarshal([]byte(doc), &r); err != nil {
			return nil, fmt.Errorf("audit entry %s: %w", e.ID, err)
		}
		e.At, e.Staff, e.Action, e.Target, e.Reason, e.Detail, e.Outcome, e.Problem, e.Intent =
			fromUnixNano(r.At), r.Staff, r.Action, r.Target, r.Reason, r.Detail, r.Outcome, r.Problem, r.Intent
		out = append(out, e)
	}
	return out, rows.Err()
}
