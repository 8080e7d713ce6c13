package export

import "time"

// rangeGap is how much later than the account's start the oldest follower
// may be before the export is taken as date-range-limited.
//
// The JSON never states the requested window (§4.6), so it is inferred. With
// a limited range, followers_*.json holds only the followers gained inside
// the window while following stays almost complete (§4.1: 222 of 1,361
// followers, following nearly whole). In a full export the first follower
// comes within days of the account's first follows. Ninety days is far
// beyond that, yet short enough to catch the shortest windows Instagram
// offers beside "All time" for any account older than a few months. A false
// alarm only withholds lost followers and asks for an "All time" export; a
// miss shows hundreds of false unfollowers, so the rule leans sensitive.
const rangeGap = 90 * 24 * time.Hour

// detectRange applies the rule of docs/instagram.md §4.1: the oldest follow time of
// the followers must reach back near the start of the account. The start is
// the earlier of the sign-up time (signup_details.json, when the export has
// it) and the oldest follow in following. It returns nil when the export
// looks complete or there is too little to tell (no times, no start).
//
// It cannot see a window that cut both lists alike when the sign-up time is
// missing; callers should also refuse a follower drop of more than 30 %
// between imports (§4.1).
func detectRange(followers, following []Account, signup time.Time) *DateRange {
	start := earliest(following, signup)
	oldest := earliest(followers, time.Time{})
	if start.IsZero() || oldest.IsZero() || oldest.Sub(start) <= rangeGap {
		return nil
	}
	return &DateRange{From: oldest, To: latest(followers, following)}
}

// earliest returns the oldest non-zero FollowedAt in list, or also (when
// older and non-zero), or the zero time when there is none.
func earliest(list []Account, also time.Time) time.Time {
	first := also
	for _, a := range list {
		if !a.FollowedAt.IsZero() && (first.IsZero() || a.FollowedAt.Before(first)) {
			first = a.FollowedAt
		}
	}
	return first
}

func latest(lists ...[]Account) time.Time {
	var last time.Time
	for _, list := range lists {
		for _, a := range list {
			if a.FollowedAt.After(last) {
				last = a.FollowedAt
			}
		}
	}
	return last
}
