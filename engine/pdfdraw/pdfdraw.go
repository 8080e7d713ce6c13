// Package pdfdraw is the small drawing layer shared by the PDFs Glimpse
// generates (the profile report, the lessons): an A4 gopdf document with
// embedded TrueType fonts, a cursor that starts new pages, and text, line
// and fill helpers that record the first error and then do nothing, so page
// code reads as a list of steps.
package pdfdraw

import (
	"fmt"

	"github.com/signintech/gopdf"
)

// RGB is a colour.
type RGB struct{ R, G, B uint8 }

// Font is a TrueType font registered under a family name.
type Font struct {
	Family string
	TTF    []byte
}

// Canvas is a PDF being drawn.
type Canvas struct {
	PDF *gopdf.GoPdf
	// Y is where the next block starts on the current page.
	Y float64
	// Err is the first drawing error; drawing stops once it is set.
	Err error
	// Top is where a new page's first block starts; Bottom is the lowest Y
	// a block may reach (the footer sits below it).
	Top, Bottom float64
}

// New starts an A4 PDF with fonts registered (embedded as subsets with
// ToUnicode maps, so the text stays searchable).
func New(top, bottom float64, fonts ...Font) (*Canvas, error) {
	pdf := &gopdf.GoPdf{}
	pdf.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4})
	for _, f := range fonts {
		if err := pdf.AddTTFFontData(f.Family, f.TTF); err != nil {
			return nil, fmt.Errorf("load font %s: %w", f.Family, err)
		}
	}
	return &Canvas{PDF: pdf, Top: top, Bottom: bottom}, nil
}

// NewPage starts a page and puts Y at its top.
func (c *Canvas) NewPage() {
	c.PDF.AddPage()
	c.Y = c.Top
}

// Ensure starts a new page when a block of height h does not fit below Y.
func (c *Canvas) Ensure(h float64) {
	if c.Y+h > c.Bottom {
		c.NewPage()
	}
}

// Font selects a family and size.
func (c *Canvas) Font(family string, size float64) {
	if c.Err == nil {
		c.Err = c.PDF.SetFont(family, "", size)
	}
}

// Text draws s with its top-left corner at (x, y) in colour col.
func (c *Canvas) Text(x, y float64, s string, col RGB) {
	c.TextAligned(x, y, 0, s, col, gopdf.Left)
}

// TextAligned draws s in a box of width w whose top-left corner is (x, y),
// aligned with align (gopdf.Left, gopdf.Center or gopdf.Right); a zero w is
// the text's own width.
func (c *Canvas) TextAligned(x, y, w float64, s string, col RGB, align int) {
	if c.Err != nil || s == "" {
		return
	}
	if w == 0 {
		if w = c.Width(s); c.Err != nil {
			return
		}
	}
	c.PDF.SetTextColor(col.R, col.G, col.B)
	c.PDF.SetXY(x, y)
	c.Err = c.PDF.CellWithOption(&gopdf.Rect{W: w, H: 1}, s, gopdf.CellOption{Align: align | gopdf.Top})
}

// Width is the width of s in the current font.
func (c *Canvas) Width(s string) float64 {
	if c.Err != nil {
		return 0
	}
	w, err := c.PDF.MeasureTextWidth(s)
	if err != nil {
		c.Err = err
	}
	return w
}

// Line draws a straight line from (x1, y1) to (x2, y2).
func (c *Canvas) Line(x1, y1, x2, y2, width float64, col RGB) {
	c.PDF.SetLineWidth(width)
	c.PDF.SetStrokeColor(col.R, col.G, col.B)
	c.PDF.Line(x1, y1, x2, y2)
}

// Fill paints a rectangle whose top-left corner is (x, y).
func (c *Canvas) Fill(x, y, w, h float64, col RGB) {
	c.PDF.SetFillColor(col.R, col.G, col.B)
	c.PDF.RectFromUpperLeftWithStyle(x, y, w, h, "F")
}
