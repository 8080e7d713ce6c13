package mail_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"glimpse/engine/mail"
)

// FuzzRender fills the copy's placeholders with arbitrary data: the HTML
// never carries the data unescaped, and a value that looks like a
// placeholder is never filled in a second time.
func FuzzRender(f *testing.F) {
	f.Add("ann@example.com", "/access-recovery?id=1")
	f.Add(`<script>alert(1)</script>`, `javascript:alert(1)`)
	f.Add("{link}", "/x?a=<b>&c={email}")
	e := newEnvTB(f)
	n := 0
	f.Fuzz(func(t *testing.T, email, link string) {
		if strings.TrimSpace(email) == "" || strings.TrimSpace(link) == "" {
			return
		}
		n++
		key := "fuzz:" + strconv.Itoa(n)
		err := e.box.Enqueue(context.Background(), mail.Message{Key: key, To: "x@example.com", Brand: "default",
			Template: mail.TemplateActivation, Data: map[string]string{"email": email, "link": link}})
		if err != nil {
			t.Fatal(err)
		}
		m, err := e.box.Get(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(email, "<") && strings.Contains(m.HTML, email) {
			t.Fatalf("email %q unescaped in HTML", email)
		}
		if strings.Contains(m.HTML, `href="javascript:`) {
			t.Fatal("javascript: link in HTML")
		}
		if strings.Contains(email, "{link}") && !strings.Contains(m.Text, "{link}") {
			t.Fatal("a placeholder inside data was filled")
		}
	})
}
