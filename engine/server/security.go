package server

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/ui"
)

// contentSecurityPolicy allows only our own scripts, styles, fonts and images:
// no inline script, no third-party origin, no framing. The one exception is
// images from Have I Been Pwned's logo host, for breached sites' logos.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data: https://logos.haveibeenpwned.com; " +
	"font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
	"frame-ancestors 'none'"

func (s *Server) securityHeaders(c fiber.Ctx) error {
	// The names are written in canonical form once, so no request spends
	// time normalising them (fasthttp's Set does on every call).
	h := &c.Response().Header
	for _, kv := range securityHeaderValues {
		h.SetCanonical(kv[0], kv[1])
	}
	if s.Config.SecureCookies() {
		h.SetCanonical(hstsHeader[0], hstsHeader[1])
	}
	return c.Next()
}

// securityHeaderValues are the headers every answer carries.
var securityHeaderValues = [][2][]byte{
	{[]byte("Content-Security-Policy"), []byte(contentSecurityPolicy)},
	// no-referrer keeps one-time link tokens from leaking to other sites.
	{[]byte("Referrer-Policy"), []byte("no-referrer")},
	{[]byte("X-Content-Type-Options"), []byte("nosniff")},
	{[]byte("X-Frame-Options"), []byte("DENY")},
	{[]byte("Cross-Origin-Opener-Policy"), []byte("same-origin")},
	{[]byte("Permissions-Policy"), []byte("camera=(), microphone=(), geolocation=()")},
}

var hstsHeader = [2][]byte{[]byte("Strict-Transport-Security"), []byte("max-age=31536000; includeSubDomains")}

// checkSchemaVersion tells a renderer that speaks another schema version to
// reload, so a stale tab picks up the new build instead of misreading screens.
func (s *Server) checkSchemaVersion(c fiber.Ctx) error {
	if v := c.Get("X-SDUI-Version"); v != "" && v != strconv.Itoa(ui.SchemaVersion) {
		return &engine.Error{Code: engine.CodeStaleClient, Message: "A new version of the app is available."}
	}
	return c.Next()
}

// checkSameOrigin rejects cross-site POSTs using Fetch Metadata, falling back
// to comparing Origin with Host, as net/http.CrossOriginProtection does.
func (s *Server) checkSameOrigin(c fiber.Ctx) error {
	switch c.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return engine.Errorf(engine.CodeForbidden, "Cross-site requests are not allowed.")
	}
	if origin := c.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Host != c.Host() {
			return engine.Errorf(engine.CodeForbidden, "Cross-site requests are not allowed.")
		}
	}
	return c.Next()
}

// clientIPHeader carries the client address this server resolved for a
// request that came through a trusted proxy. Fiber's c.IP() reads it (it is
// the app's ProxyHeader) only for requests from a trusted proxy, and then it
// always holds our own value, whatever the request brought.
const clientIPHeader = "X-Glimpse-Client-Ip"

// fiberTrust turns the trusted proxies into Fiber's settings: c.IP() is then
// the client resolved by resolveClientIP for requests from those proxies and
// the socket peer for every other request.
func fiberTrust(proxies []netip.Prefix) (trust bool, cfg fiber.TrustProxyConfig, header string) {
	if len(proxies) == 0 {
		return false, fiber.TrustProxyConfig{}, ""
	}
	for _, p := range proxies {
		cfg.Proxies = append(cfg.Proxies, p.String())
	}
	return true, cfg, clientIPHeader
}

// resolveClientIP finds the client of a request that came through trusted
// proxies. X-Forwarded-For lists each hop's client, and each proxy appends
// the address it saw, so the list is read from the right: the first address
// that is not one of our proxies is the client. Anything left of it was
// written by the client and proves nothing (Fiber's own reading takes the
// left-most address, which anyone can set to a fresh value per request).
func (s *Server) resolveClientIP(c fiber.Ctx) error {
	if len(s.Config.TrustedProxies) == 0 || !c.IsProxyTrusted() {
		return c.Next()
	}
	client := c.RequestCtx().RemoteIP().String()
	var hops []string
	for _, v := range c.Request().Header.PeekAll(fiber.HeaderXForwardedFor) {
		hops = append(hops, strings.Split(string(v), ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a malformed hop: nothing left of it can be trusted
		}
		client = a.Unmap().String()
		if !s.trustedProxy(a) {
			break
		}
	}
	c.Request().Header.Set(clientIPHeader, client)
	return c.Next()
}

func (s *Server) trustedProxy(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range s.Config.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// browserCookie names the HttpOnly cookie that CSRF tokens are bound to.
func (s *Server) browserCookie() string {
	if s.Config.SecureCookies() {
		return "__Host-glimpse_browser"
	}
	return "glimpse_browser"
}

// sessionCookie names the session cookie.
func (s *Server) sessionCookie() string {
	if s.Config.SecureCookies() {
		return "__Host-glimpse_session"
	}
	return "glimpse_session"
}

// csrfToken returns the token for this browser (a signed double submit: the
// HMAC of the HttpOnly browser cookie), setting the cookie if it is missing.
func (s *Server) csrfToken(c fiber.Ctx) string {
	id := c.Cookies(s.browserCookie())
	if len(id) < 32 {
		id = s.newBrowserCookie(c)
	}
	if token, ok := s.csrfTokens.get(id); ok {
		return token
	}
	// An HMAC keyed once and reset is the same function as a new one, without
	// hashing the key's pads again on every request.
	mac, ok := s.csrfMACs.Get().(hash.Hash)
	if ok {
		mac.Reset()
	} else {
		mac = hmac.New(sha256.New, s.Secret)
	}
	mac.Write([]byte("csrf:" + id))
	var sum [sha256.Size]byte
	token := base64.RawURLEncoding.EncodeToString(mac.Sum(sum[:0]))
	s.csrfMACs.Put(mac)
	s.csrfTokens.put(id, token)
	return token
}

// tokenMemo remembers the CSRF tokens of recently seen browsers: every screen
// request sends its browser's token, and an HMAC per request was a twentieth
// of a cached screen's cost (BenchmarkScreenRequest). It holds two
// generations of at most memoGeneration entries each, so any number of
// browsers (or made-up cookies) keeps it bounded, and a browser seen in the
// last generation is kept.
type tokenMemo struct {
	mu       sync.RWMutex
	cur, old map[string]string
}

const memoGeneration = 4096

func (m *tokenMemo) get(id string) (string, bool) {
	m.mu.RLock()
	token, ok := m.cur[id]
	if !ok {
		token, ok = m.old[id]
	}
	m.mu.RUnlock()
	return token, ok
}

func (m *tokenMemo) put(id, token string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.cur) >= memoGeneration || m.cur == nil {
		m.old, m.cur = m.cur, make(map[string]string, memoGeneration)
	}
	m.cur[id] = token
}

// newBrowserCookie sets a new browser cookie and returns its id.
func (s *Server) newBrowserCookie(c fiber.Ctx) string {
	id := engine.NewToken()
	c.Cookie(&fiber.Cookie{Name: s.browserCookie(), Value: id, Path: "/", HTTPOnly: true,
		Secure: s.Config.SecureCookies(), SameSite: fiber.CookieSameSiteLaxMode, MaxAge: 400 * 24 * 3600})
	// Later reads within this request see the new id.
	c.Request().Header.SetCookie(s.browserCookie(), id)
	return id
}

// csrfTokenHeader carries a CSRF token issued by an action's answer; the
// renderer takes it up for its next POST (renderer/src/runtime/api.ts).
const csrfTokenHeader = "X-CSRF-Token"

// rotateCSRF gives the browser a new cookie, and so a new CSRF token, at a
// change of privilege (a sign-in): a token someone learnt before, or a cookie
// planted in the browser, is then worth nothing for the signed-in session.
// The new token goes out in a header, since an action's answer has no meta.
func (s *Server) rotateCSRF(c fiber.Ctx) {
	s.newBrowserCookie(c)
	c.Set(csrfTokenHeader, s.csrfToken(c))
}

func (s *Server) checkCSRF(c fiber.Ctx) error {
	if c.Cookies(s.browserCookie()) == "" {
		return engine.Errorf(engine.CodeForbidden, "Your browser session is missing. Please reload the page.")
	}
	if !hmac.Equal([]byte(c.Get(csrfTokenHeader)), []byte(s.csrfToken(c))) {
		return engine.Errorf(engine.CodeForbidden, "Your page is out of date. Please reload it.")
	}
	return c.Next()
}
