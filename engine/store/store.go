// Package store opens the application's database. With a URI it connects to
// MongoDB (production: a replica set, every domain on its mongostore
// implementation); without one it opens the embedded SQLite database
// (glimpse.db) in the data directory, every domain on its sqlstore
// implementation, so a fresh install needs no database server. One process
// holds a data directory at a time: a lock on the directory itself refuses a
// second (docs/store.md).
package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/store/sqlite"
)

// Timeouts for reaching MongoDB. Start-up waits up to startupTimeout for the
// server to answer (a replica set electing, a container coming up), yet a
// wrong URI fails start-up instead of hanging it. Once running, a request
// that needs a server that is gone waits at most serverSelectionTimeout
// before it fails with an error IsUnavailable recognises, so people get a
// clear 503 within seconds rather than a hung page, and the driver's monitor
// reconnects by itself when the server returns (heartbeatInterval bounds how
// long that takes to notice).
const (
	connectTimeout         = 10 * time.Second
	startupTimeout         = 10 * time.Second
	serverSelectionTimeout = 2 * time.Second
	heartbeatInterval      = time.Second
)

// Config says which database to use. It is passed in rather than read from
// the environment so that tests and several stores can coexist in one process.
type Config struct {
	// URI of a MongoDB deployment, e.g. "mongodb://db1,db2/?replicaSet=rs0".
	// Empty opens the embedded SQLite database in DataDir.
	URI string
	// DataDir holds the embedded database (glimpse.db). Used only when URI
	// is empty.
	DataDir string
	// Attach, with URI empty, lets a short command (login-link, staff) open
	// the data directory while a running server holds its lock, instead of
	// being refused. Both processes then write the same SQLite file, which
	// SQLite's own file locks serialise (each waits out the other's write
	// within its busy timeout); never for a server of its own.
	Attach bool
	// Database is the MongoDB database the application uses (URI only).
	Database string
	// Durability is how the embedded database waits for the disk; the zero
	// value is the app's. Used only when URI is empty.
	Durability Durability
	// Monitor, when set, sees every command sent to MongoDB; benchmarks use
	// it to count database round trips.
	Monitor *event.CommandMonitor
}

// Durability is how an embedded database's writes wait for the disk.
type Durability int

const (
	// DurableAtCheckpoints: SQLite's write-ahead log with synchronous=NORMAL.
	// A crash of the process loses nothing; a power cut may lose the last
	// commits (https://www.sqlite.org/pragma.html#pragma_synchronous).
	DurableAtCheckpoints Durability = iota
	// Throwaway never waits for the disk (synchronous=OFF): a power cut may
	// leave the file corrupt. Only for databases nobody needs afterwards.
	Throwaway
)

func (d Durability) sqlite() sqlite.Durability {
	if d == Throwaway {
		return sqlite.SyncNever
	}
	return sqlite.SyncAtCheckpoints
}

// Store is an open database: the embedded SQLite one (SQL) or a MongoDB
// deployment (DB). A Store made by Open owns it; views made by OnSQL and
// WithDatabase share what they are given and must not outlive it.
type Store struct {
	client *mongo.Client
	db     *mongo.Database
	// sql is the embedded database; nil on MongoDB.
	sql *sqlite.DB
	// unlock releases the data directory's lock (nil when attached beside a
	// running server, or on MongoDB).
	unlock func() error
	owner  bool // only the Store returned by Open closes things
	// instance names this process's Store in CheckWritable's row.
	instance string

	closeOnce sync.Once
	closeErr  error
}

// Open opens the database cfg describes: MongoDB, pinged so that a bad
// configuration fails here rather than on the first request, or the
// embedded SQLite database, created and migrated when new. The caller must
// Close the Store. A nil logger discards logs.
func Open(ctx context.Context, cfg Config, logger *slog.Logger) (*Store, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if cfg.URI != "" {
		if cfg.Database == "" {
			return nil, errors.New("store: Config.Database is empty")
		}
		client, err := connect(ctx, cfg.URI, cfg.Monitor)
		if err != nil {
			return nil, err
		}
		return &Store{client: client, db: client.Database(cfg.Database), owner: true, instance: engine.NewID()}, nil
	}
	return openEmbedded(ctx, cfg, logger)
}

// openEmbedded locks the data directory and opens glimpse.db in it.
func openEmbedded(ctx context.Context, cfg Config, logger *slog.Logger) (*Store, error) {
	if cfg.DataDir == "" {
		return nil, errors.New("store: Config.DataDir is empty and no URI is set")
	}
	abs, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("store: data directory %q: %w", cfg.DataDir, err)
	}
	// The path becomes part of a "file:" URI for SQLite; these characters
	// would be read as URI syntax.
	if strings.ContainsAny(abs, "?#%") {
		return nil, fmt.Errorf("store: data directory %q must not contain '?', '#' or '%%'", abs)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("store: create data directory: %w", err)
	}
	unlock, err := lockDataDir(abs)
	if errors.Is(err, ErrDataDirInUse) && cfg.Attach {
		unlock, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	db, err := sqlite.Open(ctx, filepath.Join(abs, sqlite.FileName), cfg.Durability.sqlite())
	if err != nil {
		if unlock != nil {
			_ = unlock()
		}
		return nil, fmt.Errorf("store: %w", err)
	}
	logger.DebugContext(ctx, "store: embedded database opened", slog.String("path", db.Path()))
	return &Store{sql: db, unlock: unlock, owner: true, instance: engine.NewID()}, nil
}

// OnSQL returns a Store over an embedded database opened elsewhere (tests: a
// database of the test's own). The Store does not close db.
func OnSQL(db *sqlite.DB) *Store {
	return &Store{sql: db, instance: engine.NewID()}
}

// SQL is the embedded SQLite database, or nil when the store is a MongoDB
// deployment: each domain's storage is then its MongoDB implementation.
func (s *Store) SQL() *sqlite.DB { return s.sql }

// connect makes a client and pings the server, because mongo.Connect itself
// does no I/O and would report nothing about an unreachable server. Our
// timeouts come before ApplyURI so that ones given in the URI win.
func connect(ctx context.Context, uri string, monitor *event.CommandMonitor) (*mongo.Client, error) {
	opts := options.Client().
		SetConnectTimeout(connectTimeout).
		SetServerSelectionTimeout(serverSelectionTimeout).
		SetHeartbeatInterval(heartbeatInterval).
		ApplyURI(uri)
	if monitor != nil {
		opts.SetMonitor(monitor)
	}
	client, err := mongo.Connect(opts)
	if err != nil {
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	// Each ping gives up after the short selection timeout; start-up keeps
	// trying for longer, since a server that is still starting is not a
	// wrong configuration.
	ctx, cancel := context.WithTimeout(ctx, startupTimeout)
	defer cancel()
	for {
		err := client.Ping(ctx, nil)
		if err == nil {
			return client, nil
		}
		select {
		case <-ctx.Done():
			_ = client.Disconnect(context.Background())
			return nil, fmt.Errorf("store: ping: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// DB returns the MongoDB database, or nil on the embedded store.
func (s *Store) DB() *mongo.Database { return s.db }

// Client returns the MongoDB client, for the few operations that are not
// scoped to one database (listing or dropping databases); nil on the
// embedded store.
func (s *Store) Client() *mongo.Client { return s.client }

// Embedded reports whether the store is the embedded SQLite database.
func (s *Store) Embedded() bool { return s.sql != nil }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if s.sql != nil {
		return s.sql.Ping(ctx)
	}
	return s.client.Ping(ctx, nil)
}

// WithDatabase returns a view of the same MongoDB connection on another
// database, so tests can give each test its own database on one shared
// server. The view's Close does nothing; close the Store it came from.
func (s *Store) WithDatabase(name string) *Store {
	return &Store{client: s.client, db: s.client.Database(name), instance: s.instance}
}

// Close disconnects from MongoDB, or closes the embedded database and then
// releases the data directory's lock, in that order so that the next
// process opens a closed file. Calling it again returns the first result; on
// a view it does nothing.
func (s *Store) Close(ctx context.Context) error {
	if !s.owner {
		return nil
	}
	s.closeOnce.Do(func() {
		var errs []error
		if s.client != nil {
			if err := s.client.Disconnect(ctx); err != nil {
				errs = append(errs, fmt.Errorf("store: disconnect: %w", err))
			}
		}
		if s.sql != nil {
			if err := s.sql.Close(); err != nil {
				errs = append(errs, fmt.Errorf("store: close SQLite: %w", err))
			}
		}
		if s.unlock != nil {
			if err := s.unlock(); err != nil {
				errs = append(errs, fmt.Errorf("store: unlock the data directory: %w", err))
			}
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}
