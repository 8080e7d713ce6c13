// Package report renders the profile report: a multi-page PDF of an
// analysis.Result with vector charts, sold as the profile-report add-on.
//
// Rendering is a pure function of the Report value: no network, no clock, no
// files. The fonts are the Go fonts (BSD licence), compiled into the binary
// from golang.org/x/image/font/gofont and embedded in every PDF as subsets
// with a ToUnicode map, so non-ASCII usernames render and text can be copied
// and searched. The PDF is drawn with github.com/signintech/gopdf because
// the charts are vector line charts built from lines and rectangles, which
// the grid-based maroto v2 cannot draw (it has no free-form line primitive).
package report

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/signintech/gopdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"

	"glimpse/engine/analysis"
)

// Report is everything one profile report shows.
type Report struct {
	// Brand is the product name printed on the cover and in the footer.
	Brand    string
	Username string
	// GeneratedAt is printed on the cover and becomes the PDF creation date,
	// the only time the output depends on.
	GeneratedAt time.Time
	Result      analysis.Result
	// Followers and Engagement are the chart series, oldest first
	// (analysis.FollowerSeries and analysis.EngagementSeries).
	Followers, Engagement []analysis.Point
	// Source says where the data came from, e.g. "Demo profile (generated
	// sample data)".
	Source string
}

// Methodology is the note printed on the cover that says how the figures are
// computed.
const Methodology = "Engagement rate = average (likes + comments) per post ÷ followers × 100, over the latest posts analysed. " +
	"Likes are never attributed to accounts: Instagram does not show who liked a post, so audience groups that depend on activity count commenters only."

// Page geometry in PDF points (A4 portrait).
const (
	pageWidth    = 595.28
	pageHeight   = 841.89
	margin       = 48.0
	contentWidth = pageWidth - 2*margin
	// contentBottom is the lowest y body text may reach; the footer sits
	// below it.
	contentBottom = pageHeight - margin - 24
)

// Font families registered with the PDF.
const (
	regular = "go"
	bold    = "go-bold"
)

// rgb is a colour.
type rgb struct{ r, g, b uint8 }

// Colours of the report. levelColours[i] colours level i+1, as on the
// Analytics screen's 5-cell bar.
var (
	ink          = rgb{0x1d, 0x22, 0x2b}
	muted        = rgb{0x5f, 0x67, 0x73}
	rule         = rgb{0xd9, 0xdd, 0xe3}
	accent       = rgb{0x3b, 0x5b, 0xdb}
	levelColours = [5]rgb{{0xd9, 0x2d, 0x42}, {0xf0, 0x6b, 0x2a}, {0xf2, 0xb7, 0x05}, {0x5a, 0xc2, 0x6a}, {0x14, 0x91, 0x5f}}
)

// Render draws r as a PDF of at least four pages: the cover with the summary
// figures, the charts, the audience groups and the top posts, each page
// numbered "Page n of m".
func Render(r Report) ([]byte, error) {
	d, err := newDocument(r)
	if err != nil {
		return nil, fmt.Errorf("render report: %w", err)
	}
	d.cover(r)
	d.charts(r)
	d.audience(r)
	d.topPosts(r)
	d.footers(r)
	if d.err != nil {
		return nil, fmt.Errorf("render report: %w", d.err)
	}
	var out bytes.Buffer
	if _, err := d.pdf.WriteTo(&out); err != nil {
		return nil, fmt.Errorf("render report: write pdf: %w", err)
	}
	return out.Bytes(), nil
}

// document is a PDF being drawn. Drawing methods record the first error in
// err and do nothing once it is set, so page code reads as a list of steps.
type document struct {
	pdf *gopdf.GoPdf
	// y is where the next block starts on the current page.
	y   float64
	err error
}

// newDocument starts an A4 PDF with the Go fonts registered and the
// document information taken from r.
func newDocument(r Report) (*document, error) {
	pdf := &gopdf.GoPdf{}
	pdf.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4})
	if err := pdf.AddTTFFontData(regular, goregular.TTF); err != nil {
		return nil, fmt.Errorf("load regular font: %w", err)
	}
	if err := pdf.AddTTFFontData(bold, gobold.TTF); err != nil {
		return nil, fmt.Errorf("load bold font: %w", err)
	}
	pdf.SetInfo(gopdf.PdfInfo{
		Title:        fmt.Sprintf("Instagram profile report for @%s", r.Username),
		Subject:      "Instagram profile report",
		Author:       r.Brand,
		Creator:      r.Brand,
		Producer:     r.Brand,
		CreationDate: r.GeneratedAt,
	})
	return &document{pdf: pdf}, nil
}

// newPage starts a page and puts y at its top margin.
func (d *document) newPage() {
	d.pdf.AddPage()
	d.y = margin
}

// ensure starts a new page when a block of height h does not fit below y.
func (d *document) ensure(h float64) {
	if d.y+h > contentBottom {
		d.newPage()
	}
}

// font selects a family and size.
func (d *document) font(family string, size float64) {
	if d.err == nil {
		d.err = d.pdf.SetFont(family, "", size)
	}
}

// text draws s with its top-left corner at (x, y) in colour c.
func (d *document) text(x, y float64, s string, c rgb) {
	d.textAligned(x, y, 0, s, c, gopdf.Left)
}

// textAligned draws s in a box of width w whose top-left corner is (x, y),
// aligned with align (gopdf.Left, gopdf.Center or gopdf.Right).
func (d *document) textAligned(x, y, w float64, s string, c rgb, align int) {
	if d.err != nil || s == "" {
		return
	}
	if w == 0 {
		w, d.err = d.pdf.MeasureTextWidth(s)
		if d.err != nil {
			return
		}
	}
	d.pdf.SetTextColor(c.r, c.g, c.b)
	d.pdf.SetXY(x, y)
	d.err = d.pdf.CellWithOption(&gopdf.Rect{W: w, H: 1}, s, gopdf.CellOption{Align: align | gopdf.Top})
}

// width is the width of s in the current font.
func (d *document) width(s string) float64 {
	if d.err != nil {
		return 0
	}
	w, err := d.pdf.MeasureTextWidth(s)
	if err != nil {
		d.err = err
	}
	return w
}

// paragraph draws s wrapped to width at the left margin from y, in the given
// font, starting new pages as needed, and moves y below it.
func (d *document) paragraph(family string, size float64, s string, c rgb) {
	d.font(family, size)
	lineHeight := size * 1.35
	for _, line := range d.wrap(s, contentWidth) {
		d.ensure(lineHeight)
		d.text(margin, d.y, line, c)
		d.y += lineHeight
	}
}

// wrap breaks s into lines no wider than width in the current font, at
// spaces where it can and inside a word that is wider than a line.
func (d *document) wrap(s string, width float64) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		candidate := word
		if line != "" {
			candidate = line + " " + word
		}
		if d.width(candidate) <= width {
			line = candidate
			continue
		}
		if line != "" {
			lines = append(lines, line)
		}
		line = ""
		for _, r := range word {
			if line != "" && d.width(line+string(r)) > width {
				lines = append(lines, line)
				line = ""
			}
			line += string(r)
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// line draws a straight line from (x1, y1) to (x2, y2).
func (d *document) line(x1, y1, x2, y2, width float64, c rgb) {
	d.pdf.SetLineWidth(width)
	d.pdf.SetStrokeColor(c.r, c.g, c.b)
	d.pdf.Line(x1, y1, x2, y2)
}

// fill paints a rectangle whose top-left corner is (x, y).
func (d *document) fill(x, y, w, h float64, c rgb) {
	d.pdf.SetFillColor(c.r, c.g, c.b)
	d.pdf.RectFromUpperLeftWithStyle(x, y, w, h, "F")
}

// heading draws a page or section title and moves y below it.
func (d *document) heading(s string, size float64) {
	d.ensure(size * 2)
	d.font(bold, size)
	d.text(margin, d.y, s, ink)
	d.y += size * 1.6
}

// footers numbers every page "Page n of m" and names the report, once all
// pages exist and m is known.
func (d *document) footers(r Report) {
	total := d.pdf.GetNumberOfPages()
	for page := 1; page <= total && d.err == nil; page++ {
		if d.err = d.pdf.SetPage(page); d.err != nil {
			return
		}
		y := pageHeight - margin
		d.line(margin, y-6, pageWidth-margin, y-6, 0.5, rule)
		d.font(regular, 8)
		d.text(margin, y, fmt.Sprintf("%s · Instagram profile report · @%s", r.Brand, r.Username), muted)
		d.textAligned(margin, y, contentWidth, fmt.Sprintf("Page %d of %d", page, total), muted, gopdf.Right)
	}
}
