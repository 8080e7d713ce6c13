package report

import (
	"strings"
	"testing"
	"time"
)

// A receipt's PDF holds every line, the seller and where to ask, as text a
// reader (or an accountant's tool) can extract.
func TestRenderReceipt(t *testing.T) {
	pdf, err := RenderReceipt(Receipt{Brand: "Glimpse", Number: "7F3K-9QX2-M4AB", IssuedAt: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC),
		Title: "Receipt", Footer: "Glimpse · Receipt 7F3K-9QX2-M4AB",
		Lines: [][2]string{{"Item", "Weekly Plan"}, {"Amount", "$1.00"}, {"Service period", "Nov 2, 2026 – Nov 9, 2026"},
			{"Refunded", "$0.50 on Nov 3, 2026"}},
		Seller: "Sold by Example Operator Ltd, 1 Example Street", Contact: "Questions? support@glimpse.example"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(pdf), "%PDF-") {
		t.Fatal("not a PDF")
	}
	text := parsePDF(t, pdf).Joined()
	for _, want := range []string{"Receipt 7F3K-9QX2-M4AB", "Weekly Plan", "Service period", "Nov 2, 2026 – Nov 9, 2026",
		"$0.50 on Nov 3, 2026", "Example Operator Ltd", "support@glimpse.example"} {
		if !strings.Contains(text, want) {
			t.Errorf("the receipt lacks %q: %s", want, text)
		}
	}
}
