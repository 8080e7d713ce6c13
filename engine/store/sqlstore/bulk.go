package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"

	"glimpse/engine/store/sqlite"
)

// maxVariables is SQLite's bound on a statement's parameters
// (SQLITE_MAX_VARIABLE_NUMBER, https://www.sqlite.org/limits.html#max_variable_number).
const maxVariables = 32766

// maxParamsPerStatement bounds a multi-row INSERT's parameters, far below
// SQLite's limit: the driver (modernc.org/sqlite v1.31) binds parameter i
// by scanning the arguments from the first, so a statement of n parameters
// costs n²/2 steps to bind. A few hundred keep that below what a statement
// per row would cost, and amortise the compiling of one statement over
// tens of rows.
const maxParamsPerStatement = 256

// multiRow is one table's multi-row INSERT: rows go in as
// INSERT INTO t (…) VALUES (…), (…), … so that a batch of n rows costs
// n/rows statements instead of n. The driver (modernc.org/sqlite) compiles
// every statement it runs, prepared or not, so a statement per row spends
// most of a bulk insert compiling the same text; one statement of many rows
// is compiled once for all of them.
type multiRow struct {
	head     string // INSERT INTO t (a, b, …) VALUES
	tuple    string // (?, ?, …)
	cols     int
	conflict string // what follows the rows: "" or ON CONFLICT … DO NOTHING

	mu    sync.Mutex
	texts map[int]string // statement text by its number of rows
}

// newMultiRow returns the multi-row INSERT into table's columns (a
// comma-separated list), with conflict ("" or an ON CONFLICT clause)
// after the rows.
func newMultiRow(table, columns, conflict string) *multiRow {
	cols := strings.Count(columns, ",") + 1
	return &multiRow{head: "INSERT INTO " + table + " (" + columns + ") VALUES ",
		tuple: "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")", cols: cols,
		conflict: conflict, texts: map[int]string{}}
}

// rowsPer is how many rows one statement carries.
func (m *multiRow) rowsPer() int { return max(1, min(maxParamsPerStatement, maxVariables)/m.cols) }

// text is the statement for rows rows, built once per size: a batch uses
// at most two sizes (full statements and the remainder).
func (m *multiRow) text(rows int) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.texts[rows]; ok {
		return s
	}
	var b strings.Builder
	b.Grow(len(m.head) + rows*(len(m.tuple)+2) + len(m.conflict) + 1)
	b.WriteString(m.head)
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.tuple)
	}
	if m.conflict != "" {
		b.WriteByte(' ')
		b.WriteString(m.conflict)
	}
	s := b.String()
	m.texts[rows] = s
	return s
}

// insertRows writes items through m in statements of m.rowsPer() rows,
// each item's values appended to args by values (exactly m's columns, in
// order), and returns how many rows were inserted (fewer than items when
// the conflict clause skipped some). It runs on q: in a transaction, all
// of items or none are written.
func insertRows[T any](ctx context.Context, q sqlite.Querier, m *multiRow, items []T, values func(args []any, item T) ([]any, error)) (int64, error) {
	per := m.rowsPer()
	args := make([]any, 0, min(len(items), per)*m.cols)
	var inserted int64
	for len(items) > 0 {
		chunk := items[:min(len(items), per)]
		items = items[len(chunk):]
		args = args[:0]
		for _, it := range chunk {
			var err error
			if args, err = values(args, it); err != nil {
				return inserted, err
			}
		}
		if len(args) != len(chunk)*m.cols {
			return inserted, fmt.Errorf("sqlstore: %d values for %d rows of %d columns (%s)", len(args), len(chunk), m.cols, m.head)
		}
		n, err := affected(q.ExecContext(ctx, m.text(len(chunk)), args...))
		if err != nil {
			return inserted, err
		}
		inserted += n
	}
	return inserted, nil
}

// beforeEach runs before (a crash test's stop; nil in the application)
// ahead of each statement it executes.
type beforeEach struct {
	sqlite.Querier
	before func() error
}

func (b beforeEach) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if b.before != nil {
		if err := b.before(); err != nil {
			return nil, err
		}
	}
	return b.Querier.ExecContext(ctx, query, args...)
}
