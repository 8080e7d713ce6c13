package server_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
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
	// On, for a client elsewhere (the in-memory transport's peer is not on
	// this machine): still an unknown path.
	if res = h.screen(screens.PathDevMail); strings.Contains(string(res.raw), "newcomer@example.com") {
		t.Fatalf("mailbox shown to a remote client: %s", res.raw)
	}
	// On, for a browser on this machine.
	addr := h.listen()
	local := func(path string, header ...string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/ui/screen?path="+url.QueryEscape(path), nil)
		req.Host = h.host
		req.Header.Set("X-SDUI-Version", "1")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		return string(raw)
	}
	body := local(screens.PathDevMail)
	if !strings.Contains(body, `"id":"dev-mail"`) || !strings.Contains(body, "newcomer@example.com") ||
		!strings.Contains(body, "Create your account") || !strings.Contains(body, `"to":"/dev/mail/activation:sub_1"`) {
		t.Fatalf("mailbox: %s", body)
	}
	body = local(screens.DevMailPath("activation:sub_1"))
	if !strings.Contains(body, `"id":"dev-mail-message"`) ||
		!strings.Contains(body, `{"type":"navigate","to":"/access-recovery?id=sub_1"}`) {
		t.Fatalf("one mail: %s", body)
	}
	// A proxy on this machine forwarding for someone elsewhere is not local.
	if body = local(screens.PathDevMail, "X-Forwarded-For", "203.0.113.9"); strings.Contains(body, "newcomer@example.com") {
		t.Fatalf("mailbox through a proxy: %s", body)
	}
	if body = local(screens.PathDevMail + "/nope"); !strings.Contains(body, "There is no mail with this id.") {
		t.Fatalf("missing mail: %s", body)
	}

	// Never over https, whatever the dependencies say.
	withDevMailbox(t, h, "https://glimpse.example")
	h.host = "glimpse.example"
	if res = h.screen(screens.PathDevMail); strings.Contains(string(res.raw), "newcomer@example.com") {
		t.Fatalf("mailbox over https: %s", res.raw)
	}
}
