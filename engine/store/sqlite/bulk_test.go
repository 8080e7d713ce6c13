package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

// TestABulkLoadNeverLeavesAnIndexOut: a bulk load builds the secondary
// indexes that enforce nothing after the rows are in, and keeps the unique
// ones all along; a load that dies before its end leaves the definitions
// behind, and the next Open builds them, so the database always ends with
// every index its migrations declare.
func TestABulkLoadNeverLeavesAnIndexOut(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	db, err := Open(ctx, path, SyncNever)
	if err != nil {
		t.Fatal(err)
	}
	indexes := func(db *DB) map[string]bool {
		t.Helper()
		rows, err := db.Reader().QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]bool{}
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				t.Fatal(err)
			}
			out[name] = true
		}
		return out
	}
	declared := indexes(db)
	if len(declared) < 10 {
		t.Fatalf("the migrations declare few indexes: %v", declared)
	}

	end, err := db.BulkLoad(ctx)
	if err != nil {
		t.Fatal(err)
	}
	during := indexes(db)
	if aside := len(declared) - len(during); aside == 0 || len(during) == 0 {
		t.Fatalf("during the load %d indexes were set aside and %d kept; want some of each (the unique ones kept)", aside, len(during))
	}
	for name := range during {
		var def string
		if err := db.Reader().QueryRowContext(ctx, `SELECT sql FROM sqlite_schema WHERE name = ?`, name).Scan(&def); err != nil {
			t.Fatal(err)
		}
		if len(def) < 13 || def[:13] != "CREATE UNIQUE" {
			t.Errorf("index %s kept during the load but enforces nothing: %s", name, def)
		}
	}
	if err := end(ctx); err != nil {
		t.Fatal(err)
	}
	if got := indexes(db); len(got) != len(declared) {
		t.Errorf("after the load %d indexes, want the %d declared", len(got), len(declared))
	}

	// A load that dies: its process ends without end.
	if _, err := db.BulkLoad(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(ctx, path, SyncNever)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := indexes(db)
	for name := range declared {
		if !got[name] {
			t.Errorf("index %s missing after reopening a database whose load died", name)
		}
	}
	var aside2 int
	if err := db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = ?`, asideTable).Scan(&aside2); err != nil || aside2 != 0 {
		t.Errorf("the table of indexes set aside is still there (%d, %v)", aside2, err)
	}
}
