package store

import (
	"errors"
	"fmt"
)

// errLockHeld is what tryLockDir answers when another open file description
// (another process, or another Store of this one) holds the lock.
var errLockHeld = errors.New("lock held")

// lockDataDir takes the data directory's lock, which a process holds for as
// long as it has the embedded database open (Open) or a restore writes into
// it (RestoreEmbedded): two processes each with its own single writer would
// each believe it serialises every write. The lock is on the directory
// itself (flock(2) on the directory, no lock file to go stale or be copied
// by a backup). The kernel drops the lock when the process ends, however it
// ends.
func lockDataDir(dir string) (unlock func() error, err error) {
	unlock, err = tryLockDir(dir)
	if errors.Is(err, errLockHeld) {
		return nil, fmt.Errorf("store: %s: %w (another process holds its lock: `glimpse serve`, "+
			"or a command that opens the database, such as seed-scale or restore); stop it first", dir, ErrDataDirInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("store: lock the data directory %s: %w", dir, err)
	}
	return unlock, nil
}
