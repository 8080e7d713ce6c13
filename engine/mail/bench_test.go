package mail_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"glimpse/engine/mail"
)

// BenchmarkClaimDue times the delivery's claim of the due mails among many
// stored ones (the status and next-attempt index, docs/mail.md): it should
// not grow with the mail ever sent.
func BenchmarkClaimDue(b *testing.B) {
	e := newEnvTB(b)
	ctx := context.Background()
	const stored, pendingN = 5000, 10
	old := make([]mail.Mail, 0, stored)
	for i := range stored {
		old = append(old, mail.Mail{ID: "old:" + strconv.Itoa(i), To: "x@example.com", Status: mail.StatusSent, CreatedAt: t0,
			SentAt: t0, Text: "a body of a few hundred bytes, as a rendered mail has", HTML: string(make([]byte, 2000))})
	}
	if _, err := e.mails.Insert(ctx, old); err != nil {
		b.Fatal(err)
	}
	for i := range pendingN {
		if err := e.box.Enqueue(ctx, reset("a@example.com", "new:"+strconv.Itoa(i))); err != nil {
			b.Fatal(err)
		}
	}
	now := t0
	for b.Loop() {
		// Each round's lease has ended by the next.
		now = now.Add(time.Hour)
		got, err := e.mails.ClaimDue(ctx, now, time.Minute, pendingN)
		if err != nil || len(got) != pendingN {
			b.Fatal(len(got), err)
		}
	}
}
