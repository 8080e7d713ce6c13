// Package pdfdraw is the small drawing layer shared by the PDFs Glimpse
// generates (the profile report, the lessons): an A4 gopdf document with
// embedded TrueType fonts (the Go fonts), the colours of their text and
// hairlines, a cursor that starts new pages, text, line and fill helpers
// that record the first error and then do nothing, so page code reads as a
// list of steps, and the numbered footer.
package pdfdraw

import (
	"fmt"

	"github.com/signintech/gopdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/goregular"
)

// The A4 portrait page, in PDF points; each document sets its own margins.
const (
	PageWidth  = 595.28
	PageHeight = 841.89
)

// RGB is a colour.
type RGB struct{ R, G, B uint8 }

// The colours every document shares: Ink for text, Muted for what is said
// in passing (captions, footers), Rule for hairlines and empty cells. Each
// document adds its accents.
var (
	Ink   = RGB{R: 0x1d, G: 0x22, B: 0x2b}
	Muted = RGB{R: 0x5f, G: 0x67, B: 0x73}
	Rule  = RGB{R: 0xd9, G: 0xdd, B: 0xe3}
)

// Font is a TrueType font registered under a family name.
type Font struct {
	Family string
	TTF    []byte
}

// Family names of the Go fonts, as Canvas.Font takes them.
const (
	Regular    = "go"
	Bold       = "go-bold"
	Italic     = "go-italic"
	BoldItalic = "go-bold-italic"
)

// The Go fonts (BSD licence), compiled in from golang.org/x/image/font/gofont.
// They cover Latin, Greek and Cyrillic, so usernames and lessons in those
// scripts render; a document registers those it sets text in.
var (
	GoRegular    = Font{Family: Regular, TTF: goregular.TTF}
	GoBold       = Font{Family: Bold, TTF: gobold.TTF}
	GoItalic     = Font{Family: Italic, TTF: goitalic.TTF}
	GoBoldItalic = Font{Family: BoldItalic, TTF: gobolditalic.TTF}
)

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

// Footers writes every page's footer once all pages exist and their number
// is known: a hairline 6 points above y across the margins, then name at the
// left margin and "Page n of m" at the right, in the Regular font (which must
// be registered) at 8 points.
func (c *Canvas) Footers(margin, y float64, name string) {
	total := c.PDF.GetNumberOfPages()
	for page := 1; page <= total && c.Err == nil; page++ {
		if c.Err = c.PDF.SetPage(page); c.Err != nil {
			return
		}
		c.Line(margin, y-6, PageWidth-margin, y-6, 0.5, Rule)
		c.Font(Regular, 8)
		c.Text(margin, y, name, Muted)
		c.TextAligned(margin, y, PageWidth-2*margin, fmt.Sprintf("Page %d of %d", page, total), Muted, gopdf.Right)
	}
}
