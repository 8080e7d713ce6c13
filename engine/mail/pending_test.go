package mail_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"glimpse/engine/mail"
)

// TestPendingDepthAndOldest: the depth counts first attempts and retries,
// the oldest is the earliest queued (a retried mail's own queue time, not its
// next attempt's), and a sent queue is empty.
func TestPendingDepthAndOldest(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if n, oldest, err := e.box.Pending(ctx); err != nil || n != 0 || !oldest.IsZero() {
		t.Fatalf("empty outbox: %d, %v, %v", n, oldest, err)
	}
	if err := e.box.Enqueue(ctx, reset("a@example.com", "reset:a")); err != nil {
		t.Fatal(err)
	}
	// The first mail fails once and waits for its retry; a second is queued
	// later.
	failing := mail.SenderFunc(func(context.Context, mail.Mail) error { return errors.New("smtp away") })
	if _, err := e.box.DeliverDue(ctx, failing); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(30 * time.Second)
	if err := e.box.Enqueue(ctx, reset("b@example.com", "reset:b")); err != nil {
		t.Fatal(err)
	}
	n, oldest, err := e.box.Pending(ctx)
	if err != nil || n != 2 || !oldest.Equal(t0) {
		t.Fatalf("Pending = %d, %v, %v; want 2 waiting since %v", n, oldest, err, t0)
	}
	e.clock.Advance(time.Hour)
	if _, err := e.box.DeliverDue(ctx, mail.SenderFunc(func(context.Context, mail.Mail) error { return nil })); err != nil {
		t.Fatal(err)
	}
	if n, oldest, err := e.box.Pending(ctx); err != nil || n != 0 || !oldest.IsZero() {
		t.Fatalf("after delivery: %d, %v, %v", n, oldest, err)
	}
}
