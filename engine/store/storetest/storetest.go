// Package storetest gives tests a database of their own on a server shared by
// the whole test binary. Starting FerretDB per test would cost far more than
// the tests themselves; a fresh, uniquely named database per test keeps them
// independent and lets them run in parallel.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"glimpse/engine/store"
	"glimpse/engine/store/sqlite"
)

// EnvURI names the environment variable that points the tests at a real
// MongoDB instead of the embedded FerretDB, to check both speak the same way.
const EnvURI = "GLIMPSE_TEST_MONGODB_URI"

// EnvDBServer names the environment variable holding the path of a built
// glimpse-testdb (cmd/testdb; make go-test builds bin/glimpse-testdb and sets
// it). Each test binary runs it, in a process of its own, as the shared
// MongoDB-compatible server of OpenMongo; unset, the first test binary of a
// run builds it with go build (testDBBinary). Out of process, under -race
// the server is not instrumented: the race detector and checkptr spent most
// of the test suite's CPU inside FerretDB and the transpiled SQLite, which
// are not our code. And the shipped binary has no FerretDB to run in the
// test process (issue #33).
const EnvDBServer = "GLIMPSE_TEST_DB_SERVER"

// EnvDurable, when set, gives the shared server (glimpse-testdb without
// --throwaway) and the store opened on it the app's durability (store.DurableAtCheckpoints) instead of
// store.Throwaway: benchmarks that time writes set it, so their figures are
// the app's.
const EnvDurable = "GLIMPSE_TEST_DB_DURABLE"

// shared is the server of this test binary, started on first use.
type shared struct {
	once    sync.Once
	store   *store.Store
	dataDir string    // removed by Main; empty with an external server
	process *dbServer // the glimpse-testdb process, with the embedded server
	err     error
}

// server is per test binary by construction: a package variable is the only
// thing that outlives a single test.
var server shared

// start opens the shared server. Its logger prints only FerretDB's warnings
// and errors, which point at real problems rather than routine connections.
func (sh *shared) start() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// The tests' databases are dropped after each test: nothing waits for the disk,
	// unless a benchmark asks for the app's durability (EnvDurable).
	cfg := store.Config{URI: os.Getenv(EnvURI), Database: "glimpse_test", Durability: store.Throwaway,
		Monitor: queryMonitor()}
	if os.Getenv(EnvDurable) != "" {
		cfg.Durability = store.DurableAtCheckpoints
	}
	if cfg.URI == "" {
		dir, err := os.MkdirTemp("", "glimpse-storetest-")
		if err != nil {
			sh.err = err
			return
		}
		sh.dataDir, cfg.DataDir = dir, dir
		// Not under ctx's minute: a first build on a cold cache takes longer.
		bin, err := testDBBinary(context.Background())
		if err == nil {
			sh.process, cfg.URI, err = startDBServer(ctx, bin, dir)
		}
		if err != nil {
			sh.err = err
			_ = os.RemoveAll(dir)
			return
		}
		cfg.ServerDataDir = dir
	}
	sh.store, sh.err = store.Open(ctx, cfg, logger)
	if sh.err != nil && sh.dataDir != "" {
		_ = os.RemoveAll(sh.dataDir)
	}
}

// Open returns a Store on a new, empty database that is dropped when the test
// ends. The server behind it is the embedded FerretDB (on a private Unix
// socket), or the MongoDB at $GLIMPSE_TEST_MONGODB_URI when that is set.
func Open(tb testing.TB) *store.Store {
	tb.Helper()
	s := OpenMongo(tb)
	if os.Getenv(EnvURI) == "" {
		s = s.WithSQL(OpenSQL(tb))
	}
	return s
}

// OpenMongo returns a Store on a new, empty database of the shared server,
// dropped when the test ends, with no embedded SQLite database: app.Open
// then takes the MongoDB stores of every domain that has its own
// (engine/app/stores.go), as in production.
func OpenMongo(tb testing.TB) *store.Store {
	tb.Helper()
	server.once.Do(server.start)
	if server.err != nil {
		tb.Fatalf("storetest: open shared server: %v", server.err)
	}
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails
	s := server.store.WithDatabase("t_" + hex.EncodeToString(b[:]))
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.DB().Drop(ctx); err != nil {
			tb.Errorf("storetest: drop database %s: %v", s.DB().Name(), err)
		}
	})
	return s
}

// OpenSQL returns a new, empty embedded SQLite database of the test's own,
// closed and removed when the test ends.
func OpenSQL(tb testing.TB) *sqlite.DB {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := sqlite.Open(ctx, filepath.Join(tb.TempDir(), sqlite.FileName), sqlite.SyncNever)
	if err != nil {
		tb.Fatalf("storetest: %v", err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("storetest: %v", err)
		}
	})
	return db
}

// Main runs the tests, then stops the shared server and removes its data
// directory, which would otherwise be left in os.TempDir. Use it as
//
//	func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }
//
// After tests that passed, on the embedded server, it checks every query they
// made for a scan of a collection that grows with subscribers (querycheck.go)
// and fails the run when it finds one.
func Main(m *testing.M) int {
	return run(m, true)
}

// MainUnchecked is Main without the query check, for the store's own tests,
// which scan made-up collections on purpose.
func MainUnchecked(m *testing.M) int {
	return run(m, false)
}

func run(m *testing.M, checkQueries bool) int {
	code := m.Run()
	// FerretDB's plans, in the glimpse-testdb child (dataDir is set for
	// it); a real MongoDB plans otherwise and is not checked.
	if code == 0 && checkQueries && server.store != nil && server.dataDir != "" {
		code = reportQueries(server.store)
	}
	if server.store != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := server.store.Close(ctx); err != nil {
			slog.Error("storetest: close shared server", slog.Any("err", err))
		}
	}
	if server.process != nil {
		if err := server.process.stop(); err != nil {
			slog.Error("storetest: stop glimpse-testdb", slog.Any("err", err))
		}
	}
	if server.dataDir != "" {
		_ = os.RemoveAll(server.dataDir)
	}
	return code
}

// reportQueries runs the query check and says what it found.
func reportQueries(s *store.Store) int {
	failures, checked, err := checkQueries(s)
	if err != nil {
		fmt.Fprintf(os.Stderr, "storetest: query check: %v\n", err)
		return 1
	}
	if failures != "" {
		fmt.Fprintf(os.Stderr, "storetest: these queries scan a collection that grows with subscribers (docs/store.md §10);\n"+
			"key what they look up by _id, or declare the collection in storetest.Bounded, the pass in storetest.Periodic\n"+
			"or the rare job in storetest.Rare:\n%s", failures)
		return 1
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "storetest: query check: %d query shapes on growing collections, each searched by an index\n", checked)
	}
	return 0
}
