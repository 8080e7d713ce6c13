// Package store owns the connection to MongoDB. With a URI it talks to a real
// deployment (production: a replica set); without one it starts FerretDB with
// its SQLite backend inside the process, listening on 127.0.0.1 only, so a
// fresh install needs no database server while the same driver code runs
// against both. The embedded path also repairs FerretDB's missed `_id` index
// (see EnsureCollections), because every hot lookup in the application is by
// `_id`.
package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Timeouts for reaching the server. They are generous for the embedded
// server on a busy 2-core machine, yet short enough that a wrong URI fails
// start-up instead of hanging it.
const (
	connectTimeout         = 10 * time.Second
	serverSelectionTimeout = 10 * time.Second
)

// Config says which MongoDB to use. It is passed in rather than read from the
// environment so that tests and several stores can coexist in one process.
type Config struct {
	// URI of a MongoDB deployment, e.g. "mongodb://db1,db2/?replicaSet=rs0".
	// Empty starts the embedded FerretDB.
	URI string
	// DataDir is where the embedded FerretDB keeps its SQLite files
	// (one <database>.sqlite per database). Used only when URI is empty.
	DataDir string
	// Database is the name of the database the application uses.
	Database string
	// Monitor, when set, sees every command sent to the server; benchmarks
	// use it to count database round trips.
	Monitor *event.CommandMonitor
}

// Store is an open connection to one database. A Store made by Open owns the
// client (and the embedded server, if any); views made by WithDatabase share
// them and must not outlive it.
type Store struct {
	client *mongo.Client
	db     *mongo.Database
	emb    *embedded // nil when connected to an external server
	owner  bool      // only the Store returned by Open shuts things down

	closeOnce sync.Once
	closeErr  error
}

// embedded is a FerretDB running in this process.
type embedded struct {
	dataDir string // absolute; FerretDB keeps <dataDir>/<database>.sqlite
	cancel  context.CancelFunc
	done    chan struct{} // closed when FerretDB's Run has returned
}

// newFerretDBMu serialises ferretdb.New: it writes a package-level version
// field, which races when two stores start at once (tests do).
var newFerretDBMu sync.Mutex

// Open connects to the database described by cfg, starting the embedded
// FerretDB first when cfg.URI is empty, and pings it so a bad configuration
// fails here rather than on the first request. The caller must Close the
// Store. A nil logger discards logs.
func Open(ctx context.Context, cfg Config, logger *slog.Logger) (*Store, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Database == "" {
		return nil, errors.New("store: Config.Database is empty")
	}

	uri := cfg.URI
	var emb *embedded
	if uri == "" {
		var err error
		emb, uri, err = startEmbedded(ctx, cfg.DataDir, logger)
		if err != nil {
			return nil, err
		}
	}

	client, err := connect(ctx, uri, cfg.Monitor)
	if err != nil {
		if emb != nil {
			_ = emb.stop(context.Background())
		}
		return nil, err
	}

	if emb != nil {
		logger.InfoContext(ctx, "store: embedded FerretDB started", slog.String("dataDir", emb.dataDir))
	}
	return &Store{client: client, db: client.Database(cfg.Database), emb: emb, owner: true}, nil
}

// connect makes a client and pings the server, because mongo.Connect itself
// does no I/O and would report nothing about an unreachable server. Our
// timeouts come before ApplyURI so that ones given in the URI win.
func connect(ctx context.Context, uri string, monitor *event.CommandMonitor) (*mongo.Client, error) {
	opts := options.Client().
		SetConnectTimeout(connectTimeout).
		SetServerSelectionTimeout(serverSelectionTimeout).
		ApplyURI(uri)
	if monitor != nil {
		opts.SetMonitor(monitor)
	}
	client, err := mongo.Connect(opts)
	if err != nil {
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	if err := client.Ping(ctx, nil); err != nil {
		_ = client.Disconnect(context.Background())
		return nil, fmt.Errorf("store: ping: %w", err)
	}
	return client, nil
}

// startEmbedded starts FerretDB on a random loopback port and returns its URI
// once it accepts connections.
func startEmbedded(ctx context.Context, dataDir string, logger *slog.Logger) (*embedded, string, error) {
	if dataDir == "" {
		return nil, "", errors.New("store: Config.DataDir is empty and no URI is set")
	}
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, "", fmt.Errorf("store: data directory %q: %w", dataDir, err)
	}
	// The directory becomes part of a "file:" URI for FerretDB and for our
	// own SQLite handle; these characters would be read as URI syntax.
	if strings.ContainsAny(abs, "?#%") {
		return nil, "", fmt.Errorf("store: data directory %q must not contain '?', '#' or '%%'", abs)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, "", fmt.Errorf("store: create data directory: %w", err)
	}

	fcfg := &ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: "127.0.0.1:0"}, // loopback only: it has no authentication
		Logger:   slog.New(minLevelHandler{Handler: logger.Handler(), min: slog.LevelError}).With(slog.String("component", "ferretdb")),
		Handler:  "sqlite",
		// The trailing slash matters: FerretDB treats the URI as a directory.
		SQLiteURL: "file:" + abs + "/",
	}
	newFerretDBMu.Lock()
	f, err := ferretdb.New(fcfg)
	newFerretDBMu.Unlock()
	if err != nil {
		return nil, "", fmt.Errorf("store: start embedded FerretDB: %w", err)
	}

	// Its own context: the server lives until Close, not until the caller's
	// start-up context ends.
	runCtx, cancel := context.WithCancel(context.Background())
	emb := &embedded{dataDir: abs, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(emb.done)
		_ = f.Run(runCtx) // always nil; it stops when runCtx is canceled
	}()

	// The listener exists once New returns, so MongoDBURI does not block.
	uri := f.MongoDBURI()
	if err := waitAccepting(ctx, uri, emb.done); err != nil {
		_ = emb.stop(context.Background())
		return nil, "", err
	}
	return emb, uri, nil
}

// waitAccepting dials the server until a TCP connection succeeds, so that the
// driver's first attempt does not race the accept loop.
func waitAccepting(ctx context.Context, uri string, stopped <-chan struct{}) error {
	u, err := url.Parse(uri)
	if err != nil {
		return fmt.Errorf("store: embedded FerretDB URI %q: %w", uri, err)
	}
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	var d net.Dialer
	for {
		conn, err := d.DialContext(ctx, "tcp", u.Host)
		if err == nil {
			_ = conn.Close()
			return nil
		}
		select {
		case <-stopped:
			return errors.New("store: embedded FerretDB stopped during start-up")
		case <-ctx.Done():
			return fmt.Errorf("store: embedded FerretDB not accepting connections: %w", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop cancels FerretDB and waits for its listener, connections and SQLite
// handles to close, so the data directory can be removed afterwards.
func (e *embedded) stop(ctx context.Context) error {
	e.cancel()
	select {
	case <-e.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("store: wait for embedded FerretDB to stop: %w", ctx.Err())
	}
}

// DB returns the application's database.
func (s *Store) DB() *mongo.Database { return s.db }

// Client returns the underlying client, for the few operations that are not
// scoped to one database (listing or dropping databases).
func (s *Store) Client() *mongo.Client { return s.client }

// Embedded reports whether the store runs on the in-process FerretDB, whose
// limits (no transactions, no change streams, only `_id` pushdown) callers
// may need to respect.
func (s *Store) Embedded() bool { return s.emb != nil }

// WithDatabase returns a view of the same connection on another database.
// It exists so tests can give each test its own database on one shared
// server. The view's Close does nothing; close the Store it came from.
func (s *Store) WithDatabase(name string) *Store {
	return &Store{client: s.client, db: s.client.Database(name), emb: s.emb}
}

// Close disconnects the client and then stops the embedded FerretDB, in that
// order so that FerretDB's connections end cleanly rather than being cut off.
// It waits for FerretDB to finish until ctx ends. Calling it again returns the
// first result; on a view from WithDatabase it does nothing.
func (s *Store) Close(ctx context.Context) error {
	if !s.owner {
		return nil
	}
	s.closeOnce.Do(func() {
		var errs []error
		if err := s.client.Disconnect(ctx); err != nil {
			errs = append(errs, fmt.Errorf("store: disconnect: %w", err))
		}
		if s.emb != nil {
			if err := s.emb.stop(ctx); err != nil {
				errs = append(errs, err)
			}
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// minLevelHandler drops records below min. FerretDB logs every connection at
// Info and dumps every error reply (an "already exists" from create, a
// duplicate key, the driver's endSessions) at Warn, which would drown the
// application's own logs; only its Error records (a connection it had to
// cut, a panic) point at a problem of ours.
type minLevelHandler struct {
	slog.Handler
	min slog.Level
}

// Enabled reports whether the record passes both the floor and the wrapped handler.
func (h minLevelHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

// WithAttrs keeps the floor on derived handlers.
func (h minLevelHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return minLevelHandler{Handler: h.Handler.WithAttrs(attrs), min: h.min}
}

// WithGroup keeps the floor on derived handlers.
func (h minLevelHandler) WithGroup(name string) slog.Handler {
	return minLevelHandler{Handler: h.Handler.WithGroup(name), min: h.min}
}
