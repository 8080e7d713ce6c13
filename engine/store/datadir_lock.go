package store

import (
	"errors"
	"fmt"
)

// errLockHeld is what tryLockDir answers when another open file description
// (another process, or another Store of this one) holds the lock.
var errLockHeld = errors.New("lock held")

// lockDataDir takes the data directory's lock, which a process holds for as
// long as its embedded FerretDB runs on the directory (startEmbedded) or a
// restore writes into it (RestoreEmbedded). The lock is on the directory
// itself (flock(2) on the directory, no lock file to go stale or be copied
// by a backup), so it holds whatever directory the socket is in: a data
// directory open to others (0755) or with a long path puts each process's
// socket in a private temporary directory, where a second process could not
// see the first one's and would start a second server on the same SQLite
// files. The kernel drops the lock when the process ends, however it ends.
func lockDataDir(dir string) (unlock func() error, err error) {
	unlock, err = tryLockDir(dir)
	if errors.Is(err, errLockHeld) {
		return nil, fmt.Errorf("store: %s: %w (another process holds its lock: `glimpse serve`, the tests' glimpse-testdb, "+
			"or a command that opens the database, such as seed-scale or restore); stop it first", dir, ErrDataDirInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("store: lock the data directory %s: %w", dir, err)
	}
	return unlock, nil
}
