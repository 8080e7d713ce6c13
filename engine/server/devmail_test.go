package server_test

import (
	"context"
	"strings"
	"testing"

	"glimpse/engine/mail"
	"glimpse/engine/server"
	"glimpse/screens"
)

// withDevMailbox rebuilds the harness's server with the dev mailbox on.
func withDevMailbox(t *testing.T, h *harness, baseURL string) {
	t.Helper()
	d := h.srv.Deps
	d.Mail, d.DevMailbox = h.app.Outbox, true
	d.Config.BaseURL = baseURL
	srv, err := server.New(d)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
}

func TestDevMailbox(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	if err := h.app.Outbox.Enqueue(ctx, mail.Message{Key: "activation:sub_1", To: "newcomer@example.com", Brand: "default",
		Template: mail.TemplateActivation, Data: map[string]string{"link": "/access-recovery?id=sub_1", "email": "newcomer@example.com"}}); err != nil {
		t.Fatal(err)
	}

	// Off (the default): /dev/mail is an unknown path and serves as home.
	res := h.screen(screens.PathDevMail)
	if strings.Contains(string(res.raw), "newcomer@example.com") || !strings.Contains(string(res.raw), `"to":"/sign-in"`) {
		t.Fatalf("mailbox off: %s", res.raw)
	}

	withDevMailbox(t, h, "http://127.0.0.1:8080")
	res = h.screen(screens.PathDevMail)
	body := string(res.raw)
	if res.status != 200 || !strings.Contains(body, `"id":"dev-mail"`) || !strings.Contains(body, "newcomer@example.com") ||
		!strings.Contains(body, "Create your account") || !strings.Contains(body, `"to":"/dev/mail/activation:sub_1"`) {
		t.Fatalf("mailbox: %d %s", res.status, body)
	}
	res = h.screen(screens.DevMailPath("activation:sub_1"))
	body = string(res.raw)
	if !strings.Contains(body, `"id":"dev-mail-message"`) ||
		!strings.Contains(body, `{"type":"navigate","to":"/access-recovery?id=sub_1"}`) {
		t.Fatalf("one mail: %s", body)
	}
	if res = h.screen(screens.PathDevMail + "/nope"); !strings.Contains(string(res.raw), "There is no mail with this id.") {
		t.Fatalf("missing mail: %s", res.raw)
	}

	// Never over https, whatever the dependencies say.
	withDevMailbox(t, h, "https://glimpse.example")
	h.host = "glimpse.example"
	if res = h.screen(screens.PathDevMail); strings.Contains(string(res.raw), "newcomer@example.com") {
		t.Fatalf("mailbox over https: %s", res.raw)
	}
}
