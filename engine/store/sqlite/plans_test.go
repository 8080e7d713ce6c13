package sqlite

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
)

// A MATCH on an FTS5 table is an index read; a read of the same table
// without one, or of an ordinary table, is still a scan.
func TestAFullTextMatchIsNotAScan(t *testing.T) {
	plan := []string{
		"SEARCH subscriptions USING INDEX sqlite_autoindex_subscriptions_1 (id=?)",
		"LIST SUBQUERY 1",
		"SCAN subscriptions_email_fts VIRTUAL TABLE INDEX 0:M2",
		"SCAN subscriptions_email_fts VIRTUAL TABLE INDEX 0:",
		"SCAN subscriptions",
		"SCAN subscriptions USING INDEX subscriptions_email",
	}
	want := []string{plan[3], plan[4], plan[5]}
	if got := Unindexed(plan, nil); !reflect.DeepEqual(got, want) {
		t.Errorf("Unindexed = %q\nwant %q", got, want)
	}
}

// Migration 0044 indexes the addresses of the subscriptions already there
// (not the erased ones), and its triggers keep the index in step with
// every later insert, change of address, erasure and delete.
func TestTheAddressIndexCoversTheSubscriptionsThere(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	db, err := Open(ctx, path, SyncNever)
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Writer().ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	found := func(part string) []string {
		t.Helper()
		rows, err := db.Reader().QueryContext(ctx, `SELECT id FROM subscriptions_email_fts WHERE subscriptions_email_fts MATCH ? ORDER BY id`, `"`+part+`"`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			out = append(out, id)
		}
		return out
	}
	sub := `INSERT INTO subscriptions (id, version, email, bundle, main_plan, status, erased, doc) VALUES (?, 1, ?, 'b', 1, 'active', ?, '{}')`
	// A database from before 0044: its subscriptions, no index.
	for _, trigger := range []string{"insert", "update", "delete"} {
		exec("DROP TRIGGER subscriptions_email_fts_" + trigger)
	}
	exec("DROP TABLE subscriptions_email_fts")
	exec("DELETE FROM schema_migrations WHERE version = 44")
	exec(sub, "a", "ann.smith@example.com", 0)
	exec(sub, "b", "bob@example.org", 0)
	exec(sub, "c", "erased", 1)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(ctx, path, SyncNever); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if got := found("example"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("after the migration, example: %v", got)
	}
	if got := found("era"); got != nil {
		t.Errorf("an erased subscription is indexed: %v", got)
	}
	exec(sub, "d", `o"neil@example.net`, 0)
	exec("UPDATE subscriptions SET email = 'ann.jones@example.com' WHERE id = 'a'")
	exec("UPDATE subscriptions SET email = 'erased', erased = 1 WHERE id = 'b'")
	exec(`DELETE FROM subscriptions WHERE id = 'd'`)
	for part, want := range map[string][]string{"example": {"a"}, "smith": nil, "jones": {"a"}, "bob": nil, `o""neil`: nil, "era": nil} {
		if got := found(part); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", part, got, want)
		}
	}
	var n int
	if err := db.Reader().QueryRowContext(ctx, "SELECT count(*) FROM subscriptions_email_fts").Scan(&n); err != nil || n != 1 {
		t.Errorf("%d rows in the index, %v; want 1", n, err)
	}
	// A deleted address's trigrams leave the index at once, not at a merge.
	if err := db.Reader().QueryRowContext(ctx, "SELECT v FROM subscriptions_email_fts_config WHERE k = 'secure-delete'").Scan(&n); err != nil || n != 1 {
		t.Errorf("secure-delete %d, %v", n, err)
	}
}
