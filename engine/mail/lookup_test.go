package mail_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"glimpse/engine/mail"
)

func sentKeys(t *testing.T, e *env, address string, limit int) []string {
	t.Helper()
	sent, err := e.box.SentTo(context.Background(), address, limit)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, len(sent))
	for i, m := range sent {
		keys[i] = m.ID
	}
	return keys
}

// The desk's list of mails to an address reads the mails found under the
// address, newest first: not the mails to anyone else, not an unlisted
// one, each mail once, at most limit.
func TestSentToListsTheNewestMailsToTheAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	for i := range 5 {
		e.clock.Advance(time.Minute)
		if err := e.box.Enqueue(ctx, reset(" Ann@Example.com", fmt.Sprintf("reset:%d", i))); err != nil {
			t.Fatal(err)
		}
		if err := e.box.Enqueue(ctx, reset("bob@example.com", fmt.Sprintf("bob:%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	// Queued again: still one mail, and listed once.
	if err := e.box.Enqueue(ctx, reset("ann@example.com", "reset:4")); err != nil {
		t.Fatal(err)
	}
	unlisted := reset("ann@example.com", "receipt:R")
	unlisted.Unlisted = true
	if err := e.box.EnqueueMany(ctx, []mail.Message{unlisted, reset("ann@example.com", "reset:5")}); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(sentKeys(t, e, "ann@example.com", 3)), "[reset:5 reset:4 reset:3]"; got != want {
		t.Fatalf("newest 3 mails to ann: %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(sentKeys(t, e, "ANN@example.com", 50)), "[reset:5 reset:4 reset:3 reset:2 reset:1 reset:0]"; got != want {
		t.Fatalf("every mail to ann: %s, want %s", got, want)
	}
	// The unlisted mail is read by its key.
	sent, err := e.box.Sent(ctx, []string{"receipt:R", "receipt:missing"})
	if err != nil || len(sent) != 1 || sent[0].ID != "receipt:R" || sent[0].Subject == "" {
		t.Fatalf("Sent = %+v, %v", sent, err)
	}
	if got := sentKeys(t, e, "nobody@example.com", 10); len(got) != 0 {
		t.Fatalf("mails to an address never written to: %v", got)
	}
}

// Senders to one address at once: every mail is found under it.
func TestConcurrentSendersAreAllListed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	const senders = 12
	var wg sync.WaitGroup
	errs := make(chan error, senders)
	for i := range senders {
		box := e.outbox()
		wg.Go(func() {
			errs <- box.Enqueue(ctx, reset("ann@example.com", fmt.Sprintf("reset:%d", i)))
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := sentKeys(t, e, "ann@example.com", 100); len(got) != senders {
		t.Fatalf("%d of %d mails listed: %v", len(got), senders, got)
	}
}

// Erasing the mails to an address deletes its listed mails and the unlisted
// ones the caller names (a renewal's receipt): no mail found under the
// address is left. The mail to keep, and a named mail to another address,
// stay.
func TestEraseToErasesTheAddresssMails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	for i := range 3 {
		if err := e.box.Enqueue(ctx, reset("ann@example.com", fmt.Sprintf("reset:%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []mail.Message{reset("ann@example.com", "receipt:1"), reset("bob@example.com", "receipt:2"), reset("ann@example.com", "farewell")} {
		m.Unlisted = true
		if err := e.box.Enqueue(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	n, err := e.box.EraseTo(ctx, []string{"Ann@example.com"}, []string{"receipt:1", "receipt:2"}, "farewell")
	if err != nil || n != 4 {
		t.Fatalf("erased %d (%v), want ann's three listed mails and her receipt", n, err)
	}
	var left []string
	for _, key := range []string{"reset:0", "reset:1", "reset:2", "receipt:1", "receipt:2", "farewell"} {
		if got, err := e.box.Sent(ctx, []string{key}); err != nil {
			t.Fatal(err)
		} else if len(got) == 1 {
			left = append(left, key)
		}
	}
	if fmt.Sprint(left) != "[receipt:2 farewell]" {
		t.Fatalf("mails left %v, want bob's receipt and the farewell", left)
	}
	if got := sentKeys(t, e, "ann@example.com", 10); len(got) != 0 {
		t.Fatalf("mails to ann left after the erasure: %v", got)
	}
	mails, err := e.box.To(ctx, []string{"ann@example.com"}, []string{"receipt:1", "farewell"})
	if err != nil || len(mails) != 1 || mails[0].ID != "farewell" {
		t.Fatalf("To after the erasure = %+v, %v; want only the farewell", mails, err)
	}
}
