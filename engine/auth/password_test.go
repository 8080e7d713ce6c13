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

// TestCheaperCostHashesAndChecksUnknownAccountsAtThatCost: a Hasher at
// another cost hashes with its parameters, checks an unknown account against
// a dummy of the same parameters (so it costs what a real check costs), and
// still verifies hashes made at any other cost.
func TestCheaperCostHashesAndChecksUnknownAccountsAtThatCost(t *testing.T) {
	ctx := context.Background()
	cheap := NewHasherCosting(Cost{MemoryKiB: 1024, Passes: 1})
	h, err := cheap.Hash(ctx, "a password")
	if err != nil {
		t.Fatal(err)
	}
	params := func(phc string) string { return strings.Join(strings.Split(phc, "$")[:4], "$") }
	if want := "$argon2id$v=19$m=1024,t=1,p=1"; params(h) != want || params(cheap.dummy) != want {
		t.Fatalf("hash %q, dummy %q: want parameters %q", params(h), params(cheap.dummy), want)
	}
	for _, c := range []struct {
		hash, password string
		want           bool
	}{{h, "a password", true}, {h, "another", false}, {"", "a password", false}} {
		if ok, err := cheap.Verify(ctx, c.hash, c.password); ok != c.want || err != nil {
			t.Errorf("verify %q against %q: %v, %v; want %v", c.password, c.hash, ok, err, c.want)
		}
	}
	owasp, err := NewHasher().Hash(ctx, "a password")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := cheap.Verify(ctx, owasp, "a password"); !ok || err != nil {
		t.Fatalf("an OWASP-cost hash: %v, %v; want true", ok, err)
	}
	if NewHasherCosting(Cost{}).dummy != dummyHash || NewHasherCosting(Cost{}).cost != (Cost{MemoryKiB: 19456, Passes: 2}) {
		t.Fatal("the zero Cost is not OWASP's")
	}
}
