package breach_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine/breach"
)

const (
	testKey   = "0123456789abcdef0123456789abcdef"
	testAgent = "Glimpse-Test/1.0 (+https://glimpse.example)"
)

// fakeHIBP is an HIBP stand-in on 127.0.0.1 that records what it was asked.
type fakeHIBP struct {
	mu       sync.Mutex
	requests []*http.Request
}

func (f *fakeHIBP) record(r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r)
}

func (f *fakeHIBP) hits() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func (f *fakeHIBP) last(t *testing.T) *http.Request {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		t.Fatal("the fake HIBP got no request")
	}
	return f.requests[len(f.requests)-1]
}

// newFakeHIBP serves handler under /api/v3, as the real base URL has a path,
// and returns a client for it. cfg's BaseURL is filled in.
func newFakeHIBP(t *testing.T, cfg breach.ClientConfig, handler http.HandlerFunc) (*breach.Client, *fakeHIBP) {
	t.Helper()
	f := &fakeHIBP{}
	srv := httptest.NewServer(http.StripPrefix("/api/v3", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.record(r.Clone(context.Background()))
		handler(w, r)
	})))
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL + "/api/v3"
	return breach.NewClient(cfg), f
}

// fastConfig has a limiter loose enough not to slow a test down.
func fastConfig() breach.ClientConfig {
	return breach.ClientConfig{APIKey: testKey, UserAgent: testAgent, RPM: 60000, Timeout: 2 * time.Second}
}

func respond(status int, header map[string]string, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
}

const twoBreaches = `[
 {"Name":"Adobe","Title":"Adobe","Domain":"adobe.com","BreachDate":"2013-10-04","AddedDate":"2013-12-04T00:00Z",
  "ModifiedDate":"2022-05-15T23:52:49Z","PwnCount":152445165,
  "Description":"In October 2013, 153 million Adobe accounts were breached &amp; <a href=\"https://krebsonsecurity.com/\" target=\"_blank\">reported</a>.<script>steal()</script>",
  "LogoPath":"https://logos.haveibeenpwned.com/Adobe.png","DataClasses":["Email addresses","Password hints","Passwords","Usernames"],
  "IsVerified":true,"IsFabricated":false,"IsSensitive":false,"IsRetired":false,"IsSpamList":false,"IsMalware":false,"IsSubscriptionFree":false,"IsStealerLog":false},
 {"Name":"Gawker","Title":"Gawker","Domain":"gawker.com","BreachDate":"2010-12-11","AddedDate":"2013-12-04T00:00:00Z",
  "PwnCount":1247574,"Description":"In December 2010, Gawker was attacked.","LogoPath":"","DataClasses":["Email addresses","Passwords"],
  "IsVerified":true}
]`

func TestClientBreachedAccountStatuses(t *testing.T) {
	t.Parallel()
	adobe := breach.Breach{
		Name: "Adobe", Title: "Adobe", Domain: "adobe.com", BreachDate: "2013-10-04",
		AddedDate: time.Date(2013, 12, 4, 0, 0, 0, 0, time.UTC), PwnCount: 152445165,
		Description: "In October 2013, 153 million Adobe accounts were breached & reported.",
		LogoPath:    "https://logos.haveibeenpwned.com/Adobe.png",
		DataClasses: []string{"Email addresses", "Password hints", "Passwords", "Usernames"},
		IsVerified:  true,
	}
	gawker := breach.Breach{
		Name: "Gawker", Title: "Gawker", Domain: "gawker.com", BreachDate: "2010-12-11",
		AddedDate: time.Date(2013, 12, 4, 0, 0, 0, 0, time.UTC), PwnCount: 1247574,
		Description: "In December 2010, Gawker was attacked.",
		DataClasses: []string{"Email addresses", "Passwords"}, IsVerified: true,
	}
	cases := []struct {
		name       string
		handler    http.HandlerFunc
		want       []breach.Breach
		wantErr    error
		retryAfter time.Duration // for a *RateLimitedError
	}{
		{name: "200 full models", handler: respond(200, map[string]string{"Content-Type": "application/json"}, twoBreaches), want: []breach.Breach{adobe, gawker}},
		{name: "200 empty list", handler: respond(200, nil, `[]`), want: []breach.Breach{}},
		{name: "200 not JSON", handler: respond(200, nil, `<html>`), wantErr: breach.ErrUnavailable},
		{name: "400 bad account", handler: respond(400, nil, "Bad request"), wantErr: breach.ErrInvalidAccount},
		{name: "401 bad key", handler: respond(401, nil, `{"statusCode":401,"message":"Access denied due to invalid hibp-api-key: `+testKey+`"}`), wantErr: breach.ErrMisconfigured},
		{name: "403 no user agent", handler: respond(403, nil, "Forbidden"), wantErr: breach.ErrMisconfigured},
		{name: "404 not pwned", handler: respond(404, nil, ""), want: []breach.Breach{}},
		{name: "429 with retry-after", handler: respond(429, map[string]string{"Retry-After": "7"}, `{"statusCode":429,"message":"Rate limit is exceeded. Try again in 7 seconds."}`), wantErr: breach.ErrRateLimited, retryAfter: 7 * time.Second},
		{name: "429 without retry-after", handler: respond(429, nil, ""), wantErr: breach.ErrRateLimited, retryAfter: 2 * time.Second},
		{name: "429 with a date retry-after", handler: respond(429, map[string]string{"Retry-After": "Wed, 21 Oct 2026 07:28:00 GMT"}, ""), wantErr: breach.ErrRateLimited, retryAfter: 2 * time.Second},
		{name: "500", handler: respond(500, nil, ""), wantErr: breach.ErrUnavailable},
		{name: "503 from Cloudflare", handler: respond(503, nil, "Service Unavailable"), wantErr: breach.ErrUnavailable},
		{name: "unexpected 418", handler: respond(418, nil, ""), wantErr: breach.ErrUnavailable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			client, fake := newFakeHIBP(t, fastConfig(), tc.handler)
			// Mixed case and spaces are normalised; "/" must be escaped so
			// it cannot change the path.
			got, err := client.BreachedAccountModels(context.Background(), "  Ann.Other+tag/x@Example.com ")
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				if msg := err.Error(); strings.Contains(msg, testKey) || strings.Contains(strings.ToLower(msg), "ann.other") {
					t.Errorf("error text leaks the key or the address: %s", msg)
				}
			}
			var rl *breach.RateLimitedError
			if errors.As(err, &rl) && rl.RetryAfter != tc.retryAfter {
				t.Errorf("RetryAfter %v, want %v", rl.RetryAfter, tc.retryAfter)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("breaches (-want +got):\n%s", diff)
			}

			r := fake.last(t)
			gotReq := map[string]string{
				"method": r.Method, "path": r.URL.EscapedPath(), "query": r.URL.RawQuery,
				"key": r.Header.Get("hibp-api-key"), "agent": r.Header.Get("User-Agent"),
			}
			wantReq := map[string]string{
				"method": "GET", "path": "/breachedaccount/ann.other+tag%2Fx@example.com", "query": "truncateResponse=false",
				"key": testKey, "agent": testAgent,
			}
			if diff := cmp.Diff(wantReq, gotReq); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClientBreachedAccountNames(t *testing.T) {
	t.Parallel()
	client, _ := newFakeHIBP(t, fastConfig(), respond(200, nil, twoBreaches))
	got, err := client.BreachedAccount(context.Background(), "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Adobe", "Gawker"}, got); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if client.Sample() {
		t.Error("HIBP client reports sample data")
	}
}

func TestClientRefusesWithoutCalling(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		key     string
		email   string
		wantErr error
	}{
		{"empty address", testKey, "  ", breach.ErrInvalidAccount},
		{"no key", "", "ann@example.com", breach.ErrMisconfigured},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := fastConfig()
			cfg.APIKey = tc.key
			client, fake := newFakeHIBP(t, cfg, respond(200, nil, "[]"))
			if _, err := client.BreachedAccount(context.Background(), tc.email); !errors.Is(err, tc.wantErr) {
				t.Errorf("error %v, want %v", err, tc.wantErr)
			}
			if fake.hits() != 0 {
				t.Errorf("HIBP was called %d times", fake.hits())
			}
		})
	}
}

func TestClientTimeout(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Timeout = 200 * time.Millisecond
	client, _ := newFakeHIBP(t, cfg, func(w http.ResponseWriter, r *http.Request) {
		select { // longer than the client waits
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	start := time.Now()
	_, err := client.BreachedAccount(context.Background(), "ann@example.com")
	if !errors.Is(err, breach.ErrUnavailable) {
		t.Fatalf("error %v, want ErrUnavailable", err)
	}
	if strings.Contains(err.Error(), "ann@example.com") {
		t.Errorf("error text leaks the address: %v", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("gave up after %v, want about 200ms", elapsed)
	}
}

func TestClientCallerCancellation(t *testing.T) {
	t.Parallel()
	client, _ := newFakeHIBP(t, fastConfig(), func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := client.BreachedAccount(ctx, "ann@example.com")
	if !errors.Is(err, context.Canceled) || errors.Is(err, breach.ErrUnavailable) {
		t.Errorf("error %v, want the caller's context.Canceled", err)
	}
}

func TestClientHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	client, fake := newFakeHIBP(t, fastConfig(), respond(429, map[string]string{"Retry-After": "30"}, ""))
	ctx := context.Background()
	if _, err := client.BreachedAccount(ctx, "ann@example.com"); !errors.Is(err, breach.ErrRateLimited) {
		t.Fatalf("first call: %v", err)
	}
	_, err := client.BreachedAccount(ctx, "bob@example.com")
	var rl *breach.RateLimitedError
	if !errors.As(err, &rl) || rl.RetryAfter <= 25*time.Second || rl.RetryAfter > 30*time.Second {
		t.Fatalf("second call within retry-after: %v, want a RateLimitedError of about 30s", err)
	}
	if fake.hits() != 1 {
		t.Errorf("HIBP called %d times, want 1: a call inside retry-after must not be sent", fake.hits())
	}
}

func TestClientLimiter(t *testing.T) {
	t.Parallel()
	t.Run("refuses a wait past the deadline", func(t *testing.T) {
		t.Parallel()
		cfg := fastConfig()
		cfg.RPM = 1 // one call a minute
		client, fake := newFakeHIBP(t, cfg, respond(404, nil, ""))
		if _, err := client.BreachedAccount(context.Background(), "ann@example.com"); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start := time.Now()
		_, err := client.BreachedAccount(ctx, "bob@example.com")
		var rl *breach.RateLimitedError
		if !errors.As(err, &rl) || rl.RetryAfter < 50*time.Second {
			t.Fatalf("second call: %v, want a RateLimitedError of about a minute", err)
		}
		if elapsed := time.Since(start); elapsed > 500*time.Millisecond {
			t.Errorf("refused after %v; it should not wait for a token it cannot get", elapsed)
		}
		if fake.hits() != 1 {
			t.Errorf("HIBP called %d times, want 1", fake.hits())
		}
		// The refused call gave its token back: a larger RPM lets the next
		// call through soon.
		client.SetRPM(600)
		ctx, cancel = context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if _, err := client.BreachedAccount(ctx, "bob@example.com"); err != nil {
			t.Errorf("after SetRPM(600): %v", err)
		}
	})
	t.Run("spaces calls evenly", func(t *testing.T) {
		t.Parallel()
		cfg := fastConfig()
		cfg.RPM = 1200 // one call every 50ms
		client, fake := newFakeHIBP(t, cfg, respond(404, nil, ""))
		start := time.Now()
		for range 4 {
			if _, err := client.BreachedAccount(context.Background(), "ann@example.com"); err != nil {
				t.Fatal(err)
			}
		}
		if elapsed := time.Since(start); elapsed < 140*time.Millisecond {
			t.Errorf("4 calls at 1200 RPM took %v, want at least 150ms", elapsed)
		}
		if fake.hits() != 4 {
			t.Errorf("HIBP called %d times, want 4", fake.hits())
		}
	})
}

func TestClientCatalogue(t *testing.T) {
	t.Parallel()
	client, fake := newFakeHIBP(t, fastConfig(), respond(200, nil, twoBreaches))
	got, err := client.Catalogue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "Adobe" || strings.Contains(got[0].Description, "steal") {
		t.Errorf("catalogue: %+v", got)
	}
	r := fake.last(t)
	gotReq := map[string]string{"path": r.URL.Path, "key": r.Header.Get("hibp-api-key"), "agent": r.Header.Get("User-Agent")}
	// The catalogue needs no key, so none is sent.
	wantReq := map[string]string{"path": "/breaches", "key": "", "agent": testAgent}
	if diff := cmp.Diff(wantReq, gotReq); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

func TestClientCatalogueFailure(t *testing.T) {
	t.Parallel()
	client, _ := newFakeHIBP(t, fastConfig(), respond(404, nil, ""))
	if _, err := client.Catalogue(context.Background()); !errors.Is(err, breach.ErrUnavailable) {
		t.Errorf("404 on /breaches: %v, want ErrUnavailable", err)
	}
}

func TestClientSubscriptionRPM(t *testing.T) {
	t.Parallel()
	client, fake := newFakeHIBP(t, fastConfig(), respond(200, nil,
		`{"SubscriptionName":"Core 1","Description":"10 RPM","SubscribedUntil":"2027-01-01T00:00:00","Rpm":10,"DomainSearchMaxBreachedAccounts":25}`))
	got, err := client.SubscriptionRPM(context.Background())
	if err != nil || got != 10 {
		t.Fatalf("SubscriptionRPM = %d, %v; want 10", got, err)
	}
	if r := fake.last(t); r.URL.Path != "/subscription/status" || r.Header.Get("hibp-api-key") != testKey {
		t.Errorf("request %s with key %q", r.URL.Path, r.Header.Get("hibp-api-key"))
	}
}
