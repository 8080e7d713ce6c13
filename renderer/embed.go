// Package renderer embeds the built React renderer (renderer/dist/app, made
// by `npm run build`) so the binary serves it with no files beside it.
package renderer

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

// Build returns the renderer build, or nil when the binary was compiled
// without one (unit tests need no renderer).
func Build() fs.FS {
	sub, err := fs.Sub(dist, "dist/app")
	if err != nil {
		return nil
	}
	if _, err := fs.Stat(sub, "index.html"); err != nil {
		return nil
	}
	return sub
}
