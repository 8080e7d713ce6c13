package server_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"
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
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = h.srv.App().Listener(ln, fiber.ListenConfig{DisableStartupMessage: true})
	}()
	h.t.Cleanup(func() {
		_ = h.srv.App().ShutdownWithTimeout(5 * time.Second)
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
