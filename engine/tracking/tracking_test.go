package tracking

import (
	"context"
	"os"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

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

// TestEraseUserDeletesTheirEventsByList: a person's events, those recorded
// before the lists existed included (listed once at start), go with
// EraseUser; anonymous events and another person's stay; and a day's list
// is swept once its events are past their retention.
func TestEraseUserDeletesTheirEventsByList(t *testing.T) {
	t.Parallel()
	st := storetest.Open(t)
	db := st.DB()
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC))
	s := NewStore(db, clock, 24*time.Hour)
	ctx := context.Background()
	old := Event{ID: "before-lists", Name: "plan_viewed", UserID: "ann", At: clock.Now().Add(-time.Hour), ExpiresAt: clock.Now().Add(23 * time.Hour)}
	if _, err := db.Collection(Collection).InsertOne(ctx, old); err != nil {
		t.Fatal(err)
	}
	if err := ListExisting(ctx, db, "test_settings", 24*time.Hour, clock.Now()); err != nil {
		t.Fatal(err)
	}
	for _, e := range []Event{{Name: "a", UserID: "ann"}, {Name: "b", UserID: "bob"}, {Name: "c"}} {
		if err := s.Record(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(20 * time.Hour) // the next day
	if err := s.Record(ctx, Event{Name: "d", UserID: "ann"}); err != nil {
		t.Fatal(err)
	}
	count := func(filter bson.M) int64 {
		t.Helper()
		n, err := db.Collection(Collection).CountDocuments(ctx, filter)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := s.EraseUser(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	if n := count(bson.M{"userId": "ann"}); n != 0 {
		t.Fatalf("%d of ann's events left", n)
	}
	if n := count(bson.M{}); n != 2 {
		t.Fatalf("%d events left, want bob's and the anonymous one", n)
	}
	if n, err := db.Collection(ByUserCollection).CountDocuments(ctx, bson.M{}); err != nil || n != 1 {
		t.Fatalf("%d list slots left (%v), want bob's", n, err)
	}
	clock.Advance(30 * time.Hour)
	if _, err := s.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := db.Collection(ByUserCollection).CountDocuments(ctx, bson.M{}); err != nil || n != 0 {
		t.Fatalf("%d list slots left after the retention (%v)", n, err)
	}
}
