// Package sqlite is the embedded store: every domain's storage interface
// implemented on one SQLite database in the data directory, through the
// pure-Go driver modernc.org/sqlite. Each domain's tables, indexes and
// queries sit in a file of their own (tracking.go, ...); the schema is built
// by numbered migrations (migrations/NNNN_name.sql, migrate.go).
//
// SQLite allows one writer at a time. Writes go through one connection, so
// concurrent use cases queue here in the process instead of failing with
// SQLITE_BUSY, and each use case is one transaction begun IMMEDIATE (it takes
// the write lock at BEGIN, so a transaction that reads and then writes never
// finds its snapshot stale). Reads use a pool of their own and, in WAL mode,
// never wait for the writer (https://www.sqlite.org/wal.html).
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	// The driver registers itself as "sqlite".
	_ "modernc.org/sqlite"
)

// FileName is the database's file in the data directory.
const FileName = "glimpse.db"

// Durability says when a commit reaches the disk.
type Durability int

const (
	// SyncAtCheckpoints (synchronous=NORMAL in WAL mode) keeps the database
	// consistent and loses nothing when the process dies; a power cut may
	// lose the last commits. The app's setting.
	SyncAtCheckpoints Durability = iota
	// SyncNever (synchronous=OFF) is for tests and throwaway databases.
	SyncNever
)

// DB is an open embedded database.
type DB struct {
	path  string
	write *sql.DB // one connection: the only writer
	read  *sql.DB

	mu       sync.Mutex
	observer func(query string)
}

// Open opens (creating it if need be) the database at path and brings its
// schema to the newest migration. The caller must hold the data directory's
// lock: one process per database.
func Open(ctx context.Context, path string, durability Durability) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	sync := "normal"
	if durability == SyncNever {
		sync = "off"
	}
	dsn := func(extra string, pragmas ...string) string {
		q := url.Values{}
		for _, p := range append(pragmas, "busy_timeout(10000)", "foreign_keys(on)") {
			q.Add("_pragma", p)
		}
		return "file:" + abs + "?" + q.Encode() + extra
	}
	write, err := sql.Open("sqlite", dsn("&_txlock=immediate", "journal_mode(wal)", "synchronous("+sync+")"))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxIdleTime(0)
	write.SetConnMaxLifetime(0)
	read, err := sql.Open("sqlite", dsn("&mode=ro"))
	if err != nil {
		_ = write.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", abs, err)
	}
	readers := max(4, runtime.GOMAXPROCS(0)*2)
	read.SetMaxOpenConns(readers)
	read.SetMaxIdleConns(readers)
	db := &DB{path: abs, write: write, read: read}
	if err := db.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	// A bulk load that died half way left indexes aside (BulkLoad).
	if err := db.restoreIndexes(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// Path is the database file's absolute path.
func (db *DB) Path() string { return db.path }

// Close closes both pools.
func (db *DB) Close() error {
	return errors.Join(db.read.Close(), db.write.Close())
}

// Ping reports whether the database file can be read.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.read.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite: ping: %w", err)
	}
	return nil
}

// Observe calls fn with the text of every statement this DB runs from now
// on (tests: the query plan check, plans.go). Pass nil to stop.
func (db *DB) Observe(fn func(query string)) {
	db.mu.Lock()
	db.observer = fn
	db.mu.Unlock()
}

func (db *DB) observe(query string) {
	db.mu.Lock()
	fn := db.observer
	db.mu.Unlock()
	if fn != nil {
		fn(query)
	}
}

// Querier runs statements: the database outside a transaction, or a
// transaction.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Tx is one use case's transaction.
type Tx struct {
	tx *sql.Tx
	db *DB
}

// ExecContext runs a statement that returns no rows.
func (t *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	t.db.observe(query)
	return t.tx.ExecContext(ctx, query, args...)
}

// QueryContext runs a statement that returns rows.
func (t *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	t.db.observe(query)
	return t.tx.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a statement that returns at most one row.
func (t *Tx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	t.db.observe(query)
	return t.tx.QueryRowContext(ctx, query, args...)
}

// Update runs fn in one write transaction, committed when fn returns nil and
// rolled back otherwise: a use case's writes all happen or none does.
func (db *DB) Update(ctx context.Context, fn func(tx *Tx) error) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: begin: %w", err)
	}
	if err := fn(&Tx{tx: tx, db: db}); err != nil {
		return errors.Join(err, ignoreDone(tx.Rollback()))
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: commit: %w", err)
	}
	return nil
}

func ignoreDone(err error) error {
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

// Reader is the read pool, for reads outside a write transaction.
func (db *DB) Reader() Querier { return reader{db} }

// Writer runs single statements on the writer outside a transaction (each
// is atomic by itself).
func (db *DB) Writer() Querier { return writer{db} }

type reader struct{ db *DB }

func (r reader) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return nil, fmt.Errorf("sqlite: %q on the read pool", firstWord(query))
}

func (r reader) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	r.db.observe(query)
	return r.db.read.QueryContext(ctx, query, args...)
}

func (r reader) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	r.db.observe(query)
	return r.db.read.QueryRowContext(ctx, query, args...)
}

type writer struct{ db *DB }

func (w writer) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	w.db.observe(query)
	return w.db.write.ExecContext(ctx, query, args...)
}

func (w writer) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	w.db.observe(query)
	return w.db.write.QueryContext(ctx, query, args...)
}

func (w writer) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	w.db.observe(query)
	return w.db.write.QueryRowContext(ctx, query, args...)
}

func firstWord(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, " \n\t"); i > 0 {
		return s[:i]
	}
	return s
}

// BackupTo writes a consistent copy of the database to dest, which must not
// exist, while the app keeps serving (VACUUM INTO,
// https://www.sqlite.org/lang_vacuum.html#vacuuminto).
func (db *DB) BackupTo(ctx context.Context, dest string) error {
	if _, err := db.read.ExecContext(ctx, "VACUUM INTO ?", dest); err != nil {
		return fmt.Errorf("sqlite: back up to %s: %w", dest, err)
	}
	return nil
}

// Tables lists the database's tables, sorted (the erasure tests read every
// one).
func (db *DB) Tables(ctx context.Context) ([]string, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: tables: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

// RowsText returns each row of a table as text, its columns joined by
// spaces: what a person reading the file would see (the erasure tests).
func (db *DB) RowsText(ctx context.Context, table string) ([]string, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT * FROM "`+strings.ReplaceAll(table, `"`, `""`)+`"`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: read %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out, rows.Err()
}

// CheckWritable rewrites instance's row in the health table: a readiness
// probe's proof that writes go through (a full disk, a read-only file system
// or a writer stuck holding the lock fail it, while reads still answer).
func (db *DB) CheckWritable(ctx context.Context, instance, nonce string) error {
	_, err := db.Writer().ExecContext(ctx, `INSERT INTO health (instance, nonce) VALUES (?, ?)
		ON CONFLICT (instance) DO UPDATE SET nonce = excluded.nonce`, instance, nonce)
	if err != nil {
		return fmt.Errorf("sqlite: write check: %w", err)
	}
	return nil
}
