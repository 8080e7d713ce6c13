package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"glimpse/engine/store/sqlite"
)

// ManifestName is the file that makes a directory a backup of the embedded
// database: it lists each SQLite file with its size and SHA-256, so a restore
// can tell a backup from any other directory and a complete copy from a
// damaged one.
const ManifestName = "glimpse-backup.json"

// Errors the backup and restore refuse with; callers tell them apart with
// errors.Is and show the message, which names the path.
var (
	// ErrBackupDirNotEmpty: a backup goes into a new or empty directory, so
	// it never mixes with (or overwrites) an older one.
	ErrBackupDirNotEmpty = errors.New("the backup directory exists and is not empty")
	// ErrNotABackup: the directory to restore from has no valid manifest, or
	// a file that does not match it.
	ErrNotABackup = errors.New("not a glimpse backup")
	// ErrDataDirInUse: a running instance holds the data directory.
	ErrDataDirInUse = errors.New("the data directory is in use by a running glimpse")
)

// Backup describes one backup: what its manifest holds.
type Backup struct {
	// Created is when the copy started (UTC).
	Created time.Time `json:"created"`
	// Files are the copied databases, one SQLite file each.
	Files []BackupFile `json:"files"`
}

// BackupFile is one database file of a backup.
type BackupFile struct {
	// Name is the file's base name, glimpse.db (sqlite.FileName).
	Name string `json:"name"`
	// Bytes is its size.
	Bytes int64 `json:"bytes"`
	// SHA256 is the hex digest of its contents.
	SHA256 string `json:"sha256"`
}

// Bytes is the size of all the backup's files.
func (b Backup) Bytes() int64 {
	var n int64
	for _, f := range b.Files {
		n += f.Bytes
	}
	return n
}

// BackupEmbedded copies the embedded database in dataDir (glimpse.db,
// sqlite.FileName) into dest. dest must not exist or be empty; the manifest
// is written last, so a directory with a manifest holds complete
// files. It is safe while a server writes to the files, in this process or
// another: SQLite's VACUUM INTO reads inside one read transaction, which in
// WAL mode sees one committed state and neither blocks the writers nor is
// blocked by them (https://www.sqlite.org/lang_vacuum.html#vacuuminto,
// https://www.sqlite.org/wal.html). Each file is its own snapshot; the
// application keeps all its data in one database, hence one file.
func BackupEmbedded(ctx context.Context, dataDir, dest string) (Backup, error) {
	sources, err := databaseFiles(dataDir, "")
	if err != nil {
		return Backup{}, fmt.Errorf("store: backup: %w", err)
	}
	if len(sources) == 0 {
		return Backup{}, fmt.Errorf("store: backup: no database (%s) in %s", sqlite.FileName, dataDir)
	}
	if err := newBackupDir(dest); err != nil {
		return Backup{}, err
	}
	b := Backup{Created: time.Now().UTC().Truncate(time.Second)}
	for _, src := range sources {
		f, err := backupFile(ctx, src, filepath.Join(dest, filepath.Base(src)))
		if err != nil {
			return Backup{}, err
		}
		b.Files = append(b.Files, f)
	}
	if err := writeManifest(dest, b); err != nil {
		return Backup{}, err
	}
	return b, nil
}

// databaseFiles lists the embedded database's file of dataDir with the
// given suffix ("", "-wal", "-shm", "-journal"), when it exists.
func databaseFiles(dataDir, suffix string) ([]string, error) {
	own := filepath.Join(dataDir, sqlite.FileName+suffix)
	if _, err := os.Stat(own); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	return []string{own}, nil
}

// newBackupDir creates dest (0700: the copy holds everyone's data) or
// accepts it when it is an empty directory.
func newBackupDir(dest string) error {
	// The copies are opened through "file:" URIs, where these characters
	// would be read as URI syntax.
	if strings.ContainsAny(dest, "?#%") {
		return fmt.Errorf("store: backup: directory %q must not contain '?', '#' or '%%'", dest)
	}
	entries, err := os.ReadDir(dest)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dest, 0o700); err != nil {
			return fmt.Errorf("store: backup: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("store: backup: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("store: backup: %s: %w", dest, ErrBackupDirNotEmpty)
	}
	return nil
}

// backupFile copies one live database with VACUUM INTO, turns the copy into
// a single self-contained file (rollback journal, not WAL) and checks it.
func backupFile(ctx context.Context, src, dst string) (BackupFile, error) {
	// mode=rw never creates a file; the busy timeout is the app's, for the
	// moment a checkpoint holds the locks.
	db, err := sql.Open("sqlite", "file:"+src+"?mode=rw&_pragma=busy_timeout(10000)")
	if err != nil {
		return BackupFile{}, fmt.Errorf("store: backup: open %s: %w", src, err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return BackupFile{}, fmt.Errorf("store: backup: copy %s: %w", src, err)
	}
	// SQLite creates files readable by all (0644); this one holds every
	// account, whatever the mode of the directory it is in.
	if err := os.Chmod(dst, 0o600); err != nil {
		return BackupFile{}, fmt.Errorf("store: backup: %w", err)
	}
	out, err := sql.Open("sqlite", "file:"+dst+"?mode=rw")
	if err != nil {
		return BackupFile{}, fmt.Errorf("store: backup: open copy %s: %w", dst, err)
	}
	defer out.Close()
	var mode string
	if err := out.QueryRowContext(ctx, "PRAGMA journal_mode=DELETE").Scan(&mode); err != nil {
		return BackupFile{}, fmt.Errorf("store: backup: %s: %w", dst, err)
	}
	if err := integrityCheck(ctx, out); err != nil {
		return BackupFile{}, fmt.Errorf("store: backup: copy %s: %w", dst, err)
	}
	if err := out.Close(); err != nil {
		return BackupFile{}, fmt.Errorf("store: backup: close %s: %w", dst, err)
	}
	if err := syncFile(dst); err != nil {
		return BackupFile{}, fmt.Errorf("store: backup: %w", err)
	}
	return describeFile(dst)
}

// integrityCheck runs SQLite's full check, which reads every page and index
// (https://www.sqlite.org/pragma.html#pragma_integrity_check).
func integrityCheck(ctx context.Context, db *sql.DB) error {
	var result string
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&result); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if result != "ok" {
		return fmt.Errorf("integrity check: %s", result)
	}
	return nil
}

// describeFile returns the size and digest of the file at path.
func describeFile(path string) (BackupFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return BackupFile{}, fmt.Errorf("store: backup: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return BackupFile{}, fmt.Errorf("store: backup: read %s: %w", path, err)
	}
	return BackupFile{Name: filepath.Base(path), Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// writeManifest writes the manifest through a temporary name and a rename,
// then syncs the directory, so a manifest is never half written.
func writeManifest(dir string, b Backup) error {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return fmt.Errorf("store: backup: manifest: %w", err)
	}
	tmp := filepath.Join(dir, ManifestName+".tmp")
	if err := writeFileSync(tmp, append(data, '\n')); err != nil {
		return fmt.Errorf("store: backup: manifest: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, ManifestName)); err != nil {
		return fmt.Errorf("store: backup: manifest: %w", err)
	}
	return syncDir(dir)
}

// Restored says what RestoreEmbedded did.
type Restored struct {
	// Backup is the manifest of the restored backup.
	Backup Backup
	// Previous is the directory the data directory's former database files
	// were moved into, or "" when there were none.
	Previous string
}

// RestoreEmbedded puts the backup in src back into dataDir. It refuses a src
// that is not a complete, intact backup (ErrNotABackup) and a data directory
// a running instance holds (ErrDataDirInUse). The database files it replaces
// are moved, with their WAL files, into a new before-restore-<time>
// directory inside dataDir, which the app does not look into, so a restore
// of the wrong backup can be undone.
func RestoreEmbedded(ctx context.Context, src, dataDir string) (Restored, error) {
	b, err := checkBackup(ctx, src)
	if err != nil {
		return Restored{}, err
	}
	if err := checkNotInUse(dataDir); err != nil {
		return Restored{}, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return Restored{}, fmt.Errorf("store: restore: %w", err)
	}
	// Held while the files are replaced, so a server started meanwhile is
	// refused rather than opening half a restore.
	unlock, err := lockDataDir(dataDir)
	if err != nil {
		return Restored{}, err
	}
	defer func() { _ = unlock() }()
	// Copy first, under names the app ignores, so a failure here leaves the
	// data directory as it was.
	for _, f := range b.Files {
		if err := copyFileSync(filepath.Join(src, f.Name), filepath.Join(dataDir, f.Name+".restoring")); err != nil {
			return Restored{}, fmt.Errorf("store: restore: %w", err)
		}
	}
	previous, err := movePrevious(dataDir)
	if err != nil {
		return Restored{}, err
	}
	for _, f := range b.Files {
		if err := os.Rename(filepath.Join(dataDir, f.Name+".restoring"), filepath.Join(dataDir, f.Name)); err != nil {
			return Restored{}, fmt.Errorf("store: restore: %w", err)
		}
	}
	if err := syncDir(dataDir); err != nil {
		return Restored{}, err
	}
	return Restored{Backup: b, Previous: previous}, nil
}

// checkBackup reads src's manifest and checks every file against it, then
// with SQLite's integrity check.
func checkBackup(ctx context.Context, src string) (Backup, error) {
	if strings.ContainsAny(src, "?#%") {
		return Backup{}, fmt.Errorf("store: restore: directory %q must not contain '?', '#' or '%%'", src)
	}
	data, err := os.ReadFile(filepath.Join(src, ManifestName))
	if err != nil {
		return Backup{}, fmt.Errorf("store: restore: %s: %w (no readable %s)", src, ErrNotABackup, ManifestName)
	}
	var b Backup
	if err := json.Unmarshal(data, &b); err != nil || len(b.Files) == 0 {
		return Backup{}, fmt.Errorf("store: restore: %s: %w (%s lists no files)", src, ErrNotABackup, ManifestName)
	}
	for _, want := range b.Files {
		// A name with a separator could write outside the data directory.
		if want.Name != filepath.Base(want.Name) || want.Name != sqlite.FileName || strings.HasPrefix(want.Name, ".") {
			return Backup{}, fmt.Errorf("store: restore: %s: %w (bad file name %q)", src, ErrNotABackup, want.Name)
		}
		path := filepath.Join(src, want.Name)
		got, err := describeFile(path)
		if err != nil || got != want {
			return Backup{}, fmt.Errorf("store: restore: %s: %w (%s is missing or differs from the manifest)", src, ErrNotABackup, want.Name)
		}
		// immutable=1: read without locks or side files, so checking a
		// backup on read-only media leaves it untouched.
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
		if err != nil {
			return Backup{}, fmt.Errorf("store: restore: open %s: %w", path, err)
		}
		err = integrityCheck(ctx, db)
		_ = db.Close()
		if err != nil {
			return Backup{}, fmt.Errorf("store: restore: %s: %w (%s: %v)", src, ErrNotABackup, want.Name, err)
		}
	}
	return b, nil
}

// checkNotInUse refuses a data directory a running instance holds: the
// instance holds the directory's lock (lockDataDir). SQLite's own lock is
// checked too, for a command attached beside a server (Config.Attach), which
// does not hold the directory's: every process with the database open in
// WAL mode holds a read lock on its -shm file (sqliteHeld).
func checkNotInUse(dataDir string) error {
	if unlock, err := tryLockDir(dataDir); errors.Is(err, errLockHeld) {
		return fmt.Errorf("store: restore: %s: %w (a process holds its lock); stop it first", dataDir, ErrDataDirInUse)
	} else if err == nil {
		_ = unlock()
	}
	shms, err := databaseFiles(dataDir, "-shm")
	if err != nil {
		return fmt.Errorf("store: restore: %w", err)
	}
	for _, shm := range shms {
		held, err := sqliteHeld(shm)
		if err != nil {
			return fmt.Errorf("store: restore: %w", err)
		}
		if held {
			return fmt.Errorf("store: restore: %s: %w (a process has %s open); stop it first", dataDir, ErrDataDirInUse, strings.TrimSuffix(filepath.Base(shm), "-shm"))
		}
	}
	return nil
}

// movePrevious moves the database files in dataDir (each with its -wal,
// -shm and -journal) into a new before-restore-<time> directory and returns
// its path, or "" when there was nothing to move.
func movePrevious(dataDir string) (string, error) {
	var old []string
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		m, err := databaseFiles(dataDir, suffix)
		if err != nil {
			return "", fmt.Errorf("store: restore: %w", err)
		}
		old = append(old, m...)
	}
	if len(old) == 0 {
		return "", nil
	}
	dir := filepath.Join(dataDir, "before-restore-"+time.Now().UTC().Format("20060102T150405.000Z"))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("store: restore: %w", err)
	}
	for _, path := range old {
		if err := os.Rename(path, filepath.Join(dir, filepath.Base(path))); err != nil {
			return "", fmt.Errorf("store: restore: move aside: %w", err)
		}
	}
	return dir, nil
}

// copyFileSync copies src to a new file dst (0600) and syncs it.
func copyFileSync(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		_ = out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		_ = out.Close()
		return err
	}
	return out.Close()
}

// syncFile makes the contents of the file at path durable.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// writeFileSync writes data to a new file path (0600) and syncs it.
func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// syncDir makes the renames and new files in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("store: sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("store: sync %s: %w", dir, err)
	}
	return nil
}
