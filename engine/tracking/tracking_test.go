package tracking

import (
	"context"
	"os"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

func TestRecordAndSweep(t *testing.T) {
	t.Parallel()
	st := storetest.Open(t)
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	s := NewStore(st.DB(), clock, time.Hour)
	ctx := context.Background()
	if err := s.Record(ctx, Event{Name: "sww_modal", Brand: "default", Props: map[string]any{"source": "sww_modal"}}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(30 * time.Minute)
	if err := s.Record(ctx, Event{Name: "sww_modal", Brand: "default"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Recent(ctx, "sww_modal", 10)
	if err != nil || len(got) != 2 || got[0].Project != Project || got[1].Props["source"] != "sww_modal" {
		t.Fatalf("recent %+v %v", got, err)
	}
	clock.Advance(45 * time.Minute)
	n, err := s.Sweep(ctx)
	if err != nil || n != 1 {
		t.Fatalf("swept %d (%v), want the event past its hour", n, err)
	}
}
