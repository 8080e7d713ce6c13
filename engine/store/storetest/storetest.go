// Package storetest gives each test a database of its own: an embedded SQLite
// database in the test's temporary directory (Open, OpenSQL), or a fresh,
// uniquely named database on a MongoDB server shared by the whole test binary
// (OpenMongo): the MongoDB at $GLIMPSE_TEST_MONGODB_URI, or a test server
// that speaks MongoDB's wire protocol run as a process of its own
// ($GLIMPSE_TEST_DB_SERVER), so the MongoDB stores' contract suites run in
// make test on a machine with no MongoDB.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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
// MongoDB: OpenMongo's databases are then on it, and so are Open's.
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

// EnvDurable, when set, gives the tests' databases the app's durability
// (SQLite's synchronous=NORMAL; glimpse-testdb without --throwaway) instead
// of never waiting for the disk: benchmarks that time writes set it, so
// their figures are the app's.
const EnvDurable = "GLIMPSE_TEST_DB_DURABLE"

// shared is the MongoDB server of this test binary, started on first use.
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

// start connects to the MongoDB at EnvURI, or starts the test server.
func (sh *shared) start() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := store.Config{URI: os.Getenv(EnvURI), Database: "glimpse_test", Monitor: commandMonitor()}
	if cfg.URI == "" {
		dir, err := os.MkdirTemp("", "glimpse-storetest-")
		if err != nil {
			sh.err = err
			return
		}
		sh.dataDir = dir
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
	}
	sh.store, sh.err = store.Open(ctx, cfg, logger)
}

// Open returns a Store on a new, empty database of the test's own: the
// embedded SQLite one, as the app runs by default, or, with EnvURI set, a
// database on that MongoDB.
func Open(tb testing.TB) *store.Store {
	tb.Helper()
	if os.Getenv(EnvURI) != "" {
		return OpenMongo(tb)
	}
	return store.OnSQL(OpenSQL(tb))
}

// OpenMongo returns a Store on a new, empty database of the shared MongoDB
// server, dropped when the test ends: app.Open then takes the MongoDB stores
// of every domain (engine/app/stores.go), as in production.
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
// closed and removed when the test ends. It never waits for the disk, unless
// EnvDurable asks for the app's durability (benchmarks that time writes).
func OpenSQL(tb testing.TB) *sqlite.DB {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	durability := sqlite.SyncNever
	if os.Getenv(EnvDurable) != "" {
		durability = sqlite.SyncAtCheckpoints
	}
	db, err := sqlite.Open(ctx, filepath.Join(tb.TempDir(), sqlite.FileName), durability)
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
func Main(m *testing.M) int {
	code := m.Run()
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

// StartServer runs a test server of the test's own (glimpse-testdb) and
// returns its URI and a function that stops it, for tests of what happens
// when the database goes away. The server stops at the end of the test if
// stop was not called.
func StartServer(tb testing.TB) (uri string, stop func() error) {
	tb.Helper()
	bin, err := testDBBinary(context.Background())
	if err != nil {
		tb.Fatalf("%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, uri, err := startDBServer(ctx, bin, tb.TempDir())
	if err != nil {
		tb.Fatalf("storetest: %v", err)
	}
	var once sync.Once
	var stopErr error
	stop = func() error {
		once.Do(func() { stopErr = p.stop() })
		return stopErr
	}
	tb.Cleanup(func() { _ = stop() })
	return uri, stop
}
