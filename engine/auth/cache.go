package auth

import (
	"sync"
	"time"

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
// still held by the per-account limit, which lives in the database.
type windowCounter struct {
	clock  engine.Clock
	window time.Duration
	mu     sync.Mutex
	m      map[string]ttlEntry[int]
}

func newWindowCounter(clock engine.Clock, window time.Duration) *windowCounter {
	return &windowCounter{clock: clock, window: window, m: map[string]ttlEntry[int]{}}
}

// count returns the events counted for key in the current window.
func (w *windowCounter) count(key string) int {
	now := w.clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if e, ok := w.m[key]; ok && now.Before(e.expires) {
		return e.v
	}
	return 0
}

// add counts one event for key and returns the count in the current window.
func (w *windowCounter) add(key string) int {
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
	e.v++
	w.m[key] = e
	return e.v
}
