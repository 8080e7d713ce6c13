package profile_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"glimpse/engine/analysis"
	"glimpse/engine/profile"
)

// The whole of a group pages through in natural order from the stored
// snapshots, a search narrows it, and a group the data cannot give is an
// error of its own.
func TestAudiencePagesThroughTheWholeGroup(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	ctx := context.Background()
	if err := svc.Connect(ctx, "u1", profile.SourceExport, "ann", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Audience(ctx, "u1", analysis.GroupFans, "", 0, 50); !errors.Is(err, profile.ErrNoAudience) {
		t.Fatalf("before any analysis: %v", err)
	}
	followers := append(names("brook", 250), "brook2723", "brook27210", "Zed")
	snap := analysis.Snapshot{TakenAt: start, Followers: followers, Following: []string{"zed"},
		Posts: []analysis.Post{{ID: "p1", TakenAt: start.Add(-time.Hour), Likes: 3}}}
	if _, err := svc.AddSnapshot(ctx, "u1", snap); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Analyse(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	var all []string
	for offset := 0; ; {
		page, err := svc.Audience(ctx, "u1", analysis.GroupFans, "", offset, 100)
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != 252 || len(page.Names) > 100 {
			t.Fatalf("page at %d: total %d, %d names", offset, page.Total, len(page.Names))
		}
		all = append(all, page.Names...)
		if page.Next == nil {
			break
		}
		offset = *page.Next
	}
	if len(all) != 252 || !slices.IsSortedFunc(all, analysis.CompareNatural) || slices.Contains(all, "Zed") {
		t.Fatalf("%d names, sorted %v", len(all), slices.IsSortedFunc(all, analysis.CompareNatural))
	}
	found, err := svc.Audience(ctx, "u1", analysis.GroupFans, " @Brook272", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(found.Names, []string{"brook2723", "brook27210"}) || found.Total != 2 || found.Next != nil {
		t.Fatalf("search: %+v", found)
	}
	if _, err := svc.Audience(ctx, "u1", analysis.GroupLostFollowers, "", 0, 100); !errors.Is(err, profile.ErrNoAudience) {
		t.Fatalf("lost followers with one snapshot: %v", err)
	}
	// Out-of-range paging is clamped, not an error.
	last, err := svc.Audience(ctx, "u1", analysis.GroupFans, "", 10_000, 1_000)
	if err != nil || len(last.Names) != 0 || last.Next != nil {
		t.Fatalf("past the end: %+v %v", last, err)
	}
}
