package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.MainUnchecked(m)) }

// TestOpenCloseEmbedded runs a private embedded server through its whole life
// and checks that Close leaves neither goroutines nor a listening port behind.
// It is not parallel: it counts the process's goroutines.
func TestOpenCloseEmbedded(t *testing.T) {
	ctx := context.Background()
	before := runtime.NumGoroutine()
	dir := filepath.Join(t.TempDir(), "nested", "data") // Open must create it

	s, err := store.Open(ctx, store.Config{DataDir: dir, Database: "app"}, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if !s.Embedded() {
		t.Error("Embedded() = false for a store without URI")
	}
	if _, err := s.DB().Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: "x"}}); err != nil {
		t.Fatalf("InsertOne: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "app.sqlite")); err != nil {
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

	// Goroutines of closed connections take a moment to unwind.
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
	cfg := store.Config{DataDir: t.TempDir(), Database: "app"}

	s, err := store.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if _, err := s.DB().Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: "kept"}}); err != nil {
		t.Fatalf("InsertOne: %v", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s, err = store.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close(ctx)
	n, err := s.DB().Collection("c").CountDocuments(ctx, bson.D{{Key: "_id", Value: "kept"}})
	if err != nil || n != 1 {
		t.Errorf("after reopen: count = %d, %v; want 1", n, err)
	}
}

func TestOpenConfigErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, cfg := range map[string]store.Config{
		"no database":        {DataDir: t.TempDir()},
		"no data dir":        {Database: "app"},
		"data dir with ?":    {DataDir: t.TempDir() + "/a?b", Database: "app"},
		"unreachable server": {URI: "mongodb://127.0.0.1:1/?connectTimeoutMS=200&serverSelectionTimeoutMS=300", Database: "app"},
		"malformed URI":      {URI: "postgres://x", Database: "app"},
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

// TestEmbeddedListensOnAUnixSocketOnly guards the promise that the embedded
// server, which has no authentication, answers only this user: it listens on
// a 0600 Unix socket in a 0700 directory and on no TCP port at all (a
// loopback port answers every user of the machine).
func TestEmbeddedListensOnAUnixSocketOnly(t *testing.T) {
	// Not parallel: it compares the process's TCP listeners before and
	// after Open.
	ctx := context.Background()
	before, err := tcpListeners()
	if err != nil {
		t.Skipf("cannot list TCP listeners here: %v", err)
	}
	dir := privateDir(t)
	s, err := store.Open(ctx, store.Config{DataDir: dir, Database: "app"}, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close(ctx)
	after, err := tcpListeners()
	if err != nil {
		t.Fatal(err)
	}
	for inode, addr := range after {
		if _, ok := before[inode]; !ok {
			t.Errorf("Open added a TCP listener on %s", addr)
		}
	}

	sock := s.Socket()
	if sock != filepath.Join(dir, "mongodb.sock") {
		t.Errorf("socket %q, want mongodb.sock in the data directory %q", sock, dir)
	}
	checkPrivateSocket(t, sock)

	var res bson.M
	if err := s.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "whatsmyuri", Value: 1}}).Decode(&res); err != nil {
		t.Fatalf("whatsmyuri: %v", err)
	}
	if you, _ := res["you"].(string); strings.HasPrefix(you, "127.0.0.1:") || strings.HasPrefix(you, "[::1]:") {
		t.Errorf("the client reached the server over TCP (%s)", you)
	}
}

// TestEmbeddedSocketInAPrivateTempDirWhenThePathIsTooLong: a data directory
// too deep for a socket address (about 107 bytes) gets its socket in a new
// 0700 directory under os.TempDir, removed at Close.
func TestEmbeddedSocketInAPrivateTempDirWhenThePathIsTooLong(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60))
	s, err := store.Open(ctx, store.Config{DataDir: dir, Database: "app"}, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	sock := s.Socket()
	if strings.HasPrefix(sock, dir) || len(sock) > 100 {
		t.Errorf("socket %q: want a short path outside %q", sock, dir)
	}
	checkPrivateSocket(t, sock)
	if _, err := s.DB().Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatalf("InsertOne: %v", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(sock)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket directory after Close: %v, want it removed", err)
	}
}

// TestEmbeddedRefusesADataDirectoryInUse: a second server on the same data
// directory would corrupt it; the live socket of the first says it is in use.
func TestEmbeddedRefusesADataDirectoryInUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := store.Config{DataDir: privateDir(t), Database: "app"}
	s, err := store.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close(ctx)
	if s2, err := store.Open(ctx, cfg, nil); err == nil {
		_ = s2.Close(ctx)
		t.Fatal("a second Open on a data directory in use succeeded")
	}
}

// TestEmbeddedLocksTheDataDirectory: a data directory open to others (0755)
// puts each server's socket in a private directory of its own, so the first
// one's socket cannot say the directory is in use; the lock on the directory
// itself does, and a second server on the same SQLite files is refused until
// the first one stops.
func TestEmbeddedLocksTheDataDirectory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := store.Config{DataDir: dir, Database: "app"}
	s, err := store.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	s2, err := store.Open(ctx, cfg, nil)
	if err == nil {
		_ = s2.Close(ctx)
		t.Fatal("a second Open on a data directory open to others, in use, succeeded")
	}
	if !errors.Is(err, store.ErrDataDirInUse) {
		t.Errorf("second Open: %v, want ErrDataDirInUse", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	s3, err := store.Open(ctx, cfg, nil)
	if err != nil {
		t.Fatalf("Open once the first stopped: %v", err)
	}
	if err := s3.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// TestEmbeddedSocketNotInADataDirectoryOpenToOthers: a data directory others
// may enter (made by hand, 0755) does not get the socket; a private
// temporary directory does.
func TestEmbeddedSocketNotInADataDirectoryOpenToOthers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(ctx, store.Config{DataDir: dir, Database: "app"}, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close(ctx)
	if strings.HasPrefix(s.Socket(), dir) {
		t.Errorf("socket %q in a directory open to others", s.Socket())
	}
	checkPrivateSocket(t, s.Socket())
}

// privateDir returns a new 0700 directory (t.TempDir's are 0755).
func privateDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

func checkPrivateSocket(t *testing.T, sock string) {
	t.Helper()
	fi, err := os.Lstat(sock)
	if err != nil {
		t.Fatalf("socket: %v", err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket with mode 0600", fi.Mode())
	}
	di, err := os.Stat(filepath.Dir(sock))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("socket directory mode %o, want 700", di.Mode().Perm())
	}
}

// tcpListeners returns this process's listening TCP sockets by inode, from
// Linux's /proc: the inodes of /proc/self/fd that /proc/net/tcp{,6} list in
// state LISTEN (0A).
func tcpListeners() (map[string]string, error) {
	mine := map[string]bool{}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, err
	}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, "socket:[") {
			mine[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = true
		}
	}
	out := map[string]string{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 9 && f[3] == "0A" && mine[f[9]] {
				out[f[9]] = f[1]
			}
		}
	}
	return out, nil
}

type item struct {
	ID    string   `bson:"_id"`
	Name  string   `bson:"name"`
	Count int64    `bson:"count"`
	Tags  []string `bson:"tags"`
}

func TestInsertFindRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	coll := storetest.Open(t).DB().Collection("items")

	want := item{ID: "k1", Name: "Ünïcode ✓", Count: 1 << 40, Tags: []string{"a", "b"}}
	if _, err := coll.InsertOne(ctx, want); err != nil {
		t.Fatalf("InsertOne: %v", err)
	}
	var got item
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "k1"}}).Decode(&got); err != nil {
		t.Fatalf("FindOne: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}

	err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "missing"}}).Err()
	if !errors.Is(err, mongo.ErrNoDocuments) {
		t.Errorf("FindOne(missing) = %v, want ErrNoDocuments", err)
	}
	_, err = coll.InsertOne(ctx, want)
	if !mongo.IsDuplicateKeyError(err) {
		t.Errorf("second InsertOne = %v, want a duplicate key error", err)
	}
}

// TestDatabasesAreIsolated checks that storetest gives each caller its own
// database, which is what makes parallel tests safe.
func TestDatabasesAreIsolated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := storetest.Open(t), storetest.Open(t)
	if a.DB().Name() == b.DB().Name() {
		t.Fatalf("both views use database %q", a.DB().Name())
	}
	if _, err := a.DB().Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	n, err := b.DB().Collection("c").CountDocuments(ctx, bson.D{})
	if err != nil || n != 0 {
		t.Errorf("other database: count = %d, %v; want 0", n, err)
	}
	if err := b.Close(ctx); err != nil {
		t.Errorf("Close on a view: %v", err)
	}
	if err := a.DB().Client().Ping(ctx, nil); err != nil {
		t.Errorf("Close on a view closed the shared client: %v", err)
	}
}

func TestEnsureCollectionsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.Open(t)
	specs := []store.CollectionSpec{
		{Name: "sessions", Indexes: []mongo.IndexModel{
			{Keys: bson.D{{Key: "user", Value: 1}}, Options: options.Index().SetName("user_1")},
		}},
		{Name: "jobs", Indexes: []mongo.IndexModel{
			{Keys: bson.D{{Key: "state", Value: 1}, {Key: "due", Value: 1}}, Options: options.Index().SetName("state_due")},
		}},
		{Name: "plain"},
	}
	for i := range 2 {
		if err := s.EnsureCollections(ctx, specs); err != nil {
			t.Fatalf("EnsureCollections #%d: %v", i+1, err)
		}
	}

	names, err := s.DB().ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"jobs", "plain", "sessions"}, sortedCopy(names)); diff != "" {
		t.Errorf("collections (-want +got):\n%s", diff)
	}
	for coll, want := range map[string][]string{
		"sessions": {"_id_", "user_1"},
		"jobs":     {"_id_", "state_due"},
		"plain":    {"_id_"},
	} {
		specs, err := s.DB().Collection(coll).Indexes().ListSpecifications(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, sp := range specs {
			got = append(got, sp.Name)
		}
		if diff := cmp.Diff(want, sortedCopy(got)); diff != "" {
			t.Errorf("indexes of %s (-want +got):\n%s", coll, diff)
		}
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// insertItems puts n small documents with string ids into coll.
func insertItems(t testing.TB, coll *mongo.Collection, n int) {
	t.Helper()
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: fmt.Sprintf("id%05d", i)}, {Key: "n", Value: i}}
	}
	if _, err := coll.InsertMany(context.Background(), docs); err != nil {
		t.Fatalf("InsertMany: %v", err)
	}
}
