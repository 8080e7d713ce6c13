package imageproxy

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine"
)

// testHost is allow-listed in tests and covered by httptest's certificate
// (which is valid for *.example.com).
const testHost = "img.example.com"

var testSecret = []byte("test secret, not for production")

// testPNG returns a small PNG built in Go rather than a binary fixture.
func testPNG(tb testing.TB) []byte {
	tb.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// upstream is a TLS test server standing in for the CDN, counting requests.
type upstream struct {
	server *httptest.Server
	hits   atomic.Int64
}

const upstreamMaxBytes = 1024

func newUpstream(tb testing.TB) *upstream {
	tb.Helper()
	body := testPNG(tb)
	u := &upstream{}
	mux := http.NewServeMux()
	mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(body)
	})
	mux.HandleFunc("/png-params", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "Image/PNG; charset=binary")
		w.Write(body)
	})
	mux.HandleFunc("/big-length", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Content-Length", strconv.Itoa(upstreamMaxBytes+1))
		w.Write(make([]byte, upstreamMaxBytes+1))
	})
	mux.HandleFunc("/big-chunked", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		// Flushing before the body forces chunked encoding, so no
		// Content-Length warns the proxy in advance.
		w.(http.Flusher).Flush()
		w.Write(make([]byte, 4*upstreamMaxBytes))
	})
	mux.HandleFunc("/html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html></html>"))
	})
	mux.HandleFunc("/svg", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Write([]byte("<svg/>"))
	})
	mux.HandleFunc("/500", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		// Block until the proxy gives up and closes the connection, and a
		// while longer: a handler that returned as soon as its context
		// ended could still answer an empty 200 that a loaded machine's
		// client reads before its own timeout fires (seen in CI as "not an
		// image", content type "").
		<-r.Context().Done()
		time.Sleep(time.Second)
	})
	mux.HandleFunc("/redirect-elsewhere", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://evil.test/png", http.StatusFound)
	})
	mux.HandleFunc("/redirect-http", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+testHost+"/png", http.StatusFound)
	})
	mux.HandleFunc("/redirect-ok", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://"+testHost+"/png", http.StatusFound)
	})
	mux.HandleFunc("/redirect-loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/redirect-loop", http.StatusFound)
	})
	u.server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	tb.Cleanup(u.server.Close)
	return u
}

// newTestProxy returns a proxy that reaches up; loopback says whether the
// test escape hatch is on.
func newTestProxy(tb testing.TB, up *upstream, cfg Config, loopback bool) *Proxy {
	tb.Helper()
	cfg.Secret = testSecret
	if cfg.AllowedHosts == nil {
		cfg.AllowedHosts = []string{".example.com"}
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = upstreamMaxBytes
	}
	p := New(cfg)
	p.routeToTestServer(up.server)
	if loopback {
		p.allowLoopbackForTest()
	}
	tb.Cleanup(p.transport.CloseIdleConnections)
	return p
}

// fetchSigned fetches remote the way the server does: through the query
// string produced by URL.
func fetchSigned(tb testing.TB, p *Proxy, remote string) (Image, error) {
	tb.Helper()
	path, rawQuery, _ := strings.Cut(p.URL(remote), "?")
	if path != "/img" {
		tb.Fatalf("URL path = %q, want /img", path)
	}
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		tb.Fatal(err)
	}
	return p.Fetch(context.Background(), query.Get("u"), query.Get("s"))
}

// checkError fails unless err wraps want and carries code.
func checkError(tb testing.TB, err, want error, code engine.Code) {
	tb.Helper()
	if !errors.Is(err, want) {
		tb.Fatalf("error = %v, want %v", err, want)
	}
	if got := engine.ErrorCode(err); got != code {
		tb.Errorf("code = %q, want %q", got, code)
	}
}

func TestFetchRefusesBadSignature(t *testing.T) {
	t.Parallel()
	remote := "https://" + testHost + "/png"
	p := New(Config{Secret: testSecret, AllowedHosts: []string{".example.com"}})
	good := p.sign(remote)
	tests := []struct {
		name   string
		remote string
		sig    string
	}{
		{name: "missing", remote: remote, sig: ""},
		{name: "not base64", remote: remote, sig: "!!!"},
		{name: "for another url", remote: remote + "?x=1", sig: good},
		{name: "truncated", remote: remote, sig: good[:10]},
		{name: "other key", remote: remote, sig: New(Config{Secret: []byte("other")}).sign(remote)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := p.Fetch(context.Background(), tt.remote, tt.sig)
			checkError(t, err, ErrBadSignature, engine.CodeForbidden)
		})
	}
	t.Run("no secret", func(t *testing.T) {
		t.Parallel()
		unkeyed := New(Config{AllowedHosts: []string{".example.com"}})
		_, err := unkeyed.Fetch(context.Background(), remote, unkeyed.sign(remote))
		checkError(t, err, ErrBadSignature, engine.CodeForbidden)
	})
}

func TestFetchRefusesDisallowedURLs(t *testing.T) {
	t.Parallel()
	up := newUpstream(t)
	p := newTestProxy(t, up, Config{}, true)
	tests := []struct {
		name   string
		remote string
	}{
		{name: "http scheme", remote: "http://" + testHost + "/png"},
		{name: "ftp scheme", remote: "ftp://" + testHost + "/png"},
		{name: "userinfo", remote: "https://user:pass@" + testHost + "/png"},
		{name: "odd port", remote: "https://" + testHost + ":8443/png"},
		{name: "port 80", remote: "https://" + testHost + ":80/png"},
		{name: "host off the allowlist", remote: "https://evil.test/png"},
		{name: "bare suffix", remote: "https://example.com/png"},
		{name: "suffix without dot", remote: "https://evilexample.com/png"},
		{name: "ip literal", remote: "https://127.0.0.1/png"},
		{name: "relative", remote: "/png"},
		{name: "opaque", remote: "https:" + testHost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := fetchSigned(t, p, tt.remote)
			checkError(t, err, ErrNotAllowed, engine.CodeForbidden)
		})
	}
	if hits := up.hits.Load(); hits != 0 {
		t.Errorf("upstream hits = %d, want 0", hits)
	}
}

func TestHostAllowed(t *testing.T) {
	t.Parallel()
	p := New(Config{Secret: testSecret, AllowedHosts: []string{".CDNinstagram.com", "exact.example.org"}})
	tests := []struct {
		host string
		want bool
	}{
		{host: "scontent.cdninstagram.com", want: true},
		{host: "a.b.cdninstagram.com", want: true},
		{host: "SCONTENT.CDNINSTAGRAM.COM", want: true},
		{host: "cdninstagram.com", want: false},
		{host: "evilcdninstagram.com", want: false},
		{host: "cdninstagram.com.evil.test", want: false},
		{host: "exact.example.org", want: true},
		{host: "sub.exact.example.org", want: false},
		{host: "example.org", want: false},
		{host: "", want: false},
		{host: "xn--caf-dma.cdninstagram.com", want: true},
		{host: "café.cdninstagram.com", want: false},
		{host: "a_b.cdninstagram.com", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			t.Parallel()
			if got := p.hostAllowed(tt.host); got != tt.want {
				t.Errorf("hostAllowed(%q) = %v, want %v", tt.host, got, tt.want)
			}
		})
	}
	t.Run("defaults", func(t *testing.T) {
		t.Parallel()
		if diff := cmp.Diff(DefaultInstagramHosts, New(Config{}).hosts); diff != "" {
			t.Errorf("default hosts (-want +got):\n%s", diff)
		}
	})
}

func TestCheckDialAddress(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		network  string
		address  string
		loopback bool
		refused  bool
	}{
		{name: "public v4", network: "tcp4", address: "93.184.216.34:443"},
		{name: "public v6", network: "tcp6", address: "[2606:2800:220:1:248:1893:25c8:1946]:443"},
		{name: "loopback", network: "tcp4", address: "127.0.0.1:443", refused: true},
		{name: "loopback range", network: "tcp4", address: "127.8.9.10:443", refused: true},
		{name: "rfc1918 10", network: "tcp4", address: "10.1.2.3:443", refused: true},
		{name: "rfc1918 172", network: "tcp4", address: "172.16.0.1:443", refused: true},
		{name: "rfc1918 192", network: "tcp4", address: "192.168.0.1:443", refused: true},
		{name: "v6 loopback", network: "tcp6", address: "[::1]:443", refused: true},
		{name: "v6 unique local", network: "tcp6", address: "[fd00::1]:443", refused: true},
		{name: "v6 link local", network: "tcp6", address: "[fe80::1%eth0]:443", refused: true},
		{name: "metadata", network: "tcp4", address: "169.254.169.254:443", refused: true},
		{name: "mapped loopback", network: "tcp6", address: "[::ffff:127.0.0.1]:443", refused: true},
		{name: "mapped private", network: "tcp6", address: "[::ffff:10.0.0.1]:443", refused: true},
		{name: "nat64 private", network: "tcp6", address: "[64:ff9b::a00:1]:443", refused: true},
		{name: "nat64 public", network: "tcp6", address: "[64:ff9b::5db8:d822]:443"},
		{name: "cgnat", network: "tcp4", address: "100.64.0.1:443", refused: true},
		{name: "unspecified", network: "tcp4", address: "0.0.0.0:443", refused: true},
		{name: "v6 unspecified", network: "tcp6", address: "[::]:443", refused: true},
		{name: "this network", network: "tcp4", address: "0.1.2.3:443", refused: true},
		{name: "multicast", network: "tcp4", address: "224.0.0.1:443", refused: true},
		{name: "v6 multicast", network: "tcp6", address: "[ff02::1]:443", refused: true},
		{name: "broadcast", network: "tcp4", address: "255.255.255.255:443", refused: true},
		{name: "hostname", network: "tcp4", address: "localhost:443", refused: true},
		{name: "udp", network: "udp4", address: "93.184.216.34:443", refused: true},
		{name: "hatch allows loopback", network: "tcp4", address: "127.0.0.1:443", loopback: true},
		{name: "hatch keeps private refused", network: "tcp4", address: "10.1.2.3:443", loopback: true, refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := checkDialAddress(tt.network, tt.address, tt.loopback)
			if tt.refused != errors.Is(err, ErrPrivateAddress) {
				t.Errorf("checkDialAddress(%q, %q) = %v, refused want %v", tt.network, tt.address, err, tt.refused)
			}
			if !tt.refused && err != nil {
				t.Errorf("checkDialAddress(%q, %q) = %v, want nil", tt.network, tt.address, err)
			}
		})
	}
}

// TestFetchRefusesLoopbackByDefault shows that an allow-listed host which
// resolves to 127.0.0.1 is refused by the strict proxy at dial time.
func TestFetchRefusesLoopbackByDefault(t *testing.T) {
	t.Parallel()
	up := newUpstream(t)
	p := newTestProxy(t, up, Config{}, false)
	_, err := fetchSigned(t, p, "https://"+testHost+"/png")
	checkError(t, err, ErrPrivateAddress, engine.CodeForbidden)
	if hits := up.hits.Load(); hits != 0 {
		t.Errorf("upstream hits = %d, want 0", hits)
	}
}

func TestFetch(t *testing.T) {
	t.Parallel()
	body := testPNG(t)
	tests := []struct {
		name    string
		path    string
		timeout time.Duration
		want    Image
		wantErr error
		code    engine.Code
	}{
		{name: "png", path: "/png", want: Image{ContentType: "image/png", Body: body}},
		{name: "content type parameters", path: "/png-params", want: Image{ContentType: "image/png", Body: body}},
		{name: "redirect on the allowlist", path: "/redirect-ok", want: Image{ContentType: "image/png", Body: body}},
		{name: "content length too large", path: "/big-length", wantErr: ErrTooLarge, code: engine.CodeInvalid},
		{name: "chunked too large", path: "/big-chunked", wantErr: ErrTooLarge, code: engine.CodeInvalid},
		{name: "html", path: "/html", wantErr: ErrNotImage, code: engine.CodeInvalid},
		{name: "svg", path: "/svg", wantErr: ErrNotImage, code: engine.CodeInvalid},
		{name: "server error", path: "/500", wantErr: ErrUpstream, code: engine.CodeUnavailable},
		{name: "not found", path: "/missing", wantErr: ErrUpstream, code: engine.CodeUnavailable},
		{name: "slow", path: "/slow", timeout: 100 * time.Millisecond, wantErr: ErrUpstream, code: engine.CodeUnavailable},
		{name: "redirect off the allowlist", path: "/redirect-elsewhere", wantErr: ErrNotAllowed, code: engine.CodeForbidden},
		{name: "redirect to http", path: "/redirect-http", wantErr: ErrNotAllowed, code: engine.CodeForbidden},
		{name: "redirect loop", path: "/redirect-loop", wantErr: ErrUpstream, code: engine.CodeUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newTestProxy(t, newUpstream(t), Config{Timeout: tt.timeout}, true)
			got, err := fetchSigned(t, p, "https://"+testHost+tt.path)
			if tt.wantErr != nil {
				checkError(t, err, tt.wantErr, tt.code)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("image (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFetchCaches(t *testing.T) {
	t.Parallel()
	up := newUpstream(t)
	clock := &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	p := newTestProxy(t, up, Config{CacheTTL: time.Minute, Clock: clock.Now}, true)
	remote := "https://" + testHost + "/png"

	// Concurrent first requests share one fetch; any that start after it
	// finished are served from the cache, so there is one hit either way.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := fetchSigned(t, p, remote); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if hits := up.hits.Load(); hits != 1 {
		t.Fatalf("hits after concurrent fetches = %d, want 1", hits)
	}
	if _, err := fetchSigned(t, p, remote); err != nil {
		t.Fatal(err)
	}
	if hits := up.hits.Load(); hits != 1 {
		t.Fatalf("hits after cached fetch = %d, want 1", hits)
	}

	clock.Advance(time.Minute)
	if _, err := fetchSigned(t, p, remote); err != nil {
		t.Fatal(err)
	}
	if hits := up.hits.Load(); hits != 2 {
		t.Fatalf("hits after expiry = %d, want 2", hits)
	}
}

func TestFetchDoesNotCacheFailures(t *testing.T) {
	t.Parallel()
	up := newUpstream(t)
	p := newTestProxy(t, up, Config{}, true)
	for range 2 {
		_, err := fetchSigned(t, p, "https://"+testHost+"/500")
		checkError(t, err, ErrUpstream, engine.CodeUnavailable)
	}
	if hits := up.hits.Load(); hits != 2 {
		t.Errorf("hits = %d, want 2", hits)
	}
}

func TestFetchEvictsBySize(t *testing.T) {
	t.Parallel()
	up := newUpstream(t)
	size := int64(len(testPNG(t)))
	// Room for two pictures, not three.
	p := newTestProxy(t, up, Config{CacheBytes: 2*size + size/2}, true)
	fetch := func(path string) {
		t.Helper()
		if _, err := fetchSigned(t, p, "https://"+testHost+path); err != nil {
			t.Fatal(err)
		}
	}
	fetch("/png?a")
	fetch("/png?b")
	fetch("/png?a") // a is now the most recently used
	fetch("/png?c") // evicts b
	if hits := up.hits.Load(); hits != 3 {
		t.Fatalf("hits = %d, want 3", hits)
	}
	fetch("/png?a")
	fetch("/png?c")
	if hits := up.hits.Load(); hits != 3 {
		t.Fatalf("hits after a and c = %d, want 3 (both cached)", hits)
	}
	fetch("/png?b")
	if hits := up.hits.Load(); hits != 4 {
		t.Fatalf("hits after b = %d, want 4 (b was evicted)", hits)
	}
}

func TestCache(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	c := newCache(10, time.Hour, clock.Now)
	image := func(n int) Image { return Image{ContentType: "image/png", Body: make([]byte, n)} }
	c.add("a", image(4))
	c.add("b", image(4))
	c.get("a")
	c.add("c", image(4))
	c.add("huge", image(11))
	c.add("a", image(3)) // replacing keeps the byte count right
	var got []string
	for _, key := range []string{"a", "b", "c", "huge"} {
		if _, ok := c.get(key); ok {
			got = append(got, key)
		}
	}
	if diff := cmp.Diff([]string{"a", "c"}, got); diff != "" {
		t.Errorf("cached keys (-want +got):\n%s", diff)
	}
	if c.bytes != 7 {
		t.Errorf("bytes = %d, want 7", c.bytes)
	}
}

func TestFetchHonoursCallerContext(t *testing.T) {
	t.Parallel()
	p := newTestProxy(t, newUpstream(t), Config{}, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	remote := "https://" + testHost + "/slow"
	_, err := p.Fetch(ctx, remote, p.sign(remote))
	checkError(t, err, ErrUpstream, engine.CodeUnavailable)
}

// fakeClock is a clock the test advances instead of sleeping.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func FuzzCheckURL(f *testing.F) {
	for _, seed := range []string{
		"https://scontent.cdninstagram.com/v/t51/1.jpg",
		"https://a.fbcdn.net:443/x.png?y=1",
		"http://scontent.cdninstagram.com/x",
		"https://user@scontent.cdninstagram.com/x",
		"https://cdninstagram.com/x",
		"https://evilcdninstagram.com/x",
		"https://scontent.cdninstagram.com:8443/x",
		"https://[::1]/x",
		"https://scontent.cdninstagram.com%2eevil.test/",
		"HTTPS://SCONTENT.CDNINSTAGRAM.COM/x",
		"https:scontent.cdninstagram.com",
		"//scontent.cdninstagram.com/x",
	} {
		f.Add(seed)
	}
	p := New(Config{Secret: testSecret})
	f.Fuzz(func(t *testing.T, remote string) {
		u, err := p.checkURL(remote)
		if err != nil {
			if !errors.Is(err, ErrNotAllowed) {
				t.Fatalf("checkURL(%q) = %v, want ErrNotAllowed", remote, err)
			}
			return
		}
		host := strings.ToLower(u.Hostname())
		onList := strings.HasSuffix(host, ".cdninstagram.com") && host != ".cdninstagram.com" ||
			strings.HasSuffix(host, ".fbcdn.net") && host != ".fbcdn.net"
		if u.Scheme != "https" || u.User != nil || !onList || (u.Port() != "" && u.Port() != "443") {
			t.Fatalf("checkURL(%q) accepted %#v", remote, u)
		}
		// What the transport will request must name the same host.
		again, err := url.Parse(u.String())
		if err != nil || strings.ToLower(again.Hostname()) != host {
			t.Fatalf("checkURL(%q): %q re-parses to another host", remote, u.String())
		}
	})
}
