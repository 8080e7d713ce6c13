package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrationsApplyOnceEach: a database opened twice is migrated once;
// a migration missing from it (numbered below the newest applied) is
// applied; one it has that the release does not know is refused.
func TestMigrationsApplyOnceEach(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	db, err := Open(ctx, path, SyncNever)
	if err != nil {
		t.Fatal(err)
	}
	all, err := migrations()
	if err != nil || len(all) == 0 {
		t.Fatalf("migrations: %v, %v", all, err)
	}
	count := func() int {
		var n int
		if err := db.Reader().QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != len(all) {
		t.Fatalf("%d migrations recorded, want %d", n, len(all))
	}
	// Undo the first migration's record and its tables, as a database made
	// by a branch without it would be.
	first := all[0]
	if _, err := db.Writer().ExecContext(ctx, "DELETE FROM schema_migrations WHERE version = ?", first.version); err != nil {
		t.Fatal(err)
	}
	for _, table := range createdTables(first.sql) {
		if _, err := db.Writer().ExecContext(ctx, "DROP TABLE "+table); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(ctx, path, SyncNever); err != nil {
		t.Fatalf("reopen: %v", err)
	}
	if n := count(); n != len(all) {
		t.Fatalf("%d migrations recorded after reopening, want %d (the missing one applied)", n, len(all))
	}
	if _, err := db.Writer().ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 0)"); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, path, SyncNever); err == nil || !strings.Contains(err.Error(), "9999") {
		t.Fatalf("a database with an unknown migration opened: %v", err)
	}
}

func createdTables(sql string) []string {
	var out []string
	for _, line := range strings.Split(sql, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "CREATE TABLE "); ok {
			out = append(out, strings.Fields(rest)[0])
		}
	}
	return out
}
