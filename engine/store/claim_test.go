package store_test

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"

	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

// TestClaimOneWinner runs 30 concurrent claimers on one id, 20 rounds, and
// fails on a second winner. It runs against the embedded FerretDB, and
// against MongoDB when GLIMPSE_TEST_MONGODB_URI is set (storetest.Open).
func TestClaimOneWinner(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	claims := store.NewClaims(s.DB())
	expires := time.Now().Add(time.Hour)
	for round := range 20 {
		id := fmt.Sprintf("job:%d", round)
		var winners atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, 30)
		for w := range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ok, err := claims.Take(ctx, id, fmt.Sprintf("w%d", w), expires)
				if err != nil {
					errs <- err
					return
				}
				if ok {
					winners.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: Take: %v", round, err)
		}
		if n := winners.Load(); n != 1 {
			t.Fatalf("round %d: %d claimers won, want exactly 1", round, n)
		}
		owner, err := claims.Owner(ctx, id)
		if err != nil || owner == "" {
			t.Fatalf("round %d: Owner = %q, %v; want the winner", round, owner, err)
		}
	}
}

// TestTakeSlotBounded takes a 10-slot counter with 60 concurrent callers:
// exactly 10 may count, however the inserts interleave.
func TestTakeSlotBounded(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	claims := store.NewClaims(s.DB())
	expires := time.Now().Add(time.Hour)
	for round := range 5 {
		key := fmt.Sprintf("limit:%d", round)
		var taken atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 60 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ok, err := claims.TakeSlot(ctx, key, 10, expires)
				if err != nil {
					t.Errorf("TakeSlot: %v", err)
					return
				}
				if ok {
					taken.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		if n := taken.Load(); n != 10 {
			t.Fatalf("round %d: %d slots taken, want 10", round, n)
		}
		if n, err := claims.Count(ctx, key, 10); err != nil || n != 10 {
			t.Fatalf("round %d: Count = %d, %v; want 10", round, n, err)
		}
	}
}

func TestClaimReleaseAndSweep(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	claims := store.NewClaims(s.DB())
	now := time.Now()
	if ok, err := claims.Take(ctx, "a", "me", now.Add(-time.Minute)); !ok || err != nil {
		t.Fatalf("Take a = %v, %v", ok, err)
	}
	if ok, err := claims.Take(ctx, "b", "me", now.Add(time.Hour)); !ok || err != nil {
		t.Fatalf("Take b = %v, %v", ok, err)
	}
	if ok, _ := claims.Take(ctx, "b", "you", now.Add(time.Hour)); ok {
		t.Fatal("a held claim was taken twice")
	}
	if err := claims.Release(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if ok, err := claims.Take(ctx, "b", "you", now.Add(time.Hour)); !ok || err != nil {
		t.Fatalf("Take after Release = %v, %v", ok, err)
	}
	n, err := claims.Sweep(ctx, now)
	if err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1 (the expired claim)", n, err)
	}
	if owner, _ := claims.Owner(ctx, "a"); owner != "" {
		t.Errorf("swept claim still held by %q", owner)
	}
	for range 3 {
		if ok, err := claims.TakeSlot(ctx, "k", 3, now.Add(time.Hour)); !ok || err != nil {
			t.Fatalf("TakeSlot = %v, %v", ok, err)
		}
	}
	if ok, _ := claims.TakeSlot(ctx, "k", 3, now.Add(time.Hour)); ok {
		t.Fatal("a full counter gave a fourth slot")
	}
	if err := claims.ReleaseSlot(ctx, "k", 3); err != nil {
		t.Fatal(err)
	}
	if n, _ := claims.Count(ctx, "k", 3); n != 2 {
		t.Fatalf("Count after ReleaseSlot = %d, want 2", n)
	}
	if err := claims.Reset(ctx, "k", 3); err != nil {
		t.Fatal(err)
	}
	if n, _ := claims.Count(ctx, "k", 3); n != 0 {
		t.Fatalf("Count after Reset = %d, want 0", n)
	}
}

// TestClaimsLookUpOnlyByID watches every command Claims sends: each filter
// must be one `_id` equality, the only lookup the embedded FerretDB answers
// from an index. A filter such as {_id: {$in: …}} scans the collection,
// which with the claims a sign-in flood leaves behind made every sign-in
// take seconds.
func TestClaimsLookUpOnlyByID(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var filters []string
	monitor := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if e.DatabaseName != "app" {
			return
		}
		for _, name := range []string{"filter", "query", "pipeline"} {
			if v, err := e.Command.LookupErr(name); err == nil {
				mu.Lock()
				filters = append(filters, e.CommandName+" "+v.String())
				mu.Unlock()
			}
		}
		if deletes, err := e.Command.LookupErr("deletes"); err == nil {
			mu.Lock()
			filters = append(filters, e.CommandName+" "+deletes.String())
			mu.Unlock()
		}
	}}
	s, err := store.Open(ctx, store.Config{DataDir: t.TempDir(), Database: "app", Monitor: monitor}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	claims := store.NewClaims(s.DB())
	expires := time.Now().Add(time.Hour)
	for range 7 {
		if _, err := claims.TakeSlot(ctx, "k", 10, expires); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := claims.Count(ctx, "k", 10); err != nil || n != 7 {
		t.Fatalf("Count = %d, %v; want 7", n, err)
	}
	if err := claims.ReleaseSlot(ctx, "k", 10); err != nil {
		t.Fatal(err)
	}
	if err := claims.Reset(ctx, "k", 10); err != nil {
		t.Fatal(err)
	}
	if n, _ := claims.Count(ctx, "k", 10); n != 0 {
		t.Fatalf("Count after Reset = %d", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(filters) < 10 {
		t.Fatalf("saw %d filtered commands: %q", len(filters), filters)
	}
	// find {"_id": "k#3"}; delete [{"q": {"_id": "k#6"}, "limit": …}].
	idOnly := regexp.MustCompile(`^\w+ (\[\{"q": )?\{"_id": "[^"{}$]+"\}`)
	for _, f := range filters {
		if !idOnly.MatchString(f) {
			t.Errorf("a claims command filters by more than one _id: %s", f)
		}
	}
}
