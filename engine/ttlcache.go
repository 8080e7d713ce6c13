package engine

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// ttlCacheSweepAt is the size above which a Put first drops expired entries.
const ttlCacheSweepAt = 10000

// TTLCache keeps values for a short time so that a signed-in screen request
// needs no database round trip (sessions, subscriptions, the dashboard's
// profile summary). Entries are dropped explicitly on writes made by this
// instance; other instances see a change once the TTL has passed.
type TTLCache[V any] struct {
	clock Clock
	ttl   time.Duration
	mu    sync.RWMutex
	m     map[string]ttlEntry[V]
	loads singleflight.Group
}

type ttlEntry[V any] struct {
	v       V
	expires time.Time
}

func NewTTLCache[V any](clock Clock, ttl time.Duration) *TTLCache[V] {
	return &TTLCache[V]{clock: clock, ttl: ttl, m: map[string]ttlEntry[V]{}}
}

func (c *TTLCache[V]) Get(key string) (V, bool) {
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
func (c *TTLCache[V]) Load(ctx context.Context, key string, fetch func(context.Context) (V, error)) (V, error) {
	if v, ok := c.Get(key); ok {
		return v, nil
	}
	v, err, _ := c.loads.Do(key, func() (any, error) {
		if v, ok := c.Get(key); ok { // loaded just before this call began
			return v, nil
		}
		v, err := fetch(context.WithoutCancel(ctx))
		if err != nil {
			return v, err
		}
		c.Put(key, v)
		return v, nil
	})
	if err != nil {
		var zero V
		return zero, err
	}
	return v.(V), nil
}

func (c *TTLCache[V]) Put(key string, v V) {
	now := c.clock.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	// Sweep expired entries now and then so the map cannot grow without bound.
	if len(c.m) > ttlCacheSweepAt {
		for k, e := range c.m {
			if !now.Before(e.expires) {
				delete(c.m, k)
			}
		}
	}
	c.m[key] = ttlEntry[V]{v: v, expires: now.Add(c.ttl)}
}

func (c *TTLCache[V]) Drop(key string) {
	c.mu.Lock()
	delete(c.m, key)
	c.mu.Unlock()
}

// DropWhere forgets every entry whose value matches.
func (c *TTLCache[V]) DropWhere(match func(V) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.m {
		if match(e.v) {
			delete(c.m, k)
		}
	}
}
