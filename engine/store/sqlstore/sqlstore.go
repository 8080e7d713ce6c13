// Package sqlstore implements the domains' storage interfaces on the
// embedded SQLite database (engine/store/sqlite): one file per domain, with
// the schema in sqlite's numbered migrations. A row holds the columns its
// queries filter and sort on, each covered by an index the plan check
// (plans_test.go) verifies, and the rest of the value as JSON.
package sqlstore

import (
	"database/sql"
	"time"
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
