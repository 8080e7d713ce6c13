package profile

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"glimpse/engine/analysis"
)

// ConnectedSnapshot is a stored snapshot used as the pattern for copies: the
// scale seed gives many subscribers a connected profile without analysing
// each (docs/benchmarks.md §7).
type ConnectedSnapshot struct{ snap analysis.Snapshot }

// ConnectedSnapshotOf reads p's newest snapshot, without its follower lists,
// as an API-connected profile's snapshot is (the API gives no lists).
func (s *Service) ConnectedSnapshotOf(ctx context.Context, p Profile) (ConnectedSnapshot, error) {
	if len(p.Snapshots) == 0 {
		return ConnectedSnapshot{}, fmt.Errorf("profile %s has no snapshot", p.UserID)
	}
	snap, err := s.Snapshot(ctx, p.Snapshots[len(p.Snapshots)-1].ID)
	if err != nil {
		return ConnectedSnapshot{}, fmt.Errorf("read snapshot of %s: %w", p.UserID, err)
	}
	snap.Followers, snap.Following = nil, nil
	return ConnectedSnapshot{snap: snap}, nil
}

// For returns the profile userID would have had the snapshot been taken at
// `at`, with that snapshot: analysed like template, refreshed a day later.
func (c ConnectedSnapshot) For(template Profile, userID string, at time.Time) Seeded {
	at = at.UTC().Truncate(time.Millisecond)
	ref := SnapshotRef{ID: userID + ":" + strconv.FormatInt(at.UnixMilli(), 10), TakenAt: at}
	if n := len(template.Snapshots); n > 0 {
		last := template.Snapshots[n-1]
		ref.Followers, ref.HasFollowers = last.Followers, last.HasFollowers
		ref.EngagementRate, ref.HasEngagement = last.EngagementRate, last.HasEngagement
	}
	snap := c.snap
	snap.TakenAt = at
	p := template
	p.UserID, p.Source, p.Username, p.Seed, p.Credential = userID, SourceAPI, "scale."+userID, 0, ""
	p.Snapshots, p.NextRefresh, p.Status, p.Problem, p.LeaseUntil = []SnapshotRef{ref}, at.Add(24*time.Hour), StatusCompleted, "", time.Time{}
	return Seeded{Profile: p, Snapshots: []analysis.Snapshot{snap}}
}
