package server

import (
	"bytes"
	"encoding/json"
	"html"
	"path"
	"strings"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/brand"
)

// PrecompressFiles starts making the compressed forms of the renderer's
// assets and the static pictures (engine/assets), in the background:
// `glimpse serve` calls it once.
func (s *Server) PrecompressFiles() { go s.files.Precompress() }

// serveApp answers every other GET: paths of a screen route (appRoute) get
// index.html; anything else that looks like a file and is not one is a 404.
//
// The page carries this browser's CSRF token in a meta tag, because the
// renderer's first request may be a POST (a sign-in link) made before any
// screen has delivered one. It also carries the first screen itself
// (firstScreenBlock), so the renderer draws it without a second round trip;
// that depends on the session, hence Vary: Cookie.
func (s *Server) serveApp(c fiber.Ctx) error {
	index := s.files.Index()
	if index == nil || !(s.appRoute(c.Path()) || browserNavigation(c)) {
		return engine.Errorf(engine.CodeNotFound, "Not found")
	}
	copyTag, err := s.shellCopyMeta(c)
	if err != nil {
		return err
	}
	csrf := s.csrfToken(c)
	tag := `<meta name="glimpse-csrf" content="` + html.EscapeString(csrf) + `">` + copyTag + reportingMeta(c)
	first, preload, shown := s.firstScreenBlock(c, csrf)
	page := make([]byte, 0, len(index)+len(tag)+len(first)+len(preload)+8192)
	head, rest, _ := bytes.Cut(index, []byte("<head>"))
	page = append(append(append(page, head...), "<head>"+tag...), rest...)
	// Added at the end of <head>, after the script and the stylesheet, so
	// that what is preloaded is asked for once they are: they are what the
	// first paint waits for.
	headEnd := preload
	policy := contentSecurityPolicy
	drawn, ok := s.prerendered(c, shown)
	if ok && bytes.Contains(page, emptyRoot) {
		// The screen is in the page, painted before the script has loaded
		// (renderer/src/boot.ts then waits for that paint).
		page = bytes.Replace(page, emptyRoot,
			[]byte(`<div id="root" data-prerendered="">`+string(drawn.Root)+`</div>`), 1)
		page = bytes.Replace(page, []byte("<title>Glimpse</title>"),
			[]byte("<title>"+html.EscapeString(drawn.Title)+"</title>"), 1)
		if style, source := themeStyle(drawn.Theme); style != "" {
			headEnd += style
			policy = strings.Replace(policy, "style-src 'self'", "style-src 'self' "+source, 1)
		}
	} else {
		headEnd += s.files.AppPreload()
	}
	if headEnd != "" {
		page = insertBefore(page, "</head>", headEnd)
	}
	if first != "" {
		page = insertBefore(page, "</body>", first)
	}
	// Set after the first screen is composed: composing it runs the screen
	// handler, which must not decide this page's headers.
	c.Set("Content-Type", "text/html; charset=utf-8")
	c.Set("Cache-Control", "no-cache, private")
	c.Set(fiber.HeaderVary, "Cookie")
	c.Set("Content-Security-Policy", policy)
	return c.Send(page)
}

// appRoute reports whether a GET of p is a page of the app: a path without a
// file extension, or one a screen route answers although its last segment
// has a dot (a copy key's editor, /studio/edit/copy/default/signIn.title, or
// a news post whose slug has one). Asking the route table rather than the
// extension alone is what lets every screen's address be reloaded and
// shared.
func (s *Server) appRoute(p string) bool {
	if path.Ext(p) == "" {
		return true
	}
	_, ok := s.match(p)
	return ok
}

// browserNavigation reports whether the request is a person opening an
// address in a browser tab (its Accept names HTML, as a navigation's does and
// an image's, a script's or a fetch's does not): such a request gets the app,
// which shows its own screen for an address it does not know, never a raw
// JSON 404.
func browserNavigation(c fiber.Ctx) bool {
	return strings.Contains(c.Get(fiber.HeaderAccept), fiber.MIMETextHTML)
}

// emptyRoot is index.html's mount point, which a drawn screen fills.
var emptyRoot = []byte(`<div id="root"></div>`)

// insertBefore puts s before the last marker in page, or at its end.
func insertBefore(page []byte, marker, s string) []byte {
	at := bytes.LastIndex(page, []byte(marker))
	if at < 0 {
		return append(page, s...)
	}
	return append(page[:at], append([]byte(s), page[at:]...)...)
}

// rendererCopyPrefix marks the copy keys the renderer draws itself (its
// loader, 'Try again', a password's reveal button, a countdown's units...).
const rendererCopyPrefix = "renderer."

// shellCopyMeta returns the <meta name="glimpse-copy"> tag that carries the
// renderer's own words for the brand of the request's host: a JSON object
// from the key without its prefix to the text. A meta tag rather than a
// script: the CSP (script-src 'self') forbids inline script, and the renderer
// needs the words before its first screen arrives (the boot loader) or when
// none arrives at all (a network failure).
//
// The shell is chosen by host alone, as the page is served before any
// session is read; the screens that follow bring their own copy.
func (s *Server) shellCopyMeta(c fiber.Ctx) (string, error) {
	if s.Brands == nil {
		return "", nil
	}
	b := s.Brands.ForHost(c.Hostname())
	// The version is read before the copy: a change made meanwhile is then
	// cached under the older version and encoded again on the next request,
	// never the other way round.
	version := s.Brands.Version()
	tag, err := s.shellCopy.get(b.Key, version, func() ([]byte, error) {
		words := s.Brands.Copy(b)
		// The default brand ships every key (the other brands and editors'
		// overrides only change text), so its keys are the full set.
		block := map[string]string{}
		for key := range s.Brands.Get(brand.DefaultKey).Copy {
			if name, ok := strings.CutPrefix(key, rendererCopyPrefix); ok {
				block[name] = words.T(key)
			}
		}
		encoded, err := json.Marshal(block) // keys sorted: one brand's tag is always the same bytes
		if err != nil {
			return nil, err
		}
		return []byte(`<meta name="glimpse-copy" content="` + html.EscapeString(string(encoded)) + `">`), nil
	})
	if err != nil {
		return "", engine.Wrap(engine.CodeInternal, err, "")
	}
	return string(tag), nil
}
