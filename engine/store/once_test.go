package store_test

import (
	"context"
	"errors"
	"testing"

	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

// TestOncePerDatabaseRunsUntilItSucceeds: work that fails leaves no mark
// and runs again at the next call; once it succeeds it never runs again,
// nor after MarkDone of another marker's writer.
func TestOncePerDatabaseRunsUntilItSucceeds(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t).DB()
	runs := 0
	fail := errors.New("stopped part-way")
	work := func(context.Context) error {
		runs++
		if runs == 1 {
			return fail
		}
		return nil
	}
	if err := store.OncePerDatabase(ctx, db, "settings", "listed", work); !errors.Is(err, fail) {
		t.Fatalf("first call: %v, want the work's error", err)
	}
	for range 2 {
		if err := store.OncePerDatabase(ctx, db, "settings", "listed", work); err != nil {
			t.Fatal(err)
		}
	}
	if runs != 2 {
		t.Fatalf("work ran %d times, want 2 (failed, then done)", runs)
	}
	if err := store.MarkDone(ctx, db, "settings", "seeded"); err != nil {
		t.Fatal(err)
	}
	if err := store.OncePerDatabase(ctx, db, "settings", "seeded", func(context.Context) error {
		t.Error("work ran after its marker was written")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
