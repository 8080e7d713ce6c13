// Package assets holds the renderer's build and the static pictures in memory
// and sends them: each file's br, zstd and gzip forms made once at their best
// compression, the coding a request accepts (Negotiate, also used for the
// server's cached pages), and their cache headers. engine/server routes
// /assets/* and /static/* here and builds the app's page from Index.
package assets

import (
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
)

// Files serves the embedded renderer build and static images from memory.
// Hashed renderer assets never change, so they are cached forever; the page
// made from index.html is the server's to send (and revalidated every time,
// so a deploy reaches people at once).
type Files struct {
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
	// encoded holds the files' br, zstd and gzip forms at the best
	// compression of each (key: encodedKey), made once by Precompress;
	// until a form is there, the compress middleware encodes the file for
	// the request.
	encoded sync.Map
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

func encodedKey(tree, name string, e Encoding) string {
	return tree + "/" + name + "\x00" + e.String()
}

// New reads the renderer's build (index.html, assets/ and Vite's manifest)
// and the static pictures (static/); either may be nil, and then its files
// are not served.
func New(renderer, static fs.FS) (*Files, error) {
	f := &Files{assets: map[string][]byte{}, static: map[string][]byte{}}
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

// Index is the renderer's index.html, or nil when there is no renderer.
// The caller must not change it.
func (f *Files) Index() []byte { return f.index }

// AppPreload is the <link rel="modulepreload"> tags of the chunks the
// renderer's entry always loads, for a page the server has not drawn (see
// Files.appPreload), or "" when the build has no manifest.
func (f *Files) AppPreload() string { return f.appPreload }

// Precompress makes the compressed forms of every compressible file once,
// and returns when they are made: `glimpse serve` runs it in the background.
// (Not done by New: a server made for a test would spend seconds of CPU on
// brotli's best level it never uses.) The renderer's script is most of the
// first screen's bytes: at brotli's best it is about a sixth smaller than at
// the level the compress middleware can afford per request, and no request
// spends CPU encoding it again (docs/benchmarks.md §6).
func (f *Files) Precompress() {
	for tree, files := range map[string]map[string][]byte{"assets": f.assets, "static": f.static} {
		for name, body := range files {
			if len(body) < minCompressible || !compressible(name) {
				continue
			}
			for e := Brotli; e < NumEncodings; e++ {
				out, err := Compress(e, body)
				if err != nil || len(out) >= len(body) {
					continue // the file is served as it is, or by the middleware
				}
				f.encoded.Store(encodedKey(tree, name, e), out)
			}
		}
	}
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

// ServeAsset answers /assets/*: a hashed renderer file, cached for a year.
func (f *Files) ServeAsset(c fiber.Ctx) error {
	return f.send(c, "assets", f.assets, c.Params("*"), "public, max-age=31536000, immutable")
}

// ServeStatic answers /static/*: a picture, cached for a day.
func (f *Files) ServeStatic(c fiber.Ctx) error {
	return f.send(c, "static", f.static, c.Params("*"), "public, max-age=86400")
}

func (f *Files) send(c fiber.Ctx, tree string, files map[string][]byte, name, cacheControl string) error {
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
	if enc := Negotiate(c.Get(fiber.HeaderAcceptEncoding)); enc != Identity {
		if out, ok := f.encoded.Load(encodedKey(tree, name, enc)); ok {
			// Set, so the compress middleware leaves the body alone.
			c.Set(fiber.HeaderContentEncoding, enc.String())
			c.Set(fiber.HeaderVary, fiber.HeaderAcceptEncoding)
			return c.Send(out.([]byte))
		}
	}
	return c.Send(b)
}
