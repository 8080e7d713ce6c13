package server_test

import (
	"context"
	"strings"
	"testing"

	"glimpse/engine/config"
	"glimpse/engine/mail"
)

// TestPublicDemoSaysSoOnEveryPageAndMail: the payment sandbox outside
// development is a public demo, and every screen (signed out, signed in, a
// screen an action answers with, the first screen drawn into the HTML page)
// and every mail says so; in development (make run) nothing does.
func TestPublicDemoSaysSoOnEveryPageAndMail(t *testing.T) {
	t.Parallel()
	const notice = `"id":"demo-notice"`
	demo := newHarness(t, func(c *config.Config) { c.Environment, c.Payments = "production", "sandbox" })
	demo.subscriber("demo-reader@example.com", "correct horse battery staple")
	for _, path := range []string{"/sign-in", "/checkout", "/privacy", "/terms-of-use", "/unsubscription", "/access-recovery"} {
		if r := demo.screen(path); !strings.Contains(string(r.raw), notice) || !strings.Contains(string(r.raw), "This is a demo") {
			t.Errorf("%s has no demo notice: %.300s", path, r.raw)
		}
	}
	if res, _, ok := demo.page("/sign-in"); !ok || !strings.Contains(string(res.raw), "This is a demo") {
		t.Errorf("the HTML page of /sign-in does not say it is a demo")
	}
	if r := demo.signIn("demo-reader@example.com", "correct horse battery staple"); r.status >= 400 {
		t.Fatalf("sign-in: %d %s", r.status, r.raw)
	}
	if r := demo.screen("/dashboard"); !strings.Contains(string(r.raw), notice) {
		t.Errorf("the dashboard has no demo notice: %.300s", r.raw)
	}
	demo.buy("demo-buyer@example.com")
	mails := append(demo.mails(mail.TemplatePurchase), demo.mails(mail.TemplateReceipt)...)
	if len(mails) != 2 {
		t.Fatalf("%d purchase and receipt mails, want 2", len(mails))
	}
	for _, m := range mails {
		m, err := demo.app.Outbox.Get(context.Background(), m.ID) // with its HTML, which List leaves out
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(m.Subject, "[Demo] ") || !strings.Contains(m.Text, "comes from a demo") || !strings.Contains(m.HTML, "comes from a demo") {
			t.Errorf("%s mail does not say it is a demo: %q\n%s", m.Template, m.Subject, m.Text)
		}
	}

	dev := newHarness(t)
	for _, path := range []string{"/sign-in", "/checkout"} {
		if r := dev.screen(path); strings.Contains(string(r.raw), notice) {
			t.Errorf("development: %s has the demo notice", path)
		}
	}
	dev.buy("dev-buyer@example.com")
	for _, m := range dev.mails(mail.TemplateReceipt) {
		if strings.Contains(m.Subject, "[Demo]") || strings.Contains(m.Text, "comes from a demo") {
			t.Errorf("development: the receipt says it is a demo: %q", m.Subject)
		}
	}
}

// TestTheDemoNamesAFictionalOperator: the receipt named "the operator named
// in your purchase receipt"'s opposite number, and the privacy policy the
// receipt: each pointed at the other. Development's demo names a clearly
// fictional operator, with an address, in both (outside development a real
// one is required at start: engine/config).
func TestTheDemoNamesAFictionalOperator(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, path := range []string{"/privacy", "/terms-of-use"} {
		raw := string(h.screen(path).raw)
		if !strings.Contains(raw, config.DemoOperatorName) || !strings.Contains(raw, config.DemoOperatorAddress) || strings.Contains(raw, "purchase receipt") {
			t.Errorf("%s does not name the fictional operator and its address", path)
		}
	}
	h.buy("fiction-buyer@example.com")
	receipts := h.mails(mail.TemplateReceipt)
	if len(receipts) != 1 || !strings.Contains(receipts[0].Text, "Sold by "+config.DemoOperatorName) {
		t.Fatalf("the receipt does not name the fictional operator: %+v", receipts)
	}
}
