package sqlite

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The schema is the numbered files in migrations/, applied in order, each in
// a transaction of its own together with its row in schema_migrations, so a
// crash leaves each migration applied whole or not at all. A released
// migration is never edited: a change is a new file. We use this small
// runner rather than a migration library (goose, golang-migrate): the app
// only ever migrates forward, at start, inside the one process that holds
// the data directory's lock, and the runner is the forty lines below.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, name, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("sqlite: migration %s: want NNNN_name.sql", e.Name())
		}
		body, err := migrationFiles.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("sqlite: two migrations numbered %d", out[i].version)
		}
	}
	return out, nil
}

func (db *DB) migrate(ctx context.Context) error {
	all, err := migrations()
	if err != nil {
		return err
	}
	if _, err := db.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`); err != nil {
		return fmt.Errorf("sqlite: migrations table: %w", err)
	}
	applied := map[int]bool{}
	rows, err := db.write.QueryContext(ctx, "SELECT version FROM schema_migrations")
	if err != nil {
		return fmt.Errorf("sqlite: schema version: %w", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return fmt.Errorf("sqlite: schema version: %w", err)
		}
		applied[v] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sqlite: schema version: %w", err)
	}
	known := map[int]bool{}
	for _, m := range all {
		known[m.version] = true
	}
	for v := range applied {
		if !known[v] {
			return fmt.Errorf("sqlite: the database has migration %04d, which this release does not know: run the release that wrote it", v)
		}
	}
	for _, m := range all {
		// Every migration not applied yet runs, in order, including one
		// numbered below the newest applied (branches merged in any order).
		if applied[m.version] {
			continue
		}
		err := db.Update(ctx, func(tx *Tx) error {
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
				m.version, m.name, time.Now().Unix())
			return err
		})
		if err != nil {
			return fmt.Errorf("sqlite: migration %04d_%s: %w", m.version, m.name, err)
		}
	}
	return nil
}
