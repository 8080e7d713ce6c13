package server

import (
	"bytes"
	"fmt"
	"html"
	"io/fs"
	"mime"
	"path"
	"strings"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
)

// fileServer serves the embedded renderer build and static images from
// memory. Hashed renderer assets never change, so they are cached forever;
// index.html is revalidated every time so a deploy reaches people at once.
type fileServer struct {
	index  []byte
	assets map[string][]byte
	static map[string][]byte
}

func newFileServer(renderer, static fs.FS) (*fileServer, error) {
	f := &fileServer{assets: map[string][]byte{}, static: map[string][]byte{}}
	if renderer != nil {
		idx, err := fs.ReadFile(renderer, "index.html")
		if err != nil {
			return nil, fmt.Errorf("renderer build has no index.html (run `make build`): %w", err)
		}
		f.index = idx
		if err := readTree(renderer, "assets", f.assets); err != nil {
			return nil, err
		}
	}
	if static != nil {
		if err := readTree(static, "static", f.static); err != nil {
			return nil, err
		}
	}
	return f, nil
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
	return f.send(c, f.assets, c.Params("*"), "public, max-age=31536000, immutable")
}

func (f *fileServer) serveStatic(c fiber.Ctx) error {
	return f.send(c, f.static, c.Params("*"), "public, max-age=86400")
}

func (f *fileServer) send(c fiber.Ctx, files map[string][]byte, name, cacheControl string) error {
	b, ok := files[path.Clean("/" + name)[1:]]
	if !ok {
		return engine.Errorf(engine.CodeNotFound, "Not found")
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	c.Set("Content-Type", ctype)
	c.Set("Cache-Control", cacheControl)
	return c.Send(b)
}

// serveApp answers every other GET: paths without a file extension are app
// routes and get index.html (the renderer asks /ui/screen for the screen);
// anything that looks like a file and is not one is a 404.
//
// The page carries this browser's CSRF token in a meta tag, because the
// renderer's first request may be a POST (a sign-in link) made before any
// screen has delivered one.
func (s *Server) serveApp(c fiber.Ctx) error {
	f := s.files
	if path.Ext(c.Path()) != "" || f.index == nil {
		return engine.Errorf(engine.CodeNotFound, "Not found")
	}
	c.Set("Content-Type", "text/html; charset=utf-8")
	c.Set("Cache-Control", "no-cache, private")
	tag := `<meta name="glimpse-csrf" content="` + html.EscapeString(s.csrfToken(c)) + `">` + reportingMeta(c)
	return c.Send(bytes.Replace(f.index, []byte("<head>"), []byte("<head>"+tag), 1))
}
