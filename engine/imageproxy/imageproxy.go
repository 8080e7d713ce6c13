// Package imageproxy serves post pictures through the server so the renderer
// never loads third-party URLs directly. It fetches only URLs the server
// itself signed, only from allow-listed hosts, with size and time limits, and
// never connects to an internal address — the checks an image proxy needs so
// it cannot be used for SSRF (see
// https://cheatsheetseries.owasp.org/cheatsheets/Server_Side_Request_Forgery_Prevention_Cheat_Sheet.html).
package imageproxy

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"glimpse/engine"
)

// DefaultInstagramHosts is the allowlist for Instagram post pictures: the
// CDNs Instagram serves media from. A leading dot means "any subdomain of".
var DefaultInstagramHosts = []string{".cdninstagram.com", ".fbcdn.net"}

// Defaults applied by New to zero Config fields.
const (
	DefaultMaxBytes   int64 = 5 << 20
	DefaultTimeout          = 5 * time.Second
	DefaultCacheBytes int64 = 64 << 20
	DefaultCacheTTL         = time.Hour
)

// maxRedirects bounds how many redirects one fetch follows; CDNs use one or
// two, and every hop is another chance to be steered somewhere else.
const maxRedirects = 3

// signatureBytes is how much of the HMAC-SHA256 goes into a URL: 128 bits
// is far beyond guessing while keeping the URL short.
const signatureBytes = 16

// The sentinel errors. Fetch returns them wrapped in an *engine.Error, so
// callers test them with errors.Is and the server maps the code to a status.
var (
	ErrBadSignature   = errors.New("imageproxy: bad signature")
	ErrNotAllowed     = errors.New("imageproxy: url not allowed")
	ErrPrivateAddress = errors.New("imageproxy: private address")
	ErrTooLarge       = errors.New("imageproxy: image too large")
	ErrNotImage       = errors.New("imageproxy: not an image")
	ErrUpstream       = errors.New("imageproxy: upstream failed")
)

// Config configures a Proxy. Zero fields take the defaults noted on each.
type Config struct {
	// Secret is the HMAC key for signed URLs. With an empty secret every
	// fetch is refused, because anyone could forge an unkeyed signature.
	Secret []byte
	// AllowedHosts holds exact hosts ("scontent.cdninstagram.com") or
	// suffixes written with a leading dot (".cdninstagram.com"), which match
	// subdomains only. Empty means DefaultInstagramHosts.
	AllowedHosts []string
	// MaxBytes is the largest body accepted; default 5 MiB.
	MaxBytes int64
	// Timeout bounds one whole fetch, redirects included; default 5s.
	Timeout time.Duration
	// CacheBytes bounds the memory the cache holds; default 64 MiB.
	CacheBytes int64
	// CacheTTL is how long a fetched image is served from memory; default 1h.
	CacheTTL time.Duration
	// Clock tells the time for cache expiry; default time.Now.
	Clock func() time.Time
}

// Image is a fetched picture. Body is shared with the cache and other
// callers, so it must not be modified.
type Image struct {
	ContentType string
	Body        []byte
}

// Proxy fetches signed, allow-listed image URLs. It is safe for concurrent
// use.
type Proxy struct {
	secret   []byte
	hosts    []string
	maxBytes int64
	timeout  time.Duration
	client   *http.Client
	cache    *cache

	mu      sync.Mutex
	flights map[string]*flight

	// transport is kept so tests can trust their TLS server's certificate.
	transport *http.Transport
	// allowLoopback lets tests reach an httptest server on 127.0.0.1. It is
	// unexported and set only by export_test.go, so no configuration can
	// turn it on.
	allowLoopback bool
	// redirectDial, when set by tests, replaces the address dialled (after
	// the URL checks, before the dialer's address check).
	redirectDial func(address string) string
}

// flight is one fetch in progress that concurrent callers for the same URL
// wait on instead of fetching again.
type flight struct {
	done  chan struct{}
	image Image
	err   error
}

// New returns a Proxy with cfg's zero fields set to their defaults.
func New(cfg Config) *Proxy {
	p := &Proxy{
		secret:   cfg.Secret,
		hosts:    normalizeHosts(cfg.AllowedHosts),
		maxBytes: cfg.MaxBytes,
		timeout:  cfg.Timeout,
		flights:  map[string]*flight{},
	}
	if p.maxBytes <= 0 {
		p.maxBytes = DefaultMaxBytes
	}
	if p.timeout <= 0 {
		p.timeout = DefaultTimeout
	}
	cacheBytes, ttl, clock := cfg.CacheBytes, cfg.CacheTTL, cfg.Clock
	if cacheBytes <= 0 {
		cacheBytes = DefaultCacheBytes
	}
	if ttl <= 0 {
		ttl = DefaultCacheTTL
	}
	if clock == nil {
		clock = time.Now
	}
	p.cache = newCache(cacheBytes, ttl, clock)

	dialer := &net.Dialer{
		Timeout: p.timeout,
		// Control runs on the resolved address actually being connected
		// to, so a hostname that resolves (or re-resolves, as in DNS
		// rebinding) to an internal address is still refused.
		Control: func(network, address string, _ syscall.RawConn) error {
			return checkDialAddress(network, address, p.allowLoopback)
		},
	}
	p.transport = &http.Transport{
		// Never an environment proxy: it would dial for us, past Control.
		Proxy: nil,
		DialContext: func(ctx context.Context, network, address string) (net.Conn, error) {
			if p.redirectDial != nil {
				address = p.redirectDial(address)
			}
			return dialer.DialContext(ctx, network, address)
		},
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    p.timeout,
		ResponseHeaderTimeout:  p.timeout,
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConns:           32,
		IdleConnTimeout:        90 * time.Second,
		ForceAttemptHTTP2:      true,
	}
	p.client = &http.Client{
		Transport: p.transport,
		Timeout:   p.timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("%w: more than %d redirects", ErrUpstream, maxRedirects)
			}
			// A redirect is a new URL the server never signed; it must
			// pass the same checks as the first.
			_, err := p.checkURL(req.URL.String())
			return err
		},
	}
	return p
}

// normalizeHosts lowercases the allowlist so matching is case-insensitive.
func normalizeHosts(hosts []string) []string {
	if len(hosts) == 0 {
		hosts = DefaultInstagramHosts
	}
	out := make([]string, 0, len(hosts))
	for _, h := range hosts {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" && h != "." {
			out = append(out, h)
		}
	}
	return out
}

// URL returns the same-origin path the renderer loads remote through. The
// signature means only URLs the server produced can be fetched, so the
// proxy is never an open proxy.
func (p *Proxy) URL(remote string) string {
	return "/img?u=" + url.QueryEscape(remote) + "&s=" + p.sign(remote)
}

// sign returns the base64url, truncated HMAC-SHA256 of remote.
func (p *Proxy) sign(remote string) string {
	return base64.RawURLEncoding.EncodeToString(p.mac(remote))
}

func (p *Proxy) mac(remote string) []byte {
	m := hmac.New(sha256.New, p.secret)
	m.Write([]byte(remote))
	return m.Sum(nil)[:signatureBytes]
}

// Fetch returns the image at remote, the already-decoded value of the u
// query parameter, if sig is its signature. Images come from the cache when
// fresh; concurrent calls for one URL share a single fetch. Errors are
// *engine.Error wrapping one of the sentinel errors.
func (p *Proxy) Fetch(ctx context.Context, remote, sig string) (Image, error) {
	if err := p.verify(remote, sig); err != nil {
		return Image{}, publicError(err)
	}
	u, err := p.checkURL(remote)
	if err != nil {
		return Image{}, publicError(err)
	}
	if img, ok := p.cache.get(remote); ok {
		return img, nil
	}
	// A caller that has already gone should not start a fetch nobody waits for.
	if err := ctx.Err(); err != nil {
		return Image{}, publicError(fmt.Errorf("%w: %w", ErrUpstream, err))
	}
	f := p.join(ctx, remote, u)
	select {
	case <-f.done:
		if f.err != nil {
			return Image{}, publicError(f.err)
		}
		return f.image, nil
	case <-ctx.Done():
		return Image{}, publicError(fmt.Errorf("%w: %w", ErrUpstream, ctx.Err()))
	}
}

// verify checks sig in constant time so timing does not leak how much of a
// guessed signature was right.
func (p *Proxy) verify(remote, sig string) error {
	if len(p.secret) == 0 {
		return fmt.Errorf("%w: no secret configured", ErrBadSignature)
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, p.mac(remote)) {
		return ErrBadSignature
	}
	return nil
}

// join starts a fetch of remote or joins the one in progress. The fetch runs
// detached from any one caller's context (bounded by the timeout instead),
// so a caller that goes away does not fail the others waiting on it.
func (p *Proxy) join(ctx context.Context, remote string, u *url.URL) *flight {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f, ok := p.flights[remote]; ok {
		return f
	}
	f := &flight{done: make(chan struct{})}
	p.flights[remote] = f
	fetchCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.timeout)
	go func() {
		defer cancel()
		f.image, f.err = p.fetch(fetchCtx, u)
		if f.err == nil {
			p.cache.add(remote, f.image)
		}
		p.mu.Lock()
		delete(p.flights, remote)
		p.mu.Unlock()
		close(f.done)
	}()
	return f
}

// fetch does one upstream request, enforcing status, type and size.
func (p *Proxy) fetch(ctx context.Context, u *url.URL) (Image, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Image{}, fmt.Errorf("%w: %w", ErrNotAllowed, err)
	}
	req.Header.Set("Accept", "image/webp,image/png,image/jpeg,image/gif")
	req.Header.Set("User-Agent", "glimpse-imageproxy")
	resp, err := p.client.Do(req)
	if err != nil {
		// Keep our own refusals (private address, redirect off the
		// allowlist) distinct from plain network failures.
		if errors.Is(err, ErrPrivateAddress) || errors.Is(err, ErrNotAllowed) || errors.Is(err, ErrUpstream) {
			return Image{}, err
		}
		return Image{}, fmt.Errorf("%w: %w", ErrUpstream, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Image{}, fmt.Errorf("%w: status %d", ErrUpstream, resp.StatusCode)
	}
	contentType, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || !imageTypes[contentType] {
		return Image{}, fmt.Errorf("%w: content type %q", ErrNotImage, resp.Header.Get("Content-Type"))
	}
	if resp.ContentLength > p.maxBytes {
		return Image{}, fmt.Errorf("%w: content length %d", ErrTooLarge, resp.ContentLength)
	}
	// Read one byte past the limit: a chunked or lying body that reaches
	// it is too large, without ever buffering more than MaxBytes+1.
	body, err := io.ReadAll(io.LimitReader(resp.Body, p.maxBytes+1))
	if err != nil {
		return Image{}, fmt.Errorf("%w: read body: %w", ErrUpstream, err)
	}
	if int64(len(body)) > p.maxBytes {
		return Image{}, fmt.Errorf("%w: body over %d bytes", ErrTooLarge, p.maxBytes)
	}
	return Image{ContentType: contentType, Body: body}, nil
}

// imageTypes are the content types served; SVG is left out on purpose since
// it can carry script.
var imageTypes = map[string]bool{
	"image/jpeg": true,
	"image/png":  true,
	"image/webp": true,
	"image/gif":  true,
}

// checkURL parses remote and accepts it only as an https URL, without
// userinfo, on the default port, whose host is on the allowlist.
func (p *Proxy) checkURL(remote string) (*url.URL, error) {
	u, err := url.Parse(remote)
	if err != nil {
		return nil, fmt.Errorf("%w: unparsable url", ErrNotAllowed)
	}
	switch {
	case u.Scheme != "https":
		return nil, fmt.Errorf("%w: scheme %q", ErrNotAllowed, u.Scheme)
	case u.User != nil:
		return nil, fmt.Errorf("%w: userinfo", ErrNotAllowed)
	case u.Opaque != "":
		return nil, fmt.Errorf("%w: opaque url", ErrNotAllowed)
	case u.Port() != "" && u.Port() != "443":
		return nil, fmt.Errorf("%w: port %q", ErrNotAllowed, u.Port())
	case !p.hostAllowed(u.Hostname()):
		return nil, fmt.Errorf("%w: host %q", ErrNotAllowed, u.Hostname())
	}
	return u, nil
}

// hostAllowed reports whether host is on the allowlist. Only plain ASCII
// hostnames qualify: the transport converts other names with IDNA, which
// could make the dialled name differ from the one checked.
func (p *Proxy) hostAllowed(host string) bool {
	host = strings.ToLower(host)
	if host == "" {
		return false
	}
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-') {
			return false
		}
	}
	for _, allowed := range p.hosts {
		if strings.HasPrefix(allowed, ".") {
			// ".x.com" matches "a.x.com" but neither "x.com" nor "evilx.com".
			if len(host) > len(allowed) && strings.HasSuffix(host, allowed) {
				return true
			}
		} else if host == allowed {
			return true
		}
	}
	return false
}

// publicError wraps an internal error in an *engine.Error whose message is
// safe to show: it never repeats the URL or the signature.
func publicError(err error) error {
	switch {
	case errors.Is(err, ErrBadSignature):
		return engine.Wrap(engine.CodeForbidden, err, "This picture link is not valid.")
	case errors.Is(err, ErrNotAllowed), errors.Is(err, ErrPrivateAddress):
		return engine.Wrap(engine.CodeForbidden, err, "This picture cannot be shown.")
	case errors.Is(err, ErrTooLarge):
		return engine.Wrap(engine.CodeInvalid, err, "This picture is too large to show.")
	case errors.Is(err, ErrNotImage):
		return engine.Wrap(engine.CodeInvalid, err, "This link is not a picture.")
	default:
		return engine.Wrap(engine.CodeUnavailable, err, "The picture could not be loaded. Try again later.")
	}
}
