package auth

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"glimpse/engine"
)

// ttlCache keeps values for a short time so that a signed-in screen request
// needs no database round trip. Entries are dropped explicitly on writes made
// by this instance; other instances see a change once the TTL has passed.
type ttlCache[V any] struct {
	clock engine.Clock
	ttl   time.Duration
	mu    sync.RWMutex
	m     map[string]ttlEntry[V]
	loads singleflight.Group
}

type ttlEntry[V any] struct {
	v       V
	expires time.Time
}

func newTTLCache[V any](clock engine.Clock, ttl time.Duration) *ttlCache[V] {
	return &ttlCache[V]{clock: clock, ttl: ttl, m: map[string]ttlEntry[V]{}}
}

func (c *ttlCache[V]) get(key string) (V, bool) {
	c.mu.RLock()
	e, ok := c.m[key]
	c.mu.RUnlock()
	if !ok || !c.clock.Now().Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// load returns the value of key, from the cache or else from fetch, which
// runs once for all the callers that miss the same key together. Without
// that, every request in flight for one session missed at once when its
// entry expired, and all of them queued on the database together: a spike
// in the slowest requests every TTL (make load). fetch runs without the
// first caller's cancellation, as its result serves the others too.
func (c *ttlCache[V]) load(ctx context.Context, key string, fetch func(context.Context) (V, error)) (V, error) {
	if v, ok := c.get(key); ok {
		return v, nil
	}
	v, err, _ := c.loads.Do(key, func() (any, error) {
		if v, ok := c.get(key); ok { // loaded just before this call began
			return v, nil
		}
		v, err := fetch(context.WithoutCancel(ctx))
		if err != nil {
			return v, err
		}
		c.put(key, v)
		return v, nil
	})
	if err != nil {
		var zero V
		return zero, err
	}
	return v.(V), nil
}

func (c *ttlCache[V]) put(key string, v V) {
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	// Sweep expired entries now and then so the map cannot grow without bound.
	if len(c.m) > 10000 {
		for k, e := range c.m {
			if !now.Before(e.expires) {
				delete(c.m, k)
			}
		}
	}
	c.m[key] = ttlEntry[V]{v: v, expires: now.Add(c.ttl)}
}

func (c *ttlCache[V]) drop(key string) {
	c.mu.Lock()
	delete(c.m, key)
	c.mu.Unlock()
}

// windowCounter counts events per key in fixed windows; the per-IP sign-in
// limit uses it. It lives in memory: an attacker spreading over instances is
// still held by the per-account-and-client limit, which lives in the database.
type windowCounter struct {
	clock  engine.Clock
	window time.Duration
	mu     sync.Mutex
	m      map[string]ttlEntry[int]
}

func newWindowCounter(clock engine.Clock, window time.Duration) *windowCounter {
	return &windowCounter{clock: clock, window: window, m: map[string]ttlEntry[int]{}}
}

// reserve counts one event for key unless limit are already counted in the
// current window. Checking and counting under one lock is what keeps
// parallel requests from all passing a check made before any of them
// counted.
func (w *windowCounter) reserve(key string, limit int) bool {
	now := w.clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.m[key]
	if !ok || !now.Before(e.expires) {
		if len(w.m) > 100000 {
			for k, old := range w.m {
				if !now.Before(old.expires) {
					delete(w.m, k)
				}
			}
		}
		e = ttlEntry[int]{expires: now.Add(w.window)}
	}
	if e.v >= limit {
		return false
	}
	e.v++
	w.m[key] = e
	return true
}

// release takes back one event of key's current window, for a reservation
// that turned out not to count.
func (w *windowCounter) release(key string) {
	now := w.clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if e, ok := w.m[key]; ok && now.Before(e.expires) && e.v > 0 {
		e.v--
		w.m[key] = e
	}
}
