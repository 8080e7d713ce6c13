package content_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"glimpse/content"
	"glimpse/engine/lesson"
	"glimpse/engine/library"
)

// maxIllustrationBytes keeps every picture cheap on a phone connection; the
// drawings are flat shapes and need far less.
const maxIllustrationBytes = 8 << 10

// illustrationViewBox is the frame every lesson, news and topic picture is
// drawn in: the course cards crop it to 16:9 and the news and topic pages
// letterbox it, so a different frame would shift those layouts.
const illustrationViewBox = "0 0 390 180"

// seedIllustrations lists the picture of every lesson, news item and topic
// in the seed content, keyed by the /static/ path the screens show, with
// what it illustrates.
func seedIllustrations(t *testing.T) map[string]string {
	t.Helper()
	lib, err := library.Load(content.Library)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := lesson.Load(content.Library)
	if err != nil {
		t.Fatal(err)
	}
	pictures := map[string]string{}
	add := func(path, what string) {
		if path == "" {
			t.Errorf("%s has no picture", what)
			return
		}
		if other, ok := pictures[path]; ok {
			t.Errorf("%s and %s share the picture %s", other, what, path)
		}
		pictures[path] = what
	}
	var lessons, news, topics int
	for _, d := range docs {
		if !d.IsLesson() {
			continue
		}
		lessons++
		// The course screen derives the path from the number
		// (engine/server/course.go); the front matter must name the same file.
		path := fmt.Sprintf("/static/lessons/lesson-%02d.svg", d.Number)
		if got := lessonImage(t, d.Slug); got != path {
			t.Errorf("lesson %d: front matter image %q, the course screen shows %q", d.Number, got, path)
		}
		add(path, "lesson "+d.Slug)
	}
	for _, n := range lib.News {
		news++
		add(n.Image, "news "+n.Slug)
	}
	for slug, topic := range lib.Topics {
		topics++
		add(topic.Background, "topic "+slug)
	}
	if lessons == 0 || news == 0 || topics == 0 {
		t.Fatalf("seed content has %d lessons, %d news items and %d topics; want some of each", lessons, news, topics)
	}
	return pictures
}

// lessonImage reads the image named in a lesson's front matter, which
// lesson.Load leaves out because the PDF draws its own pictures.
func lessonImage(t *testing.T, slug string) string {
	t.Helper()
	src, err := fs.ReadFile(content.Library, "lessons/"+slug+".md")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitN(string(src), "---\n", 3)
	if len(parts) != 3 {
		t.Fatalf("lesson %s: no front matter", slug)
	}
	var fm struct {
		Image string `yaml:"image"`
	}
	if err := yaml.Unmarshal([]byte(parts[1]), &fm); err != nil {
		t.Fatalf("lesson %s: %v", slug, err)
	}
	return fm.Image
}

func TestIllustrationsAreSafeWellFormedSVG(t *testing.T) {
	t.Parallel()
	for path, what := range seedIllustrations(t) {
		t.Run(strings.TrimPrefix(path, "/static/"), func(t *testing.T) {
			t.Parallel()
			src := readStatic(t, path)
			if len(src) > maxIllustrationBytes {
				t.Errorf("%s (%s) is %d bytes; keep it within %d", path, what, len(src), maxIllustrationBytes)
			}
			if err := checkSVG(src); err != nil {
				t.Errorf("%s (%s): %v", path, what, err)
			}
		})
	}
}

// TestIllustrationsAreDistinctDrawings guards against the pictures turning
// back into one template in different colours, as the lesson pictures once
// were: no two may be the same drawing once colours, numbers and titles are
// set aside.
func TestIllustrationsAreDistinctDrawings(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for path := range seedIllustrations(t) {
		key := drawingShape(readStatic(t, path))
		if other, ok := seen[key]; ok {
			t.Errorf("%s and %s are the same drawing apart from colours or sizes", other, path)
		}
		seen[key] = path
	}
}

func TestDrawingShape(t *testing.T) {
	t.Parallel()
	const base = `<svg viewBox="0 0 390 180" role="img"><title>Bars</title><rect x="10" y="116" height="24" fill="#3d5afe"/><circle r="4" stroke="rgb(1, 2, 3)"/></svg>`
	tests := []struct {
		name  string
		other string
		same  bool
	}{
		{"recoloured", `<svg viewBox="0 0 390 180" role="img"><title>Bars</title><rect x="10" y="116" height="24" fill="#ff4f81"/><circle r="4" stroke="#fff"/></svg>`, true},
		{"bars resized and retitled", `<svg viewBox="0 0 390 180" role="img"><title>Other bars</title><rect x="10" y="110" height="30" fill="#ff4f81"/><circle r="4.5" stroke="#fff"/></svg>`, true},
		{"reformatted", "<svg viewBox=\"0 0 390 180\" role=\"img\">\n  <title>Bars</title>\n  <rect x=\"10\" y=\"116\" height=\"24\" fill=\"#3d5afe\"/>\n  <circle r=\"4\" stroke=\"rgb(1,2,3)\"/>\n</svg>", true},
		{"another shape", `<svg viewBox="0 0 390 180" role="img"><title>Bars</title><rect x="10" y="116" height="24" fill="#3d5afe"/><path d="M0 0h4" stroke="#fff"/></svg>`, false},
		{"another path", `<svg viewBox="0 0 390 180" role="img"><title>Bars</title><rect x="10" y="116" height="24" fill="#3d5afe"/><circle r="4" stroke="#fff"/><path d="M0 0h4v4z"/></svg>`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := drawingShape([]byte(base)) == drawingShape([]byte(tt.other)); got != tt.same {
				t.Errorf("same drawing = %v, want %v", got, tt.same)
			}
		})
	}
}

func TestCheckSVG(t *testing.T) {
	t.Parallel()
	const open = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 390 180" role="img"><title>T</title>`
	tests := []struct {
		name, src string
		ok        bool
	}{
		{"plain", `<?xml version="1.0"?>` + open + `<defs><linearGradient id="g"/></defs><rect fill="url(#g)"/></svg>`, true},
		{"script", open + `<script>alert(1)</script></svg>`, false},
		{"foreign object", open + `<foreignObject/></svg>`, false},
		{"raster", open + `<image href="data:image/png;base64,AA=="/></svg>`, false},
		{"external href", open + `<use href="other.svg#a"/></svg>`, false},
		{"external url", open + `<rect fill="url(https://example.com/a.svg#g)"/></svg>`, false},
		{"event handler", open + `<rect onload="x()"/></svg>`, false},
		{"doctype", `<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///x">]>` + open + `</svg>`, false},
		{"no title", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 390 180" role="img"><rect/></svg>`, false},
		{"nested title only", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 390 180" role="img"><g><title>T</title></g></svg>`, false},
		{"other frame", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" role="img"><title>T</title></svg>`, false},
		{"not an image", `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 390 180"><title>T</title></svg>`, false},
		{"no namespace", `<svg viewBox="0 0 390 180" role="img"><title>T</title></svg>`, false},
		{"unclosed", open + `<rect>`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := checkSVG([]byte(tt.src)); (err == nil) != tt.ok {
				t.Errorf("checkSVG = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func readStatic(t *testing.T, path string) []byte {
	t.Helper()
	name, ok := strings.CutPrefix(path, "/")
	if !ok || !strings.HasPrefix(name, "static/") || !strings.HasSuffix(name, ".svg") {
		t.Fatalf("%s is not an SVG under /static/", path)
	}
	src, err := fs.ReadFile(content.Static, name)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return src
}

// forbiddenElements could run code, embed a raster or pull in another
// document; none belongs in a flat illustration.
var forbiddenElements = map[string]bool{"script": true, "foreignObject": true, "image": true, "iframe": true}

// checkSVG reports whether src is one well-formed SVG element, framed like
// the others, announced as an image with a title, and self-contained: no
// scripts, event handlers or references outside the file.
func checkSVG(src []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(src))
	depth, title := 0, ""
	var inTitle bool
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("not well-formed XML: %w", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				if err := checkRoot(tok); err != nil {
					return err
				}
			}
			if forbiddenElements[tok.Name.Local] {
				return fmt.Errorf("has a <%s> element", tok.Name.Local)
			}
			for _, a := range tok.Attr {
				if err := checkAttr(tok.Name.Local, a); err != nil {
					return err
				}
			}
			inTitle = depth == 2 && tok.Name.Local == "title"
		case xml.EndElement:
			depth--
			inTitle = false
		case xml.CharData:
			if inTitle {
				title += string(tok)
			}
		case xml.Directive:
			// A DOCTYPE can declare entities that pull in other files.
			return fmt.Errorf("has a directive <!%s>", tok)
		case xml.ProcInst:
			if depth > 0 {
				return fmt.Errorf("has a processing instruction <?%s?>", tok.Target)
			}
		}
	}
	if strings.TrimSpace(title) == "" {
		return errors.New("has no <title> directly inside <svg>")
	}
	return nil
}

func checkRoot(root xml.StartElement) error {
	if root.Name.Local != "svg" || root.Name.Space != "http://www.w3.org/2000/svg" {
		return fmt.Errorf("root is <%s> in namespace %q, want an SVG <svg>", root.Name.Local, root.Name.Space)
	}
	attrs := map[string]string{}
	for _, a := range root.Attr {
		attrs[a.Name.Local] = a.Value
	}
	if attrs["role"] != "img" {
		return fmt.Errorf("role=%q, want \"img\"", attrs["role"])
	}
	if attrs["viewBox"] != illustrationViewBox {
		return fmt.Errorf("viewBox=%q, want %q so layouts built around it do not shift", attrs["viewBox"], illustrationViewBox)
	}
	return nil
}

// checkAttr allows references only to the file's own ids ("#g", "url(#g)").
func checkAttr(element string, a xml.Attr) error {
	name := strings.ToLower(a.Name.Local)
	switch {
	case strings.HasPrefix(name, "on"):
		return fmt.Errorf("<%s> has an event handler %s", element, a.Name.Local)
	case name == "href" && !strings.HasPrefix(a.Value, "#"):
		return fmt.Errorf("<%s> links outside the file: %q", element, a.Value)
	case strings.Contains(a.Value, "url(") && !localURL.MatchString(a.Value):
		return fmt.Errorf("<%s %s> refers outside the file: %q", element, a.Name.Local, a.Value)
	}
	return nil
}

var localURL = regexp.MustCompile(`^url\(#[\w-]+\)$`)

var (
	titlePattern  = regexp.MustCompile(`(?s)<title>.*?</title>`)
	colourAttr    = regexp.MustCompile(`\b(fill|stroke|stop-color|color|flood-color|lighting-color)="[^"]*"`)
	colourLiteral = regexp.MustCompile(`#[0-9a-fA-F]{3,8}\b|rgba?\([^)]*\)`)
	number        = regexp.MustCompile(`-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?`)
	space         = regexp.MustCompile(`\s+`)
)

// drawingShape is src with its title, colours, numbers and whitespace
// removed: what is left is which shapes are drawn, in what order and with
// which path commands. Numbers go too because the old lesson template varied
// its bar heights as well as its colours.
func drawingShape(src []byte) string {
	s := titlePattern.ReplaceAllString(string(src), "")
	s = colourAttr.ReplaceAllString(s, `$1=""`)
	s = colourLiteral.ReplaceAllString(s, "")
	s = number.ReplaceAllString(s, "")
	return space.ReplaceAllString(s, "")
}
