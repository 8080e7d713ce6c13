package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

// TestListsConcurrentAddsKeepEveryRef: twelve writers adding to one owner's
// list at once each get a slot of their own (the slots are unique inserts),
// a reference added twice is listed once, another owner's list is its own,
// and Erase leaves the owner no slot.
func TestListsConcurrentAddsKeepEveryRef(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	lists := store.NewLists(s.DB(), "test_lists")
	const writers = 12
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range writers {
		wg.Go(func() {
			<-start
			if err := lists.Add(ctx, "ann", fmt.Sprintf("attempt-%02d", i)); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	if err := lists.Add(ctx, "ann", "attempt-03"); err != nil {
		t.Fatal(err)
	}
	if err := lists.Add(ctx, "bob", "attempt-99"); err != nil {
		t.Fatal(err)
	}
	refs, err := lists.Refs(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(refs)
	want := make([]string, writers)
	for i := range want {
		want[i] = fmt.Sprintf("attempt-%02d", i)
	}
	if !slices.Equal(refs, want) {
		t.Fatalf("ann's list %v, want %v", refs, want)
	}
	if err := lists.Erase(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	if refs, err := lists.Refs(ctx, "ann"); err != nil || len(refs) != 0 {
		t.Fatalf("after Erase: %v, %v", refs, err)
	}
	if n, err := s.DB().Collection("test_lists").CountDocuments(ctx, map[string]any{}); err != nil || n != 1 {
		t.Fatalf("%d slots left (%v), want bob's one", n, err)
	}
	if refs, err := lists.Refs(ctx, "bob"); err != nil || !slices.Equal(refs, []string{"attempt-99"}) {
		t.Fatalf("bob's list %v, %v", refs, err)
	}
}
