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
