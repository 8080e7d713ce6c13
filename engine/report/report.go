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

	"glimpse/engine/analysis"
	"glimpse/engine/pdfdraw"
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

// Page geometry in PDF points (pdfdraw's A4 portrait).
const (
	margin       = 48.0
	contentWidth = pdfdraw.PageWidth - 2*margin
	// contentBottom is the lowest y body text may reach; the footer sits
	// below it.
	contentBottom = pdfdraw.PageHeight - margin - 24
)

// Colours of the report beside pdfdraw's ink, muted and rule.
// levelColours[i] colours level i+1, as on the Analytics screen's 5-cell
// bar.
var (
	accent       = pdfdraw.RGB{R: 0x3b, G: 0x5b, B: 0xdb}
	levelColours = [5]pdfdraw.RGB{{R: 0xd9, G: 0x2d, B: 0x42}, {R: 0xf0, G: 0x6b, B: 0x2a}, {R: 0xf2, G: 0xb7, B: 0x05}, {R: 0x5a, G: 0xc2, B: 0x6a}, {R: 0x14, G: 0x91, B: 0x5f}}
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
	if d.Err != nil {
		return nil, fmt.Errorf("render report: %w", d.Err)
	}
	var out bytes.Buffer
	if _, err := d.PDF.WriteTo(&out); err != nil {
		return nil, fmt.Errorf("render report: write pdf: %w", err)
	}
	return out.Bytes(), nil
}

// document is a PDF being drawn (see pdfdraw.Canvas).
type document struct{ *pdfdraw.Canvas }

// newDocument starts an A4 PDF with the Go fonts registered and the
// document information taken from r.
func newDocument(r Report) (*document, error) {
	c, err := pdfdraw.New(margin, contentBottom, pdfdraw.GoRegular, pdfdraw.GoBold)
	if err != nil {
		return nil, err
	}
	c.PDF.SetInfo(gopdf.PdfInfo{
		Title:        fmt.Sprintf("Instagram profile report for @%s", r.Username),
		Subject:      "Instagram profile report",
		Author:       r.Brand,
		Creator:      r.Brand,
		Producer:     r.Brand,
		CreationDate: r.GeneratedAt,
	})
	return &document{c}, nil
}

// paragraph draws s wrapped to width at the left margin from y, in the given
// font, starting new pages as needed, and moves y below it.
func (d *document) paragraph(family string, size float64, s string, c pdfdraw.RGB) {
	d.Font(family, size)
	lineHeight := size * 1.35
	for _, line := range d.wrap(s, contentWidth) {
		d.Ensure(lineHeight)
		d.Text(margin, d.Y, line, c)
		d.Y += lineHeight
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
		if d.Width(candidate) <= width {
			line = candidate
			continue
		}
		if line != "" {
			lines = append(lines, line)
		}
		line = ""
		for _, r := range word {
			if line != "" && d.Width(line+string(r)) > width {
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

// heading draws a page or section title and moves y below it.
func (d *document) heading(s string, size float64) {
	d.Ensure(size * 2)
	d.Font(pdfdraw.Bold, size)
	d.Text(margin, d.Y, s, pdfdraw.Ink)
	d.Y += size * 1.6
}

// footers numbers every page "Page n of m" and names the report, once all
// pages exist and m is known.
func (d *document) footers(r Report) {
	d.Footers(margin, pdfdraw.PageHeight-margin, fmt.Sprintf("%s · Instagram profile report · @%s", r.Brand, r.Username))
}
