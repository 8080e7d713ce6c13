//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package store

// tryLockDir takes no lock where flock(2) is missing: there nothing refuses
// a second process on one data directory (docs/store.md §3), and the app is
// supported on the systems that have it.
func tryLockDir(string) (unlock func() error, err error) { return func() error { return nil }, nil }
