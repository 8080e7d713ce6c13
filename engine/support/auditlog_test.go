package support

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

// TestAuditPagesReadTheLists: the newest page reaches back across months
// and stops at its limit, newest first; a subscriber's page has only their
// entries; a listed entry never written is skipped.
func TestAuditPagesReadTheLists(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	clock := engine.NewManualClock(time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC))
	log := newAuditLog(st.DB(), clock)
	at := []time.Time{
		time.Date(2026, 9, 30, 23, 0, 0, 0, time.UTC),
		time.Date(2026, 10, 2, 9, 0, 0, 0, time.UTC),
		time.Date(2026, 10, 31, 23, 59, 0, 0, time.UTC),
		time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC),
	}
	for i, when := range at {
		who := "ann@example.com"
		if i%2 == 1 {
			who = "bob@example.com"
		}
		if err := log.append(ctx, Entry{At: when, Staff: "sue@glimpse.test", Action: ActionRefund, Subscriber: who,
			Reason: fmt.Sprint("reason ", i), Outcome: OutcomeDone}); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.NewLists(st.DB(), AuditByMonthCollection).Add(ctx, "2026-11", "99999999999999999999-never"); err != nil {
		t.Fatal(err)
	}
	reasons := func(es []Entry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Reason)
		}
		return out
	}
	got, err := log.newest(ctx, "", 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"reason 4", "reason 3", "reason 2"}; fmt.Sprint(reasons(got)) != fmt.Sprint(want) {
		t.Errorf("newest 3: %v, want %v", reasons(got), want)
	}
	got, err = log.newest(ctx, "", 50)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"reason 4", "reason 3", "reason 2", "reason 1", "reason 0"}; fmt.Sprint(reasons(got)) != fmt.Sprint(want) {
		t.Errorf("newest 50: %v, want %v", reasons(got), want)
	}
	got, err = log.newest(ctx, "bob@example.com", 50)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"reason 3", "reason 1"}; fmt.Sprint(reasons(got)) != fmt.Sprint(want) {
		t.Errorf("bob's: %v, want %v", reasons(got), want)
	}
}

// TestAuditAppendsTogetherAreAllListed: staff acting at once each get a
// slot of the month's list, whichever bound each process holds.
func TestAuditAppendsTogetherAreAllListed(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	clock := engine.NewManualClock(time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC))
	// Two logs: two instances, each with its own bounds.
	logs := []*auditLog{newAuditLog(st.DB(), clock), newAuditLog(st.DB(), clock)}
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			errs <- logs[i%2].append(ctx, Entry{At: clock.Now(), Staff: "sue@glimpse.test", Action: ActionRefund,
				Subscriber: "ann@example.com", Reason: fmt.Sprint(i), Outcome: OutcomeDone})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, who := range []string{"", "ann@example.com"} {
		got, err := logs[0].newest(ctx, who, 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Errorf("page %q: %d entries, want %d", who, len(got), n)
		}
	}
}

// TestAuditEntriesFromBeforeAreListedOnce: entries a release without the
// lists wrote are listed at start, once however often it runs.
func TestAuditEntriesFromBeforeAreListedOnce(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	clock := engine.NewManualClock(time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC))
	for i, when := range []time.Time{time.Date(2026, 10, 5, 9, 0, 0, 0, time.UTC), time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)} {
		e := Entry{ID: fmt.Sprintf("%020d-0000000%d", when.UnixNano(), i), At: when, Staff: "sue@glimpse.test",
			Action: ActionRefund, Subscriber: "ann@example.com", Reason: fmt.Sprint("old ", i), Outcome: OutcomeDone}
		if _, err := st.DB().Collection(AuditCollection).InsertOne(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if err := ListExistingAudit(ctx, st.DB(), "settings"); err != nil {
			t.Fatal(err)
		}
	}
	log := newAuditLog(st.DB(), clock)
	for _, who := range []string{"", "ann@example.com"} {
		got, err := log.newest(ctx, who, 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Reason != "old 1" || got[1].Reason != "old 0" {
			t.Errorf("page %q: %+v, want old 1 then old 0", who, got)
		}
	}
}
