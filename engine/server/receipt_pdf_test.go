package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/pdftext"
	"glimpse/screens"
)

// Each receipt downloads as a PDF a business can file: what was bought,
// the amount, the date, the card, what was refunded since, the seller and
// its address. Another subscriber's receipt, or one asked for signed out,
// is a page saying why, never the file.
func TestAReceiptDownloadsAsAPDF(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.subscriberWithCard("ann@example.com", "correct-horse")
	if r := h.signIn("ann@example.com", "correct-horse"); r.status != http.StatusOK {
		t.Fatalf("sign in: %d %v", r.status, r.body)
	}
	r := h.actionAt("/dashboard", "course.purchase", nil)
	eff := effects(r)
	at, _ := eff[len(eff)-1]["to"].(string)
	number := strings.TrimSuffix(strings.TrimPrefix(at, screens.PathReceipts), "?purchase=done")
	if number == "" || number == at {
		t.Fatalf("bought: %d %s", r.status, r.raw)
	}
	receipt := string(h.screen(screens.ReceiptPath(number)).raw)
	if !strings.Contains(receipt, screens.ReceiptPDFPath(number)) {
		t.Fatalf("the receipt offers no PDF: %s", receipt)
	}
	res := h.do(httptest.NewRequest(http.MethodGet, screens.ReceiptPDFPath(number), nil))
	if res.status != http.StatusOK || res.header.Get("Content-Type") != "application/pdf" ||
		!strings.Contains(res.header.Get("Content-Disposition"), "receipt-"+number+".pdf") {
		t.Fatalf("the PDF: %d %v", res.status, res.header)
	}
	text, err := pdftext.Extract(res.raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{number, "$19.99", "Visa ••4242", "ann@example.com", h.srv.Config.OperatorName} {
		if !strings.Contains(text.Joined(), want) {
			t.Errorf("the PDF lacks %q: %s", want, text.Joined())
		}
	}
	other := newHarness(t)
	other.subscriber("bob@example.com", "correct-horse")
	if r := other.signIn("bob@example.com", "correct-horse"); r.status != http.StatusOK {
		t.Fatal("sign in bob")
	}
	req := httptest.NewRequest(http.MethodGet, screens.ReceiptPDFPath(number), nil)
	req.Header.Set("Accept", "text/html")
	if res := other.do(req); res.status != http.StatusNotFound || strings.Contains(res.header.Get("Content-Type"), "pdf") {
		t.Fatalf("another subscriber's receipt: %d %v", res.status, res.header)
	}
}

// subscriberWithCard makes a subscriber whose main plan has a saved card
// that pays (the sandbox's), so add-ons can be bought off-session.
func (h *harness) subscriberWithCard(email, password string) auth.User {
	h.t.Helper()
	ctx := context.Background()
	u := h.subscriber(email, password)
	main, err := h.app.Billing.Subscription(ctx, "sub-"+u.ID)
	if err != nil {
		h.t.Fatal(err)
	}
	main.PaymentMethod = billing.PaymentMethod{Provider: "sandbox", ID: "pm_sandbox_ok_test", Brand: "visa", Last4: "4242"}
	if err := h.app.Billing.Put(ctx, main); err != nil {
		h.t.Fatal(err)
	}
	return u
}
