//go:build !unix

package storetest

// lockFile does not lock where flock is missing: parallel test binaries may
// then build the server side by side, which go build survives (it writes
// the binary under a temporary name and renames it).
func lockFile(string) (func(), error) { return func() {}, nil }
