package breach_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/breach"
)

// The fault tests run the real Client against a fake HIBP through the
// Service, the path a person's breach check takes, and assert what the
// person is shown (product spec: "'Please try again later.' on 429;
// 'Something went wrong. Please try again later.' otherwise"), that nothing
// is stored for a failure, and that the check works again once HIBP does: a
// fault must never leave the check stuck.

// switchable is a fake HIBP whose breachedaccount answer a test changes
// between calls; the catalogue always answers, as HIBP's unkeyed endpoint
// does while the keyed one fails.
type switchable struct {
	mu      sync.Mutex
	handler http.HandlerFunc
}

func (s *switchable) set(h http.HandlerFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

func (s *switchable) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/breaches" {
		respond(200, nil, twoBreaches)(w, r)
		return
	}
	s.mu.Lock()
	h := s.handler
	s.mu.Unlock()
	h(w, r)
}

// hang answers only after the client has given up (or the test ends).
func hang(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

func TestFaultsEveryDocumentedStatus(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		handler  http.HandlerFunc
		sentinel error
		code     engine.Code
		message  string
	}{
		{"400 bad account", respond(400, nil, "Bad request"), breach.ErrInvalidAccount, engine.CodeInvalid, breach.MessageSomethingWent},
		{"401 bad key", respond(401, nil, `{"statusCode":401,"message":"Access denied due to invalid hibp-api-key."}`), breach.ErrMisconfigured, engine.CodeInternal, breach.MessageSomethingWent},
		{"403 no user agent", respond(403, nil, "Forbidden"), breach.ErrMisconfigured, engine.CodeInternal, breach.MessageSomethingWent},
		{"429 with retry-after", respond(429, map[string]string{"Retry-After": "1"}, `{"statusCode":429,"message":"Rate limit is exceeded. Try again in 1 seconds."}`), breach.ErrRateLimited, engine.CodeRateLimited, breach.MessageTryLater},
		{"503 upstream down", respond(503, nil, "Service Unavailable"), breach.ErrUnavailable, engine.CodeUnavailable, breach.MessageSomethingWent},
		{"200 with a broken body", respond(200, nil, `[{"Name":`), breach.ErrUnavailable, engine.CodeUnavailable, breach.MessageSomethingWent},
		{"hang past the timeout", hang, breach.ErrUnavailable, engine.CodeUnavailable, breach.MessageSomethingWent},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := &switchable{handler: tc.handler}
			cfg := fastConfig()
			cfg.Timeout = 300 * time.Millisecond
			client, hits := newFakeHIBP(t, cfg, fake.serve)
			svc, clock, _ := newService(t, client)
			ctx := context.Background()

			began := time.Now()
			_, err := svc.Check(ctx, "u1", "ann@example.com", false)
			elapsed := time.Since(began)
			wantError(t, err, tc.code, tc.message)
			if !errors.Is(err, tc.sentinel) {
				t.Errorf("%v does not wrap %v", err, tc.sentinel)
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "ann@example.com") {
				t.Errorf("the error leaks the key or the address: %v", err)
			}
			// The request and the limiter wait are each bounded by the timeout;
			// the rest is the database on a busy machine.
			if elapsed > 5*time.Second {
				t.Errorf("the check took %v with a %v client timeout", elapsed, cfg.Timeout)
			}
			if _, ok, err := svc.Cached(ctx, "u1", "ann@example.com"); ok || err != nil {
				t.Errorf("a failure left a result (ok %v, %v)", ok, err)
			}

			// Straight away the person is asked to wait and HIBP is not called.
			calls := hits.hits()
			_, err = svc.Check(ctx, "u1", "ann@example.com", false)
			wantError(t, err, engine.CodeRateLimited, breach.MessageTryLater)
			if hits.hits() != calls {
				t.Errorf("a retry inside the retry interval reached HIBP")
			}

			// HIBP recovers: after the retry interval (and, for a 429, its
			// retry-after of one second) the check succeeds and is stored.
			fake.set(respond(200, nil, twoBreaches))
			clock.Advance(31 * time.Second)
			if errors.Is(tc.sentinel, breach.ErrRateLimited) {
				time.Sleep(1100 * time.Millisecond)
			}
			got, err := svc.Check(ctx, "u1", "ann@example.com", false)
			if err != nil {
				t.Fatalf("after HIBP recovered: %v", err)
			}
			if len(got.Breaches) != 2 {
				t.Errorf("after HIBP recovered: %d breaches, want 2", len(got.Breaches))
			}
		})
	}
}

// A 404 is HIBP's "not pwned": a result with no breaches, stored, not an error.
func TestFaultsNotFoundIsClean(t *testing.T) {
	t.Parallel()
	fake := &switchable{handler: respond(404, nil, "")}
	client, hits := newFakeHIBP(t, fastConfig(), fake.serve)
	svc, _, _ := newService(t, client)
	ctx := context.Background()
	got, err := svc.Check(ctx, "u1", "ann@example.com", false)
	if err != nil || len(got.Breaches) != 0 {
		t.Fatalf("404: %+v, %v; want a clean result", got, err)
	}
	calls := hits.hits()
	if _, err := svc.Check(ctx, "u1", "ann@example.com", false); err != nil || hits.hits() != calls {
		t.Errorf("the clean result was not kept (err %v, %d more calls)", err, hits.hits()-calls)
	}
}

// A 429's retry-after holds back every person's lookup, not only the one
// that met it: the key is shared, so a second request would only earn
// another 429.
func TestFaultsRetryAfterHoldsBackOtherPeople(t *testing.T) {
	t.Parallel()
	fake := &switchable{handler: respond(429, map[string]string{"Retry-After": "30"}, "")}
	client, hits := newFakeHIBP(t, fastConfig(), fake.serve)
	svc, _, _ := newService(t, client)
	ctx := context.Background()
	_, err := svc.Check(ctx, "u1", "ann@example.com", false)
	wantError(t, err, engine.CodeRateLimited, breach.MessageTryLater)
	fake.set(respond(200, nil, twoBreaches))
	calls := hits.hits()
	_, err = svc.Check(ctx, "u2", "bob@example.com", false)
	wantError(t, err, engine.CodeRateLimited, breach.MessageTryLater)
	var rl *breach.RateLimitedError
	if !errors.As(err, &rl) || rl.RetryAfter <= 25*time.Second {
		t.Errorf("second person: %v, want the remaining retry-after of about 30s", err)
	}
	if hits.hits() != calls {
		t.Errorf("a lookup inside HIBP's retry-after was sent")
	}
}

// A hang longer than the timeout on every call never accumulates: many
// concurrent checks all return within the timeout (plus scheduling slack)
// rather than queueing behind each other.
func TestFaultsConcurrentHangsReturn(t *testing.T) {
	t.Parallel()
	fake := &switchable{handler: hang}
	cfg := fastConfig()
	cfg.Timeout = 300 * time.Millisecond
	client, _ := newFakeHIBP(t, cfg, fake.serve)
	svc, _, _ := newService(t, client)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 8)
	began := time.Now()
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = svc.Check(ctx, "u"+string(rune('a'+i)), "ann@example.com", false)
		}()
	}
	wg.Wait()
	if elapsed := time.Since(began); elapsed > 5*time.Second {
		t.Errorf("8 hanging checks took %v with a %v timeout", elapsed, cfg.Timeout)
	}
	for i, err := range errs {
		code := engine.ErrorCode(err)
		if code != engine.CodeUnavailable && code != engine.CodeRateLimited {
			t.Errorf("check %d: %v, want unavailable or rate limited", i, err)
		}
	}
}
