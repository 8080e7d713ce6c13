package auth

import (
	"sync"
	"time"

	"glimpse/engine"
)

// windowCounter counts events per key in fixed windows; the per-IP sign-in
// limit uses it. It lives in memory: an attacker spreading over instances is
// still held by the per-account-and-client limit, which lives in the database.
type windowCounter struct {
	clock  engine.Clock
	window time.Duration
	mu     sync.Mutex
	m      map[string]windowCount
}

// windowCount is a key's count in its current window.
type windowCount struct {
	n       int
	expires time.Time
}

func newWindowCounter(clock engine.Clock, window time.Duration) *windowCounter {
	return &windowCounter{clock: clock, window: window, m: map[string]windowCount{}}
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
		e = windowCount{expires: now.Add(w.window)}
	}
	if e.n >= limit {
		return false
	}
	e.n++
	w.m[key] = e
	return true
}

// release takes back one event of key's current window, for a reservation
// that turned out not to count.
func (w *windowCounter) release(key string) {
	now := w.clock.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if e, ok := w.m[key]; ok && now.Before(e.expires) && e.n > 0 {
		e.n--
		w.m[key] = e
	}
}
