package store_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"glimpse/engine/store"
)

// TestCheckWritableFailsWhileWritesFail holds SQLite's write lock on the
// database file, as a writer stuck on a full disk would: a ping still
// answers, so a readiness probe that only pings would say ready, while
// CheckWritable must fail, and succeed again once writes go through.
func TestCheckWritableFailsWhileWritesFail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := store.Open(ctx, store.Config{DataDir: t.TempDir()}, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close(ctx)
	if err := s.CheckWritable(ctx); err != nil {
		t.Fatalf("CheckWritable on a healthy store: %v", err)
	}
	other, err := sql.Open("sqlite", "file:"+s.SQL().Path()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
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
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping failed too (%v), so this test cannot tell a write check from a ping", err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckWritable(ctx); err != nil {
		t.Errorf("CheckWritable once the lock was released: %v", err)
	}
}
