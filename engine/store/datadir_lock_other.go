//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package store

// tryLockDir takes no lock where flock(2) is missing; there the socket in a
// private data directory is the only sign of a running instance
// (removeStaleSocket).
func tryLockDir(string) (unlock func() error, err error) { return func() error { return nil }, nil }
