package api

import (
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"glimpse/engine"
)

// DefaultCallsPerHour is the per-token budget of our own limiter: the old
// rule of thumb of 200 calls per user per hour (docs/instagram.md §3.9). The real
// business use case budget is 4800 × the account's daily impressions, which a
// quiet account can make much smaller, so we stay at the conservative figure
// and let the API's headers slow us further.
const DefaultCallsPerHour = 200

// DefaultBurst is how many calls a token may make at once before the hourly
// rate applies: one full refresh of an account (profile, 1–3 media pages,
// comments of the latest posts ≈ 30–60 calls,
// docs/instagram.md §3.9) goes through without waiting.
const DefaultBurst = 60

// throttleAt is the usage percentage from which a reply's headers make us
// rest the token; the platform throttles at 100 (docs/instagram.md §3.9).
const throttleAt = 95

// limiter holds one rate limiter per access token, plus the time until which
// the API told us to leave the token alone. Tokens are keyed by their SHA-256
// so the map never holds a secret.
type limiter struct {
	perHour int
	clock   engine.Clock

	mu     sync.Mutex
	tokens map[[sha256.Size]byte]*tokenState
}

type tokenState struct {
	rate         *rate.Limiter
	blockedUntil time.Time
	lastUsed     time.Time
}

// sweepAbove is the map size from which idle entries are dropped.
const sweepAbove = 1024

func newLimiter(perHour int, clock engine.Clock) *limiter {
	return &limiter{perHour: perHour, clock: clock, tokens: map[[sha256.Size]byte]*tokenState{}}
}

func (l *limiter) state(token string, now time.Time) *tokenState {
	key := sha256.Sum256([]byte(token))
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.tokens[key]
	if !ok {
		if len(l.tokens) >= sweepAbove {
			for k, old := range l.tokens {
				if now.Sub(old.lastUsed) > time.Hour && now.After(old.blockedUntil) {
					delete(l.tokens, k)
				}
			}
		}
		s = &tokenState{rate: rate.NewLimiter(rate.Every(time.Hour/time.Duration(l.perHour)), DefaultBurst)}
		l.tokens[key] = s
	}
	s.lastUsed = now
	return s
}

// wait takes a slot for token, or refuses at once with a *RateLimitError when
// the API told us to rest the token, or when the slot would come after ctx's
// deadline (engine.WaitLimit). The limiter runs on the injected clock.
func (l *limiter) wait(ctx context.Context, token string) error {
	now := l.clock.Now()
	s := l.state(token, now)
	l.mu.Lock()
	blocked := s.blockedUntil.Sub(now)
	l.mu.Unlock()
	if blocked > 0 {
		return &RateLimitError{RetryAfter: blocked.Round(time.Second)}
	}
	wait, err := engine.WaitLimit(ctx, s.rate, now)
	if errors.Is(err, engine.ErrPastDeadline) {
		return &RateLimitError{RetryAfter: wait}
	}
	return err
}

// observe rests token after a rate-limit refusal for as long as it says, and
// after a reply whose usage headers report throttling or near-exhaustion.
func (l *limiter) observe(token string, header http.Header, err error) {
	var rest time.Duration
	var rl *RateLimitError
	if errors.As(err, &rl) && rl.Err != nil {
		rest = rl.RetryAfter
	} else if header != nil {
		u := usageOf(header)
		rest = u.retryAfter
		if u.percent >= throttleAt {
			rest = max(rest, DefaultBackoff)
		}
	}
	if rest <= 0 {
		return
	}
	now := l.clock.Now()
	s := l.state(token, now)
	l.mu.Lock()
	defer l.mu.Unlock()
	if until := now.Add(rest); until.After(s.blockedUntil) {
		s.blockedUntil = until
	}
}
