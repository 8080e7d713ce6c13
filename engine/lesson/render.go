package lesson

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/signintech/gopdf"

	"glimpse/engine/pdfdraw"
	"glimpse/engine/ui"
)

// Page geometry in PDF points (pdfdraw's A4 portrait).
const (
	margin       = 56.0
	contentWidth = pdfdraw.PageWidth - 2*margin
	// contentBottom is the lowest y body text may reach; the footer sits
	// below it.
	contentBottom = pdfdraw.PageHeight - margin - 20
)

// The brand palette for the cover illustration, links and accents, beside
// pdfdraw's ink, muted and rule.
var (
	white  = pdfdraw.RGB{R: 0xff, G: 0xff, B: 0xff}
	blue   = pdfdraw.RGB{R: 0x3d, G: 0x5a, B: 0xfe}
	pink   = pdfdraw.RGB{R: 0xff, G: 0x4f, B: 0x81}
	yellow = pdfdraw.RGB{R: 0xf2, G: 0xb7, B: 0x05}
	green  = pdfdraw.RGB{R: 0x14, G: 0x91, B: 0x5f}
)

// Body text sizes in points.
const (
	bodySize   = 10.5
	bodyLead   = 1.45 // line height as a multiple of the size
	blockGap   = 7.0  // space after a paragraph or list
	listIndent = 20.0 // from the margin to list item text
)

// headingSizes maps a heading level (2 to 4, as content.Markdown makes
// them) to its size.
var headingSizes = map[int]float64{2: 17, 3: 14, 4: 12}

// Render draws d as an A4 PDF: a cover page with brand, course, lesson
// number, title, subtitle and a vector illustration in the brand palette,
// then the body with headings, wrapped paragraphs and lists, every page
// numbered "Page n of m". It depends on nothing but its arguments: the PDF
// carries no creation date, so the same input gives the same bytes.
func Render(d Doc, brand string) ([]byte, error) {
	doc, err := newDocument(d, brand)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", d.Slug, err)
	}
	doc.cover(d, brand)
	doc.body(d.Body, -1)
	if at, ok := doc.closingBreak(d.Body); ok {
		// Drawn again with the closing lines kept with the block before them
		// (issue #21), unless that takes a page more.
		again, err := newDocument(d, brand)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", d.Slug, err)
		}
		again.cover(d, brand)
		again.body(d.Body, at)
		if again.PDF.GetNumberOfPages() == doc.PDF.GetNumberOfPages() {
			doc = again
		}
	}
	doc.footers(d, brand)
	if doc.Err != nil {
		return nil, fmt.Errorf("render %s: %w", d.Slug, doc.Err)
	}
	var out bytes.Buffer
	if _, err := doc.PDF.WriteTo(&out); err != nil {
		return nil, fmt.Errorf("render %s: write pdf: %w", d.Slug, err)
	}
	return out.Bytes(), nil
}

// kind names the series a document belongs to, as printed on its cover.
func kind(d Doc) string {
	if d.IsLesson() {
		return "Instagram PRO course"
	}
	return "Reels playbook"
}

// document is a PDF being drawn (see pdfdraw.Canvas).
type document struct {
	*pdfdraw.Canvas
	// lines counts the lines of text drawn on each page (by page number);
	// starts and ends are the pages each body block's first and last lines
	// are on, block the body block being drawn (-1 outside the body).
	lines        map[int]int
	starts, ends []int
	block        int
}

// closingLines is the fewest lines the last page may hold: fewer read as a
// stray end of the lesson (two lines of its last paragraph on a page of
// their own), not as a page.
const closingLines = 4

// closingBreak says where to start a page so that the last page holds at
// least closingLines lines (issue #21): before the paragraph that runs onto
// it, which then moves whole, or, when the last page starts with a block of
// its own, before the block ahead of that one; either way before the
// headings that lead into it. ok is false when the last page is full
// enough, or when no break would help.
func (d *document) closingBreak(blocks []ui.RichBlock) (at int, ok bool) {
	last := d.PDF.GetNumberOfPages()
	if d.lines[last] >= closingLines {
		return 0, false
	}
	at = slices.Index(d.ends, last)
	if at < 0 {
		return 0, false
	}
	if d.starts[at] == last {
		at--
	}
	for at > 0 && blocks[at-1].Kind == "heading" {
		at--
	}
	return at, at > 0
}

// newDocument starts an A4 PDF with the Go fonts registered and the
// document information taken from d.
func newDocument(d Doc, brand string) (*document, error) {
	c, err := pdfdraw.New(margin, contentBottom, pdfdraw.GoRegular, pdfdraw.GoBold, pdfdraw.GoItalic, pdfdraw.GoBoldItalic)
	if err != nil {
		return nil, err
	}
	c.PDF.SetInfo(gopdf.PdfInfo{
		Title:    d.Title,
		Subject:  kind(d),
		Author:   brand,
		Creator:  brand,
		Producer: brand,
	})
	return &document{Canvas: c, lines: map[int]int{}, block: -1}, nil
}

// roundedFill paints a rectangle with rounded corners of radius r.
func (d *document) roundedFill(x, y, w, h, r float64, c pdfdraw.RGB) {
	if d.Err != nil {
		return
	}
	d.PDF.SetFillColor(c.R, c.G, c.B)
	d.Err = d.PDF.Rectangle(x, y, x+w, y+h, "F", r, 6)
}

// circle paints a disc of radius r centred on (cx, cy), as a polygon
// because gopdf's Oval only strokes.
func (d *document) circle(cx, cy, r float64, c pdfdraw.RGB) {
	const steps = 40
	points := make([]gopdf.Point, steps)
	for i := range points {
		a := 2 * math.Pi * float64(i) / steps
		points[i] = gopdf.Point{X: cx + r*math.Cos(a), Y: cy + r*math.Sin(a)}
	}
	d.PDF.SetFillColor(c.R, c.G, c.B)
	d.PDF.Polygon(points, "F")
}

// cover draws page 1: brand, series, lesson number, title and subtitle over
// an illustration of a profile on a phone.
func (d *document) cover(doc Doc, brand string) {
	d.NewPage()
	// A strip of the four brand colours across the top edge.
	for i, c := range []pdfdraw.RGB{blue, pink, yellow, green} {
		d.Fill(float64(i)*pdfdraw.PageWidth/4, 0, pdfdraw.PageWidth/4, 10, c)
	}
	d.Y = margin + 8
	d.Font(pdfdraw.Bold, 15)
	d.Text(margin, d.Y, brand, blue)
	d.Y += 22
	d.Font(pdfdraw.Regular, 12)
	d.Text(margin, d.Y, kind(doc), pdfdraw.Muted)
	d.Y += 64
	if doc.IsLesson() {
		d.Font(pdfdraw.Bold, 16)
		d.Text(margin, d.Y, fmt.Sprintf("Lesson %d", doc.Number), pink)
		d.Y += 30
	}
	d.rich([]ui.Span{{Text: doc.Title}}, look{size: 30, lead: 1.2, colour: pdfdraw.Ink, strong: true}, margin, contentWidth)
	d.Y += 10
	if doc.Subtitle != "" {
		d.rich([]ui.Span{{Text: doc.Subtitle}}, look{size: 15, lead: 1.35, colour: pdfdraw.Muted}, margin, contentWidth)
	}
	top := max(d.Y+30, 420)
	d.illustration(margin, top, contentWidth, contentBottom-top-10)
}

// illustration draws a phone showing a profile (picture, story highlights,
// a grid of posts) with a like heart and decorative discs, scaled into the
// box whose top-left corner is (x, y).
func (d *document) illustration(x, y, w, h float64) {
	if h < 120 {
		return
	}
	// Background discs, clear of the phone.
	d.circle(x+w-90, y+90, 80, pdfdraw.RGB{R: 0xfd, G: 0xf1, B: 0xc8})
	d.circle(x+w-40, y+h-60, 46, pdfdraw.RGB{R: 0xd9, G: 0xf0, B: 0xe5})
	d.circle(x+60, y+h-40, 30, pdfdraw.RGB{R: 0xff, G: 0xe0, B: 0xe9})

	phoneH := min(h, 330.0)
	phoneW := phoneH * 0.52
	px, py := x+w/2-phoneW/2, y+(h-phoneH)/2
	d.roundedFill(px, py, phoneW, phoneH, 22, pdfdraw.Ink)
	sx, sy, sw, sh := px+8, py+16, phoneW-16, phoneH-32
	d.roundedFill(sx, sy, sw, sh, 14, white)

	// Profile header: picture with a story ring, then name and bio lines.
	d.circle(sx+30, sy+32, 20, pink)
	d.circle(sx+30, sy+32, 17, white)
	d.circle(sx+30, sy+32, 14.5, blue)
	d.roundedFill(sx+58, sy+22, sw-72, 7, 3.5, pdfdraw.Ink)
	d.roundedFill(sx+58, sy+35, sw-90, 5, 2.5, pdfdraw.Rule)
	d.roundedFill(sx+58, sy+44, sw-100, 5, 2.5, pdfdraw.Rule)

	// Story highlights.
	highlights := []pdfdraw.RGB{yellow, green, pink, blue}
	step := (sw - 20) / float64(len(highlights))
	for i, c := range highlights {
		cx := sx + 10 + step*(float64(i)+0.5)
		d.circle(cx, sy+80, 11, pdfdraw.Rule)
		d.circle(cx, sy+80, 9, c)
	}

	// A 3×3 grid of posts in the palette.
	palette := []pdfdraw.RGB{blue, pink, yellow, green, yellow, blue, pink, green, blue}
	gap := 3.0
	tile := (sw - 2*gap) / 3
	gridY := sy + 102
	for i, c := range palette {
		tx := sx + float64(i%3)*(tile+gap)
		ty := gridY + float64(i/3)*(tile+gap)
		if ty+tile > sy+sh-6 {
			break
		}
		d.Fill(tx, ty, tile, tile, c)
	}

	// A like heart beside the phone: two discs over a triangle.
	hx, hy, r := px+phoneW+46, py+phoneH*0.55, 16.0
	d.circle(hx-r*0.7, hy, r, pink)
	d.circle(hx+r*0.7, hy, r, pink)
	d.PDF.SetFillColor(pink.R, pink.G, pink.B)
	d.PDF.Polygon([]gopdf.Point{{X: hx - 1.62*r, Y: hy + 0.45*r}, {X: hx + 1.62*r, Y: hy + 0.45*r}, {X: hx, Y: hy + 2.1*r}}, "F")
	// A speech bubble on the other side.
	bx, by := px-110, py+phoneH*0.3
	d.roundedFill(bx, by, 70, 40, 12, blue)
	d.PDF.SetFillColor(blue.R, blue.G, blue.B)
	d.PDF.Polygon([]gopdf.Point{{X: bx + 46, Y: by + 38}, {X: bx + 62, Y: by + 38}, {X: bx + 66, Y: by + 52}}, "F")
	for i := range 3 {
		d.circle(bx+21+float64(i)*14, by+20, 3.5, white)
	}
}

// body draws the document's blocks from a new page on.
func (d *document) body(blocks []ui.RichBlock, breakBefore int) {
	d.NewPage()
	text := look{size: bodySize, lead: bodyLead, colour: pdfdraw.Ink}
	for i, b := range blocks {
		if i == breakBefore && d.Y > d.Top {
			d.NewPage()
		}
		d.block = i
		d.starts, d.ends = append(d.starts, 0), append(d.ends, 0)
		switch b.Kind {
		case "heading":
			size := headingSizes[min(max(b.Level, 2), 4)]
			if i > 0 {
				d.Y += size * 0.6
			}
			// Keep a heading with the first lines under it.
			d.Ensure(size*1.3 + 3*bodySize*bodyLead)
			d.rich(b.Spans, look{size: size, lead: 1.3, colour: pdfdraw.Ink, strong: true}, margin, contentWidth)
			d.Y += size * 0.35
		case "paragraph":
			d.rich(b.Spans, text, margin, contentWidth)
			d.Y += blockGap
		case "list":
			for n, item := range b.Items {
				marker := "•"
				if b.Ordered {
					marker = fmt.Sprintf("%d.", n+1)
				}
				d.Ensure(bodySize * bodyLead)
				d.Font(pdfdraw.Regular, bodySize)
				d.TextAligned(margin, d.Y, listIndent-6, marker, pdfdraw.Muted, gopdf.Right)
				d.rich(item, text, margin+listIndent, contentWidth-listIndent)
				d.Y += blockGap / 2
			}
			d.Y += blockGap / 2
		}
	}
}

// footers numbers every page "Page n of m" and names the document, once all
// pages exist and m is known.
func (d *document) footers(doc Doc, brand string) {
	name := doc.Title
	if doc.IsLesson() {
		name = fmt.Sprintf("Lesson %d: %s", doc.Number, doc.Title)
	}
	d.Footers(margin, pdfdraw.PageHeight-margin+6, brand+" · "+name)
}

// look is how a run of rich text is set: size, line height (a multiple of
// the size), colour, and whether all of it is bold (headings, titles).
type look struct {
	size, lead float64
	colour     pdfdraw.RGB
	strong     bool
}

// style is the inline style of a piece of text.
type style struct{ strong, em, link bool }

// family is the font a style is set in.
func (s style) family() string {
	switch {
	case s.strong && s.em:
		return pdfdraw.BoldItalic
	case s.strong:
		return pdfdraw.Bold
	case s.em:
		return pdfdraw.Italic
	}
	return pdfdraw.Regular
}

// piece is a run of text in one style inside a word, with its width.
type piece struct {
	text  string
	style style
	width float64
}

// word is what lines break between: pieces with no space between them, such
// as a bold word and the comma after it.
type word struct {
	pieces []piece
	width  float64
}

// words splits spans into words. A link whose address differs from its text
// is followed by the address in parentheses, since paper cannot be clicked.
func words(spans []ui.Span, strong bool) []word {
	var out []word
	open := false // whether the last word continues until a space
	add := func(text string, s style) {
		for _, r := range text {
			if unicode.IsSpace(r) {
				open = false
				continue
			}
			if !open {
				out = append(out, word{})
				open = true
			}
			w := &out[len(out)-1]
			if n := len(w.pieces); n > 0 && w.pieces[n-1].style == s {
				w.pieces[n-1].text += string(r)
			} else {
				w.pieces = append(w.pieces, piece{text: string(r), style: s})
			}
		}
	}
	for _, sp := range spans {
		s := style{strong: strong || sp.Strong, em: sp.Em, link: sp.Href != ""}
		add(sp.Text, s)
		if href := sp.Href; href != "" && href != sp.Text && href != "mailto:"+sp.Text && href != "https://"+sp.Text {
			add(" ("+strings.TrimPrefix(href, "mailto:")+")", style{strong: s.strong, em: s.em})
		}
	}
	return out
}

// measure sets the width of every piece and word at size.
func (d *document) measure(ws []word, size float64) {
	for i := range ws {
		w := &ws[i]
		w.width = 0
		for j := range w.pieces {
			p := &w.pieces[j]
			d.Font(p.style.family(), size)
			p.width = d.Width(p.text)
			w.width += p.width
		}
	}
}

// split breaks a word wider than width into words that fit, between
// characters, so a long address cannot run off the page.
func (d *document) split(w word, width, size float64) []word {
	var out []word
	cur := word{}
	for _, p := range w.pieces {
		d.Font(p.style.family(), size)
		run := ""
		for _, r := range p.text {
			cw := d.Width(string(r))
			if cur.width+d.Width(run)+cw > width && (run != "" || len(cur.pieces) > 0) {
				if run != "" {
					cur.pieces = append(cur.pieces, piece{text: run, style: p.style, width: d.Width(run)})
					cur.width += d.Width(run)
				}
				out = append(out, cur)
				cur, run = word{}, ""
			}
			run += string(r)
		}
		if run != "" {
			rw := d.Width(run)
			cur.pieces = append(cur.pieces, piece{text: run, style: p.style, width: rw})
			cur.width += rw
		}
	}
	if len(cur.pieces) > 0 {
		out = append(out, cur)
	}
	return out
}

// rich draws spans wrapped to width from (x, y), switching font per style,
// starting new pages as needed, and moves y below them. Consecutive words in
// the same style are drawn as one string, so the text extracts as phrases.
func (d *document) rich(spans []ui.Span, l look, x, width float64) {
	ws := words(spans, l.strong)
	d.measure(ws, l.size)
	d.Font(pdfdraw.Regular, l.size)
	space := d.Width(" ")
	lineHeight := l.size * l.lead

	var lines [][]word
	var line []word
	used := 0.0
	for _, w := range ws {
		parts := []word{w}
		if w.width > width {
			parts = d.split(w, width, l.size)
		}
		for _, p := range parts {
			if len(line) > 0 && used+space+p.width > width {
				lines = append(lines, line)
				line, used = nil, 0
			}
			if len(line) > 0 {
				used += space
			}
			line = append(line, p)
			used += p.width
		}
	}
	if len(line) > 0 {
		lines = append(lines, line)
	}
	for _, line := range lines {
		d.Ensure(lineHeight)
		d.drawLine(line, l, x, space)
		page := d.PDF.GetNumberOfPages()
		d.lines[page]++
		if d.block >= 0 {
			if d.starts[d.block] == 0 {
				d.starts[d.block] = page
			}
			d.ends[d.block] = page
		}
		d.Y += lineHeight
	}
}

// run is text in one style at a horizontal position.
type run struct {
	text  string
	style style
	x     float64
}

// drawLine draws one line of words at y, merging neighbouring pieces of the
// same style into runs.
func (d *document) drawLine(line []word, l look, x, space float64) {
	var runs []run
	cursor := x
	for i, w := range line {
		if i > 0 {
			cursor += space
		}
		for j, p := range w.pieces {
			n := len(runs)
			switch {
			case n > 0 && runs[n-1].style == p.style && j == 0:
				runs[n-1].text += " " + p.text
			case n > 0 && runs[n-1].style == p.style:
				runs[n-1].text += p.text
			default:
				runs = append(runs, run{text: p.text, style: p.style, x: cursor})
			}
			cursor += p.width
		}
	}
	for _, r := range runs {
		d.Font(r.style.family(), l.size)
		c := l.colour
		if r.style.link {
			c = blue
		}
		d.Text(r.x, d.Y, r.text, c)
	}
}
