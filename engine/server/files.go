package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"mime"
	"path"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/brand"
)

// fileServer serves the embedded renderer build and static images from
// memory. Hashed renderer assets never change, so they are cached forever;
// index.html is revalidated every time so a deploy reaches people at once.
type fileServer struct {
	index []byte
	// appPreload is the <link rel="modulepreload"> tags of the chunks the
	// renderer's entry always loads (its dynamic imports, from the build's
	// manifest), for a page the server has not drawn: that page shows nothing
	// until they run, so they are fetched alongside the entry rather than
	// after it. A drawn page leaves them out: boot.ts asks for them once it
	// has painted.
	appPreload string
	assets     map[string][]byte
	static     map[string][]byte
	// shellCopy holds each brand's <meta name="glimpse-copy"> tag for the
	// brands' version, so serving a page does not encode the copy again.
	shellCopy brandCache
	// encoded holds the files' br, zstd and gzip forms at the best
	// compression of each (key: encodedKey), made once in the background
	// when the server starts serving (Server.PrecompressFiles); until a
	// form is there, the compress middleware encodes the file for the
	// request, as before.
	encoded sync.Map
	// precompressed is closed once every form is made.
	precompressed chan struct{}
}

// minCompressible is the size under which a file is sent as it is: a
// compressed form of a few hundred bytes saves less than its headers cost.
const minCompressible = 1024

// compressible reports whether a file of this name gains from a content
// coding: text formats do; fonts and pictures are compressed already.
func compressible(name string) bool {
	switch path.Ext(name) {
	case ".js", ".mjs", ".css", ".svg", ".json", ".html", ".txt", ".map":
		return true
	}
	return false
}

func encodedKey(tree, name string, e contentEncoding) string {
	return tree + "/" + name + "\x00" + e.String()
}

// PrecompressFiles starts making the compressed forms of the renderer's
// assets and the static pictures, in the background: `glimpse serve` calls
// it once. (Not done by New: a server made for a test would spend seconds of
// CPU on brotli's best level it never uses.)
func (s *Server) PrecompressFiles() { go s.files.precompress() }

// precompress makes the compressed forms of every compressible file once.
// The renderer's script is most of the first screen's bytes: at brotli's
// best it is about a sixth smaller than at the level the compress middleware
// can afford per request, and no request spends CPU encoding it again
// (docs/benchmarks.md §6).
func (f *fileServer) precompress() {
	defer close(f.precompressed)
	for tree, files := range map[string]map[string][]byte{"assets": f.assets, "static": f.static} {
		for name, body := range files {
			if len(body) < minCompressible || !compressible(name) {
				continue
			}
			for e := encBrotli; e < numEncodings; e++ {
				out, err := compressBody(e, body)
				if err != nil || len(out) >= len(body) {
					continue // the file is served as it is, or by the middleware
				}
				f.encoded.Store(encodedKey(tree, name, e), out)
			}
		}
	}
}

func newFileServer(renderer, static fs.FS) (*fileServer, error) {
	f := &fileServer{assets: map[string][]byte{}, static: map[string][]byte{}, precompressed: make(chan struct{})}
	if renderer != nil {
		idx, err := fs.ReadFile(renderer, "index.html")
		if err != nil {
			return nil, fmt.Errorf("renderer build has no index.html (run `make build`): %w", err)
		}
		f.index = idx
		if err := readTree(renderer, "assets", f.assets); err != nil {
			return nil, err
		}
		if manifest, err := fs.ReadFile(renderer, ".vite/manifest.json"); err == nil {
			if f.appPreload, err = appPreloadTags(manifest); err != nil {
				return nil, err
			}
		}
	}
	if static != nil {
		if err := readTree(static, "static", f.static); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// appPreloadTags reads Vite's build manifest: the chunks the entry imports
// dynamically (boot.ts loads React's and the app's), with what those import
// statically, as modulepreload tags.
func appPreloadTags(manifest []byte) (string, error) {
	var chunks map[string]struct {
		File           string   `json:"file"`
		IsEntry        bool     `json:"isEntry"`
		Imports        []string `json:"imports"`
		DynamicImports []string `json:"dynamicImports"`
	}
	if err := json.Unmarshal(manifest, &chunks); err != nil {
		return "", fmt.Errorf("renderer build manifest: %w", err)
	}
	var tags strings.Builder
	seen := map[string]bool{}
	var visit func(key string)
	visit = func(key string) {
		chunk, ok := chunks[key]
		if !ok || seen[key] || chunk.IsEntry || !strings.HasSuffix(chunk.File, ".js") {
			return
		}
		seen[key] = true
		tags.WriteString(`<link rel="modulepreload" crossorigin href="/` + html.EscapeString(chunk.File) + `">`)
		for _, imported := range chunk.Imports {
			visit(imported)
		}
	}
	for _, chunk := range chunks {
		if chunk.IsEntry {
			for _, key := range chunk.DynamicImports {
				visit(key)
			}
		}
	}
	return tags.String(), nil
}

func readTree(fsys fs.FS, root string, into map[string][]byte) error {
	return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		into[strings.TrimPrefix(p, root+"/")] = b
		return nil
	})
}

func (f *fileServer) serveAsset(c fiber.Ctx) error {
	return f.send(c, "assets", f.assets, c.Params("*"), "public, max-age=31536000, immutable")
}

func (f *fileServer) serveStatic(c fiber.Ctx) error {
	return f.send(c, "static", f.static, c.Params("*"), "public, max-age=86400")
}

func (f *fileServer) send(c fiber.Ctx, tree string, files map[string][]byte, name, cacheControl string) error {
	name = path.Clean("/" + name)[1:]
	b, ok := files[name]
	if !ok {
		return engine.Errorf(engine.CodeNotFound, "Not found")
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	c.Set("Content-Type", ctype)
	c.Set("Cache-Control", cacheControl)
	if enc := negotiateEncoding(c.Get(fiber.HeaderAcceptEncoding)); enc != encIdentity {
		if out, ok := f.encoded.Load(encodedKey(tree, name, enc)); ok {
			// Set, so the compress middleware leaves the body alone.
			c.Set(fiber.HeaderContentEncoding, enc.String())
			c.Set(fiber.HeaderVary, fiber.HeaderAcceptEncoding)
			return c.Send(out.([]byte))
		}
	}
	return c.Send(b)
}

// serveApp answers every other GET: paths without a file extension are app
// routes and get index.html; anything that looks like a file and is not one
// is a 404.
//
// The page carries this browser's CSRF token in a meta tag, because the
// renderer's first request may be a POST (a sign-in link) made before any
// screen has delivered one. It also carries the first screen itself
// (firstScreenBlock), so the renderer draws it without a second round trip;
// that depends on the session, hence Vary: Cookie.
func (s *Server) serveApp(c fiber.Ctx) error {
	f := s.files
	if path.Ext(c.Path()) != "" || f.index == nil {
		return engine.Errorf(engine.CodeNotFound, "Not found")
	}
	copyTag, err := s.shellCopyMeta(c)
	if err != nil {
		return err
	}
	csrf := s.csrfToken(c)
	tag := `<meta name="glimpse-csrf" content="` + html.EscapeString(csrf) + `">` + copyTag + reportingMeta(c)
	first, preload, shown := s.firstScreenBlock(c, csrf)
	page := make([]byte, 0, len(f.index)+len(tag)+len(first)+len(preload)+8192)
	head, rest, _ := bytes.Cut(f.index, []byte("<head>"))
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
		headEnd += f.appPreload
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
	tag, err := s.files.shellCopy.get(b.Key, version, func() ([]byte, error) {
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
