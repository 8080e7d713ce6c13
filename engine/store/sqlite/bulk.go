package sqlite

import (
	"context"
	"errors"
	"fmt"
)

// bulkPragmas are the writer's settings for a bulk load, each the app's
// value put back at its end. None weakens a commit (synchronous stays as
// Open set it):
//   - a 1 GiB page cache keeps the indexes being filled in memory instead
//     of reading their pages back from the file at every insert (the
//     default is 2 MiB);
//   - temporary files in memory: a multi-row INSERT inside a transaction
//     keeps a statement journal (the pages it changes, to undo it alone),
//     which otherwise spills to a temporary file;
//   - up to two helper threads for the sorts of the index builds at the
//     end (https://www.sqlite.org/pragma.html#pragma_threads);
//   - checkpoints every 1 GiB of log instead of every 4 MiB: a page
//     rewritten by many transactions is copied into the database once per
//     checkpoint, and each checkpoint waits for the disk once.
var bulkPragmas = []struct{ name, value string }{
	{"cache_size", "-1048576"},
	{"temp_store", "2"}, // MEMORY
	{"wal_autocheckpoint", "262144"},
	{"threads", "2"}, // the index builds at the end sort on both cores
}

// BulkLoad readies the writer for a one-off load of much new data in large
// transactions (glimpse seed-scale into a new data directory): it sets the
// secondary indexes that enforce nothing aside (setIndexesAside) and returns
// end, which builds them, checkpoints the log into the database file and
// puts the app's settings back. Nothing else may use the database meanwhile:
// its queries would find the indexes they need gone (seed-scale holds the
// data directory's lock).
func (db *DB) BulkLoad(ctx context.Context) (end func(context.Context) error, err error) {
	var restore []string
	for _, p := range bulkPragmas {
		var was string
		if err := db.write.QueryRowContext(ctx, "PRAGMA "+p.name).Scan(&was); err != nil {
			return nil, fmt.Errorf("sqlite: read pragma %s: %w", p.name, err)
		}
		if _, err := db.write.ExecContext(ctx, "PRAGMA "+p.name+" = "+p.value); err != nil {
			return nil, fmt.Errorf("sqlite: pragma %s: %w", p.name, err)
		}
		restore = append(restore, "PRAGMA "+p.name+" = "+was)
	}
	if err := db.setIndexesAside(ctx); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		var errs []error
		if err := db.restoreIndexes(ctx); err != nil {
			errs = append(errs, err)
		}
		// The log holds up to a checkpoint's worth of the load: copy it into
		// the database now rather than at the app's first start.
		if _, err := db.write.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			errs = append(errs, fmt.Errorf("sqlite: checkpoint: %w", err))
		}
		for _, r := range restore {
			if _, err := db.write.ExecContext(ctx, r); err != nil {
				errs = append(errs, fmt.Errorf("sqlite: %s: %w", r, err))
			}
		}
		return errors.Join(errs...)
	}, nil
}

// asideTable keeps the definitions of the indexes a bulk load dropped, until
// they are built again: at the load's end, or, if the load died half way, at
// the next Open, so a database is never left without an index it declares.
const asideTable = "bulk_load_indexes"

// setIndexesAside drops the secondary indexes that enforce nothing (not
// UNIQUE, so no rule is off during the load) and records their definitions
// first, in the same transaction. Inserting into an index of random keys
// touches a page anywhere in it for every row, and a commit writes every
// page it touched; building the index once after the load sorts its keys
// and writes each page once (https://www.sqlite.org/lang_createindex.html).
func (db *DB) setIndexesAside(ctx context.Context) error {
	return db.Update(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+asideTable+` (name TEXT PRIMARY KEY, sql TEXT NOT NULL) STRICT`); err != nil {
			return fmt.Errorf("sqlite: set indexes aside: %w", err)
		}
		rows, err := tx.QueryContext(ctx, `SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL
			AND upper(substr(sql, 1, 13)) != 'CREATE UNIQUE'`)
		if err != nil {
			return fmt.Errorf("sqlite: set indexes aside: %w", err)
		}
		var names, defs []string
		for rows.Next() {
			var name, def string
			if err := rows.Scan(&name, &def); err != nil {
				_ = rows.Close()
				return fmt.Errorf("sqlite: set indexes aside: %w", err)
			}
			names, defs = append(names, name), append(defs, def)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return fmt.Errorf("sqlite: set indexes aside: %w", err)
		}
		for i, name := range names {
			if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO `+asideTable+` (name, sql) VALUES (?, ?)`, name, defs[i]); err != nil {
				return fmt.Errorf("sqlite: set index %s aside: %w", name, err)
			}
			if _, err := tx.ExecContext(ctx, `DROP INDEX "`+name+`"`); err != nil {
				return fmt.Errorf("sqlite: set index %s aside: %w", name, err)
			}
		}
		return nil
	})
}

// restoreIndexes builds the indexes a bulk load set aside, if any, and
// forgets them, in one transaction.
func (db *DB) restoreIndexes(ctx context.Context) error {
	var exists int
	if err := db.write.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, asideTable).Scan(&exists); err != nil {
		return fmt.Errorf("sqlite: restore indexes: %w", err)
	}
	if exists == 0 {
		return nil
	}
	return db.Update(ctx, func(tx *Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT name, sql FROM `+asideTable)
		if err != nil {
			return fmt.Errorf("sqlite: restore indexes: %w", err)
		}
		var defs []string
		for rows.Next() {
			var name, def string
			if err := rows.Scan(&name, &def); err != nil {
				_ = rows.Close()
				return fmt.Errorf("sqlite: restore indexes: %w", err)
			}
			defs = append(defs, def)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return fmt.Errorf("sqlite: restore indexes: %w", err)
		}
		for _, def := range defs {
			if _, err := tx.ExecContext(ctx, def); err != nil {
				return fmt.Errorf("sqlite: restore index (%s): %w", def, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `DROP TABLE `+asideTable); err != nil {
			return fmt.Errorf("sqlite: restore indexes: %w", err)
		}
		return nil
	})
}
