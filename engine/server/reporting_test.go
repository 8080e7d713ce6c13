package server_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine/config"
	"glimpse/engine/server"
)

// fakeSentry is a Sentry-compatible ingest on 127.0.0.1 that keeps every
// envelope it is sent.
type fakeSentry struct {
	srv       *httptest.Server
	mu        sync.Mutex
	envelopes []string
}

func newFakeSentry(t *testing.T) *fakeSentry {
	t.Helper()
	f := &fakeSentry{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/1/envelope/" {
			http.NotFound(w, r)
			return
		}
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			gz, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = gz
		}
		b, _ := io.ReadAll(body)
		f.mu.Lock()
		f.envelopes = append(f.envelopes, string(b))
		f.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSentry) dsn() string {
	return "http://publickey@" + strings.TrimPrefix(f.srv.URL, "http://") + "/1"
}

// waitFor returns the first envelope containing want, waiting up to d: the
// SDK sends from a background queue.
func (f *fakeSentry) waitFor(t *testing.T, want string, d time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for first := true; first || time.Now().Before(deadline); first = false {
		f.mu.Lock()
		for _, e := range f.envelopes {
			if strings.Contains(e, want) {
				f.mu.Unlock()
				return e
			}
		}
		f.mu.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	return ""
}

func (f *fakeSentry) since(n int) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.envelopes[n:]...)
}

func (f *fakeSentry) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.envelopes)
}

// The secrets a failing request carries, none of which may be reported.
const (
	secretSession = "session-secret-5f1e"
	secretCSRF    = "csrf-secret-77aa"
	secretAuth    = "bearer-secret-0c3d"
	secretCreds   = "creds-secret-9b2e"
	secretLogin   = "login-secret-4d4d"
	secretBody    = "password-secret-e1e1"
	secretFrom    = "from-secret-20ab" // the cancel-by-email link's (issue #20)
)

// failingRoutes adds routes that panic and fail, which no real route does
// on purpose. POST, because the app's catch-all GET would answer first.
func failingRoutes(h *harness) {
	h.srv.App().Post("/test/panic", func(c fiber.Ctx) error { panic("reporting-test-panic") })
	h.srv.App().Post("/test/fail", func(c fiber.Ctx) error {
		return fmt.Errorf("reporting-test-failure: %w", errors.New("disk on fire"))
	})
}

func (h *harness) failingRequest(path string) response {
	h.t.Helper()
	h.cookies["glimpse_session"] = secretSession
	// The cancel link's secret both as a parameter and inside a page's URL
	// (?path=, as the screen endpoint carries it).
	req := httptest.NewRequest(http.MethodPost, path+"?creds="+secretCreds+"&login="+secretLogin+"&page=2&from="+secretFrom+
		"&path="+url.QueryEscape("/unsubscription?from="+secretFrom),
		strings.NewReader(`{"password":"`+secretBody+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", secretCSRF)
	req.Header.Set("Authorization", "Bearer "+secretAuth)
	return h.do(req)
}

func assertNoSecrets(t *testing.T, envelope string) {
	t.Helper()
	for _, s := range []string{secretSession, secretCSRF, secretAuth, secretCreds, secretLogin, secretBody, secretFrom} {
		if strings.Contains(envelope, s) {
			t.Errorf("the report holds the secret %q:\n%s", s, envelope)
		}
	}
}

func TestReportingPanicAndInternalError(t *testing.T) {
	t.Parallel()
	fake := newFakeSentry(t)
	// GLIMPSE_ENVIRONMENT unset (the harness sets development): reported as production.
	h := newHarness(t, func(c *config.Config) { c.SentryDSN, c.Environment = fake.dsn(), "" })
	failingRoutes(h)

	if res := h.failingRequest("/test/panic"); res.status != http.StatusInternalServerError {
		t.Fatalf("panic: status %d, want 500", res.status)
	}
	// What a shutdown does: the queued report is sent before it returns.
	if !h.srv.FlushReports(10 * time.Second) {
		t.Fatal("FlushReports timed out")
	}
	ev := fake.waitFor(t, "reporting-test-panic", 0)
	if ev == "" {
		t.Fatal("the panic was not reported")
	}
	for _, want := range []string{`"release":"glimpse@test"`, `"environment":"production"`, `"type":"event"`, `/test/panic`, `page=2`,
		// Redacted as the access log redacts them (engine/redact).
		`from=redacted`, `path=%2Funsubscription%3Ffrom%3Dredacted`} {
		if !strings.Contains(ev, want) {
			t.Errorf("the report lacks %s:\n%s", want, ev)
		}
	}
	assertNoSecrets(t, ev)

	if res := h.failingRequest("/test/fail"); res.status != http.StatusInternalServerError {
		t.Fatalf("failure: status %d, want 500", res.status)
	}
	ev = fake.waitFor(t, "reporting-test-failure", 10*time.Second)
	if ev == "" {
		t.Fatal("the internal error was not reported")
	}
	assertNoSecrets(t, ev)

	// A client's mistake (here a 404) is not an error of ours.
	before := fake.count()
	h.do(httptest.NewRequest(http.MethodPost, "/ui/actions/no.such", nil))
	time.Sleep(300 * time.Millisecond)
	for _, e := range fake.since(before) {
		if strings.Contains(e, `"type":"event"`) {
			t.Errorf("a 4xx was reported:\n%s", e)
		}
	}
}

func TestReportingOffWithoutDSN(t *testing.T) {
	t.Parallel()
	fake := newFakeSentry(t)
	h := newHarness(t) // no DSN
	failingRoutes(h)
	if res := h.failingRequest("/test/panic"); res.status != http.StatusInternalServerError {
		t.Fatalf("panic: status %d, want 500", res.status)
	}
	res := h.do(httptest.NewRequest(http.MethodGet, "/", nil))
	if strings.Contains(string(res.raw), "glimpse-sentry") {
		t.Errorf("the page shell names a reporter without a DSN: %s", res.raw)
	}
	if res := h.do(httptest.NewRequest(http.MethodPost, server.PathErrorTunnel, strings.NewReader("{}\n"))); res.status != http.StatusNotFound {
		t.Errorf("tunnel without a DSN: status %d, want 404", res.status)
	}
	time.Sleep(500 * time.Millisecond)
	if n := fake.count(); n != 0 {
		t.Errorf("%d envelopes sent with reporting off", n)
	}
}

var sentryMeta = regexp.MustCompile(`<meta name="glimpse-sentry" content="([^"]+)">`)

func TestReportingPageShellAndTunnel(t *testing.T) {
	t.Parallel()
	fake := newFakeSentry(t)
	h := newHarness(t, func(c *config.Config) { c.SentryDSN = fake.dsn(); c.Environment = "staging" })

	res := h.do(httptest.NewRequest(http.MethodGet, "/", nil))
	m := sentryMeta.FindSubmatch(res.raw)
	if m == nil {
		t.Fatalf("no glimpse-sentry meta tag in %s", res.raw)
	}
	settings := html.UnescapeString(string(m[1]))
	for _, want := range []string{`"dsn":"` + fake.dsn() + `"`, `"environment":"staging"`, `"release":"glimpse@test"`,
		`"tracesSampleRate":0.1`, `"tunnel":"` + server.PathErrorTunnel + `"`} {
		if !strings.Contains(settings, want) {
			t.Errorf("settings %s lack %s", settings, want)
		}
	}

	post := func(envelope, site string) int {
		req := httptest.NewRequest(http.MethodPost, server.PathErrorTunnel, bytes.NewReader([]byte(envelope)))
		req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
		req.Header.Set("Sec-Fetch-Site", site)
		return h.do(req).status
	}
	ours := `{"event_id":"0123456789abcdef0123456789abcdef","dsn":"` + fake.dsn() + `"}` + "\n" +
		`{"type":"event"}` + "\n" + `{"message":"renderer-test-error"}` + "\n"
	if status := post(ours, "same-origin"); status != http.StatusOK {
		t.Fatalf("tunnel: status %d, want 200", status)
	}
	if fake.waitFor(t, "renderer-test-error", 5*time.Second) == "" {
		t.Fatal("the tunnel did not forward the envelope")
	}
	before := fake.count()
	other := strings.Replace(ours, "publickey@", "otherkey@", 1)
	if status := post(other, "same-origin"); status != http.StatusForbidden {
		t.Errorf("envelope for another DSN: status %d, want 403", status)
	}
	if status := post(ours, "cross-site"); status != http.StatusForbidden {
		t.Errorf("cross-site envelope: status %d, want 403", status)
	}
	if status := post("not json\n", "same-origin"); status != http.StatusUnprocessableEntity {
		t.Errorf("garbage: status %d, want 422", status)
	}
	if fake.count() != before {
		t.Errorf("a refused envelope was forwarded")
	}
}
