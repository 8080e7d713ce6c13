package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

// TestTakeManyOneWinnerEach: four callers take overlapping batches of ids
// at once (each batch holds every id, in its own order, plus ids only it
// asks for); every id is won by exactly one caller, and an id taken before
// is won by none.
func TestTakeManyOneWinnerEach(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	claims := store.NewClaims(s.DB())
	expires := time.Now().Add(time.Hour)
	if ok, err := claims.Take(ctx, "batch:7", "earlier", expires); err != nil || !ok {
		t.Fatalf("Take: %v, %v", ok, err)
	}
	const shared, callers = 300, 4
	batches := make([][]string, callers)
	for c := range callers {
		for i := range shared {
			// Rotated, so the callers insert the shared ids in different orders.
			batches[c] = append(batches[c], fmt.Sprintf("batch:%d", (i+c*shared/callers)%shared))
		}
		batches[c] = append(batches[c], fmt.Sprintf("own:%d", c))
	}
	wins := make([][]bool, callers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for c := range callers {
		wg.Go(func() {
			<-start
			won, err := claims.TakeMany(ctx, batches[c], fmt.Sprintf("c%d", c), expires)
			if err != nil {
				t.Errorf("caller %d: %v", c, err)
			}
			wins[c] = won
		})
	}
	close(start)
	wg.Wait()
	winners := map[string]int{}
	for c, won := range wins {
		if len(won) != len(batches[c]) {
			t.Fatalf("caller %d: %d answers for %d ids", c, len(won), len(batches[c]))
		}
		for i, ok := range won {
			if ok {
				winners[batches[c][i]]++
			}
		}
	}
	for i := range shared {
		id := fmt.Sprintf("batch:%d", i)
		want := 1
		if i == 7 {
			want = 0 // taken before the batches
		}
		if winners[id] != want {
			t.Errorf("%s won %d times, want %d", id, winners[id], want)
		}
	}
	for c := range callers {
		if id := fmt.Sprintf("own:%d", c); winners[id] != 1 {
			t.Errorf("%s won %d times, want once", id, winners[id])
		}
	}
	if won, err := claims.TakeMany(ctx, nil, "none", expires); err != nil || len(won) != 0 {
		t.Fatalf("empty batch: %v, %v", won, err)
	}
}
