// Package contract holds what every domain's storage contract suite
// (engine/<domain>/<domain>test) shares: what the store under test
// guarantees, and the small helpers the suites use.
package contract

import "testing"

// Options says what the store under test guarantees.
type Options struct {
	// Atomic is set when a conditional update and an increment are atomic
	// (SQLite, MongoDB; not the FerretDB test server): the subtests that
	// send requests together against such a rule run only then.
	Atomic bool
}

// Must fails the test at once on err.
func Must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
