package analysis

import (
	"slices"
	"time"
)

// Point is one value of a chart series.
type Point struct {
	At    time.Time
	Value float64
}

// FollowerSeries returns the follower count of each snapshot, oldest first,
// for a growth chart. Snapshots without a follower figure are left out rather
// than drawn as a drop to zero.
func FollowerSeries(snapshots []Snapshot) []Point {
	series := []Point{}
	for _, s := range chronological(snapshots) {
		if followers := followerCount(s); followers > 0 {
			series = append(series, Point{At: s.TakenAt, Value: float64(followers)})
		}
	}
	return series
}

// EngagementSeries returns the engagement rate, in percent, of each snapshot
// over its latestN newest posts (DefaultLatestN when latestN is not
// positive), oldest first. Snapshots without posts or followers have no rate
// and are left out.
func EngagementSeries(snapshots []Snapshot, latestN int) []Point {
	latestN = positive(latestN, DefaultLatestN)
	series := []Point{}
	for _, s := range chronological(snapshots) {
		e := engagement(latestPosts(s.Posts, latestN), followerCount(s), Thresholds{})
		if e.Level > 0 {
			series = append(series, Point{At: s.TakenAt, Value: e.Rate})
		}
	}
	return series
}

// chronological returns the snapshots sorted oldest first, leaving the
// caller's slice alone.
func chronological(snapshots []Snapshot) []Snapshot {
	sorted := slices.Clone(snapshots)
	slices.SortStableFunc(sorted, func(a, b Snapshot) int { return a.TakenAt.Compare(b.TakenAt) })
	return sorted
}
