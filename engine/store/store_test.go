package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"glimpse/engine/store"
)

// TestOpenCloseEmbedded runs a private embedded database through its whole
// life and checks that Close leaves no goroutine behind and releases the data
// directory. It is not parallel: it counts the process's goroutines.
func TestOpenCloseEmbedded(t *testing.T) {
	ctx := context.Background()
	before := runtime.NumGoroutine()
	dir := filepath.Join(t.TempDir(), "nested", "data") // Open must create it

	s, err := store.Open(ctx, store.Config{DataDir: dir}, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if !s.Embedded() || s.SQL() == nil || s.DB() != nil {
		t.Errorf("Embedded() = %v, SQL() = %v, DB() = %v for a store without URI", s.Embedded(), s.SQL(), s.DB())
	}
	if err := s.CheckWritable(ctx); err != nil {
		t.Fatalf("CheckWritable: %v", err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "glimpse.db")); err != nil {
		t.Errorf("database file: %v", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o700 {
		t.Errorf("data directory mode = %o, want 700", got)
	}

	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d before Open, %d after Close\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}

// TestReopenKeepsData checks the embedded data survives a restart, which is
// the point of keeping it in DataDir.
func TestReopenKeepsData(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := store.Config{DataDir: t.TempDir()}

	s, err := store.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if _, err := s.SQL().Writer().ExecContext(ctx, `CREATE TABLE kept (x TEXT)`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SQL().Writer().ExecContext(ctx, `INSERT INTO kept VALUES ('kept')`); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s, err = store.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close(ctx)
	var n int
	if err := s.SQL().Reader().QueryRowContext(ctx, `SELECT count(*) FROM kept WHERE x = 'kept'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("after reopen: count = %d, %v; want 1", n, err)
	}
}

func TestOpenConfigErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, cfg := range map[string]store.Config{
		"URI and no database": {URI: "mongodb://127.0.0.1:1/"},
		"no data dir":         {},
		"data dir with ?":     {DataDir: t.TempDir() + "/a?b"},
		"unreachable server":  {URI: "mongodb://127.0.0.1:1/?connectTimeoutMS=200&serverSelectionTimeoutMS=300", Database: "app"},
		"malformed URI":       {URI: "postgres://x", Database: "app"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := store.Open(ctx, cfg, nil)
			if err == nil {
				_ = s.Close(ctx)
				t.Fatal("Open succeeded, want an error")
			}
			if !strings.HasPrefix(err.Error(), "store: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

// TestEmbeddedLocksTheDataDirectory: two processes with their own writer
// on one database would each believe its single writer serialises every
// write; the lock on the directory itself (whatever its mode) refuses the
// second until the first stops.
func TestEmbeddedLocksTheDataDirectory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, mode := range []os.FileMode{0o700, 0o755} {
		dir := t.TempDir()
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		cfg := store.Config{DataDir: dir}
		s, err := store.Open(ctx, cfg, nil)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		s2, err := store.Open(ctx, cfg, nil)
		if err == nil {
			_ = s2.Close(ctx)
			t.Fatalf("mode %o: a second Open on a data directory in use succeeded", mode)
		}
		if !errors.Is(err, store.ErrDataDirInUse) {
			t.Errorf("mode %o: second Open: %v, want ErrDataDirInUse", mode, err)
		}
		if err := s.Close(ctx); err != nil {
			t.Fatalf("Close: %v", err)
		}
		s3, err := store.Open(ctx, cfg, nil)
		if err != nil {
			t.Fatalf("mode %o: Open once the first stopped: %v", mode, err)
		}
		if err := s3.Close(ctx); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
}

// TestAttachBesideARunningServer: a short command (login-link, staff) opens
// the directory a server holds, and what each writes the other reads.
func TestAttachBesideARunningServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	server, err := store.Open(ctx, store.Config{DataDir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close(ctx)
	if _, err := server.SQL().Writer().ExecContext(ctx, `CREATE TABLE notes (x TEXT)`); err != nil {
		t.Fatal(err)
	}
	command, err := store.Open(ctx, store.Config{DataDir: dir, Attach: true}, nil)
	if err != nil {
		t.Fatalf("Open with Attach beside a server: %v", err)
	}
	if _, err := command.SQL().Writer().ExecContext(ctx, `INSERT INTO notes VALUES ('from the command')`); err != nil {
		t.Fatal(err)
	}
	if err := command.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := server.SQL().Reader().QueryRowContext(ctx, `SELECT count(*) FROM notes`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the server reads %d rows (%v), want the command's 1", n, err)
	}
	// The command released nothing it did not hold: the server keeps the lock.
	if s2, err := store.Open(ctx, store.Config{DataDir: dir}, nil); !errors.Is(err, store.ErrDataDirInUse) {
		if err == nil {
			_ = s2.Close(ctx)
		}
		t.Errorf("Open beside the server after the command closed: %v, want ErrDataDirInUse", err)
	}
}

// privateDir is a temporary directory only this user may enter, as the app
// makes its data directory.
func privateDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}
