// Package sqlstore implements the domains' storage interfaces on the
// embedded SQLite database (engine/store/sqlite): one file per domain, with
// the schema in sqlite's numbered migrations. A row holds the columns its
// queries filter and sort on, each covered by an index the plan check
// (plans_test.go) verifies, and the rest of the value as JSON.
package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"glimpse/engine/store/sqlite"
)

// Times are stored as Unix nanoseconds in UTC: they sort as numbers and
// compare exactly.
func unixNano(t time.Time) int64 { return t.UnixNano() }

func fromUnixNano(n int64) time.Time { return time.Unix(0, n).UTC() }

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// nullTime stores the zero time as NULL.
func nullTime(t time.Time) sql.NullInt64 {
	return sql.NullInt64{Int64: unixNano(t), Valid: !t.IsZero()}
}

// queryAll runs query on q and scans every row it returns with scan.
func queryAll[T any](ctx context.Context, q sqlite.Querier, scan func(row interface{ Scan(...any) error }) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
