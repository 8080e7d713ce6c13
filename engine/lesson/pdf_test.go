package lesson

import (
	"testing"

	"glimpse/engine/pdftext"
)

// parsePDF reads back a PDF's text, failing the test if it cannot.
func parsePDF(t *testing.T, pdf []byte) pdftext.Text {
	t.Helper()
	text, err := pdftext.Extract(pdf)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// No lesson ends on a page holding a stray line or two of its last paragraph
// (issue #21: lesson 1 ended with two lines alone on page 4): the closing
// paragraph moves whole, or takes the block before it along.
func TestLessonsDoNotEndOnStrayLines(t *testing.T) {
	t.Parallel()
	for _, d := range loadContent(t) {
		if !d.IsLesson() {
			continue
		}
		pdf, err := Render(d, "Glimpse")
		if err != nil {
			t.Fatal(err)
		}
		pages := parsePDF(t, pdf).Pages
		last := pages[len(pages)-1]
		// The last two runs are the footer: the document's name and "Page n of m".
		if body := len(last) - 2; body < 3 {
			t.Errorf("%s ends with %d line(s) alone on page %d: %q", d.Slug, body, len(pages), last)
		}
	}
}
