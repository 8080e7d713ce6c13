package report

import (
	"time"

	"glimpse/engine/analysis"
)

// sampleReport builds a report by hand: a few snapshots' worth of series, an
// audience with one unknown group, and a non-ASCII username.
func sampleReport() Report {
	day0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	count := func(n int) *int { return &n }
	names := func(prefix string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = prefix + string(rune('a'+i%26)) + "_" + thousands(i)
		}
		return out
	}
	var followers, engagement []analysis.Point
	for i := range 8 {
		at := day0.AddDate(0, 0, i)
		followers = append(followers, analysis.Point{At: at, Value: float64(12_000 + i*137 - (i%3)*90)})
		engagement = append(engagement, analysis.Point{At: at, Value: 2.1 + float64(i%4)*0.35})
	}
	last := day0.AddDate(0, 0, 7)
	return Report{
		Brand:       "Glimpse",
		Username:    "ana.müller",
		GeneratedAt: time.Date(2026, 3, 8, 12, 30, 0, 0, time.UTC),
		Source:      "Demo profile (generated sample data)",
		Followers:   followers,
		Engagement:  engagement,
		Result: analysis.Result{
			TakenAt:    last,
			NextUpdate: last.Add(analysis.UpdateInterval),
			Engagement: analysis.Engagement{
				Rate: 3.12, Level: 4, Status: "Above average", Followers: 12_959, PostsAnalysed: 12,
				TotalLikes: 4_620, TotalComments: 233, AverageLikes: 385, AverageComments: 19.4,
			},
			MostLiked: []analysis.TopPost{
				{ID: "p1", TakenAt: day0.AddDate(0, 0, 2), Count: 1_204},
				{ID: "p2", TakenAt: day0.AddDate(0, 0, 5), Count: 1},
			},
			MostCommented: []analysis.TopPost{
				{ID: "p3", TakenAt: day0.AddDate(0, 0, 6), Count: 88},
			},
			Audience: analysis.Audience{
				LostFollowers:     analysis.Category{Count: count(3), Usernames: []string{"jörg", "lena", "zoë"}, Basis: "Followers on 7 Mar 2026 who no longer follow you on 8 Mar 2026."},
				NewFollowers:      analysis.Category{Count: count(140), Usernames: names("new", 100), Basis: "Followers on 8 Mar 2026 who did not follow you on 7 Mar 2026."},
				Friends:           analysis.Category{Count: count(1_250), Usernames: names("friend", 100), Basis: "Accounts that follow you and that you follow, on 8 Mar 2026."},
				Fans:              analysis.Category{Count: count(11_709), Usernames: names("fan", 100), Basis: "Accounts that follow you but that you don't follow, on 8 Mar 2026."},
				NotFollowingBack:  analysis.Category{Count: count(0), Usernames: []string{}, Basis: "Accounts you follow that don't follow you, on 8 Mar 2026."},
				SecretFans:        analysis.Category{Basis: "Needs the usernames of the people who commented on your posts, which the data source does not give."},
				InactiveFollowers: analysis.Category{Basis: "Needs the usernames of the people who commented on your posts, which the data source does not give."},
			},
		},
	}
}
