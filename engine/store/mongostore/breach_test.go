package mongostore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"glimpse/engine/breach"
	"glimpse/engine/breach/breachtest"
)

func TestBreachRecordsContract(t *testing.T) {
	breachtest.Run(t, func(t *testing.T) breach.Records { return NewBreachRecords(openDB(t)) },
		breachtest.Options{Atomic: os.Getenv("GLIMPSE_TEST_MONGODB_URI") != ""})
}

// A sync writes the breaches, then deletes the other source's entries (SQLite
// does both in one transaction). Stopped between the two and run again, it
// leaves exactly what one run leaves.
func TestACatalogueSyncStoppedBetweenItsStepsIsCompletedByARetry(t *testing.T) {
	ctx := context.Background()
	crash := errors.New("stopped between the writes")
	sample := []breach.Breach{{Name: "A", Title: "A"}, {Name: "B", Title: "B"}}
	hibp := []breach.Breach{{Name: "B", Title: "B (HIBP)"}, {Name: "C", Title: "C"}}
	state := func(s *BreachRecords) string {
		got, err := s.Catalogued(ctx, []string{"A", "B", "C"})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(got)
	}
	once := NewBreachRecords(openDB(t))
	must(t, once.SyncCatalogue(ctx, sample, true))
	must(t, once.SyncCatalogue(ctx, hibp, false))

	s := NewBreachRecords(openDB(t))
	must(t, s.SyncCatalogue(ctx, sample, true))
	s.betweenWrites = func() error { return crash }
	if err := s.SyncCatalogue(ctx, hibp, false); !errors.Is(err, crash) {
		t.Fatalf("the stopped sync returned %v", err)
	}
	s.betweenWrites = func() error { return nil }
	must(t, s.SyncCatalogue(ctx, hibp, false))
	if got, want := state(s), state(once); got != want {
		t.Errorf("after a stopped sync and its retry: %s; after one run: %s", got, want)
	}
}
