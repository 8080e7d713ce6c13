package store

import (
	"fmt"
	"os"
	"syscall"
)

// shmDeadManSwitch is the byte of a -shm file that every process with the
// database open in WAL mode holds a read lock on, for as long as it has it
// open: UNIX_SHM_DMS = (22+SQLITE_SHM_NLOCK)*4 + SQLITE_SHM_NLOCK in SQLite's
// os_unix.c, where SQLite itself tests it with F_GETLK to learn whether it
// is the first process to open the database.
const shmDeadManSwitch = 128

// fOFDGetLk is Linux's F_OFD_GETLK. Unlike F_GETLK it also reports the
// classic record locks of this very process (open file description locks
// conflict with them, see fcntl(2)), so a server in the same process counts
// too, as it does in tests.
const fOFDGetLk = 36

// sqliteHeld reports whether a process holds the database of this -shm file
// open, by asking whether a write lock on its dead-man-switch byte could be
// taken.
func sqliteHeld(shm string) (bool, error) {
	f, err := os.Open(shm)
	if err != nil {
		return false, fmt.Errorf("check %s: %w", shm, err)
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: shmDeadManSwitch, Len: 1}
	if err := syscall.FcntlFlock(f.Fd(), fOFDGetLk, &lk); err != nil {
		return false, fmt.Errorf("check lock on %s: %w", shm, err)
	}
	return lk.Type != syscall.F_UNLCK, nil
}
