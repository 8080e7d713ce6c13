package report

import (
	"bytes"
	"fmt"
	"time"

	"github.com/signintech/gopdf"

	"glimpse/engine/pdfdraw"
)

// Receipt is one receipt as its PDF shows it, every value already in the
// brand's words: the document a business subscriber files for a charge.
type Receipt struct {
	Brand    string
	Number   string
	IssuedAt time.Time
	// Lines are the receipt's label and value pairs, in order (what was
	// bought, the amount, the date, the service period, the card, the
	// status, a refund).
	Lines [][2]string
	// Seller names the operator who sold it and its address; Contact says
	// where to ask about it.
	Seller, Contact string
	// Title is the heading ("Receipt"), and Footer the line each page ends
	// with.
	Title, Footer string
}

// RenderReceipt draws a receipt as an A4 PDF.
func RenderReceipt(r Receipt) ([]byte, error) {
	c, err := pdfdraw.New(margin, contentBottom, pdfdraw.GoRegular, pdfdraw.GoBold)
	if err != nil {
		return nil, fmt.Errorf("render receipt: %w", err)
	}
	c.PDF.SetInfo(gopdf.PdfInfo{Title: r.Title + " " + r.Number, Subject: r.Title, Author: r.Brand, Creator: r.Brand,
		Producer: r.Brand, CreationDate: r.IssuedAt})
	c.NewPage()
	c.Font(pdfdraw.Bold, 11)
	c.Text(margin, c.Y, r.Brand, pdfdraw.Muted)
	c.Y += 28
	c.Font(pdfdraw.Bold, 22)
	c.Text(margin, c.Y, r.Title+" "+r.Number, pdfdraw.Ink)
	c.Y += 34
	const labelWidth = 150.0
	for _, line := range r.Lines {
		c.Ensure(24)
		c.Font(pdfdraw.Regular, 11)
		c.Text(margin, c.Y, line[0], pdfdraw.Muted)
		c.Font(pdfdraw.Bold, 11)
		c.Text(margin+labelWidth, c.Y, line[1], pdfdraw.Ink)
		c.Y += 10
		c.Line(margin, c.Y, pdfdraw.PageWidth-margin, c.Y, 0.5, pdfdraw.Rule)
		c.Y += 14
	}
	c.Y += 12
	c.Font(pdfdraw.Regular, 10)
	for _, s := range []string{r.Seller, r.Contact} {
		if s == "" {
			continue
		}
		c.Ensure(16)
		c.Text(margin, c.Y, s, pdfdraw.Muted)
		c.Y += 16
	}
	c.Footers(margin, pdfdraw.PageHeight-margin, r.Footer)
	if c.Err != nil {
		return nil, fmt.Errorf("render receipt: %w", c.Err)
	}
	var out bytes.Buffer
	if _, err := c.PDF.WriteTo(&out); err != nil {
		return nil, fmt.Errorf("render receipt: write pdf: %w", err)
	}
	return out.Bytes(), nil
}
