// Package pdftext reads back the text of the PDFs Glimpse generates, so
// tests can prove the text is extractable (fonts embedded as CID fonts with
// ToUnicode maps) without a PDF reader dependency. It understands the subset
// of PDF that gopdf writes.
package pdftext

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// Text is a PDF's text: one slice of lines (text-showing operations) per
// page, in page order.
type Text struct {
	Pages [][]string
}

// Joined joins every line of every page with spaces, which undoes the
// wrapping of paragraphs.
func (t Text) Joined() string {
	var all []string
	for _, page := range t.Pages {
		all = append(all, page...)
	}
	return strings.Join(all, " ")
}

type extractError struct{ msg string }

func (e extractError) Error() string { return "pdftext: " + e.msg }

// fail stops an extraction; Extract turns it into its error.
func fail(format string, args ...any) {
	panic(extractError{msg: fmt.Sprintf(format, args...)})
}

var (
	objectPattern  = regexp.MustCompile(`(?s)(\d+) 0 obj\s*(.*?)endobj`)
	kidsPattern    = regexp.MustCompile(`/Kids\s*\[([^\]]*)\]`)
	refPattern     = regexp.MustCompile(`(\d+) 0 R`)
	contentsRef    = regexp.MustCompile(`/Contents\s+(\d+) 0 R`)
	resourcesRef   = regexp.MustCompile(`/Resources\s+(\d+) 0 R`)
	fontRef        = regexp.MustCompile(`/F(\d+)\s+(\d+) 0 R`)
	toUnicodeRef   = regexp.MustCompile(`/ToUnicode\s+(\d+) 0 R`)
	rangePattern   = regexp.MustCompile(`<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>`)
	operatorRegexp = regexp.MustCompile(`/F(\d+) [\d.]+ Tf|\[([^\]]*)\] TJ`)
	hexString      = regexp.MustCompile(`<([0-9A-Fa-f]*)>`)
)

// Extract extracts the text of pdf the way a PDF reader does for fonts
// embedded as CID fonts with Identity-H encoding: the content streams show
// glyph IDs, and each font's ToUnicode CMap maps them back to characters.
// It understands the subset of PDF that gopdf writes (uncompressed object
// table, one content stream per page, FlateDecode or plain streams), which is
// enough to prove the text is extractable without a PDF reader dependency.
func Extract(pdf []byte) (text Text, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(extractError); ok {
				err = e
				return
			}
			panic(r)
		}
	}()
	objects := map[string][]byte{}
	for _, m := range objectPattern.FindAllSubmatch(pdf, -1) {
		objects[string(m[1])] = m[2]
	}
	stream := func(id string) []byte {
		body, ok := objects[id]
		if !ok {
			fail("no object %s", id)
		}
		dict, data, ok := bytes.Cut(body, []byte("stream"))
		if !ok {
			fail("object %s is not a stream", id)
		}
		data = bytes.TrimPrefix(bytes.TrimPrefix(data, []byte("\r")), []byte("\n"))
		data, _, _ = bytes.Cut(data, []byte("endstream"))
		if !bytes.Contains(dict, []byte("/FlateDecode")) {
			return data
		}
		z, err := zlib.NewReader(bytes.NewReader(data))
		if err != nil {
			fail("object %s: %v", id, err)
		}
		plain, err := io.ReadAll(z)
		if err != nil {
			fail("object %s: %v", id, err)
		}
		return plain
	}
	cmap := func(id string) map[uint16]rune {
		m := map[uint16]rune{}
		for _, r := range rangePattern.FindAllSubmatch(stream(id), -1) {
			low, _ := strconv.ParseUint(string(r[1]), 16, 16)
			high, _ := strconv.ParseUint(string(r[2]), 16, 16)
			dst, _ := strconv.ParseUint(string(r[3]), 16, 32)
			for g := low; g <= high; g++ {
				m[uint16(g)] = rune(dst + g - low)
			}
		}
		return m
	}

	var tree []byte
	for _, body := range objects {
		if regexp.MustCompile(`/Type\s*/Pages\b`).Match(body) {
			tree = body
		}
	}
	kids := kidsPattern.FindSubmatch(tree)
	if kids == nil {
		fail("no page tree")
	}
	var doc Text
	for _, kid := range refPattern.FindAllSubmatch(kids[1], -1) {
		page := objects[string(kid[1])]
		fonts := map[string]map[uint16]rune{}
		if res := resourcesRef.FindSubmatch(page); res != nil {
			for _, f := range fontRef.FindAllSubmatch(objects[string(res[1])], -1) {
				if u := toUnicodeRef.FindSubmatch(objects[string(f[2])]); u != nil {
					fonts[string(f[1])] = cmap(string(u[1]))
				}
			}
		}
		contents := contentsRef.FindSubmatch(page)
		if contents == nil {
			fail("page object %s has no contents", kid[1])
		}
		var lines []string
		var current map[uint16]rune
		for _, op := range operatorRegexp.FindAllSubmatch(stream(string(contents[1])), -1) {
			if op[1] != nil {
				current = fonts[string(op[1])]
				if current == nil {
					fail("font F%s has no ToUnicode map", op[1])
				}
				continue
			}
			var line strings.Builder
			for _, h := range hexString.FindAllSubmatch(op[2], -1) {
				glyphs, err := hex.DecodeString(string(h[1]))
				if err != nil {
					fail("bad glyph string %q: %v", h[1], err)
				}
				for i := 0; i+1 < len(glyphs); i += 2 {
					g := uint16(glyphs[i])<<8 | uint16(glyphs[i+1])
					r, ok := current[g]
					if !ok {
						fail("glyph %d is not in the ToUnicode map", g)
					}
					line.WriteRune(r)
				}
			}
			lines = append(lines, line.String())
		}
		doc.Pages = append(doc.Pages, lines)
	}
	return doc, nil
}
