// Package lesson turns the course content (the ten Instagram PRO lessons and
// the Reels playbook, Markdown files under content/lessons) into the PDFs
// subscribers download.
//
// The PDFs are made by the binary from the content, never shipped as files,
// so editing a lesson's Markdown is enough to change its PDF: Render draws a
// Doc with github.com/signintech/gopdf and the Go fonts embedded, and Cache
// keeps each rendered PDF until its content changes.
package lesson

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"glimpse/engine/library"
	"glimpse/engine/ui"
)

// Doc is one downloadable document: a numbered lesson or the playbook.
type Doc struct {
	// Slug names the document after its file: "lesson-01" … "lesson-10",
	// "reels-playbook".
	Slug string
	// Number is the lesson's number, 0 for the playbook (which has none).
	Number   int
	Title    string
	Subtitle string
	// Body is the Markdown body parsed by library.Markdown.
	Body []ui.RichBlock
}

// IsLesson reports whether d is a numbered course lesson rather than the
// playbook.
func (d Doc) IsLesson() bool { return d.Number > 0 }

// frontMatter is the YAML at the top of a lesson file. The image is the
// web page's illustration; the PDF draws its own.
type frontMatter struct {
	Number   int    `yaml:"number"`
	Title    string `yaml:"title"`
	Subtitle string `yaml:"subtitle"`
}

// Load reads every lessons/*.md file of fsys (the content directory) into
// Docs: the lessons by number, then the documents without a number (the
// playbook) by slug.
func Load(fsys fs.FS) ([]Doc, error) {
	names, err := fs.Glob(fsys, "lessons/*.md")
	if err != nil {
		return nil, fmt.Errorf("load lessons: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("load lessons: no lessons/*.md files")
	}
	docs := make([]Doc, 0, len(names))
	for _, name := range names {
		d, err := read(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("load lessons: %w", err)
		}
		docs = append(docs, d)
	}
	slices.SortFunc(docs, func(a, b Doc) int {
		switch {
		case a.IsLesson() != b.IsLesson():
			if a.IsLesson() {
				return -1
			}
			return 1
		case a.Number != b.Number:
			return a.Number - b.Number
		}
		return strings.Compare(a.Slug, b.Slug)
	})
	return docs, nil
}

// read parses one lesson file: front matter (YAML between --- lines) and a
// Markdown body.
func read(fsys fs.FS, name string) (Doc, error) {
	raw, err := fs.ReadFile(fsys, name)
	if err != nil {
		return Doc{}, fmt.Errorf("read %s: %w", name, err)
	}
	raw = bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n"))
	rest, ok := bytes.CutPrefix(raw, []byte("---\n"))
	if !ok {
		return Doc{}, fmt.Errorf("%s: missing front matter", name)
	}
	front, body, ok := bytes.Cut(rest, []byte("\n---\n"))
	if !ok {
		return Doc{}, fmt.Errorf("%s: unterminated front matter", name)
	}
	var meta frontMatter
	if err := yaml.Unmarshal(front, &meta); err != nil {
		return Doc{}, fmt.Errorf("%s: front matter: %w", name, err)
	}
	if strings.TrimSpace(meta.Title) == "" {
		return Doc{}, fmt.Errorf("%s: front matter has no title", name)
	}
	return Doc{
		Slug:     strings.TrimSuffix(path.Base(name), ".md"),
		Number:   meta.Number,
		Title:    meta.Title,
		Subtitle: meta.Subtitle,
		Body:     library.Markdown(string(body)),
	}, nil
}
