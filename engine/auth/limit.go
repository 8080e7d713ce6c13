package auth

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"glimpse/engine"
)

// Limits bound password guessing. The design, and why:
//
//   - Refusals are per client, never per account alone. PerClient failures
//     per account and client IP, and PerIP failures per IP, are refused with
//     ErrTooManyRequests until the window ends ("blocked … from this device",
//     as the spec's text says). A stranger who types someone's email ten
//     times therefore locks out only themself, not the subscriber.
//   - PerAccount failures per account across all clients (a distributed
//     guess) are not refused, because any refusal there is a lock-out button
//     for anyone who knows an address. Beyond it every attempt on the account
//     waits Slowdown before its password is checked, which costs a person
//     signing in a few seconds and a distributed attacker, already held to
//     PerClient guesses per address, time on every guess.
//
// Every count is reserved before the password is hashed, so parallel requests
// cannot all be evaluated against a count read before any of them failed; a
// reservation is given back when the password turns out right. The database
// counters are Counters, whose Take is one conditional increment in the
// database, so they hold across instances and processes; the per-IP counter
// is in memory, per instance. Windows are fixed (windowOf), so a client
// may get up to twice a limit across a window boundary.
type Limits struct {
	PerClient  int
	PerIP      int
	PerAccount int
	Window     time.Duration
	Slowdown   time.Duration
}

// DefaultLimits are the production limits. NIST SP 800-63B allows at most
// 100 consecutive failures per account; we refuse a client far earlier.
var DefaultLimits = Limits{PerClient: 10, PerIP: 30, PerAccount: 100, Window: 15 * time.Minute, Slowdown: 3 * time.Second}

// Limiter applies Limits to one kind of sign-in (subscribers, staff); scope
// keeps the kinds' counters apart.
type Limiter struct {
	counts Counters
	clock  engine.Clock
	scope  string
	limits Limits
	ips    *windowCounter
	sleep  func(ctx context.Context, d time.Duration) error
}

// NewLimiter returns a limiter keeping its counters in counts.
func NewLimiter(counts Counters, clock engine.Clock, scope string, limits Limits) *Limiter {
	return &Limiter{counts: counts, clock: clock, scope: scope, limits: limits,
		ips: newWindowCounter(clock, limits.Window), sleep: sleepContext}
}

// SetSleep replaces how the slowdown waits (tests record it instead of
// waiting). Call it before the limiter is used.
func (l *Limiter) SetSleep(sleep func(ctx context.Context, d time.Duration) error) { l.sleep = sleep }

// SetLimits replaces the limits. Call it before the limiter is used.
func (l *Limiter) SetLimits(limits Limits) {
	l.limits = limits
	l.ips = newWindowCounter(l.clock, limits.Window)
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("sign-in slowdown: %w", ctx.Err())
	}
}

// Attempt is a reserved sign-in attempt: it already counts as a failure in
// every counter until Succeeded or Abandon gives the reservations back.
type Attempt struct {
	l          *Limiter
	ip         string
	clientKey  string
	accountKey string
	// accountCounted is false when the per-account count was already
	// full, so this attempt has no count there to give back.
	accountCounted bool
}

// Reserve counts one attempt on account (a normalised email) from ip before
// its password is checked. It returns ErrTooManyRequests when the client is
// over a limit, and waits the slowdown first when the account is.
func (l *Limiter) Reserve(ctx context.Context, account, ip string) (*Attempt, error) {
	if l.counts == nil {
		return nil, fmt.Errorf("reserve sign-in attempt: the %s limiter has no counters", l.scope)
	}
	if !l.ips.reserve(ip, l.limits.PerIP) {
		return nil, ErrTooManyRequests
	}
	now := l.clock.Now()
	window := windowOf(now, l.limits.Window)
	expires := now.Add(l.limits.Window) // at or after the window's end
	a := &Attempt{l: l, ip: ip,
		clientKey:  l.scope + ":client:" + engine.HashToken(account+"\x00"+ip) + ":" + window,
		accountKey: l.scope + ":account:" + engine.HashToken(account) + ":" + window}
	ok, err := l.counts.Take(ctx, a.clientKey, l.limits.PerClient, expires)
	if err != nil || !ok {
		l.ips.release(ip)
		if err != nil {
			return nil, fmt.Errorf("reserve sign-in attempt: %w", err)
		}
		return nil, ErrTooManyRequests
	}
	a.accountCounted, err = l.counts.Take(ctx, a.accountKey, l.limits.PerAccount, expires)
	if err != nil {
		a.Abandon(ctx)
		return nil, fmt.Errorf("reserve sign-in attempt: %w", err)
	}
	if !a.accountCounted {
		if err := l.sleep(ctx, l.limits.Slowdown); err != nil {
			a.Abandon(ctx)
			return nil, err
		}
	}
	return a, nil
}

// Succeeded records that the password was right: the client's failures are
// forgotten and the reservations given back. The account's total is not
// reset, since other clients' failures there were not this person's.
func (a *Attempt) Succeeded(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	a.l.ips.release(a.ip)
	if err := a.l.counts.Reset(ctx, a.clientKey); err != nil {
		return fmt.Errorf("reset sign-in failures: %w", err)
	}
	if a.accountCounted {
		if err := a.l.counts.Release(ctx, a.accountKey); err != nil {
			return fmt.Errorf("release sign-in attempt: %w", err)
		}
	}
	return nil
}

// Abandon gives the reservations back for an attempt that was never
// evaluated (the request ended or the database failed first). Errors are
// dropped: a count not given back only counts one failure too many.
func (a *Attempt) Abandon(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	a.l.ips.release(a.ip)
	_ = a.l.counts.Release(ctx, a.clientKey)
	if a.accountCounted {
		_ = a.l.counts.Release(ctx, a.accountKey)
	}
}

// reserveIP and releaseIP count attempts that have no account, such as
// sign-in link tokens, against the per-IP limit only.
func (l *Limiter) reserveIP(ip string) bool { return l.ips.reserve(ip, l.limits.PerIP) }
func (l *Limiter) releaseIP(ip string)      { l.ips.release(ip) }

// windowOf names the fixed window of length d that t falls in, for the keys
// of counters ("…:" + windowOf(now, 15*time.Minute)): a new window is a new
// counter, so no count needs resetting when a window ends.
func windowOf(t time.Time, d time.Duration) string {
	return strconv.FormatInt(t.UnixNano()/int64(d), 36)
}
