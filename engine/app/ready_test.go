package app_test

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
	_ "modernc.org/sqlite" // to lock the embedded database's file as a stuck writer would

	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/store"
)

// TestReadyzFailsWhenWritesFail: /readyz must answer 503 while the database
// answers pings but takes no writes (a full disk, a stuck writer), which a
// ping-only probe reported as ready. The test holds SQLite's write lock on
// the embedded database's file, then releases it.
func TestReadyzFailsWhenWritesFail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, store.Config{DataDir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close(ctx)
	a, err := app.Open(ctx, load(t, nil), slog.New(slog.DiscardHandler), engine.SystemClock{}, st)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := a.Server("test", false)
	if err != nil {
		t.Fatal(err)
	}
	readyz := func() int {
		t.Helper()
		res, err := srv.App().Test(httptest.NewRequest(http.MethodGet, "/readyz", nil),
			fiber.TestConfig{Timeout: time.Minute, FailOnTimeout: true})
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		return res.StatusCode
	}
	if got := readyz(); got != http.StatusOK {
		t.Fatalf("/readyz on a healthy store: %d", got)
	}

	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "glimpse.db")+"?mode=rw&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatalf("take the write lock: %v", err)
	}
	if got := readyz(); got != http.StatusServiceUnavailable {
		t.Errorf("/readyz while no write goes through: %d, want 503", got)
	}
	if err := st.Ping(ctx); err != nil {
		t.Fatalf("ping failed too (%v): the test cannot tell a write check from a ping", err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for readyz() != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("/readyz stayed unavailable after writes resumed")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
