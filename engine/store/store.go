// Package store owns the connection to MongoDB. With a URI it talks to a real
// deployment (production: a replica set); without one it starts FerretDB with
// its SQLite backend inside the process, listening only on a Unix socket in a
// directory no other user can enter (FerretDB has no authentication, and a
// loopback TCP port would answer every user on the machine; docs/store.md §5),
// so a fresh install needs no database server while the same driver code runs
// against both. The embedded path also repairs FerretDB's missed `_id` index
// (see EnsureCollections, docs/store.md §6), because every hot lookup in the
// application is by `_id`.
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
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/store/sqlite"
)

// Timeouts for reaching the server. Start-up waits up to startupTimeout
// for the server to answer (generous for the embedded server on a busy
// 2-core machine, yet short enough that a wrong URI fails start-up instead
// of hanging it). Once running, a request that needs a server that is gone
// waits at most serverSelectionTimeout before it fails with an error
// IsUnavailable recognises, so people get a clear 503 within seconds rather
// than a hung page, and the driver's monitor reconnects by itself when the
// server returns (heartbeatInterval bounds how long that takes to notice).
const (
	connectTimeout         = 10 * time.Second
	startupTimeout         = 10 * time.Second
	serverSelectionTimeout = 2 * time.Second
	heartbeatInterval      = time.Second
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
	// ServerDataDir, with a URI that reaches a `glimpse db-server` on this
	// machine, is that server's data directory. The store then keeps
	// FerretDB's SQLite `_id` indexes (EnsureCollections) and answers
	// ExplainIDLookup as it does for a server in its own process; without
	// it, every lookup by `_id` on such a server scans. Empty for MongoDB.
	ServerDataDir string
	// Attach, with URI empty, lets a short command (login-link, staff)
	// reach the data directory's running server: when another process holds
	// the directory's lock and serves it on the socket in the directory, the
	// store connects to that socket, as to a `glimpse db-server`, instead of
	// refusing. Never for a server of its own: it would lose its database
	// when the other process stops.
	Attach bool
	// Database is the name of the database the application uses.
	Database string
	// Durability is how the embedded FerretDB waits for the disk; the zero
	// value is the app's. Used only when URI is empty.
	Durability Durability
	// Monitor, when set, sees every command sent to the server; benchmarks
	// use it to count database round trips.
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
	// leave the files corrupt. Only for databases nobody needs afterwards,
	// the tests' (storetest), where the waits were half the suite's system time.
	Throwaway
)

// sqlitePragma is the SQLite setting d stands for.
func (d Durability) sqlitePragma() string {
	if d == Throwaway {
		return "synchronous(off)"
	}
	return "synchronous(normal)"
}

// Store is an open connection to one database. A Store made by Open owns the
// client (and the embedded server, if any); views made by WithDatabase share
// them and must not outlive it.
type Store struct {
	client *mongo.Client
	db     *mongo.Database
	emb    *embedded // nil when connected to an external server
	owner  bool      // only the Store returned by Open shuts things down
	// instance names this process's Store in CheckWritable's document.
	instance string
	// sql is the embedded SQLite database in the data directory, beside
	// FerretDB's files, for the domains whose stores have moved to it
	// (docs/store.md); nil on MongoDB.
	sql *sqlite.DB

	closeOnce sync.Once
	closeErr  error
}

// embedded is a FerretDB running in this process, or, with cancel nil, one
// run by another process (`glimpse db-server`) whose files this store may
// read.
type embedded struct {
	dataDir string // absolute; FerretDB keeps <dataDir>/<database>.sqlite
	socket  string // the Unix socket it listens on
	// tempDir is the private directory holding the socket when the data
	// directory could not (path too long, or open to others); removed at stop.
	tempDir string
	cancel  context.CancelFunc
	done    chan struct{} // closed when FerretDB's Run has returned
	// unlock releases the data directory's lock (lockDataDir), held from
	// before FerretDB starts until it has stopped.
	unlock func() error
}

// socketName ends in "sock" because that is how the Go driver tells a Unix
// socket from a host name in a URI (address.Address.Network).
const socketName = "mongodb.sock"

// maxSocketPath is the longest socket path we use: sun_path holds 108 bytes
// on Linux and 104 on macOS, including the terminating NUL.
const maxSocketPath = 100

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
	if uri != "" && cfg.ServerDataDir != "" {
		abs, err := filepath.Abs(cfg.ServerDataDir)
		if err != nil {
			return nil, fmt.Errorf("store: server data directory %q: %w", cfg.ServerDataDir, err)
		}
		emb = &embedded{dataDir: abs}
	}
	if uri == "" {
		var err error
		emb, uri, err = startEmbedded(ctx, cfg.DataDir, cfg.Durability, logger)
		if errors.Is(err, ErrDataDirInUse) && cfg.Attach {
			if running, runningURI, ok := attachRunning(ctx, cfg.DataDir); ok {
				emb, uri, err = running, runningURI, nil
			}
		}
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

	if emb != nil && emb.cancel != nil {
		logger.InfoContext(ctx, "store: embedded FerretDB started", slog.String("dataDir", emb.dataDir),
			slog.String("socket", emb.socket))
	}
	var sqlDB *sqlite.DB
	if cfg.URI == "" {
		durability := sqlite.SyncAtCheckpoints
		if cfg.Durability == Throwaway {
			durability = sqlite.SyncNever
		}
		if sqlDB, err = sqlite.Open(ctx, filepath.Join(emb.dataDir, sqlite.FileName), durability); err != nil {
			_ = client.Disconnect(ctx)
			_ = emb.stop(context.Background())
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	return &Store{client: client, db: client.Database(cfg.Database), emb: emb, owner: true,
		instance: engine.NewID(), sql: sqlDB}, nil
}

// SQL is the embedded SQLite database, or nil when the store is a MongoDB
// deployment: each domain's storage is then its MongoDB implementation.
func (s *Store) SQL() *sqlite.DB { return s.sql }

// WithSQL returns a view of s whose embedded SQLite database is db (tests: a
// database of the test's own). The view does not close db.
func (s *Store) WithSQL(db *sqlite.DB) *Store {
	return &Store{client: s.client, db: s.db, emb: s.emb, instance: s.instance, sql: db}
}

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
	// trying for longer, since a server that is still starting (a replica set
	// electing, a container coming up) is not a wrong configuration.
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

// ServeEmbedded runs the embedded FerretDB on dataDir as a server of its
// own, for other processes of the same user to share (`glimpse db-server`),
// until ctx ends. ready gets the MONGODB_URI that reaches it once it accepts
// connections; an error from ready stops the server.
func ServeEmbedded(ctx context.Context, dataDir string, durability Durability, logger *slog.Logger, ready func(uri string) error) error {
	emb, uri, err := startEmbedded(ctx, dataDir, durability, logger)
	if err != nil {
		return err
	}
	if err := ready(uri); err != nil {
		return errors.Join(err, emb.stop(context.Background()))
	}
	<-ctx.Done()
	return emb.stop(context.Background())
}

// attachRunning finds the server another process runs on dataDir by its
// socket in the directory (a private data directory with a short path has
// it there; otherwise it is in that process's own temporary directory, and
// ok is false).
func attachRunning(ctx context.Context, dataDir string) (emb *embedded, uri string, ok bool) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, "", false
	}
	sock := filepath.Join(abs, socketName)
	d := net.Dialer{Timeout: time.Second}
	conn, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, "", false
	}
	_ = conn.Close()
	return &embedded{dataDir: abs, socket: sock}, "mongodb://" + url.PathEscape(sock) + "/", true
}

// startEmbedded starts FerretDB on a Unix socket and returns its URI once
// it accepts connections.
func startEmbedded(ctx context.Context, dataDir string, durability Durability, logger *slog.Logger) (*embedded, string, error) {
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
	// One server per data directory: two on the same SQLite files corrupt
	// them. The lock comes first, so a second process is refused whichever
	// directory its socket would be in.
	unlock, err := lockDataDir(abs)
	if err != nil {
		return nil, "", err
	}
	sockDir, tempDir, err := socketDir(abs)
	if err != nil {
		_ = unlock()
		return nil, "", err
	}
	cleanup := func() {
		if tempDir != "" {
			_ = os.RemoveAll(tempDir)
		}
		_ = unlock()
	}
	sock := filepath.Join(sockDir, socketName)
	if err := removeStaleSocket(ctx, sock); err != nil {
		cleanup()
		return nil, "", err
	}

	fcfg := &ferretdb.Config{
		// A Unix socket only: FerretDB has no authentication, so who may
		// connect is decided by the file system (a 0700 directory).
		Listener: ferretdb.ListenerConfig{Unix: sock},
		Logger:   slog.New(minLevelHandler{base: logger.Handler(), min: slog.LevelError}).With(slog.String("component", "ferretdb")),
		Handler:  "sqlite",
		// The trailing slash matters: FerretDB treats the URI as a directory.
		// In WAL mode, synchronous=NORMAL syncs the log at checkpoints
		// rather than at every commit: a crash of this process (or of
		// FerretDB) loses nothing, a power cut may lose the last commits
		// (SQLite's own advice for WAL: https://www.sqlite.org/pragma.html#pragma_synchronous).
		// Every write here waited on a disk flush before (docs/store.md).
		SQLiteURL: "file:" + abs + "/?_pragma=" + durability.sqlitePragma(),
	}
	newFerretDBMu.Lock()
	f, err := ferretdb.New(fcfg)
	newFerretDBMu.Unlock()
	if err != nil {
		cleanup()
		return nil, "", fmt.Errorf("store: start embedded FerretDB: %w", err)
	}
	// The directory already keeps others out; the mode is a second fence
	// should the directory's mode ever be loosened.
	if err := os.Chmod(sock, 0o600); err != nil {
		cleanup()
		return nil, "", fmt.Errorf("store: restrict embedded FerretDB socket: %w", err)
	}

	// Its own context: the server lives until Close, not until the caller's
	// start-up context ends.
	runCtx, cancel := context.WithCancel(context.Background())
	emb := &embedded{dataDir: abs, socket: sock, tempDir: tempDir, cancel: cancel, done: make(chan struct{}), unlock: unlock}
	go func() {
		defer close(emb.done)
		_ = f.Run(runCtx) // always nil; it stops when runCtx is canceled
	}()

	// The driver wants the socket path, escaped, as the URI's host.
	uri := "mongodb://" + url.PathEscape(sock) + "/"
	if err := waitAccepting(ctx, sock, emb.done); err != nil {
		_ = emb.stop(context.Background())
		return nil, "", err
	}
	return emb, uri, nil
}

// socketDir picks the directory for the socket: the data directory when the
// path fits in a socket address and the directory is closed to other users,
// otherwise a new private directory under os.TempDir, returned as tempDir
// too so that stop removes it.
func socketDir(dataDir string) (dir, tempDir string, err error) {
	fi, err := os.Stat(dataDir)
	if err != nil {
		return "", "", fmt.Errorf("store: data directory: %w", err)
	}
	if len(filepath.Join(dataDir, socketName)) <= maxSocketPath && fi.Mode().Perm()&0o077 == 0 {
		return dataDir, "", nil
	}
	tempDir, err = os.MkdirTemp("", "glimpse-db-") // created 0700
	if err != nil {
		return "", "", fmt.Errorf("store: directory for the embedded FerretDB socket: %w", err)
	}
	if len(filepath.Join(tempDir, socketName)) > maxSocketPath {
		_ = os.RemoveAll(tempDir)
		return "", "", fmt.Errorf("store: no socket path under %d bytes: %q and %q are too long", maxSocketPath, dataDir, tempDir)
	}
	return tempDir, tempDir, nil
}

// removeStaleSocket removes a socket file a killed process left behind,
// which would make the listen fail, but refuses to take over one that
// answers: another process serves this data directory.
func removeStaleSocket(ctx context.Context, sock string) error {
	if _, err := os.Lstat(sock); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	d := net.Dialer{Timeout: time.Second}
	if conn, err := d.DialContext(ctx, "unix", sock); err == nil {
		_ = conn.Close()
		return fmt.Errorf("store: %s is in use: another process serves this data directory", sock)
	}
	if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("store: remove stale socket: %w", err)
	}
	return nil
}

// waitAccepting dials the socket until a connection succeeds, so that the
// driver's first attempt does not race the accept loop.
func waitAccepting(ctx context.Context, sock string, stopped <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	var d net.Dialer
	for {
		conn, err := d.DialContext(ctx, "unix", sock)
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
	if e.cancel == nil {
		return nil // another process runs it
	}
	e.cancel()
	select {
	case <-e.done:
	case <-ctx.Done():
		return fmt.Errorf("store: wait for embedded FerretDB to stop: %w", ctx.Err())
	}
	// The listener normally unlinks its socket; a leftover would only be
	// removed at the next start.
	if err := os.Remove(e.socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("store: remove embedded FerretDB socket: %w", err)
	}
	if e.tempDir != "" {
		if err := os.RemoveAll(e.tempDir); err != nil {
			_ = e.unlock()
			return fmt.Errorf("store: remove embedded FerretDB socket directory: %w", err)
		}
	}
	// Last: the SQLite files are closed, so the next server may open them.
	return e.unlock()
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

// Socket returns the Unix socket the embedded FerretDB listens on, for
// tools run by the same user (mongosh "mongodb://<escaped path>/"), or ""
// when connected to an external server.
func (s *Store) Socket() string {
	if s.emb == nil {
		return ""
	}
	return s.emb.socket
}

// WithDatabase returns a view of the same connection on another database.
// It exists so tests can give each test its own database on one shared
// server. The view's Close does nothing; close the Store it came from.
func (s *Store) WithDatabase(name string) *Store {
	return &Store{client: s.client, db: s.client.Database(name), emb: s.emb, instance: s.instance, sql: s.sql}
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
		if s.sql != nil {
			if err := s.sql.Close(); err != nil {
				errs = append(errs, fmt.Errorf("store: close SQLite: %w", err))
			}
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
//
// It derives lazily: FerretDB makes a logger With its attributes for every
// connection and command, and a text or JSON handler formats them the moment
// it is derived, for records of which almost none pass min. A tenth of a
// renewal pass's CPU went there (a profile of BenchmarkRenewDue100k). The
// derivations are kept and applied to the wrapped handler only for a record
// that passes.
type minLevelHandler struct {
	base   slog.Handler
	min    slog.Level
	derive []func(slog.Handler) slog.Handler
}

// Enabled reports whether the record passes both the floor and the wrapped handler.
func (h minLevelHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.base.Enabled(ctx, l)
}

// Handle derives the wrapped handler as asked, then hands it the record.
func (h minLevelHandler) Handle(ctx context.Context, r slog.Record) error {
	handler := h.base
	for _, derive := range h.derive {
		handler = derive(handler)
	}
	return handler.Handle(ctx, r)
}

// WithAttrs keeps the floor on derived handlers and the attributes for later.
func (h minLevelHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	return h.then(func(next slog.Handler) slog.Handler { return next.WithAttrs(attrs) })
}

// WithGroup keeps the floor on derived handlers and the group for later.
func (h minLevelHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return h.then(func(next slog.Handler) slog.Handler { return next.WithGroup(name) })
}

func (h minLevelHandler) then(derive func(slog.Handler) slog.Handler) minLevelHandler {
	// Clip: two loggers derived from one must not share a backing array.
	return minLevelHandler{base: h.base, min: h.min, derive: append(slices.Clip(h.derive), derive)}
}
