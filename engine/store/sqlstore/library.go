package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"glimpse/engine/library"
	"glimpse/engine/store/sqlite"
)

// ContentItems stores the editors' content in the content_docs table and the
// content version in content_version (migration 0007).
type ContentItems struct{ db *sqlite.DB }

// NewContentItems returns the library's storage on db.
func NewContentItems(db *sqlite.DB) *ContentItems { return &ContentItems{db: db} }

var _ library.Items = (*ContentItems)(nil)

// itemRest is what an item keeps beside its indexed columns and revisions.
type itemRest struct {
	Draft     map[string]string `json:"draft"`
	Published map[string]string `json:"published,omitempty"`
	Status    string            `json:"status"`
	UpdatedAt int64             `json:"updatedAt"` // Unix nanoseconds
	UpdatedBy string            `json:"updatedBy"`
}

type revisionRow struct {
	N       int               `json:"n"`
	At      int64             `json:"at"` // Unix nanoseconds
	By      string            `json:"by"`
	Action  string            `json:"action"`
	Fields  map[string]string `json:"fields"`
	Changed []string          `json:"changed"`
}

func itemColumns(d library.Doc) (doc, revisions string, err error) {
	rest, err := json.Marshal(itemRest{Draft: d.Draft, Published: d.Published, Status: d.Status,
		UpdatedAt: unixNano(d.UpdatedAt), UpdatedBy: d.UpdatedBy})
	if err != nil {
		return "", "", fmt.Errorf("content %s: %w", d.ID, err)
	}
	revs := make([]revisionRow, len(d.Revisions))
	for i, v := range d.Revisions {
		revs[i] = revisionRow{N: v.N, At: unixNano(v.At), By: v.By, Action: v.Action, Fields: v.Fields, Changed: v.Changed}
	}
	rj, err := json.Marshal(revs)
	if err != nil {
		return "", "", fmt.Errorf("content %s: %w", d.ID, err)
	}
	return string(rest), string(rj), nil
}

// Insert stores a new item, or returns library.ErrItemExists.
func (s *ContentItems) Insert(ctx context.Context, d library.Doc) error {
	doc, revs, err := itemColumns(d)
	if err != nil {
		return err
	}
	res, err := s.db.Writer().ExecContext(ctx, `INSERT INTO content_docs (id, kind, slug, rev, doc, revisions)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, d.ID, d.Kind, d.Slug, d.Rev, doc, revs)
	n, err := affected(res, err)
	if err != nil {
		return fmt.Errorf("insert content %s: %w", d.ID, err)
	}
	if n == 0 {
		return library.ErrItemExists
	}
	return nil
}

// Get returns the item with the id, or library.ErrNoItem.
func (s *ContentItems) Get(ctx context.Context, id string) (library.Doc, error) {
	var d library.Doc
	var doc, revs string
	err := s.db.Reader().QueryRowContext(ctx, `SELECT id, kind, slug, rev, doc, revisions FROM content_docs WHERE id = ?`, id).
		Scan(&d.ID, &d.Kind, &d.Slug, &d.Rev, &doc, &revs)
	if errors.Is(err, sql.ErrNoRows) {
		return library.Doc{}, library.ErrNoItem
	}
	if err != nil {
		return library.Doc{}, fmt.Errorf("content %s: %w", id, err)
	}
	if err := decodeItem(&d, doc); err != nil {
		return library.Doc{}, err
	}
	var rows []revisionRow
	if err := json.Unmarshal([]byte(revs), &rows); err != nil {
		return library.Doc{}, fmt.Errorf("content %s: revisions: %w", id, err)
	}
	d.Revisions = make([]library.Revision, len(rows))
	for i, v := range rows {
		d.Revisions[i] = library.Revision{N: v.N, At: fromUnixNano(v.At), By: v.By, Action: v.Action, Fields: v.Fields, Changed: v.Changed}
	}
	return d, nil
}

func decodeItem(d *library.Doc, doc string) error {
	var rest itemRest
	if err := json.Unmarshal([]byte(doc), &rest); err != nil {
		return fmt.Errorf("content %s: %w", d.ID, err)
	}
	d.Draft, d.Published, d.Status, d.UpdatedAt, d.UpdatedBy =
		rest.Draft, rest.Published, rest.Status, fromUnixNano(rest.UpdatedAt), rest.UpdatedBy
	return nil
}

// OfKind returns the kind's items ordered by slug, without their revisions.
func (s *ContentItems) OfKind(ctx context.Context, kind string) ([]library.Doc, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT id, kind, slug, rev, doc FROM content_docs WHERE kind = ? ORDER BY slug`, kind)
	if err != nil {
		return nil, fmt.Errorf("content of kind %s: %w", kind, err)
	}
	defer rows.Close()
	var out []library.Doc
	for rows.Next() {
		var d library.Doc
		var doc string
		if err := rows.Scan(&d.ID, &d.Kind, &d.Slug, &d.Rev, &doc); err != nil {
			return nil, fmt.Errorf("content of kind %s: %w", kind, err)
		}
		if err := decodeItem(&d, doc); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// Update replaces the item if it is still at revision from and, with bump,
// records the next content version in the same transaction.
func (s *ContentItems) Update(ctx context.Context, d library.Doc, from int, bump bool) (int64, error) {
	doc, revs, err := itemColumns(d)
	if err != nil {
		return 0, err
	}
	var version int64
	err = s.db.Update(ctx, func(tx *sqlite.Tx) error {
		n, err := affected(tx.ExecContext(ctx, `UPDATE content_docs SET rev = ?, doc = ?, revisions = ? WHERE id = ? AND rev = ?`,
			d.Rev, doc, revs, d.ID, from))
		if err != nil {
			return fmt.Errorf("update content %s: %w", d.ID, err)
		}
		if n == 0 {
			return library.ErrStaleRevision
		}
		if bump {
			version, err = bumpVersion(ctx, tx)
		}
		return err
	})
	return version, err
}

// Bump records the next content version.
func (s *ContentItems) Bump(ctx context.Context) (int64, error) {
	return bumpVersion(ctx, s.db.Writer())
}

// bumpVersion adds one to the version in one statement: SQLite runs it on
// the only writer, so no increment is lost.
func bumpVersion(ctx context.Context, q sqlite.Querier) (int64, error) {
	var v int64
	err := q.QueryRowContext(ctx, `INSERT INTO content_version (id, n) VALUES (1, 1)
		ON CONFLICT (id) DO UPDATE SET n = n + 1 RETURNING n`).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("bump content version: %w", err)
	}
	return v, nil
}

// Version returns the newest content version, 0 before the first.
func (s *ContentItems) Version(ctx context.Context) (int64, error) {
	var v int64
	err := s.db.Reader().QueryRowContext(ctx, `SELECT n FROM content_version WHERE id = 1`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("content version: %w", err)
	}
	return v, nil
}
