package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

// TestDatedListsListEraseAndExpire: a key's documents of several days are
// read back, writers at once each keep their slot, another key's are its
// own, Erase leaves the key no slot, and Sweep erases a day's list once
// everything it can name has expired, not before.
func TestDatedListsListEraseAndExpire(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	const lifetime = 48 * time.Hour
	lists := store.NewDatedLists(s.DB(), "test_dated", "test_dated_expiry", lifetime)
	day1 := time.Date(2026, 3, 1, 22, 0, 0, 0, time.UTC)
	day2 := day1.Add(4 * time.Hour) // the next UTC day

	const writers = 8
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range writers {
		wg.Go(func() {
			<-start
			if err := lists.Add(ctx, "ann", fmt.Sprintf("a%d", i), day1); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if err := lists.Add(ctx, "ann", "b0", day2); err != nil {
		t.Fatal(err)
	}
	if err := lists.Add(ctx, "bob", "z0", day2); err != nil {
		t.Fatal(err)
	}
	refs, err := lists.Refs(ctx, "ann", day2)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "b0"}
	slices.Sort(refs)
	if !slices.Equal(refs, want) {
		t.Fatalf("ann's refs %v, want %v", refs, want)
	}

	// The first day's list can name documents living until day1 + 24h +
	// lifetime; a sweep before keeps it.
	if n, err := lists.Sweep(ctx, day1.Add(24*time.Hour+lifetime-time.Minute)); err != nil || n != 0 {
		t.Fatalf("early sweep erased %d (%v), want 0", n, err)
	}
	if n, err := lists.Sweep(ctx, day1.Add(24*time.Hour+lifetime+2*time.Minute)); err != nil || n != 1 {
		t.Fatalf("sweep erased %d (%v), want day one's list", n, err)
	}
	if n, err := s.DB().Collection("test_dated").CountDocuments(ctx, map[string]any{}); err != nil || n != 2 {
		t.Fatalf("%d slots left (%v), want ann's and bob's of day two", n, err)
	}

	if err := lists.Erase(ctx, "ann", day2.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if refs, err := lists.Refs(ctx, "ann", day2); err != nil || len(refs) != 0 {
		t.Fatalf("after Erase: %v, %v", refs, err)
	}
	if refs, err := lists.Refs(ctx, "bob", day2); err != nil || !slices.Equal(refs, []string{"z0"}) {
		t.Fatalf("bob's refs %v (%v)", refs, err)
	}
}

// TestDatedListsSeed: documents listed in bulk are read like those added
// one by one, after a slot that was there already, and their lists expire.
func TestDatedListsSeed(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	lists := store.NewDatedLists(s.DB(), "test_dated_seed", "test_dated_seed_expiry", time.Hour)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	if err := lists.Add(ctx, "ann", "live", at); err != nil {
		t.Fatal(err)
	}
	if err := lists.Seed(ctx, at, []store.DatedRef{{Key: "ann", Ref: "old1", At: at}, {Key: "ann", Ref: "old2", At: at.Add(time.Minute)},
		{Key: "bob", Ref: "old3", At: at}}); err != nil {
		t.Fatal(err)
	}
	refs, err := lists.Refs(ctx, "ann", at.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(refs)
	if !slices.Equal(refs, []string{"live", "old1", "old2"}) {
		t.Fatalf("ann's refs %v", refs)
	}
	if n, err := lists.Sweep(ctx, at.Add(26*time.Hour)); err != nil || n < 2 {
		t.Fatalf("sweep erased %d (%v), want ann's and bob's lists", n, err)
	}
	if n, err := s.DB().Collection("test_dated_seed").CountDocuments(ctx, map[string]any{}); err != nil || n != 0 {
		t.Fatalf("%d slots left (%v)", n, err)
	}
}

// TestDatedListsTwoInstancesAppendToOneList: two instances (each with its
// bound of the lists it wrote) appending to one list in turn, and after an
// erasure, keep every reference listed with no gap.
func TestDatedListsTwoInstancesAppendToOneList(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	one := store.NewDatedLists(s.DB(), "test_dated_two", "test_dated_two_expiry", time.Hour)
	two := store.NewDatedLists(s.DB(), "test_dated_two", "test_dated_two_expiry", time.Hour)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var want []string
	for i := range 20 {
		lists := one
		if i%3 == 0 {
			lists = two
		}
		ref := fmt.Sprintf("e%02d", i)
		if err := lists.Add(ctx, "ann", ref, at); err != nil {
			t.Fatal(err)
		}
		want = append(want, ref)
	}
	refs, err := one.Refs(ctx, "ann", at)
	if err != nil || !slices.Equal(refs, want) {
		t.Fatalf("refs %v (%v), want %v", refs, err, want)
	}
	if err := one.Erase(ctx, "ann", at); err != nil {
		t.Fatal(err)
	}
	if err := one.Add(ctx, "ann", "after", at); err != nil {
		t.Fatal(err)
	}
	if refs, err := two.Refs(ctx, "ann", at); err != nil || !slices.Equal(refs, []string{"after"}) {
		t.Fatalf("after the erasure: %v (%v)", refs, err)
	}
}
