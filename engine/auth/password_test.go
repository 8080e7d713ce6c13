package auth

import (
	"context"
	"strings"
	"testing"
)

// TestDummyHashHasTheCurrentParameters: an unknown account is checked
// against dummyHash, which must cost what a real account's check costs:
// the same argon2id parameters a password is hashed with today.
func TestDummyHashHasTheCurrentParameters(t *testing.T) {
	real, err := NewHasher().Hash(context.Background(), "a password")
	if err != nil {
		t.Fatal(err)
	}
	params := func(phc string) string { return strings.Join(strings.Split(phc, "$")[:4], "$") }
	if params(dummyHash) != params(real) {
		t.Fatalf("dummy hash %q, a real hash %q: their parameters differ", params(dummyHash), params(real))
	}
	if ok, err := NewHasher().Verify(context.Background(), "", "a password"); ok || err != nil {
		t.Fatalf("unknown account: ok %v, err %v; want false, nil", ok, err)
	}
}
