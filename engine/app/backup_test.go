package app_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine/app"
	"glimpse/engine/config"
	"glimpse/engine/store"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/tracking"
)

// TestBackupAndRestoreCommands runs `glimpse backup` and `glimpse restore`
// as the binary does, from one data directory into another.
func TestBackupAndRestoreCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	from, to := filepath.Join(t.TempDir(), "from"), filepath.Join(t.TempDir(), "to")
	s, err := store.Open(ctx, store.Config{DataDir: from, Database: "glimpse"}, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if _, err := s.DB().Collection("docs").InsertOne(ctx, bson.D{{Key: "_id", Value: "kept"}}); err != nil {
		t.Fatal(err)
	}
	// And a row of the embedded SQLite store's.
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

	s, err = store.Open(ctx, store.Config{DataDir: to, Database: "glimpse"}, nil)
	if err != nil {
		t.Fatalf("Open the restored data directory: %v", err)
	}
	defer s.Close(ctx)
	if n, err := s.DB().Collection("docs").CountDocuments(ctx, bson.D{{Key: "_id", Value: "kept"}}); err != nil || n != 1 {
		t.Errorf("restored document: %d, %v", n, err)
	}
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
