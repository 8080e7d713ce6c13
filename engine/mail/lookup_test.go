package mail_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine/mail"
	"glimpse/engine/store"
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

// The desk's list of mails to an address reads the address's list, newest
// first: not the mails to anyone else, not an unlisted one, each mail
// once, at most limit.
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

// A slot is taken before its mail is written, so a slot can name a mail
// that is missing (its enqueue stopped) or, written by hand, another
// address's: both are skipped.
func TestSentToSkipsSlotsWithoutTheirMail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	lists := store.NewLists(e.db, mail.RecipientsCollection)
	if err := lists.Add(ctx, "ann@example.com", "never-written"); err != nil {
		t.Fatal(err)
	}
	if err := e.box.Enqueue(ctx, reset("bob@example.com", "bob:0")); err != nil {
		t.Fatal(err)
	}
	if err := lists.Add(ctx, "ann@example.com", "bob:0"); err != nil {
		t.Fatal(err)
	}
	if err := e.box.Enqueue(ctx, reset("ann@example.com", "ann:0")); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(sentKeys(t, e, "ann@example.com", 10)); got != "[ann:0]" {
		t.Fatalf("mails to ann: %s, want [ann:0]", got)
	}
}

// Senders to one address at once each take a slot of its list: every mail
// is listed (a slot overwritten, or two writers on one slot, would lose
// one).
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

// Mails stored before the lists existed are listed once, at start: oldest
// first, but the account-deleted mail, which no list may keep.
func TestListExistingListsEarlierMailOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	old := []any{
		mail.Mail{ID: "old:1", To: "ann@example.com", Template: mail.TemplatePurchase, Subject: "s", Status: mail.StatusSent, CreatedAt: t0.Add(-time.Hour)},
		mail.Mail{ID: "old:0", To: "ann@example.com", Template: mail.TemplateReceipt, Subject: "s", Status: mail.StatusSent, CreatedAt: t0.Add(-2 * time.Hour)},
		mail.Mail{ID: "old:bye", To: "ann@example.com", Template: mail.TemplateAccountErased, Subject: "s", Status: mail.StatusQueued, CreatedAt: t0},
	}
	if _, err := e.db.Collection(mail.MailCollection).InsertMany(ctx, old); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := mail.ListExisting(ctx, e.db, "settings"); err != nil {
			t.Fatal(err)
		}
	}
	if got := fmt.Sprint(sentKeys(t, e, "ann@example.com", 10)); got != "[old:1 old:0]" {
		t.Fatalf("listed: %s, want [old:1 old:0]", got)
	}
	slots, err := store.NewLists(e.db, mail.RecipientsCollection).Slots(ctx, "ann@example.com")
	if err != nil || fmt.Sprint(slots) != "[old:0 old:1]" {
		t.Fatalf("slots %v (%v), want each once, oldest first", slots, err)
	}
}

// Erasing the mails to an address deletes its listed mails, the unlisted
// ones the caller names (a renewal's receipt) and its list: no slot keeps
// the address. The mail to keep, and a named mail to another address, stay.
func TestEraseToErasesTheAddresssList(t *testing.T) {
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
	slots, err := e.db.Collection(mail.RecipientsCollection).CountDocuments(ctx, bson.M{"_id": bson.M{"$regex": "^ann"}})
	if err != nil || slots != 0 {
		t.Fatalf("%d list slots left after the erasure (%v)", slots, err)
	}
}
