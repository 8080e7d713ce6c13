package tracking_test

import (
	"context"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/store/storetest"
	"glimpse/engine/tracking"
)

// TestRecordStampsAndSweeps: Record stamps an event with its id, time,
// expiry and project; Sweep deletes it once its retention has passed; a
// person's events go with EraseUser and another's stay.
func TestRecordStampsAndSweeps(t *testing.T) {
	t.Parallel()
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	s := tracking.NewStore(sqlstore.NewEvents(storetest.OpenSQL(t)), clock, time.Hour)
	ctx := context.Background()
	if err := s.Record(ctx, tracking.Event{Name: "sww_modal", Brand: "default", UserID: "ann", Props: map[string]any{"source": "sww_modal"}}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(30 * time.Minute)
	if err := s.Record(ctx, tracking.Event{Name: "sww_modal", Brand: "default", UserID: "bob"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Recent(ctx, "sww_modal", 10)
	if err != nil || len(got) != 2 || got[0].Project != tracking.Project || got[1].Props["source"] != "sww_modal" ||
		got[0].ID == "" || !got[1].ExpiresAt.Equal(got[1].At.Add(time.Hour)) {
		t.Fatalf("recent %+v %v", got, err)
	}
	clock.Advance(45 * time.Minute)
	if n, err := s.Sweep(ctx); err != nil || n != 1 {
		t.Fatalf("swept %d (%v), want the event past its hour", n, err)
	}
	if err := s.EraseUser(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	if left, err := s.OfUser(ctx, "bob"); err != nil || len(left) != 0 {
		t.Fatalf("bob's events after erasure: %v, %v", left, err)
	}
}
