package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// testDBPackage is the test-only server the shared server runs
// (cmd/testdb): FerretDB lives there, not in the shipped binary.
const testDBPackage = "glimpse/engine/store/storetest/cmd/testdb"

// testDBBinary returns the glimpse-testdb binary to run: $GLIMPSE_TEST_DB_SERVER
// when set (make go-test builds bin/glimpse-testdb once and passes it), else
// one this function builds with `go build`, so a plain `go test` needs no
// setup. The build goes into a directory of the user's temp dir named after
// the module's root, under an exclusive lock on a file there: the test
// binaries go test runs in parallel wait for one build instead of racing,
// and go build leaves an up-to-date binary untouched, so after the first
// package of a run the others only check it. The binary is built without
// -race whatever the tests use: the point of a separate process is a server
// the race detector does not slow down.
func testDBBinary(ctx context.Context) (string, error) {
	if bin := os.Getenv(EnvDBServer); bin != "" {
		return bin, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("storetest: build glimpse-testdb (or set %s): %w", EnvDBServer, err)
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("glimpse-testdb-%d-%s", os.Getuid(), hex.EncodeToString(sum[:6])))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("storetest: build glimpse-testdb: %w", err)
	}
	unlock, err := lockFile(filepath.Join(dir, "build.lock"))
	if err != nil {
		return "", fmt.Errorf("storetest: build glimpse-testdb: %w", err)
	}
	defer unlock()
	bin := filepath.Join(dir, "glimpse-testdb")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, testDBPackage)
	cmd.Dir = root
	// The tests' own flags (GOFLAGS=-race) are
	// not the server's: it runs here, uninstrumented.
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("storetest: go build %s (or set %s to a built one): %w\n%s", testDBPackage, EnvDBServer, err, out)
	}
	return bin, nil
}

// moduleRoot is the directory holding go.mod above the test's working
// directory (go test runs a test binary in its package's directory).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
