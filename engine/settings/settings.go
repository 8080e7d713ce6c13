// Package settings keeps the deployment's own named values, which every
// instance must agree on: the secret generated at the first start when none
// is configured, and the mark a scale seed leaves.
package settings

import "context"

// Store is what settings need from storage.
type Store interface {
	// Get returns the value stored under name; ok is false when there is
	// none.
	Get(ctx context.Context, name string) (value string, ok bool, err error)
	// PutOnce stores value under name unless a value is there already, and
	// returns the value name holds: of writers sent together, every one gets
	// the first one's value.
	PutOnce(ctx context.Context, name, value string) (string, error)
}
