package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"glimpse/engine/mail"
	"glimpse/engine/store/sqlite"
)

// Mails stores the outbox in the mails table (migration 0005).
type Mails struct{ db *sqlite.DB }

// NewMails returns the outbox's storage on db.
func NewMails(db *sqlite.DB) *Mails { return &Mails{db: db} }

var _ mail.Mails = (*Mails)(nil)

// mailRest is what a mail keeps beside its indexed and changing columns:
// the rendered mail, written once.
type mailRest struct {
	To          string           `json:"to"`
	Brand       string           `json:"brand"`
	Template    string           `json:"template"`
	Subject     string           `json:"subject"`
	Text        string           `json:"text"`
	HTML        string           `json:"html,omitempty"`
	MessageID   string           `json:"messageId"`
	Attachments []mailAttachment `json:"attachments,omitempty"`
	Unlisted    bool             `json:"unlisted,omitempty"`
}

type mailAttachment struct {
	Name        string `json:"name"`
	ContentType string `json:"contentType"`
	Data        []byte `json:"data"`
}

// Insert stores the mails whose keys are new, in one transaction of
// multi-row statements; a key taken (before, or earlier in mails) is left
// as it is.
func (s *Mails) Insert(ctx context.Context, mails []mail.Mail) (int, error) {
	if len(mails) == 0 {
		return 0, nil
	}
	var n int64
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		var err error
		n, err = insertRows(ctx, tx, mailsInsert, mails, mailValues)
		if err != nil {
			return fmt.Errorf("insert mails: %w", err)
		}
		return nil
	})
	return int(n), err
}

var mailsInsert = newMultiRow("mails", "id, recipient, status, attempts, created_at, next_attempt_at, sent_at, last_error, doc",
	"ON CONFLICT (id) DO NOTHING")

func mailValues(args []any, m mail.Mail) ([]any, error) {
	rest := mailRest{To: m.To, Brand: m.Brand, Template: m.Template, Subject: m.Subject, Text: m.Text, HTML: m.HTML,
		MessageID: m.MessageID, Unlisted: m.Unlisted}
	for _, a := range m.Attachments {
		rest.Attachments = append(rest.Attachments, mailAttachment(a))
	}
	doc, err := json.Marshal(rest)
	if err != nil {
		return nil, fmt.Errorf("mail %s: %w", m.ID, err)
	}
	return append(args, m.ID, nullString(m.Recipient()), m.Status, m.Attempts, unixNano(m.CreatedAt), nullTime(m.NextAttemptAt),
		nullTime(m.SentAt), m.LastError, string(doc)), nil
}

const mailColumns = `id, status, attempts, created_at, next_attempt_at, sent_at, last_error, doc`

// Get returns the mail stored under key.
func (s *Mails) Get(ctx context.Context, key string) (mail.Mail, bool, error) {
	out, err := s.query(ctx, s.db.Reader(), `SELECT `+mailColumns+` FROM mails WHERE id = ?`, key)
	if err != nil || len(out) == 0 {
		return mail.Mail{}, false, err
	}
	return out[0], true, nil
}

// GetMany returns the stored mails among keys, keysPerStatement at a time.
func (s *Mails) GetMany(ctx context.Context, keys []string) ([]mail.Mail, error) {
	var out []mail.Mail
	for chunk := range slices.Chunk(keys, keysPerStatement) {
		got, err := s.query(ctx, s.db.Reader(), `SELECT `+mailColumns+` FROM mails WHERE id IN (`+placeholders(len(chunk))+`)`,
			anys(chunk)...)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// keysPerStatement bounds the parameters of one statement, well under
// SQLite's limit (https://www.sqlite.org/limits.html#max_variable_number).
const keysPerStatement = 500

func anys(keys []string) []any {
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = k
	}
	return out
}

// Newest returns up to limit mails created by asOf, newest first.
func (s *Mails) Newest(ctx context.Context, asOf time.Time, limit int) ([]mail.Mail, error) {
	return s.query(ctx, s.db.Reader(), `SELECT `+mailColumns+` FROM mails WHERE created_at <= ? ORDER BY created_at DESC, id DESC LIMIT ?`,
		unixNano(asOf), limit)
}

// To returns the mails listed under recipient, newest first.
func (s *Mails) To(ctx context.Context, recipient string, limit int) ([]mail.Mail, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	return s.query(ctx, s.db.Reader(), `SELECT `+mailColumns+` FROM mails WHERE recipient = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
		recipient, limit)
}

// ClaimDue claims up to n due mails in one statement, which the single
// writer runs whole: a mail it claims is no longer due for the next caller.
func (s *Mails) ClaimDue(ctx context.Context, now time.Time, lease time.Duration, n int) ([]mail.Mail, error) {
	var out []mail.Mail
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		var err error
		out, err = s.query(ctx, tx, `UPDATE mails SET attempts = attempts + 1, next_attempt_at = ?
			WHERE id IN (SELECT id FROM mails WHERE status = ? AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?)
			RETURNING `+mailColumns,
			unixNano(now.Add(lease)), mail.StatusQueued, unixNano(now), n)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim due mails: %w", err)
	}
	return out, nil
}

// Record stores an attempt's outcome under the claim it was made under.
func (s *Mails) Record(ctx context.Context, m mail.Mail) (bool, error) {
	n, err := affected(s.db.Writer().ExecContext(ctx, `UPDATE mails SET status = ?, next_attempt_at = ?, sent_at = ?, last_error = ?
		WHERE id = ? AND status = ? AND attempts = ?`,
		m.Status, nullTime(m.NextAttemptAt), nullTime(m.SentAt), m.LastError, m.ID, mail.StatusQueued, m.Attempts))
	if err != nil {
		return false, fmt.Errorf("record attempt of mail %s: %w", m.ID, err)
	}
	return n == 1, nil
}

// Queued counts the queued mails and finds the earliest created.
func (s *Mails) Queued(ctx context.Context) (int, time.Time, error) {
	var n int
	var oldest sql.NullInt64
	err := s.db.Reader().QueryRowContext(ctx, `SELECT count(*), min(created_at) FROM mails WHERE status = ?`, mail.StatusQueued).
		Scan(&n, &oldest)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("queued mails: %w", err)
	}
	if !oldest.Valid {
		return n, time.Time{}, nil
	}
	return n, fromUnixNano(oldest.Int64), nil
}

// Delete deletes the mails with these keys, in one transaction.
func (s *Mails) Delete(ctx context.Context, keys []string) (int64, error) {
	var n int64
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		n = 0
		for chunk := range slices.Chunk(keys, keysPerStatement) {
			deleted, err := affected(tx.ExecContext(ctx, `DELETE FROM mails WHERE id IN (`+placeholders(len(chunk))+`)`, anys(chunk)...))
			if err != nil {
				return fmt.Errorf("delete mails: %w", err)
			}
			n += deleted
		}
		return nil
	})
	return n, err
}

// DeleteDone deletes the mail with key unless it is queued, in one
// statement (no queued mail is deleted however the status changes).
func (s *Mails) DeleteDone(ctx context.Context, key string) (bool, error) {
	n, err := affected(s.db.Writer().ExecContext(ctx, `DELETE FROM mails WHERE id = ? AND status <> ?`, key, mail.StatusQueued))
	return n == 1, err
}

func (s *Mails) query(ctx context.Context, q sqlite.Querier, query string, args ...any) ([]mail.Mail, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("mails: %w", err)
	}
	defer rows.Close()
	var out []mail.Mail
	for rows.Next() {
		var m mail.Mail
		var created int64
		var next, sent sql.NullInt64
		var doc string
		if err := rows.Scan(&m.ID, &m.Status, &m.Attempts, &created, &next, &sent, &m.LastError, &doc); err != nil {
			return nil, fmt.Errorf("mails: %w", err)
		}
		var rest mailRest
		if err := json.Unmarshal([]byte(doc), &rest); err != nil {
			return nil, fmt.Errorf("mail %s: %w", m.ID, err)
		}
		m.To, m.Brand, m.Template, m.Subject, m.Text, m.HTML, m.MessageID, m.Unlisted =
			rest.To, rest.Brand, rest.Template, rest.Subject, rest.Text, rest.HTML, rest.MessageID, rest.Unlisted
		for _, a := range rest.Attachments {
			m.Attachments = append(m.Attachments, mail.Attachment(a))
		}
		m.CreatedAt = fromUnixNano(created)
		if next.Valid {
			m.NextAttemptAt = fromUnixNano(next.Int64)
		}
		if sent.Valid {
			m.SentAt = fromUnixNano(sent.Int64)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// placeholders is n comma-separated question marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
