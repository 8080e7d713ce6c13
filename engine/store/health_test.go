package store

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"
)

// TestCheckWritableFailsWhileWritesFail holds SQLite's write lock on the
// database file, as a writer stuck on a full disk would: a ping still
// answers, so a readiness probe that only pings would say ready, while
// CheckWritable must fail, and succeed again once writes go through.
// It is an internal test because it opens the SQLite file itself.
func TestCheckWritableFailsWhileWritesFail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, Config{DataDir: dir, Database: "app"}, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close(ctx)
	if err := s.CheckWritable(ctx); err != nil {
		t.Fatalf("CheckWritable on a healthy store: %v", err)
	}
	// The database file exists once something is written.
	if _, err := s.db.Collection("c").InsertOne(ctx, map[string]string{"_id": "x"}); err != nil {
		t.Fatal(err)
	}

	db, err := s.openSQLite()
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
	blocked, cancel := context.WithTimeout(ctx, time.Second)
	err = s.CheckWritable(blocked)
	cancel()
	if err == nil {
		t.Error("CheckWritable succeeded while no write can go through")
	}
	if err := s.client.Ping(ctx, nil); err != nil {
		t.Fatalf("ping failed too (%v), so this test cannot tell a write check from a ping", err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}

	// FerretDB finishes the abandoned write once the lock is free; the
	// check passes again.
	defer func() {
		if t.Failed() {
			return
		}
		// The same with the embedded store's own database: its write lock
		// held, the check fails; released, it passes.
		if _, err := s.sql.Writer().ExecContext(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		own, err := sql.Open("sqlite", "file:"+s.sql.Path()+"?_pragma=busy_timeout(10000)")
		if err != nil {
			t.Fatal(err)
		}
		defer own.Close()
		conn, err := own.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			t.Fatalf("take the write lock: %v", err)
		}
		blocked, cancel := context.WithTimeout(ctx, time.Second)
		err = s.CheckWritable(blocked)
		cancel()
		if err == nil {
			t.Error("CheckWritable succeeded while the embedded SQLite database takes no write")
		}
		if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
			t.Fatal(err)
		}
		if err := s.CheckWritable(ctx); err != nil {
			t.Errorf("CheckWritable once the SQLite lock was released: %v", err)
		}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := s.CheckWritable(ctx)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("CheckWritable after the lock was released: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
