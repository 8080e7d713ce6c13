// Package settingstest is the contract every settings.Store keeps.
package settingstest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"glimpse/engine/settings"
)

// Run runs the contract against stores made by open, one per subtest.
func Run(t *testing.T, open func(t *testing.T) settings.Store) {
	ctx := context.Background()
	t.Run("AMissingNameHasNoValue", func(t *testing.T) {
		s := open(t)
		if v, ok, err := s.Get(ctx, "nothing"); err != nil || ok || v != "" {
			t.Fatalf("Get = %q, %v, %v", v, ok, err)
		}
	})
	t.Run("TheFirstValueStays", func(t *testing.T) {
		s := open(t)
		if v, err := s.PutOnce(ctx, "secret", "first"); err != nil || v != "first" {
			t.Fatalf("PutOnce = %q, %v", v, err)
		}
		if v, err := s.PutOnce(ctx, "secret", "second"); err != nil || v != "first" {
			t.Fatalf("a second PutOnce = %q, %v; want the first value", v, err)
		}
		if v, ok, err := s.Get(ctx, "secret"); err != nil || !ok || v != "first" {
			t.Fatalf("Get = %q, %v, %v", v, ok, err)
		}
	})
	// Instances starting together each generate a secret: all must end up
	// with the same one, or sessions sealed by one fail on the other.
	t.Run("WritersSentTogetherAllGetOneValue", func(t *testing.T) {
		s := open(t)
		const n = 20
		got := make([]string, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], errs[i] = s.PutOnce(ctx, "together", fmt.Sprint("value-", i))
			}()
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if got[i] != got[0] {
				t.Fatalf("writer %d got %q, writer 0 got %q", i, got[i], got[0])
			}
		}
		if v, _, err := s.Get(ctx, "together"); err != nil || v != got[0] {
			t.Fatalf("stored %q (%v), writers got %q", v, err, got[0])
		}
	})
}
