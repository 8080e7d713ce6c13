package server

import (
	"sync"
	"time"

	"golang.org/x/time/rate"

	"glimpse/engine"
)

// keyedLimiter is a token bucket per key (a client IP), for actions whose
// cost is ours rather than the caller's, such as analytics events that each
// write a log line. It holds at most maxKeys buckets, so unique keys cannot
// grow memory: when full it forgets the buckets that have refilled (their
// clients are idle), and if every bucket is busy it starts over, which only
// ever forgives. Buckets refill on the injected clock, so a test that moves
// no time sees exactly the burst however slowly the machine runs.
type keyedLimiter struct {
	mu      sync.Mutex
	clock   engine.Clock
	every   rate.Limit
	burst   int
	maxKeys int
	m       map[string]*rate.Limiter
}

func newKeyedLimiter(clock engine.Clock, every rate.Limit, burst, maxKeys int) *keyedLimiter {
	return &keyedLimiter{clock: clock, every: every, burst: burst, maxKeys: maxKeys, m: map[string]*rate.Limiter{}}
}

// allow takes a token from key's bucket and reports whether there was one.
func (k *keyedLimiter) allow(key string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.clock.Now()
	lim, ok := k.m[key]
	if !ok {
		if len(k.m) >= k.maxKeys {
			k.forgetIdle(now)
		}
		lim = rate.NewLimiter(k.every, k.burst)
		k.m[key] = lim
	}
	return lim.AllowN(now, 1)
}

func (k *keyedLimiter) forgetIdle(now time.Time) {
	for key, lim := range k.m {
		if lim.TokensAt(now) >= float64(k.burst) {
			delete(k.m, key)
		}
	}
	if len(k.m) >= k.maxKeys {
		k.m = map[string]*rate.Limiter{}
	}
}

// size is the number of buckets held, for tests.
func (k *keyedLimiter) size() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.m)
}
