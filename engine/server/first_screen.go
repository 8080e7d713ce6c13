package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"net/url"
	"strings"

	"glimpse/engine/ui/prerender"

	"github.com/gofiber/fiber/v3"
	"github.com/valyala/fasthttp"
)

// firstScreenID is the id of the page's data block that carries the first
// screen (renderer/src/runtime/api.ts reads it).
const firstScreenID = "glimpse-first"

// maxFirstScreenHops is how many guard redirects (a plain replace, as "/"
// answers) the page follows before it stops: each hop is the answer the
// renderer would otherwise fetch next.
const maxFirstScreenHops = 2

// firstScreen is the data block: what GET /ui/screen answers for the page's
// path (and for the paths its guards send the renderer on to), with what that
// answer carries in headers. A kept page's body leaves the CSRF token and the
// server time out (they travel as X-CSRF-Token and Date), so they are here.
type firstScreen struct {
	// Date is the server time of the answers, as the Date header would be,
	// to the millisecond.
	Date string `json:"date"`
	CSRF string `json:"csrf"`
	// Screens maps a path with its query, as the renderer asks for it, to
	// the body /ui/screen answers for it.
	Screens map[string]json.RawMessage `json:"screens"`
}

// firstScreenBlock returns the <script type="application/json"> block with
// the first screen for this page request, or "" when there is none to give
// (the renderer then fetches it, as before), a <link rel="preload"> for the
// screen's first image, or "", and the envelope the page opens on (the last
// of the block, which the server then draws as markup), or nil. It runs the
// same handler as
// GET /ui/screen, on a request made from this one (its cookies and host), so
// guards, redirects, kept pages and per-request meta are the ones the fetch
// would get. A script that is data is never executed, so the CSP's
// script-src 'self' allows it.
//
// A page whose address carries a sign-in secret gets no block: the renderer
// signs in first, and the screen it then needs is a signed-in one.
func (s *Server) firstScreenBlock(c fiber.Ctx, csrf string) (block, preload string, shown []byte) {
	if c.Method() != fiber.MethodGet || s.Brands == nil {
		return "", "", nil
	}
	raw := c.Request().URI().QueryString()
	query, err := url.ParseQuery(string(raw))
	if err != nil {
		return "", "", nil
	}
	for _, secret := range []string{"creds", "login"} {
		if query.Has(secret) {
			return "", "", nil
		}
	}
	target := string(c.Request().URI().PathOriginal())
	if len(raw) > 0 {
		target += "?" + string(raw)
	}
	first := firstScreen{Date: s.Clock.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00"), CSRF: csrf,
		Screens: map[string]json.RawMessage{}}
	last := ""
	for hop := 0; hop <= maxFirstScreenHops; hop++ {
		body, issued, ok := s.screenAnswer(c, target)
		if !ok {
			break
		}
		if issued != "" {
			first.CSRF = issued
		}
		first.Screens[target] = body
		last = target
		next, ok := plainReplace(body)
		if !ok {
			break
		}
		if _, seen := first.Screens[next]; seen {
			break
		}
		target = next
	}
	if len(first.Screens) == 0 {
		return "", "", nil
	}
	// json.Marshal escapes <, > and & (in the raw bodies too), so no
	// "</script>" or "<!--" can end the block early.
	encoded, err := json.Marshal(first)
	if err != nil {
		return "", "", nil
	}
	if src, ok := firstImage(first.Screens[last]); ok {
		preload = `<link rel="preload" as="image" href="` + html.EscapeString(src) + `">`
	}
	return `<script type="application/json" id="` + firstScreenID + `">` + string(encoded) + `</script>`, preload,
		first.Screens[last]
}

// prerendered draws the screen the page opens on as HTML (engine/ui/prerender),
// in the renderer's own words for the host's brand, as the page's shell copy
// gives them to the renderer.
func (s *Server) prerendered(c fiber.Ctx, envelope []byte) (prerender.Page, bool) {
	if envelope == nil || s.Brands == nil {
		return prerender.Page{}, false
	}
	words := s.Brands.Copy(s.Brands.ForHost(c.Hostname()))
	return prerender.Screen(envelope, func(key string) string { return words.T(rendererCopyPrefix + key) })
}

// themeStyle is the <style> block that paints a prerendered page in its
// brand's colours before the renderer sets them, and the CSP source that
// admits exactly that block.
func themeStyle(theme string) (tag, source string) {
	if theme == "" {
		return "", ""
	}
	rule := ":root{" + theme + "}"
	sum := sha256.Sum256([]byte(rule))
	return "<style>" + rule + "</style>", "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// imageNodeStart is how the encoder begins an image node (ui.Node writes its
// type first, then src).
var imageNodeStart = []byte(`{"type":"image","src":"`)

// firstImage returns the src of the first image node in an envelope, when it
// is one of our static files. That image is the screen's topmost, usually the
// largest thing on a phone's first view (the dashboard's hero): preloaded
// from the page, it is fetched with the script instead of after it has run.
func firstImage(envelope []byte) (string, bool) {
	at := bytes.Index(envelope, imageNodeStart)
	if at < 0 {
		return "", false
	}
	rest := envelope[at+len(imageNodeStart):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return "", false
	}
	src := string(rest[:end])
	if !strings.HasPrefix(src, "/static/") || strings.ContainsAny(src, `\?#`) {
		return "", false
	}
	return src, true
}

// screenAnswer runs GET /ui/screen?path=target for the page request c: the
// same cookies, host and client address, no conditional or compressed
// answer. It returns the body and the X-CSRF-Token header of a 200 answer;
// ok is false for anything else (an error page, which the renderer's own
// fetch will then get and show). Cookies the answer sets (a cleared expired
// session) are passed on to the page's response.
func (s *Server) screenAnswer(c fiber.Ctx, target string) (body []byte, csrf string, ok bool) {
	var fctx fasthttp.RequestCtx
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	c.Request().Header.CopyTo(&req.Header)
	req.Header.SetMethod(fiber.MethodGet)
	req.Header.Del(fiber.HeaderAcceptEncoding)
	req.Header.Del(fiber.HeaderIfNoneMatch)
	req.Header.Del(fiber.HeaderIfModifiedSince)
	req.SetRequestURI("/ui/screen?path=" + url.QueryEscape(target))
	fctx.Init(req, c.RequestCtx().RemoteAddr(), nil)
	sub := s.app.AcquireCtx(&fctx)
	defer s.app.ReleaseCtx(sub)
	sub.SetContext(c.Context())
	if err := s.handleScreen(sub); err != nil {
		return nil, "", false
	}
	res := &fctx.Response
	if res.StatusCode() != fiber.StatusOK || len(res.Header.ContentEncoding()) != 0 ||
		!bytes.HasPrefix(res.Header.ContentType(), []byte(fiber.MIMEApplicationJSON)) {
		return nil, "", false
	}
	for _, value := range res.Header.Cookies() {
		cookie := fasthttp.AcquireCookie()
		if cookie.ParseBytes(value) == nil {
			c.Response().Header.SetCookie(cookie)
		}
		fasthttp.ReleaseCookie(cookie)
	}
	return bytes.Clone(res.Body()), string(res.Header.Peek(csrfTokenHeader)), true
}

// plainReplace returns the target of an answer that is only a guard's
// redirect, {"effects":[{"type":"replace","to":"/..."}]}, to a local path.
func plainReplace(body []byte) (string, bool) {
	if !bytes.HasPrefix(body, []byte(`{"effects":`)) {
		return "", false
	}
	var res struct {
		Effects []map[string]json.RawMessage `json:"effects"`
	}
	if err := json.Unmarshal(body, &res); err != nil || len(res.Effects) != 1 || len(res.Effects[0]) != 2 {
		return "", false
	}
	var kind, to string
	if json.Unmarshal(res.Effects[0]["type"], &kind) != nil || kind != "replace" ||
		json.Unmarshal(res.Effects[0]["to"], &to) != nil {
		return "", false
	}
	if !strings.HasPrefix(to, "/") || strings.HasPrefix(to, "//") || strings.HasPrefix(to, `/\`) {
		return "", false
	}
	return to, true
}
