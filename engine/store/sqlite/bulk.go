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
//   - checkpoints every 1 GiB of log instead of every 4 MiB: a page
//     rewritten by many transactions is copied into the database once per
//     checkpoint, and each checkpoint waits for the disk once.
var bulkPragmas = []struct{ name, value string }{
	{"cache_size", "-1048576"},
	{"temp_store", "2"}, // MEMORY
	{"wal_autocheckpoint", "262144"},
}

// BulkLoad readies the writer for a one-off load of much new data in large
// transactions (glimpse seed-scale into a new data directory) and returns
// end, which checkpoints the log into the database file and puts the app's
// settings back. Only the writer's connection changes: reads and the app's
// normal path keep theirs.
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
	return func(ctx context.Context) error {
		var errs []error
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
