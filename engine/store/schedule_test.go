package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

var scheduleT0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

func dueRefs(t *testing.T, s *store.Schedule, now time.Time) []string {
	t.Helper()
	due, err := s.Due(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	refs := store.ScheduleRefs(due)
	slices.Sort(refs)
	return refs
}

// TestScheduleDueSettleAndRefile: Due returns what is due at now from every
// bucket since the cursor, and nothing due later; an entry filed with a
// time already past is read at once; Settle deletes the buckets past the
// grace, keeps now's, and files again what the pass did not finish.
func TestScheduleDueSettleAndRefile(t *testing.T) {
	st := storetest.Open(t)
	ctx := context.Background()
	s := store.NewSchedule(st.DB(), "test_schedule", time.Minute)
	if err := s.Start(ctx, scheduleT0); err != nil {
		t.Fatal(err)
	}
	at := func(d time.Duration) time.Time { return scheduleT0.Add(d) }
	if err := s.File(ctx, scheduleT0,
		store.ScheduleEntry{Ref: "a", At: at(30 * time.Second)},
		store.ScheduleEntry{Ref: "b", At: at(5 * time.Minute)},
		store.ScheduleEntry{Ref: "c", At: at(5*time.Minute + 10*time.Second)},
		store.ScheduleEntry{Ref: "d", At: at(2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if got := dueRefs(t, s, at(time.Minute)); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("due at +1m: %v, want [a]", got)
	}
	// Filed at +3m with a time an hour before: under +3m's bucket.
	if err := s.File(ctx, at(3*time.Minute), store.ScheduleEntry{Ref: "late", At: at(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	// +5m05s: c (due +5m10s) shares b's bucket but is not due yet.
	if got := dueRefs(t, s, at(5*time.Minute+5*time.Second)); !slices.Equal(got, []string{"a", "b", "late"}) {
		t.Fatalf("due at +5m05s: %v, want [a b late]", got)
	}
	// The pass at +20m finished all but b: the buckets up to +10m go, b is
	// filed again under +20m, c's bucket (+5m) is past the grace and goes
	// with it, so c must have been finished too.
	now := at(20 * time.Minute)
	if got := dueRefs(t, s, now); !slices.Equal(got, []string{"a", "b", "c", "late"}) {
		t.Fatalf("due at +20m: %v", got)
	}
	if err := s.Settle(ctx, now, []store.ScheduleEntry{{Ref: "b", At: at(5 * time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	if got := dueRefs(t, s, now); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("due at +20m after settling: %v, want [b]", got)
	}
	if got := dueRefs(t, s, at(3*time.Hour)); !slices.Equal(got, []string{"b", "d"}) {
		t.Fatalf("due at +3h: %v, want [b d]", got)
	}
	// Left: the cursor, b's new slot (+20m) and d's (+2h), the day's marker
	// and the markers of their hours (12:00 is not over, so it stays).
	cur, err := st.DB().Collection("test_schedule").Find(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	slices.Sort(ids)
	unix := func(d time.Duration) string { return fmt.Sprint(scheduleT0.Add(d).Unix()) }
	day := fmt.Sprint(scheduleT0.Add(-12 * time.Hour).Unix())
	want := []string{unix(20*time.Minute) + "#0", unix(2*time.Hour) + "#0", "cursor",
		"span3600:" + unix(0), "span3600:" + unix(2*time.Hour), "span86400:" + day}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Fatalf("left %v\nwant %v", ids, want)
	}
}

// TestScheduleWalksOnlyMarkedSpans: a pass a year after the cursor reads
// the entry filed in that year, and what it walks is the days' markers, not
// every minute (the test times out long before half a million reads).
func TestScheduleWalksOnlyMarkedSpans(t *testing.T) {
	st := storetest.Open(t)
	ctx := context.Background()
	s := store.NewSchedule(st.DB(), "test_schedule", time.Minute)
	later := scheduleT0.AddDate(1, 0, 0)
	if err := s.File(ctx, scheduleT0, store.ScheduleEntry{Ref: "soon", At: scheduleT0.Add(time.Minute)},
		store.ScheduleEntry{Ref: "in a year", At: later.Add(-3 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if got := dueRefs(t, s, later); !slices.Equal(got, []string{"in a year", "soon"}) {
		t.Fatalf("due a year on: %v", got)
	}
	if err := s.Settle(ctx, later, nil); err != nil {
		t.Fatal(err)
	}
	if got := dueRefs(t, s, later.Add(time.Hour)); len(got) != 0 {
		t.Fatalf("due after settling: %v", got)
	}
	t.Logf("a year's walk, settle and walk again: %v", time.Since(start))
}

// TestScheduleConcurrentFilersKeepEveryEntry: writers from two instances
// filing into the same bucket at once each take a slot of their own (each
// slot is a unique insert), so no entry is lost: a writer that overwrote
// a slot (an upsert in place of the insert) would fail it.
func TestScheduleConcurrentFilersKeepEveryEntry(t *testing.T) {
	st := storetest.Open(t)
	ctx := context.Background()
	instances := []*store.Schedule{
		store.NewSchedule(st.DB(), "test_schedule", time.Minute),
		store.NewSchedule(st.DB(), "test_schedule", time.Minute),
	}
	const writers = 16
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range writers {
		wg.Go(func() {
			<-start
			e := store.ScheduleEntry{Ref: fmt.Sprintf("sub-%02d", i), At: scheduleT0.Add(time.Duration(i) * time.Second)}
			if err := instances[i%2].File(ctx, scheduleT0, e); err != nil {
				t.Error(err)
			}
		})
	}
	close(start)
	wg.Wait()
	// A batch from a third instance that knows none of the slots.
	batch := store.NewSchedule(st.DB(), "test_schedule", time.Minute)
	if err := batch.File(ctx, scheduleT0, store.ScheduleEntry{Ref: "batch-1", At: scheduleT0},
		store.ScheduleEntry{Ref: "batch-2", At: scheduleT0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	got := dueRefs(t, batch, scheduleT0.Add(2*time.Hour))
	want := []string{"batch-1", "batch-2"}
	for i := range writers {
		want = append(want, fmt.Sprintf("sub-%02d", i))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("due %v\nwant %v", got, want)
	}
}

// TestScheduleFindsTheFreeSlotOfAFullBucket: an instance that knows nothing
// of a bucket of 37 slots files into slot 37, not over one of them.
func TestScheduleFindsTheFreeSlotOfAFullBucket(t *testing.T) {
	st := storetest.Open(t)
	ctx := context.Background()
	first := store.NewSchedule(st.DB(), "test_schedule", time.Hour)
	for i := range 37 {
		if err := first.File(ctx, scheduleT0, store.ScheduleEntry{Ref: fmt.Sprint("r", i), At: scheduleT0}); err != nil {
			t.Fatal(err)
		}
	}
	fresh := store.NewSchedule(st.DB(), "test_schedule", time.Hour)
	if err := fresh.File(ctx, scheduleT0, store.ScheduleEntry{Ref: "new", At: scheduleT0}); err != nil {
		t.Fatal(err)
	}
	var slot struct {
		Entries []store.ScheduleEntry `bson:"e"`
	}
	id := fmt.Sprint(scheduleT0.Unix(), "#37")
	if err := st.DB().Collection("test_schedule").FindOne(ctx, bson.M{"_id": id}).Decode(&slot); err != nil {
		t.Fatalf("slot %s: %v", id, err)
	}
	if len(slot.Entries) != 1 || slot.Entries[0].Ref != "new" {
		t.Fatalf("slot %s holds %v", id, slot.Entries)
	}
	if got := dueRefs(t, fresh, scheduleT0); len(got) != 38 {
		t.Fatalf("%d due, want 38", len(got))
	}
}

// TestSeedScheduleFilesBesideWhatIsThere: a bulk filing into a schedule an
// instance has filed in already keeps both: a slot it finds taken is filed
// the way File files, and an entry due before now goes under now.
func TestSeedScheduleFilesBesideWhatIsThere(t *testing.T) {
	st := storetest.Open(t)
	ctx := context.Background()
	s := store.NewSchedule(st.DB(), "test_schedule", time.Minute)
	if err := s.File(ctx, scheduleT0, store.ScheduleEntry{Ref: "filed", At: scheduleT0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	var seeded []store.ScheduleEntry
	for i := range 2500 { // three slots of the same minute, and more
		seeded = append(seeded, store.ScheduleEntry{Ref: fmt.Sprint("s", i), At: scheduleT0.Add(time.Hour + time.Duration(i%2)*time.Minute)})
	}
	seeded = append(seeded, store.ScheduleEntry{Ref: "overdue", At: scheduleT0.Add(-48 * time.Hour)})
	if err := store.SeedSchedule(ctx, st.DB(), "test_schedule", time.Minute, scheduleT0, seeded); err != nil {
		t.Fatal(err)
	}
	if got := dueRefs(t, s, scheduleT0); !slices.Equal(got, []string{"overdue"}) {
		t.Fatalf("due at the seed's now: %v, want the overdue one", got)
	}
	if got := dueRefs(t, s, scheduleT0.Add(2*time.Hour)); len(got) != 2502 || !slices.Contains(got, "filed") {
		t.Fatalf("%d due two hours on (want 2,502, with the one filed before)", len(got))
	}
}
