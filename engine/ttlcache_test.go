package engine_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"glimpse/engine"
)

func TestTTLCacheLoadsOnceForCallersThatMissTogether(t *testing.T) {
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	c := engine.NewTTLCache[string](clock, 5*time.Second)
	var fetches atomic.Int32
	release := make(chan struct{})
	fetch := func(context.Context) (string, error) {
		fetches.Add(1)
		<-release // every caller arrives while the first fetch is still out
		return "entry", nil
	}
	const callers = 32
	var wg sync.WaitGroup
	results := make([]string, callers)
	for i := range callers {
		wg.Go(func() {
			v, err := c.Load(context.Background(), "session", fetch)
			if err != nil {
				t.Error(err)
			}
			results[i] = v
		})
	}
	// Let the callers pile up on the one fetch, then answer it.
	for deadline := time.Now().Add(5 * time.Second); fetches.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d fetches for %d callers missing one key together, want 1", n, callers)
	}
	for _, v := range results {
		if v != "entry" {
			t.Fatalf("a caller got %q", v)
		}
	}

	// Cached now: no fetch until the TTL has passed, then one.
	if _, err := c.Load(context.Background(), "session", fetch); err != nil || fetches.Load() != 1 {
		t.Fatalf("a cached key was fetched again (%d fetches, %v)", fetches.Load(), err)
	}
	clock.Advance(5 * time.Second)
	if _, err := c.Load(context.Background(), "session", fetch); err != nil || fetches.Load() != 2 {
		t.Fatalf("an expired key was not fetched again (%d fetches, %v)", fetches.Load(), err)
	}
}

func TestTTLCacheKeepsNoFailedLoadAndFetchesPastTheCallersCancellation(t *testing.T) {
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	c := engine.NewTTLCache[string](clock, 5*time.Second)
	gone := errors.New("no such session")
	if _, err := c.Load(context.Background(), "k", func(context.Context) (string, error) { return "", gone }); !errors.Is(err, gone) {
		t.Fatalf("the fetch's error was not returned: %v", err)
	}
	if _, ok := c.Get("k"); ok {
		t.Fatal("a failed load was cached")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v, err := c.Load(ctx, "k", func(ctx context.Context) (string, error) { return "v", ctx.Err() })
	if err != nil || v != "v" {
		t.Fatalf("the fetch saw the first caller's cancellation: %q %v", v, err)
	}
}
