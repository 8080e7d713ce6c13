package analysis

import (
	"glimpse/engine"
)

// Engagement is the "User Engagement" and "Likes & Comments" part of the
// Analytics screen.
type Engagement struct {
	// Rate is the engagement rate by followers, in percent:
	//
	//	Rate = ((ΣLikes + ΣComments) / PostsAnalysed) / Followers × 100
	//
	// the "Account ER by followers" of docs/instagram.md §2.1 in its Phlanx form,
	// which is also what the screen's note says ("total likes + comments
	// divided by total posts"), divided by followers. It is 0 when there are
	// no posts or no followers to divide by; Level is then 0.
	Rate float64
	// Level is 1 (low) to 5 (high) from Thresholds, or 0 when there is not
	// enough data. It colours the screen's 5-cell bar.
	Level int
	// Status is the label of Level from Thresholds.Labels: by default a
	// code the screen turns into its brand's words (LevelAverage and so on).
	Status Code
	// Followers is the follower count F the rate was divided by.
	Followers int
	// PostsAnalysed is N, the number of latest posts analysed ("Analysis of
	// your Instagram account based on N latest posts").
	PostsAnalysed int
	TotalLikes    int
	TotalComments int
	// AverageLikes and AverageComments are ΣLikes/N and ΣComments/N
	// (docs/instagram.md §2.1); 0 when N is 0.
	AverageLikes    float64
	AverageComments float64
}

// Tier holds the level boundaries for profiles with at least MinFollowers
// followers (up to the next tier's MinFollowers).
type Tier struct {
	MinFollowers int
	// Bounds are the lowest rates, in percent, of levels 2, 3, 4 and 5, in
	// ascending order. A rate equal to a bound gets the higher level.
	Bounds [4]float64
}

// Thresholds map an engagement rate and a follower count to a level and a
// status label. Engagement rates fall as accounts grow (docs/instagram.md §2.2), so
// each follower-size tier has its own boundaries.
type Thresholds struct {
	// Tiers in ascending MinFollowers order; the first starts at 0.
	Tiers []Tier
	// Labels[0] is the status when there is not enough data; Labels[1] to
	// Labels[5] name the levels. The defaults are codes, so each brand words
	// them in its copy.
	Labels [6]Code
}

// DefaultThresholds are the bands proposed in docs/instagram.md §2.2:
//   - 1k to 1M followers: The Social Cat's 5-band benchmark
//     (thesocialcat.com/instagram-engagement-rate-calculator), whose columns
//     Low, Below average, Average, Above average and High are levels 1–5.
//     Its 500k–1M row has a gap (band 4 "1.13–1.46", band 5 "> 2.46"); taking
//     1.46 for a typo, band 4 ends at 2.46.
//   - Under 1k: our judgement call (no public table), the 1k–5k bands scaled up
//     about ×2 towards HypeAuditor's 0–1K median of 16.99 %.
//   - Over 1M: the 500k–1M row again, as HypeAuditor shows ER flat above 100k.
//
// The data dates from 2018 and public rates have fallen since, which is why
// they are configurable.
func DefaultThresholds() Thresholds {
	return Thresholds{
		Tiers: []Tier{
			{MinFollowers: 0, Bounds: [4]float64{3.5, 7, 10.5, 17}},
			{MinFollowers: 1_000, Bounds: [4]float64{1.72, 3.38, 4.42, 7.97}},
			{MinFollowers: 5_000, Bounds: [4]float64{0.62, 1.25, 1.62, 3.54}},
			{MinFollowers: 10_000, Bounds: [4]float64{0.39, 0.84, 1.11, 2.61}},
			{MinFollowers: 50_000, Bounds: [4]float64{0.32, 0.75, 1.01, 2.47}},
			{MinFollowers: 100_000, Bounds: [4]float64{0.41, 0.87, 1.14, 2.63}},
			{MinFollowers: 500_000, Bounds: [4]float64{0.46, 0.88, 1.13, 2.46}},
		},
		Labels: [6]Code{LevelNotEnoughData, LevelLow, LevelBelowAverage, LevelAverage, LevelAboveAverage, LevelHigh},
	}
}

// Validate reports thresholds that would give surprising levels: no tiers,
// a first tier that does not start at 0, tiers out of order, descending
// bounds or an empty label. Check configured thresholds once at start.
func (t Thresholds) Validate() error {
	if len(t.Tiers) == 0 {
		return engine.Errorf(engine.CodeInvalid, "engagement thresholds: no tiers")
	}
	if t.Tiers[0].MinFollowers != 0 {
		return engine.Errorf(engine.CodeInvalid, "engagement thresholds: the first tier must start at 0 followers, not %d", t.Tiers[0].MinFollowers)
	}
	for i, tier := range t.Tiers {
		if i > 0 && tier.MinFollowers <= t.Tiers[i-1].MinFollowers {
			return engine.Errorf(engine.CodeInvalid, "engagement thresholds: tier %d (%d followers) does not follow tier %d (%d followers)", i, tier.MinFollowers, i-1, t.Tiers[i-1].MinFollowers)
		}
		for j := 1; j < len(tier.Bounds); j++ {
			if tier.Bounds[j] < tier.Bounds[j-1] {
				return engine.Errorf(engine.CodeInvalid, "engagement thresholds: tier %d bounds are not ascending: %v", i, tier.Bounds)
			}
		}
	}
	for level, label := range t.Labels {
		if label == "" {
			return engine.Errorf(engine.CodeInvalid, "engagement thresholds: no label for level %d", level)
		}
	}
	return nil
}

// Level returns the level, 1 to 5, of rate (percent) for a profile with
// followers followers: one plus the number of the tier's bounds the rate
// reaches.
func (t Thresholds) Level(rate float64, followers int) int {
	if len(t.Tiers) == 0 {
		return 0
	}
	tier := t.Tiers[0]
	for _, candidate := range t.Tiers[1:] {
		if followers < candidate.MinFollowers {
			break
		}
		tier = candidate
	}
	level := 1
	for _, bound := range tier.Bounds {
		if rate >= bound {
			level++
		}
	}
	return level
}

// orDefault returns t, or DefaultThresholds when t has no tiers; labels left
// empty take the default labels.
func (t Thresholds) orDefault() Thresholds {
	defaults := DefaultThresholds()
	if len(t.Tiers) == 0 {
		t.Tiers = defaults.Tiers
	}
	for i, label := range t.Labels {
		if label == "" {
			t.Labels[i] = defaults.Labels[i]
		}
	}
	return t
}

// engagement computes the engagement figures over posts for a profile with
// followers followers (docs/instagram.md §2.1).
func engagement(posts []Post, followers int, thresholds Thresholds) Engagement {
	thresholds = thresholds.orDefault()
	e := Engagement{Followers: followers, PostsAnalysed: len(posts)}
	for _, p := range posts {
		e.TotalLikes += p.Likes
		e.TotalComments += p.Comments
	}
	if e.PostsAnalysed > 0 {
		n := float64(e.PostsAnalysed)
		e.AverageLikes = float64(e.TotalLikes) / n
		e.AverageComments = float64(e.TotalComments) / n
		if followers > 0 {
			e.Rate = float64(e.TotalLikes+e.TotalComments) / n / float64(followers) * 100
			e.Level = thresholds.Level(e.Rate, followers)
		}
	}
	e.Status = thresholds.Labels[e.Level]
	return e
}
