package billing

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestForUserFindsTheAccountsSubscriptions: an account's subscriptions
// are those finalized to it, oldest first; another account's are not.
func TestForUserFindsTheAccountsSubscriptions(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for i, id := range []string{"s1", "s2"} {
		if err := f.svc.Put(ctx, Subscription{ID: id, UserID: "u1", Email: "ann@example.com", Status: StatusActive,
			StartedAt: start.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.svc.Put(ctx, Subscription{ID: "someone-elses", UserID: "u2", Email: "bob@example.com"}); err != nil {
		t.Fatal(err)
	}
	subs, err := f.svc.ForUser(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 2 || subs[0].ID != "s1" || subs[1].ID != "s2" {
		t.Fatalf("ForUser = %+v, want s1 and s2", subs)
	}
}

// TestConcurrentFilingsTakeTheirOwnSlots: purchases by one account at once
// each file their subscription (unique slot inserts), none lost.
func TestConcurrentFilingsTakeTheirOwnSlots(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			errs <- f.svc.Put(ctx, Subscription{ID: "c" + strconv.Itoa(i), UserID: "u1", Email: "ann@example.com"})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	subs, err := f.svc.ForUser(ctx, "u1")
	if err != nil || len(subs) != n {
		t.Fatalf("%d subscriptions found, want %d (%v)", len(subs), n, err)
	}
}
