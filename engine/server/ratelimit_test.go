package server

import (
	"strconv"
	"testing"

	"glimpse/engine"
)

func TestKeyedLimiterBoundsRateAndKeys(t *testing.T) {
	t.Parallel()
	k := newKeyedLimiter(engine.SystemClock{}, 0, 5, 100) // no refill: exactly the burst is allowed
	allowed := 0
	for range 50 {
		if k.allow("10.0.0.1") {
			allowed++
		}
	}
	if allowed != 5 {
		t.Errorf("allowed %d of 50 from one key, want the burst of 5", allowed)
	}
	if !k.allow("10.0.0.2") {
		t.Error("another key shares the first key's bucket")
	}
	for i := range 10000 {
		k.allow("key-" + strconv.Itoa(i))
		if n := k.size(); n > 100 {
			t.Fatalf("%d buckets held, over the bound of 100", n)
		}
	}
}
