package library_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/library"
	"glimpse/engine/store/sqlstore"
)

// TestScheduledPublishRunsOnceAcrossInstances: two instances' runners tick
// together after the time; the item is published once (one publish
// revision, one version bump), and a cancelled schedule publishes nothing.
func TestScheduledPublishRunsOnceAcrossInstances(t *testing.T) {
	ctx := context.Background()
	repo, db, clock := openRepo(t)
	if _, err := repo.Save(ctx, library.KindNews, "launch", newsFields("Launch"), "ann", true); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Save(ctx, library.KindNews, "later", newsFields("Later"), "ann", true); err != nil {
		t.Fatal(err)
	}
	instances := []*library.Scheduler{
		library.NewScheduler(sqlstore.NewContentSchedules(db), repo, clock, nil),
		library.NewScheduler(sqlstore.NewContentSchedules(db), repo, clock, nil),
	}
	s := instances[0]
	for _, at := range []string{"2025-03-01T09:00", "2025-03-01", "tomorrow", "2030-01-01T00:00"} {
		if _, err := s.Schedule(ctx, library.KindNews, "launch", at, "ann"); engine.ErrorCode(err) != engine.CodeInvalid {
			t.Errorf("Schedule at %q = %v, want invalid", at, err)
		}
	}
	if _, err := s.Schedule(ctx, library.KindNews, "nope", "2025-03-01T10:00", "ann"); !engine.IsNotFound(err) {
		t.Errorf("Schedule of a missing item = %v, want not found", err)
	}
	first, err := s.Schedule(ctx, library.KindNews, "launch", "2025-03-01T10:00", "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Schedule(ctx, library.KindNews, "later", "2025-03-01T10:00:30", "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	pending, err := s.Pending(ctx, "", "")
	if err != nil || len(pending) != 2 || pending[0].ID != first.ID {
		t.Fatalf("Pending = %+v, %v", pending, err)
	}
	if _, err := s.Cancel(ctx, second.ID, "bob@example.com"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Cancel(ctx, second.ID, "bob@example.com"); engine.ErrorCode(err) != engine.CodeConflict {
		t.Fatalf("second Cancel = %v, want a conflict", err)
	}
	if n, err := s.RunDue(ctx); err != nil || n != 0 {
		t.Fatalf("RunDue before the time = %d, %v", n, err)
	}
	before, _ := repo.Version(ctx)
	clock.Advance(2 * time.Hour)
	var wg sync.WaitGroup
	counts := make([]int, len(instances))
	for i, in := range instances {
		wg.Go(func() {
			n, err := in.RunDue(ctx)
			if err != nil {
				t.Error(err)
			}
			counts[i] = n
		})
	}
	wg.Wait()
	if counts[0]+counts[1] != 1 {
		t.Fatalf("published %v times, want once in all", counts)
	}
	d, err := repo.Get(ctx, library.KindNews, "launch")
	if err != nil {
		t.Fatal(err)
	}
	publishes := 0
	for _, r := range d.Revisions {
		if r.Action == library.ActionPublish {
			publishes++
			if r.By != "ann@example.com" {
				t.Errorf("the publish is by %q, want who scheduled it", r.By)
			}
		}
	}
	if d.Status != library.StatusPublished || publishes != 1 {
		t.Fatalf("launch: status %s with %d publish revisions", d.Status, publishes)
	}
	if after, _ := repo.Version(ctx); after != before+1 {
		t.Fatalf("version %d -> %d, want one bump", before, after)
	}
	if later, _ := repo.Get(ctx, library.KindNews, "later"); later.Status != library.StatusDraft {
		t.Fatalf("the cancelled item is %s", later.Status)
	}
	if pending, _ := s.Pending(ctx, "", ""); len(pending) != 0 {
		t.Fatalf("pending after the run: %+v", pending)
	}
}

func FuzzParseScheduleTime(f *testing.F) {
	for _, s := range []string{"2026-12-01T09:00", "2026-12-01T09:00:05", "2026-12-01", "", "2026-13-01T09:00", " 2026-12-01T09:00 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		at, ok := library.ParseScheduleTime(s)
		if ok && at.Location() != time.UTC {
			t.Fatalf("%q read as %v, not UTC", s, at)
		}
	})
}
