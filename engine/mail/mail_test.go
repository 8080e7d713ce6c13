package mail_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	smtpmock "github.com/mocktools/go-smtp-mock/v2"

	"glimpse/content"
	"glimpse/engine"
	"glimpse/engine/brand"
	"glimpse/engine/mail"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/store/storetest"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func brands(t testing.TB) *brand.Registry {
	t.Helper()
	shipped, err := brand.ReadShipped(content.Brands)
	if err != nil {
		t.Fatal(err)
	}
	r := brand.NewRegistry(nil)
	if err := r.Install(shipped); err != nil {
		t.Fatal(err)
	}
	return r
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

type env struct {
	mails *sqlstore.Mails
	clock *engine.ManualClock
	reg   *brand.Registry
	box   *mail.Outbox
}

func newEnv(t *testing.T) *env { return newEnvTB(t) }

func newEnvTB(t testing.TB) *env {
	t.Helper()
	e := &env{mails: sqlstore.NewMails(storetest.OpenSQL(t)), clock: engine.NewManualClock(t0), reg: brands(t)}
	e.box = e.outbox()
	return e
}

// outbox is another worker on the same database.
func (e *env) outbox() *mail.Outbox {
	return mail.NewOutbox(e.mails, e.clock, quiet(), func(k string) brand.Copy { return e.reg.Copy(e.reg.Get(k)) }, "http://127.0.0.1:8080").
		WithSenders(func(k string) mail.From {
			b := e.reg.Get(k)
			return mail.From{Brand: b.Name, Operator: "Example Operator Ltd", Support: b.SupportEmail}
		})
}

func reset(to, key string) mail.Message {
	return mail.Message{Key: key, To: to, Brand: "default", Template: mail.TemplatePasswordReset,
		Data: map[string]string{"link": "/reset?token=abc", "minutes": "30"}}
}

// pending is how many mails are queued.
func pending(t *testing.T, e *env) int {
	t.Helper()
	n, _, err := e.box.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestEnqueueTwiceQueuesOnce(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for range 2 {
		if err := e.box.Enqueue(ctx, reset("a@example.com", "password-reset:h1")); err != nil {
			t.Fatal(err)
		}
	}
	list, err := e.box.List(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != "password-reset:h1" || list[0].Status != mail.StatusQueued {
		t.Fatalf("list = %+v, want one queued mail", list)
	}
	if n := pending(t, e); n != 1 {
		t.Fatalf("%d queued mails, want 1", n)
	}
	m, err := e.box.Get(ctx, "password-reset:h1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Text, "http://127.0.0.1:8080/reset?token=abc") || !strings.Contains(m.Text, "30 minutes") {
		t.Fatalf("text body:\n%s", m.Text)
	}
	if _, err := e.box.Get(ctx, "nope"); !engine.IsNotFound(err) {
		t.Fatalf("Get(missing) = %v, want not found", err)
	}
	// The list is newest first.
	e.clock.Advance(time.Minute)
	if err := e.box.Enqueue(ctx, reset("b@example.com", "password-reset:h2")); err != nil {
		t.Fatal(err)
	}
	list, err = e.box.List(ctx, 10)
	if err != nil || len(list) != 2 || list[0].ID != "password-reset:h2" || list[1].ID != "password-reset:h1" {
		t.Fatalf("list = %+v, %v; want h2 then h1", list, err)
	}
}

var leftover = regexp.MustCompile(`\{[A-Za-z][A-Za-z0-9_]*\}|\bmail\.[a-z_]+\.[a-z]+\b`)

func sampleData(tmpl string) map[string]string {
	d := map[string]string{}
	for _, k := range mail.Required(tmpl) {
		if k == "operator" || k == "support" {
			continue // the sender's
		}
		d[k] = `<b>"` + k + `"&amp;</b>`
	}
	if _, ok := d["link"]; ok {
		d["link"] = "/access-recovery?id=abc&x=<1>"
	}
	return d
}

// EnqueueMany queues each mail once, as Enqueue would one by one: a mail
// queued before stays queued once, one sent before is not queued again, a
// message with no recipient is refused alone, and two batches at once
// queue each mail once.
func TestEnqueueManyQueuesEachOnce(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, key := range []string{"r:queued", "r:sent"} {
		if err := e.box.Enqueue(ctx, reset("a@example.com", key)); err != nil {
			t.Fatal(err)
		}
	}
	sent := mail.SenderFunc(func(_ context.Context, m mail.Mail) error {
		if m.ID == "r:queued" {
			return errors.New("421 try later")
		}
		return nil
	})
	if n, err := e.box.DeliverDue(ctx, sent); n != 1 || err != nil {
		t.Fatalf("DeliverDue = %d, %v; want r:sent sent", n, err)
	}
	batch := []mail.Message{reset("a@example.com", "r:queued"), reset("a@example.com", "r:sent"),
		reset("b@example.com", "r:new1"), reset("", "r:nobody"), reset("c@example.com", "r:new2")}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() { errs[i] = e.outbox().EnqueueMany(ctx, batch) })
	}
	wg.Wait()
	for _, err := range errs {
		if engine.ErrorCode(err) != engine.CodeInvalid {
			t.Fatalf("EnqueueMany = %v, want the recipient-less message refused", err)
		}
	}
	list, err := e.box.List(ctx, 50)
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, m := range list {
		status[m.ID] = m.Status
	}
	want := map[string]string{"r:queued": mail.StatusQueued, "r:sent": mail.StatusSent,
		"r:new1": mail.StatusQueued, "r:new2": mail.StatusQueued}
	if !maps.Equal(status, want) {
		t.Fatalf("mails %v, want %v", status, want)
	}
	if n := pending(t, e); n != 3 {
		t.Fatalf("%d queued mails, want 3", n)
	}
	// The mail queued before keeps its attempt and its retry time.
	if m, err := e.box.Get(ctx, "r:queued"); err != nil || m.Attempts != 1 || !m.NextAttemptAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("r:queued after the batch: %+v, %v", m, err)
	}
	if m, err := e.box.Get(ctx, "r:new2"); err != nil || !strings.Contains(m.Text, "/reset?token=abc") {
		t.Fatalf("a batched mail is rendered as one queued alone: %v\n%s", err, m.Text)
	}
}

func TestTemplatesRenderForEveryBrand(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	keys := e.reg.Keys()
	if len(keys) < 3 {
		t.Fatalf("brands = %v", keys)
	}
	for _, b := range keys {
		for _, tmpl := range mail.Templates() {
			key := b + ":" + tmpl
			msg := mail.Message{Key: key, To: "x@example.com", Brand: b, Template: tmpl, Data: sampleData(tmpl)}
			if err := e.box.Enqueue(ctx, msg); err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			m, err := e.box.Get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			for part, s := range map[string]string{"subject": m.Subject, "text": m.Text, "html": m.HTML} {
				if s == "" || leftover.MatchString(s) {
					t.Errorf("%s %s has an unreplaced placeholder or copy key: %q", key, part, leftover.FindString(s))
				}
			}
			// A receipt names the seller and the brand's own support address.
			if tmpl == mail.TemplateReceipt && (!strings.Contains(m.Text, "Example Operator Ltd") ||
				!strings.Contains(m.Text, e.reg.Get(b).SupportEmail)) {
				t.Errorf("%s lacks the operator or the brand's support address:\n%s", key, m.Text)
			}
			// Every mail names the brand it is from, a partner's too.
			if name := e.reg.Get(b).Name; !strings.Contains(m.Text, name) || !strings.Contains(m.HTML, name) {
				t.Errorf("%s does not name its brand %q:\n%s", key, name, m.Text)
			}
			if strings.Contains(m.HTML, "<b>") || strings.Contains(m.HTML, "<1>") {
				t.Errorf("%s: data not escaped in HTML", key)
			}
			if strings.Contains(m.HTML, "<img") || strings.Contains(m.HTML, "src=") {
				t.Errorf("%s: HTML has images", key)
			}
			if link, ok := msg.Data["link"]; ok {
				if !strings.Contains(m.Text, "http://127.0.0.1:8080"+link) {
					t.Errorf("%s: text lacks the absolute link:\n%s", key, m.Text)
				}
				if !strings.Contains(m.HTML, `href="http://127.0.0.1:8080/access-recovery?id=abc&amp;x=%3c1%3e"`) {
					t.Errorf("%s: HTML lacks the escaped link:\n%s", key, m.HTML)
				}
			}
		}
	}
	// Missing data and unknown templates are refused, not sent with gaps.
	if err := e.box.Enqueue(ctx, mail.Message{Key: "k1", To: "x@example.com", Template: mail.TemplateActivation,
		Data: map[string]string{"email": "x@example.com"}}); engine.ErrorCode(err) != engine.CodeInvalid {
		t.Fatalf("missing link: %v", err)
	}
	if err := e.box.Enqueue(ctx, mail.Message{Key: "k2", To: "x@example.com", Template: "nope"}); engine.ErrorCode(err) != engine.CodeInvalid {
		t.Fatalf("unknown template: %v", err)
	}
}

// mockSMTP starts go-smtp-mock on 127.0.0.1 (port 0: any free one).
func mockSMTP(t *testing.T, port int) *smtpmock.Server {
	t.Helper()
	srv := smtpmock.New(smtpmock.ConfigurationAttr{HostAddress: "127.0.0.1", PortNumber: port, MultipleMessageReceiving: true})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	return srv
}

func sender(port int) mail.Sender {
	return mail.NewSMTPSender(mail.SMTPConfig{Host: "127.0.0.1", Port: port, From: "Glimpse <no-reply@glimpse.example>",
		TLS: mail.TLSNone, Timeout: 3 * time.Second, HELO: "client.example.test"})
}

// delivered returns the messages the mock received with a body.
func delivered(srv *smtpmock.Server) []smtpmock.Message {
	var out []smtpmock.Message
	for _, m := range srv.Messages() {
		if m.Msg() && m.MsgRequest() != "" {
			out = append(out, m)
		}
	}
	return out
}

func TestDeliverOverSMTP(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	srv := mockSMTP(t, 0)
	msg := mail.Message{Key: "report:u1", To: "sub@example.com", Brand: "_x_", Template: mail.TemplateProfileReport,
		Data:        map[string]string{"email": "sub@example.com"},
		Attachments: []mail.Attachment{{Name: "profile.pdf", ContentType: "application/pdf", Data: []byte("%PDF-1.7 test")}}}
	if err := e.box.Enqueue(ctx, msg); err != nil {
		t.Fatal(err)
	}
	n, err := e.box.DeliverDue(ctx, sender(srv.PortNumber()))
	if err != nil || n != 1 {
		t.Fatalf("DeliverDue = %d, %v; want 1", n, err)
	}
	got := delivered(srv)
	if len(got) != 1 {
		t.Fatalf("mock received %d messages, want 1", len(got))
	}
	if rcpt := got[0].RcpttoRequestResponse(); len(rcpt) != 1 || !strings.Contains(rcpt[0][0], "sub@example.com") {
		t.Fatalf("RCPT TO = %v", rcpt)
	}
	data := got[0].MsgRequest()
	m, _ := e.box.Get(ctx, "report:u1")
	for _, want := range []string{"Subject: " + m.Subject, "Message-ID: <" + mail.MessageID("report:u1", "127.0.0.1") + ">",
		"The profile report for sub@example.com is attached", "profile.pdf", "application/pdf", "text/html"} {
		if !strings.Contains(data, want) {
			t.Errorf("message lacks %q:\n%s", want, data)
		}
	}
	if m.Status != mail.StatusSent || m.Attempts != 1 || !m.SentAt.Equal(t0) {
		t.Fatalf("stored mail = %s, attempts %d, sent %v", m.Status, m.Attempts, m.SentAt)
	}
	if n := pending(t, e); n != 0 {
		t.Fatalf("%d queued mails left, want 0", n)
	}
	// The mailbox's list leaves out the attachments' bytes and the HTML.
	list, err := e.box.List(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || len(list[0].Attachments) != 1 || list[0].Attachments[0].Name != "profile.pdf" ||
		list[0].Attachments[0].Data != nil || list[0].HTML != "" || list[0].Text == "" {
		t.Fatalf("list = %+v", list)
	}
	// Enqueueing a sent key again sends nothing.
	if err := e.box.Enqueue(ctx, msg); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.box.DeliverDue(ctx, sender(srv.PortNumber())); n != 0 {
		t.Fatalf("sent %d on a second pass, want 0", n)
	}
}

// freePort returns a port nothing listens on (for "SMTP is down").
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	return port
}

type counting struct {
	mu    sync.Mutex
	calls map[string]int
	next  mail.Sender
}

func (c *counting) Send(ctx context.Context, m mail.Mail) error {
	c.mu.Lock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[m.ID]++
	c.mu.Unlock()
	return c.next.Send(ctx, m)
}

func TestRetriesWithBackoffThenDelivers(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	port := freePort(t)
	s := &counting{next: sender(port)}
	for _, k := range []string{"a", "b", "c"} {
		if err := e.box.Enqueue(ctx, reset(k+"@example.com", "reset:"+k)); err != nil {
			t.Fatal(err)
		}
	}
	pass := func(wantSent, wantCalls int) {
		t.Helper()
		before := 0
		for _, n := range s.calls {
			before += n
		}
		n, err := e.box.DeliverDue(ctx, s)
		if err != nil || n != wantSent {
			t.Fatalf("at %v: DeliverDue = %d, %v; want %d", e.clock.Now().Sub(t0), n, err, wantSent)
		}
		after := 0
		for _, n := range s.calls {
			after += n
		}
		if after-before != wantCalls {
			t.Fatalf("at %v: %d attempts, want %d", e.clock.Now().Sub(t0), after-before, wantCalls)
		}
	}
	pass(0, 3) // SMTP is down: attempt 1 fails
	m, _ := e.box.Get(ctx, "reset:a")
	if m.Attempts != 1 || !m.NextAttemptAt.Equal(t0.Add(time.Minute)) || m.LastError == "" || m.Status != mail.StatusQueued {
		t.Fatalf("after one failure: %+v", m)
	}
	pass(0, 0) // not due yet
	e.clock.Advance(59 * time.Second)
	pass(0, 0)
	e.clock.Advance(time.Second)
	pass(0, 3) // attempt 2 at +1m
	e.clock.Advance(4 * time.Minute)
	pass(0, 0)
	e.clock.Advance(time.Minute)
	pass(0, 3) // attempt 3 at +5m
	srv := mockSMTP(t, port)
	e.clock.Advance(29 * time.Minute)
	pass(0, 0)
	e.clock.Advance(time.Minute)
	pass(3, 3) // attempt 4 at +30m: the server is up
	e.clock.Advance(24 * time.Hour)
	pass(0, 0)
	got := delivered(srv)
	if len(got) != 3 {
		t.Fatalf("mock received %d messages, want 3", len(got))
	}
	seen := map[string]bool{}
	for _, g := range got {
		seen[g.RcpttoRequestResponse()[0][0]] = true
	}
	if len(seen) != 3 {
		t.Fatalf("recipients %v, want three different", seen)
	}
	m, _ = e.box.Get(ctx, "reset:a")
	if m.Status != mail.StatusSent || m.Attempts != 4 || m.LastError != "" {
		t.Fatalf("after delivery: %+v", m)
	}
}

func TestFailsAfterTheLastAttempt(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if err := e.box.Enqueue(ctx, reset("a@example.com", "reset:a")); err != nil {
		t.Fatal(err)
	}
	calls := 0
	down := mail.SenderFunc(func(context.Context, mail.Mail) error { calls++; return errors.New("421 try later") })
	for range 10 {
		if _, err := e.box.DeliverDue(ctx, down); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(3 * time.Hour)
	}
	m, _ := e.box.Get(ctx, "reset:a")
	if want := len(mail.Backoff) + 1; calls != want || m.Status != mail.StatusFailed || m.Attempts != want || m.LastError != "421 try later" {
		t.Fatalf("calls %d, mail %s after %d attempts (%q)", calls, m.Status, m.Attempts, m.LastError)
	}
	if n := pending(t, e); n != 0 {
		t.Fatalf("%d queued mails left, want 0", n)
	}
}

func TestTwoWorkersDeliverEachMailOnce(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	srv := mockSMTP(t, 0)
	const mails = 20
	for i := range mails {
		k := string(rune('a'+i%26)) + string(rune('a'+i/26))
		if err := e.box.Enqueue(ctx, reset(k+"@example.com", "reset:"+k)); err != nil {
			t.Fatal(err)
		}
	}
	s := &counting{next: sender(srv.PortNumber())}
	workers := []*mail.Outbox{e.box, e.outbox()}
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for _, w := range workers {
		for range 2 { // each worker runs two passes at once too
			wg.Go(func() {
				n, err := w.DeliverDue(ctx, s)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				total += n
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	if total != mails {
		t.Fatalf("workers report %d sent, want %d", total, mails)
	}
	for id, n := range s.calls {
		if n != 1 {
			t.Errorf("%s attempted %d times", id, n)
		}
	}
	if got := delivered(srv); len(got) != mails {
		t.Fatalf("mock received %d messages, want %d", len(got), mails)
	}
}

// TestEveryAttemptsWorkerStoppedFailsTheMail: a mail whose every attempt's
// worker died before recording it is failed, not tried again for ever.
func TestEveryAttemptsWorkerStoppedFailsTheMail(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if err := e.box.Enqueue(ctx, reset("a@example.com", "reset:a")); err != nil {
		t.Fatal(err)
	}
	for range len(mail.Backoff) + 1 {
		if claimed, err := e.mails.ClaimDue(ctx, e.clock.Now(), 5*time.Minute, 10); len(claimed) != 1 || err != nil {
			t.Fatal(claimed, err)
		}
		e.clock.Advance(5 * time.Minute)
	}
	calls := 0
	ok := mail.SenderFunc(func(context.Context, mail.Mail) error { calls++; return nil })
	if n, err := e.box.DeliverDue(ctx, ok); n != 0 || err != nil || calls != 0 {
		t.Fatalf("DeliverDue = %d, %v with %d calls; want the mail failed unsent", n, err, calls)
	}
	m, _ := e.box.Get(ctx, "reset:a")
	if m.Status != mail.StatusFailed || m.LastError == "" || pending(t, e) != 0 {
		t.Fatalf("mail %s (%q), %d queued", m.Status, m.LastError, pending(t, e))
	}
}

func TestLapsedClaimIsTheNextAttempt(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if err := e.box.Enqueue(ctx, reset("a@example.com", "reset:a")); err != nil {
		t.Fatal(err)
	}
	// A worker claimed the first attempt and died.
	if claimed, err := e.mails.ClaimDue(ctx, t0, 5*time.Minute, 10); len(claimed) != 1 || err != nil {
		t.Fatal(claimed, err)
	}
	calls := 0
	ok := mail.SenderFunc(func(context.Context, mail.Mail) error { calls++; return nil })
	if n, err := e.box.DeliverDue(ctx, ok); n != 0 || err != nil || calls != 0 {
		t.Fatalf("while the claim holds: %d, %v, %d calls", n, err, calls)
	}
	e.clock.Advance(5 * time.Minute)
	if n, err := e.box.DeliverDue(ctx, ok); n != 1 || err != nil || calls != 1 {
		t.Fatalf("after the lease: %d, %v, %d calls", n, err, calls)
	}
	m, _ := e.box.Get(ctx, "reset:a")
	if m.Status != mail.StatusSent || m.Attempts != 2 {
		t.Fatalf("mail %s after %d attempts", m.Status, m.Attempts)
	}
}

// TestDemoNoticeInEveryMail: a public demo's outbox (the payment sandbox
// outside development) says in every mail's subject, text and HTML that it
// comes from a demo; another outbox's mails do not.
func TestDemoNoticeInEveryMail(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	demo := e.outbox().WithDemoNotice(true)
	for _, tmpl := range mail.Templates() {
		key := "demo:" + tmpl
		if err := demo.Enqueue(ctx, mail.Message{Key: key, To: "x@example.com", Brand: "_x_", Template: tmpl, Data: sampleData(tmpl)}); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		m, err := e.box.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(m.Subject, "[Demo] ") || !strings.Contains(m.Text, "comes from a demo of Profilio") ||
			!strings.Contains(m.HTML, "comes from a demo of Profilio") || leftover.MatchString(m.Subject+m.Text) {
			t.Errorf("%s does not say it is a demo: %q\n%s", key, m.Subject, m.Text)
		}
	}
	if err := e.box.Enqueue(ctx, reset("x@example.com", "not-demo")); err != nil {
		t.Fatal(err)
	}
	if m, err := e.box.Get(ctx, "not-demo"); err != nil || strings.Contains(m.Subject+m.Text, "demo") {
		t.Errorf("a mail of an outbox that is no demo: %q, %v", m.Subject, err)
	}
}
