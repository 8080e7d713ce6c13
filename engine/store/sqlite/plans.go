package sqlite

import (
	"context"
	"fmt"
	"strings"
)

// Plan is SQLite's query plan for query (EXPLAIN QUERY PLAN,
// https://www.sqlite.org/eqp.html), one line per step. Parameters are bound
// to NULL: the plan depends on the statement, not on the values.
func (db *DB) Plan(ctx context.Context, query string) ([]string, error) {
	args := make([]any, placeholders(query))
	rows, err := db.read.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: explain %q: %w", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return nil, err
		}
		out = append(out, detail)
	}
	return out, rows.Err()
}

// placeholders counts the ? parameters of a statement. Our statements never
// hold a ? inside a string literal.
func placeholders(query string) int { return strings.Count(query, "?") }

// fullText reports a full-text query on an FTS5 table: SQLite plans every
// read of a virtual table as "SCAN t VIRTUAL TABLE INDEX n:idx", and FTS5
// names a MATCH it answers from its index with an idx that starts with M
// (its column after it). That is an index read (the rows the phrase's terms
// list), not a table scan; an FTS5 read without a MATCH (idx empty) still
// counts as a scan.
func fullText(step string) bool {
	rest, ok := strings.CutPrefix(step, "SCAN ")
	if !ok {
		return false
	}
	_, idx, ok := strings.Cut(rest, " VIRTUAL TABLE INDEX ")
	if !ok {
		return false
	}
	_, idx, ok = strings.Cut(idx, ":")
	return ok && strings.HasPrefix(idx, "M")
}

// Unindexed returns the steps of a plan that read a whole table or sort
// without an index: "SCAN t" (with or without an index to walk it by) and
// "USE TEMP B-TREE". A query that grows with subscribers must have none.
// Scans of tables named in small are allowed: tables whose size does not
// grow with subscribers.
func Unindexed(plan []string, small map[string]bool) []string {
	var bad []string
	for _, step := range plan {
		step = strings.TrimSpace(step)
		switch {
		case strings.HasPrefix(step, "SCAN CONSTANT ROW"), strings.HasPrefix(step, "SCAN json_each"),
			// A multi-row INSERT reads its own VALUES (the bulk inserts).
			strings.HasSuffix(step, "-ROW VALUES CLAUSE"):
		case fullText(step):
		case strings.HasPrefix(step, "SCAN "):
			table, _, _ := strings.Cut(strings.TrimPrefix(step, "SCAN "), " ")
			if !small[table] {
				bad = append(bad, step)
			}
		case strings.HasPrefix(step, "USE TEMP B-TREE"):
			bad = append(bad, step)
		}
	}
	return bad
}
