//go:build unix

package storetest

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on path (created if missing), waiting
// for another holder, and returns its release. The kernel drops it however
// the holder ends, so a killed test run leaves no stale lock.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() { _ = f.Close() }, nil
}
