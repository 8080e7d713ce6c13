package server_test

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine/server"
)

// listen serves the harness's app on a real TCP listener on loopback, for
// tests about what happens on the wire (keep-alive, pipelining, limits),
// which the in-memory transport cannot show.
func (h *harness) listen() string {
	h.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.t.Fatal(err)
	}
	// The app listening now, which a test may replace in h.srv later.
	app := h.srv.App()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = app.Listener(ln, fiber.ListenConfig{DisableStartupMessage: true})
	}()
	h.t.Cleanup(func() {
		_ = app.ShutdownWithTimeout(5 * time.Second)
		<-done
	})
	return ln.Addr().String()
}

// rawExchange writes raw bytes to a fresh connection (in the background, as
// a client streaming a body would) and reads every response the server sends
// until it closes the connection or the deadline passes.
func rawExchange(t *testing.T, addr string, raw []byte) []rawResponse {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	// A server that refuses a large body may close before taking all of
	// it; the write error is then expected and says nothing.
	go func() { _, _ = conn.Write(raw) }()
	br := bufio.NewReader(conn)
	var out []rawResponse
	for {
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			return out
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		out = append(out, rawResponse{status: res.StatusCode, header: res.Header, close: res.Close, body: string(body)})
		if err != nil || res.Close {
			return out
		}
	}
}

type rawResponse struct {
	status int
	header http.Header
	close  bool
	body   string
}

// TestUnreadBodyIsNeverParsedAsARequest pipelines a request whose body carries
// a second request after the first 8 KiB (what the server pre-reads of a
// streamed body). Whatever answers the first request without reading its
// body (a CSRF refusal, an unknown action, a body over the limit, a refused
// upload), the tail must be read as body or the connection closed: the
// smuggled GET /healthz must never be answered.
func TestUnreadBodyIsNeverParsedAsARequest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.bootPage()
	cookie := ""
	for k, v := range h.cookies {
		cookie += k + "=" + v + "; "
	}
	addr := h.listen()

	const smuggled = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
	const follow = "GET /missing.png HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
	cases := []struct {
		name, path, headers string
		size                int // total body size; 0 means the smuggled request ends the body
		status              int
	}{
		{"csrf refusal", "/ui/actions/session.sign_in", "", 0, http.StatusForbidden},
		{"unknown action", "/ui/actions/no.such", "Cookie: " + cookie + "\r\nX-CSRF-Token: " + h.csrf + "\r\n", 0, http.StatusNotFound},
		{"refused upload", "/ui/actions/profile.upload_export", "Cookie: " + cookie + "\r\nX-CSRF-Token: " + h.csrf + "\r\n", 0, http.StatusOK},
		{"body over the limit", "/ui/actions/event.track", "Cookie: " + cookie + "\r\nX-CSRF-Token: " + h.csrf + "\r\n", 2 << 20, http.StatusUnprocessableEntity},
		{"oversized refused upload", "/ui/actions/profile.upload_export", "Cookie: " + cookie + "\r\nX-CSRF-Token: " + h.csrf + "\r\n", 3 << 20, http.StatusOK},
		{"oversized csrf refusal", "/ui/actions/session.sign_in", "", 2 << 20, http.StatusForbidden},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Repeat("a", 8192) + smuggled
			if tc.size > len(body) {
				body += strings.Repeat("a", tc.size-len(body))
			}
			raw := "POST " + tc.path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-SDUI-Version: 1\r\n" + tc.headers +
				"Content-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body + follow
			got := rawExchange(t, addr, []byte(raw))
			if len(got) == 0 {
				t.Fatal("no response at all")
			}
			if got[0].status != tc.status {
				t.Errorf("first response: %d %s, want %d", got[0].status, got[0].body, tc.status)
			}
			for i, res := range got {
				if res.status == http.StatusOK && res.body == "ok" {
					t.Fatalf("response %d answers the request smuggled in the body", i)
				}
			}
			if tc.size > 0 && !got[0].close {
				t.Error("a body left unread must close the connection (Connection: close)")
			}
			if tc.size == 0 && len(got) != 2 {
				t.Errorf("got %d responses, want the first and the follow-up (a small body is drained)", len(got))
			}
		})
	}
}

// syncBuffer is a log sink the server's goroutines may write to at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProtocolErrorsKeepTheirStatus: a request head too large for the read
// buffer is the client's fault (431, or 414 when the request line alone is
// too long), and a known path asked with the wrong method is 405 with an
// Allow header; none of them is a 500 or an ERROR in the log.
func TestProtocolErrorsKeepTheirStatus(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	h := newHarnessDeps(t, func(d *server.Deps) { d.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	addr := h.listen()

	cases := []struct {
		name, raw string
		status    int
		allow     string
	}{
		{"huge header", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + strings.Repeat("b", 20<<10) + "\r\n\r\n",
			http.StatusRequestHeaderFieldsTooLarge, ""},
		{"many headers", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + strings.Repeat("X-Some: "+strings.Repeat("h", 300)+"\r\n", 60) + "\r\n",
			http.StatusRequestHeaderFieldsTooLarge, ""},
		{"huge path", "GET /" + strings.Repeat("p", 100<<10) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
			http.StatusRequestURITooLong, ""},
		{"huge query", "GET /ui/screen?path=/" + strings.Repeat("q", 100<<10) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
			http.StatusRequestURITooLong, ""},
		{"post to a GET route", "POST /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
			http.StatusMethodNotAllowed, "GET"},
		{"get of an action", "GET /ui/actions/session.sign_in HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
			http.StatusMethodNotAllowed, "POST"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := rawExchange(t, addr, []byte(tc.raw))
			if len(got) != 1 {
				t.Fatalf("got %d responses, want 1", len(got))
			}
			if got[0].status != tc.status {
				t.Errorf("status %d (%s), want %d", got[0].status, got[0].body, tc.status)
			}
			if allow := got[0].header.Get("Allow"); tc.allow != "" && !strings.Contains(allow, tc.allow) {
				t.Errorf("Allow = %q, want it to list %s", allow, tc.allow)
			}
		})
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("a client's protocol error was logged as a server error:\n%s", logs.String())
	}
}
