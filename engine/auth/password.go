// Package auth holds accounts, passwords, sessions, sign-in links and the
// authorisation rule (a main subscription on the brand's bundle).
package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters from the OWASP password storage cheat sheet: 19 MiB,
// two passes, one lane. They are stored with every hash (PHC format) so they
// can be raised later without breaking existing passwords.
const (
	argonMemoryKiB = 19456
	argonTime      = 2
	argonThreads   = 1
	argonKeyLen    = 32
	argonSaltLen   = 16
)

// dummyHash is verified against when an email is unknown, so an unknown
// account costs the same time as a wrong password and reveals nothing. Its
// parameters are the ones above (TestDummyHashHasTheCurrentParameters), so
// it costs what a real account's check costs; its password is nobody's. A
// constant rather than hashed at start: every Hasher made (two per app, one
// per test database) would otherwise spend a hash's time on it.
const dummyHash = "$argon2id$v=19$m=19456,t=2,p=1$iXCPNC4skm8y02MtsO3dkQ$rHdcGICoUEG2lEBroK5oXAeHlaa3xtHzdvWn7MCP9fI"

// Cost is what one argon2id hash spends: its memory and its passes over it.
// The zero Cost is the OWASP parameters above.
type Cost struct {
	MemoryKiB uint32
	Passes    uint32
}

// Hasher hashes and verifies passwords. Each hash allocates its cost's
// memory (19 MiB by default), so a semaphore sized to the cores bounds memory
// under a burst of sign-ins.
type Hasher struct {
	slots chan struct{}
	cost  Cost
	// dummy is checked when an account is unknown; it has the cost's
	// parameters, so that check costs what a real one costs.
	dummy string
}

// NewHasher returns a Hasher at the OWASP cost allowing one concurrent hash
// per core.
func NewHasher() *Hasher { return NewHasherCosting(Cost{}) }

// NewHasherCosting returns a Hasher hashing new passwords at cost (the zero
// Cost: OWASP's). Existing hashes keep verifying at the cost they were made
// with, since each carries its parameters. The test suites use a cheaper
// cost: thousands of sign-ins under the race detector at 19 MiB each were a
// quarter of their CPU.
func NewHasherCosting(cost Cost) *Hasher {
	h := &Hasher{slots: make(chan struct{}, max(1, runtime.GOMAXPROCS(0))), cost: cost, dummy: dummyHash}
	if cost == (Cost{}) || cost == (Cost{MemoryKiB: argonMemoryKiB, Passes: argonTime}) {
		h.cost = Cost{MemoryKiB: argonMemoryKiB, Passes: argonTime}
		return h
	}
	// Nobody's password: the dummy must never verify.
	nobody := make([]byte, 32)
	_, _ = rand.Read(nobody)
	h.dummy = h.phc(base64.RawStdEncoding.EncodeToString(nobody))
	return h
}

// Hash returns the PHC-formatted argon2id hash of password.
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	defer h.release()
	return h.phc(password), nil
}

// phc hashes password with a fresh salt at the Hasher's cost.
func (h *Hasher) phc(password string) string {
	salt := make([]byte, argonSaltLen)
	_, _ = rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, h.cost.Passes, h.cost.MemoryKiB, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, h.cost.MemoryKiB, h.cost.Passes,
		argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// Verify reports whether password matches the PHC hash. An empty hash (an
// unknown account) is checked against a dummy hash and always fails.
func (h *Hasher) Verify(ctx context.Context, hash, password string) (bool, error) {
	known := hash != ""
	if !known {
		hash = h.dummy
	}
	var version, memory, iterations int
	var threads uint8
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, fmt.Errorf("verify password: unsupported hash format")
	}
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil {
		return false, fmt.Errorf("verify password: %w", err)
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &iterations, &threads); err != nil {
		return false, fmt.Errorf("verify password: %w", err)
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, fmt.Errorf("verify password salt: %w", err)
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil {
		return false, fmt.Errorf("verify password key: %w", err)
	}
	if err := h.acquire(ctx); err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, uint32(iterations), uint32(memory), threads, uint32(len(want)))
	h.release()
	return known && subtle.ConstantTimeCompare(got, want) == 1, nil
}

func (h *Hasher) acquire(ctx context.Context) error {
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait to hash password: %w", ctx.Err())
	}
}

func (h *Hasher) release() { <-h.slots }
