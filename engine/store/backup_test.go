package store_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"glimpse/engine/store"
)

// serverDirEnv tells the test binary, run again by startServerProcess, to be
// the database server on that data directory (TestBackupServerProcess).
const serverDirEnv = "GLIMPSE_TEST_BACKUP_SERVER_DIR"

// TestBackupServerProcess is the server half of TestBackupUnderWriteLoad:
// startServerProcess runs the test binary again with only this test and
// serverDirEnv set, so the process writing the SQLite file is another one,
// as `glimpse serve` is to `glimpse backup`. It opens the data directory as
// the app does, and four writers insert rows until it is interrupted; each
// insert's id is printed once it is acknowledged. Run directly, it skips.
func TestBackupServerProcess(t *testing.T) {
	dir := os.Getenv(serverDirEnv)
	if dir == "" {
		t.Skip("the server process of TestBackupUnderWriteLoad")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s, err := store.Open(ctx, store.Config{DataDir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	if _, err := s.SQL().Writer().ExecContext(ctx, `CREATE TABLE docs (id TEXT PRIMARY KEY, i INTEGER NOT NULL, text TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	var printing sync.Mutex
	var writing sync.WaitGroup
	for w := range 4 {
		writing.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				id := fmt.Sprintf("w%d-%06d", w, i)
				if _, err := s.SQL().Writer().ExecContext(ctx, `INSERT INTO docs (id, i, text) VALUES (?, ?, ?)`,
					id, i, strings.Repeat("glimpse ", 40)); err != nil {
					if ctx.Err() == nil {
						fmt.Printf("ERROR %s: %v\n", id, err)
					}
					return
				}
				printing.Lock()
				fmt.Printf("ACK %s\n", id)
				printing.Unlock()
			}
		})
	}
	writing.Wait()
}

// startServerProcess starts the writing server on dataDir in a process of
// its own and calls acked with each insert it acknowledges; the server is
// interrupted when the test ends, or by stop.
func startServerProcess(t *testing.T, dataDir string, acked func(id string)) (stop func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBackupServerProcess$")
	cmd.Env = append(os.Environ(), serverDirEnv+"="+dataDir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			if id, ok := strings.CutPrefix(lines.Text(), "ACK "); ok {
				acked(id)
			} else if strings.HasPrefix(lines.Text(), "ERROR ") {
				t.Errorf("server: %s", lines.Text())
			}
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			_ = cmd.Process.Signal(os.Interrupt)
			<-read
			_ = cmd.Wait()
		})
	}
	t.Cleanup(stop)
	return stop
}

// TestBackupUnderWriteLoad takes a backup while four writers in another
// process insert rows, restores it into a fresh data directory and checks
// that every insert acknowledged before the backup began is there and that
// the restored database serves a read and a write.
func TestBackupUnderWriteLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dataDir := privateDir(t)
	const warmUp = 1000
	var (
		mu     sync.Mutex
		acked  []string // ids whose insert returned success, in order
		warm   = make(chan struct{})
		warmed sync.Once
	)
	stopServer := startServerProcess(t, dataDir, func(id string) {
		mu.Lock()
		acked = append(acked, id)
		n := len(acked)
		mu.Unlock()
		if n >= warmUp {
			warmed.Do(func() { close(warm) })
		}
	})
	select {
	case <-warm:
	case <-time.After(30 * time.Second):
		stopServer()
		t.Fatalf("only %d inserts in 30 s", len(acked))
	}

	mu.Lock()
	before := slices.Clone(acked)
	mu.Unlock()
	dest := filepath.Join(t.TempDir(), "backup")
	start := time.Now()
	b, err := store.BackupEmbedded(ctx, dataDir, dest)
	took := time.Since(start)
	mu.Lock()
	during := len(acked) - len(before)
	mu.Unlock()
	if err != nil {
		stopServer()
		t.Fatalf("BackupEmbedded: %v", err)
	}
	t.Logf("backup: %d file(s), %d bytes in %v; %d inserts acknowledged before it began, %d while it ran",
		len(b.Files), b.Bytes(), took.Round(time.Millisecond), len(before), during)

	if fi, err := os.Stat(filepath.Join(dest, "glimpse.db")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backup file: %v, want mode 0600", err)
	}
	if _, err := store.RestoreEmbedded(ctx, dest, dataDir); !errors.Is(err, store.ErrDataDirInUse) {
		t.Errorf("restore into the data directory the server holds: got %v, want ErrDataDirInUse", err)
	}
	stopServer()

	restored := filepath.Join(privateDir(t), "data")
	r, err := store.RestoreEmbedded(ctx, dest, restored)
	if err != nil {
		t.Fatalf("RestoreEmbedded: %v", err)
	}
	if r.Previous != "" {
		t.Errorf("a fresh data directory had files to move aside: %s", r.Previous)
	}
	s2, err := store.Open(ctx, store.Config{DataDir: restored}, nil)
	if err != nil {
		t.Fatalf("Open the restored data directory: %v", err)
	}
	defer s2.Close(ctx)
	rows, err := s2.SQL().Reader().QueryContext(ctx, `SELECT id FROM docs`)
	if err != nil {
		t.Fatalf("read the restored rows: %v", err)
	}
	got := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		got[id] = true
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, id := range before {
		if !got[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d of %d inserts acknowledged before the backup are missing from it, e.g. %s",
			len(missing), len(before), missing[0])
	}
	t.Logf("restored %d rows", len(got))

	var one int
	if err := s2.SQL().Reader().QueryRowContext(ctx, `SELECT i FROM docs WHERE id = 'w0-000001'`).Scan(&one); err != nil || one != 1 {
		t.Errorf("read w0-000001 from the restored store: %d, %v", one, err)
	}
	if _, err := s2.SQL().Writer().ExecContext(ctx, `INSERT INTO docs (id, i, text) VALUES ('after-restore', 0, '')`); err != nil {
		t.Errorf("write to the restored store: %v", err)
	}
}

// TestBackupRefusals: a backup never goes into a directory with files in it,
// a restore takes only a complete, intact backup, and never a data
// directory an instance holds.
func TestBackupRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	// A data directory open to others: the lock on the directory itself
	// shows that the data is in use.
	dataDir := t.TempDir()
	if err := os.Chmod(dataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(ctx, store.Config{DataDir: dataDir}, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close(ctx)
	if err := s.CheckWritable(ctx); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(t.TempDir(), "good")
	if _, err := store.BackupEmbedded(ctx, dataDir, good); err != nil {
		t.Fatalf("BackupEmbedded: %v", err)
	}

	if _, err := store.BackupEmbedded(ctx, dataDir, good); !errors.Is(err, store.ErrBackupDirNotEmpty) {
		t.Errorf("backup into a non-empty directory: got %v, want ErrBackupDirNotEmpty", err)
	}
	if _, err := store.BackupEmbedded(ctx, t.TempDir(), filepath.Join(t.TempDir(), "b")); err == nil {
		t.Error("backup of a data directory with no database succeeded")
	}

	notBackups := map[string]func(dir string){
		"empty directory": func(string) {},
		"file changed": func(dir string) {
			copyBackup(t, good, dir)
			f, err := os.OpenFile(filepath.Join(dir, "glimpse.db"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = f.Write([]byte("x"))
			_ = f.Close()
		},
		"file missing": func(dir string) {
			copyBackup(t, good, dir)
			if err := os.Remove(filepath.Join(dir, "glimpse.db")); err != nil {
				t.Fatal(err)
			}
		},
		"name outside the directory": func(dir string) {
			writeFile(t, filepath.Join(dir, store.ManifestName), `{"files":[{"name":"../glimpse.db","bytes":1,"sha256":""}]}`)
		},
		"not JSON": func(dir string) {
			writeFile(t, filepath.Join(dir, store.ManifestName), "glimpse")
		},
	}
	for name, prepare := range notBackups {
		dir := t.TempDir()
		prepare(dir)
		target := t.TempDir()
		if _, err := store.RestoreEmbedded(ctx, dir, target); !errors.Is(err, store.ErrNotABackup) {
			t.Errorf("%s: got %v, want ErrNotABackup", name, err)
		}
	}

	if _, err := store.RestoreEmbedded(ctx, good, dataDir); !errors.Is(err, store.ErrDataDirInUse) {
		t.Errorf("restore into a data directory in use: got %v, want ErrDataDirInUse", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := store.RestoreEmbedded(ctx, good, dataDir)
	if err != nil {
		t.Fatalf("restore once the instance stopped: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.Previous, "glimpse.db")); err != nil {
		t.Errorf("the replaced database was not kept: %v", err)
	}
}

func copyBackup(t *testing.T, from, to string) {
	t.Helper()
	for _, name := range []string{store.ManifestName, "glimpse.db"} {
		data, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(to, name), string(data))
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
