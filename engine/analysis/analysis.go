// Package analysis turns snapshots of an Instagram profile into the figures of
// the Analytics screen: the engagement rate with its 1–5 level, average likes
// and comments per post, the most liked and most commented posts, and the
// audience groups (lost and new followers, friends, fans, secret fans,
// inactive followers).
//
// Everything here is a pure function of its input: no I/O, no clock, no
// globals that change. Whatever loads the snapshots (the official API, a
// "Download Your Information" export, or both) does so before calling
// Analyse. Sources differ in what they can give: the API has counts and
// commenters but never follower lists, the export has lists but no
// engagement, and nobody can see likers. A figure that needs missing data is
// reported as unknown (a nil Count) with a Basis saying why, never guessed.
//
// The formulas and benchmark tables, with their public sources, are in
// docs/instagram.md §2 (cited below by section, e.g. docs/instagram.md §2.1).
package analysis

import (
	"cmp"
	"slices"
	"time"
)

// DefaultLatestN is how many of the newest posts are analysed when
// Input.LatestN is not set. Twelve is the common convention of engagement
// calculators (docs/instagram.md §2.1, "ER by followers over the last 12 feed posts").
const DefaultLatestN = 12

// DefaultTopK is how many posts the most liked and most commented lists hold
// when Input.TopK is not set. The spec does not fix a number; three fit one
// phone screen.
const DefaultTopK = 3

// DefaultSampleSize is how many usernames each audience category lists when
// Input.SampleSize is not set.
const DefaultSampleSize = 100

// UpdateInterval is how long after a snapshot the next one is due; the
// Analytics screen counts down to it ("Next update in", product spec §4:
// last update time plus 86400 s).
const UpdateInterval = 24 * time.Hour

// Post is one feed post as the data source reports it.
type Post struct {
	ID         string
	TakenAt    time.Time
	Likes      int
	Comments   int
	PictureURL string
	// Commenters are the usernames of the people who commented, without the
	// profile owner. Empty when the source does not say who commented.
	Commenters []string
}

// Snapshot is what was known about the profile at one moment.
type Snapshot struct {
	TakenAt time.Time
	// FollowerCount is the follower count the source reports. When it is 0
	// and Followers is known, the length of Followers is used instead, since
	// an export gives the list but no count.
	FollowerCount int
	// Followers and Following are usernames, compared case-insensitively
	// (ASCII, as Instagram usernames are). Nil when the source does not give
	// the list; an empty non-nil slice means the list is known to be empty.
	Followers []string
	Following []string
	Posts     []Post
}

// Input is everything Analyse needs. Zero values of the optional fields
// select the defaults.
type Input struct {
	Current Snapshot
	// Previous is the earlier snapshot that lost and new followers are
	// measured against; nil when there is none yet.
	Previous *Snapshot
	// LatestN is how many of the newest posts to analyse (DefaultLatestN).
	LatestN int
	// TopK is the length of the most liked and most commented lists
	// (DefaultTopK).
	TopK int
	// SampleSize caps the usernames listed per audience category
	// (DefaultSampleSize).
	SampleSize int
	// Thresholds map an engagement rate to a level (DefaultThresholds).
	Thresholds Thresholds
}

// Result is the analysis of one snapshot.
type Result struct {
	// TakenAt is when the analysed snapshot was taken.
	TakenAt time.Time
	// NextUpdate is when the next snapshot is due (TakenAt + UpdateInterval).
	NextUpdate    time.Time
	Engagement    Engagement
	MostLiked     []TopPost
	MostCommented []TopPost
	Audience      Audience
}

// TopPost is one entry of the most liked or most commented list.
type TopPost struct {
	ID         string
	PictureURL string
	TakenAt    time.Time
	// Count is the post's likes in MostLiked and its comments in
	// MostCommented.
	Count int
}

// Analyse computes every figure of the Analytics screen from in. It never
// fails: figures that cannot be computed say so.
func Analyse(in Input) Result {
	latest := latestPosts(in.Current.Posts, positive(in.LatestN, DefaultLatestN))
	topK := positive(in.TopK, DefaultTopK)
	return Result{
		TakenAt:       in.Current.TakenAt,
		NextUpdate:    in.Current.TakenAt.Add(UpdateInterval),
		Engagement:    engagement(latest, followerCount(in.Current), in.Thresholds),
		MostLiked:     topPosts(latest, topK, func(p Post) int { return p.Likes }),
		MostCommented: topPosts(latest, topK, func(p Post) int { return p.Comments }),
		Audience:      audience(in.Current, in.Previous, latest, positive(in.SampleSize, DefaultSampleSize)),
	}
}

// latestPosts returns the n newest posts, newest first, ties broken by ID so
// the choice does not depend on the order the source listed them in.
func latestPosts(posts []Post, n int) []Post {
	sorted := slices.Clone(posts)
	slices.SortFunc(sorted, func(a, b Post) int {
		return cmp.Or(b.TakenAt.Compare(a.TakenAt), cmp.Compare(a.ID, b.ID))
	})
	return sorted[:min(n, len(sorted))]
}

// topPosts returns up to k posts with the highest count, ties going to the
// newer post and then to the smaller ID. Posts with a count of 0 are left out:
// a "most liked" post nobody liked says nothing.
func topPosts(posts []Post, k int, count func(Post) int) []TopPost {
	ranked := slices.Clone(posts)
	slices.SortFunc(ranked, func(a, b Post) int {
		return cmp.Or(cmp.Compare(count(b), count(a)), b.TakenAt.Compare(a.TakenAt), cmp.Compare(a.ID, b.ID))
	})
	top := []TopPost{}
	for _, p := range ranked[:min(k, len(ranked))] {
		if count(p) <= 0 {
			break
		}
		top = append(top, TopPost{ID: p.ID, PictureURL: p.PictureURL, TakenAt: p.TakenAt, Count: count(p)})
	}
	return top
}

// followerCount is the follower figure F of the engagement formula.
func followerCount(s Snapshot) int {
	if s.FollowerCount == 0 && s.Followers != nil {
		return len(s.Followers)
	}
	return s.FollowerCount
}

func positive(n, fallback int) int {
	if n > 0 {
		return n
	}
	return fallback
}
