package app_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"glimpse/engine/app"
	"glimpse/engine/config"
	"glimpse/engine/store"
	"glimpse/engine/store/sqlite"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/tracking"
)

// TestBackupAndRestoreCommands runs `glimpse backup` and `glimpse restore`
// as the binary does, from one data directory into another.
func TestBackupAndRestoreCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	from, to := filepath.Join(t.TempDir(), "from"), filepath.Join(t.TempDir(), "to")
	s, err := store.Open(ctx, store.Config{DataDir: from}, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if err := sqlstore.NewEvents(s.SQL()).Insert(ctx, tracking.Event{ID: "kept-event", Name: "screen_view", UserID: "ann",
		At: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}

	dest := filepath.Join(t.TempDir(), "backup")
	var out bytes.Buffer
	if err := app.Run(ctx, []string{"backup", dest}, env(map[string]string{"GLIMPSE_DATA_DIR": from}), &out, "test"); err != nil {
		t.Fatalf("backup: %v", err)
	}
	t.Logf("backup printed:\n%s", out.String())
	out.Reset()
	if err := app.Run(ctx, []string{"restore", dest}, env(map[string]string{"GLIMPSE_DATA_DIR": to}), &out, "test"); err != nil {
		t.Fatalf("restore: %v", err)
	}
	t.Logf("restore printed:\n%s", out.String())

	s, err = store.Open(ctx, store.Config{DataDir: to}, nil)
	if err != nil {
		t.Fatalf("Open the restored data directory: %v", err)
	}
	defer s.Close(ctx)
	if got, err := sqlstore.NewEvents(s.SQL()).OfUser(ctx, "ann", time.Now()); err != nil || len(got) != 1 || got[0].ID != "kept-event" {
		t.Errorf("restored SQLite row: %v, %v", got, err)
	}
}

// TestBackupCommandsRefuse: with MONGODB_URI the data is not in the data
// directory, and both commands point to the MongoDB procedure instead.
func TestBackupCommandsRefuse(t *testing.T) {
	t.Parallel()
	mongo := env(map[string]string{"MONGODB_URI": "mongodb://db1,db2/?replicaSet=rs0", "GLIMPSE_DATA_DIR": t.TempDir()})
	tests := map[string]struct {
		args   []string
		getenv func(string) string
		want   string // what the message must name
	}{
		"backup with MongoDB":  {[]string{"backup", t.TempDir()}, mongo, "docs/operations.md"},
		"restore with MongoDB": {[]string{"restore", t.TempDir()}, mongo, "docs/operations.md"},
		"backup without DIR":   {[]string{"backup"}, env(nil), "usage: glimpse backup DIR"},
		"restore without DIR":  {[]string{"restore"}, env(nil), "usage: glimpse restore DIR"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := app.Run(context.Background(), tc.args, tc.getenv, &bytes.Buffer{}, "test")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

// env is an environment of vars, in development unless vars names another
// (outside it, the start needs GLIMPSE_PAYMENTS and the operator).
func env(vars map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := vars[k]; ok || k != "GLIMPSE_ENVIRONMENT" {
			return v
		}
		return config.Development
	}
}

// TestBackupAndRestoreSQLiteOnly: a data directory holding only the embedded
// store's glimpse.db (no FerretDB files, as after issue #33) is backed up and
// restored into an empty directory by the commands, with no warning that the
// app would start empty, and the restored directory opens with its rows.
func TestBackupAndRestoreSQLiteOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	from, to := filepath.Join(t.TempDir(), "from"), filepath.Join(t.TempDir(), "to")
	if err := os.Mkdir(from, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, filepath.Join(from, sqlite.FileName), sqlite.SyncNever)
	if err != nil {
		t.Fatal(err)
	}
	if err := sqlstore.NewEvents(db).Insert(ctx, tracking.Event{ID: "kept-event", Name: "screen_view", UserID: "ann",
		At: time.Now(), ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if names := dirNames(t, from); len(names) != 1 || names[0] != sqlite.FileName {
		t.Fatalf("data directory holds %v, want only %s", names, sqlite.FileName)
	}

	dest := filepath.Join(t.TempDir(), "backup")
	var out bytes.Buffer
	if err := app.Run(ctx, []string{"backup", dest}, env(map[string]string{"GLIMPSE_DATA_DIR": from}), &out, "test"); err != nil {
		t.Fatalf("backup: %v", err)
	}
	t.Logf("backup printed:\n%s", out.String())
	if names := dirNames(t, dest); !slices.Equal(names, []string{store.ManifestName, sqlite.FileName}) {
		t.Errorf("backup holds %v, want %s and %s", names, sqlite.FileName, store.ManifestName)
	}
	out.Reset()
	if err := app.Run(ctx, []string{"restore", dest}, env(map[string]string{"GLIMPSE_DATA_DIR": to}), &out, "test"); err != nil {
		t.Fatalf("restore: %v", err)
	}
	t.Logf("restore printed:\n%s", out.String())
	if strings.Contains(out.String(), "Warning") {
		t.Errorf("restore warns of a backup that holds the app's data:\n%s", out.String())
	}
	if names := dirNames(t, to); !slices.Equal(names, []string{sqlite.FileName}) {
		t.Errorf("restored data directory holds %v, want only %s", names, sqlite.FileName)
	}

	// The app's store opens the restored directory and reads the row.
	s, err := store.Open(ctx, store.Config{DataDir: to}, nil)
	if err != nil {
		t.Fatalf("Open the restored data directory: %v", err)
	}
	defer s.Close(ctx)
	if got, err := sqlstore.NewEvents(s.SQL()).OfUser(ctx, "ann", time.Now()); err != nil || len(got) != 1 || got[0].ID != "kept-event" {
		t.Errorf("restored SQLite row: %v, %v", got, err)
	}
}

// dirNames lists dir's entries by name, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
