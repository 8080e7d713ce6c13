package analysis

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestSeries(t *testing.T) {
	t.Parallel()
	onePost := []Post{{ID: "a", TakenAt: at(0), Likes: 8, Comments: 2}}
	snapshots := []Snapshot{
		{TakenAt: at(48), FollowerCount: 200, Posts: onePost},
		{TakenAt: at(0), FollowerCount: 100, Posts: onePost},
		{TakenAt: at(24), Followers: []string{"a", "b", "c", "d", "e"}}, // no count, a list of 5, no posts
		{TakenAt: at(72)}, // nothing known
	}
	// Given newest first, charted oldest first.
	wantFollowers := []Point{{at(0), 100}, {at(24), 5}, {at(48), 200}}
	// (10 / 1) / 100 × 100 = 10 %; (10 / 1) / 200 × 100 = 5 %; the snapshot at
	// hour 24 has no posts and the one at hour 72 no followers.
	wantEngagement := []Point{{at(0), 10}, {at(48), 5}}

	if diff := cmp.Diff(wantFollowers, FollowerSeries(snapshots)); diff != "" {
		t.Errorf("FollowerSeries (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantEngagement, EngagementSeries(snapshots, 0), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("EngagementSeries (-want +got):\n%s", diff)
	}
	if snapshots[0].FollowerCount != 200 {
		t.Error("the series reordered the caller's snapshots")
	}
}

func TestSeriesEmpty(t *testing.T) {
	t.Parallel()
	if diff := cmp.Diff([]Point{}, FollowerSeries(nil)); diff != "" {
		t.Errorf("FollowerSeries(nil) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Point{}, EngagementSeries(nil, 3)); diff != "" {
		t.Errorf("EngagementSeries(nil) (-want +got):\n%s", diff)
	}
}
