package analysis

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var day0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// at returns day0 plus n hours, so posts sort by n.
func at(n int) time.Time { return day0.Add(time.Duration(n) * time.Hour) }

func TestEngagement(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Input
		want Engagement
	}{
		{
			name: "three posts, 1,000 followers",
			in: Input{Current: Snapshot{FollowerCount: 1_000, Posts: []Post{
				{ID: "a", TakenAt: at(1), Likes: 100, Comments: 10},
				{ID: "b", TakenAt: at(2), Likes: 50, Comments: 5},
				{ID: "c", TakenAt: at(3), Likes: 30, Comments: 5},
			}}},
			// ΣL = 180, ΣC = 20, N = 3: averages 60 and 20/3 = 6.667.
			// ER = ((180 + 20) / 3) / 1000 × 100 = 6.667 %: tier 1k–5k,
			// 4.42 ≤ 6.667 < 7.97, level 4.
			want: Engagement{
				Rate: 200.0 / 3 / 1000 * 100, Level: 4, Status: LevelAboveAverage,
				Followers: 1_000, PostsAnalysed: 3, TotalLikes: 180, TotalComments: 20,
				AverageLikes: 60, AverageComments: 20.0 / 3,
			},
		},
		{
			name: "only the latest N posts count",
			in: Input{LatestN: 2, Current: Snapshot{FollowerCount: 500, Posts: []Post{
				{ID: "old", TakenAt: at(1), Likes: 1_000, Comments: 1_000},
				{ID: "new", TakenAt: at(3), Likes: 40, Comments: 3},
				{ID: "mid", TakenAt: at(2), Likes: 35, Comments: 2},
			}}},
			// Posts "new" and "mid": ΣL = 75, ΣC = 5, N = 2: averages 37.5 and 2.5.
			// ER = (80 / 2) / 500 × 100 = 8 %: tier < 1k, 7 ≤ 8 < 10.5, level 3.
			want: Engagement{
				Rate: 8, Level: 3, Status: LevelAverage,
				Followers: 500, PostsAnalysed: 2, TotalLikes: 75, TotalComments: 5,
				AverageLikes: 37.5, AverageComments: 2.5,
			},
		},
		{
			name: "default window is 12 posts",
			in:   Input{Current: Snapshot{FollowerCount: 100, Posts: postsWithLikes(13, 1)}},
			// 13 posts of 1 like each, 12 analysed: ΣL = 12, N = 12.
			// ER = (12 / 12) / 100 × 100 = 1 %: tier < 1k, 1 < 3.5, level 1.
			want: Engagement{
				Rate: 1, Level: 1, Status: LevelLow,
				Followers: 100, PostsAnalysed: 12, TotalLikes: 12, AverageLikes: 1,
			},
		},
		{
			name: "no posts",
			in:   Input{Current: Snapshot{FollowerCount: 1_000}},
			want: Engagement{Level: 0, Status: LevelNotEnoughData, Followers: 1_000},
		},
		{
			name: "no followers",
			in: Input{Current: Snapshot{Posts: []Post{
				{ID: "a", TakenAt: at(1), Likes: 3, Comments: 1},
			}}},
			// Averages need no followers; the rate would divide by zero.
			want: Engagement{
				Status: LevelNotEnoughData, PostsAnalysed: 1, TotalLikes: 3, TotalComments: 1,
				AverageLikes: 3, AverageComments: 1,
			},
		},
		{
			name: "follower count taken from the list when the source gives no count",
			in: Input{Current: Snapshot{Followers: []string{"a", "b", "c", "d"}, Posts: []Post{
				{ID: "a", TakenAt: at(1), Likes: 1, Comments: 1},
			}}},
			// F = 4. ER = (2 / 1) / 4 × 100 = 50 %: tier < 1k, 50 ≥ 17, level 5.
			want: Engagement{
				Rate: 50, Level: 5, Status: LevelHigh,
				Followers: 4, PostsAnalysed: 1, TotalLikes: 1, TotalComments: 1,
				AverageLikes: 1, AverageComments: 1,
			},
		},
		{
			name: "configured thresholds and labels",
			in: Input{
				Thresholds: Thresholds{
					Tiers:  []Tier{{MinFollowers: 0, Bounds: [4]float64{1, 2, 3, 4}}},
					Labels: [6]Code{"n/a", "one", "two", "three", "four", "five"},
				},
				Current: Snapshot{FollowerCount: 200, Posts: []Post{
					{ID: "a", TakenAt: at(1), Likes: 4, Comments: 1},
				}},
			},
			// ER = (5 / 1) / 200 × 100 = 2.5 %: 2 ≤ 2.5 < 3, level 3.
			want: Engagement{
				Rate: 2.5, Level: 3, Status: "three",
				Followers: 200, PostsAnalysed: 1, TotalLikes: 4, TotalComments: 1,
				AverageLikes: 4, AverageComments: 1,
			},
		},
		{
			name: "labels left empty fall back to the defaults",
			in: Input{
				Thresholds: Thresholds{Labels: [6]Code{5: "Great"}},
				Current: Snapshot{FollowerCount: 10, Posts: []Post{
					{ID: "a", TakenAt: at(1), Likes: 2},
				}},
			},
			// ER = (2 / 1) / 10 × 100 = 20 %: default tier < 1k, 20 ≥ 17, level 5.
			want: Engagement{
				Rate: 20, Level: 5, Status: "Great",
				Followers: 10, PostsAnalysed: 1, TotalLikes: 2, AverageLikes: 2,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Analyse(tt.in).Engagement
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("engagement (-want +got):\n%s", diff)
			}
		})
	}
}

func postsWithLikes(n, likes int) []Post {
	posts := make([]Post, n)
	for i := range posts {
		posts[i] = Post{ID: string(rune('a' + i)), TakenAt: at(i), Likes: likes}
	}
	return posts
}

func TestThresholdsLevel(t *testing.T) {
	t.Parallel()
	defaults := DefaultThresholds()
	tests := []struct {
		name      string
		rate      float64
		followers int
		want      int
	}{
		{"under 1k, just below level 2", 3.4999, 999, 1},
		{"under 1k, at level 2", 3.5, 999, 2},
		{"under 1k, at level 5", 17, 0, 5},
		{"1k tier starts at 1,000", 3.5, 1_000, 3}, // 3.38 ≤ 3.5 < 4.42
		{"1k–5k, zero rate", 0, 1_000, 1},
		{"1k–5k, just below level 2", 1.7199, 4_999, 1},
		{"1k–5k, at level 2", 1.72, 4_999, 2},
		{"1k–5k, at level 3", 3.38, 2_000, 3},
		{"1k–5k, at level 4", 4.42, 2_000, 4},
		{"1k–5k, just below level 5", 7.9699, 2_000, 4},
		{"1k–5k, at level 5", 7.97, 2_000, 5},
		{"5k tier starts at 5,000", 1.72, 5_000, 4}, // 1.62 ≤ 1.72 < 3.54
		{"5k–10k, at level 5", 3.54, 9_999, 5},
		{"10k–50k, at level 3", 0.84, 10_000, 3},
		{"10k–50k, just below level 3", 0.8399, 49_999, 2},
		{"50k–100k, at level 2", 0.32, 50_000, 2},
		{"100k–500k, at level 4", 1.14, 100_000, 4},
		{"500k–1M, band 4 ends at 2.46 (source gap)", 2.0, 500_000, 4},
		{"500k–1M, at level 5", 2.46, 999_999, 5},
		{"over 1M reuses the 500k–1M row", 0.46, 50_000_000, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := defaults.Level(tt.rate, tt.followers); got != tt.want {
				t.Errorf("Level(%v, %d) = %d, want %d", tt.rate, tt.followers, got, tt.want)
			}
		})
	}
}

func TestThresholdsValidate(t *testing.T) {
	t.Parallel()
	labels := DefaultThresholds().Labels
	tests := []struct {
		name    string
		t       Thresholds
		wantErr bool
	}{
		{"defaults", DefaultThresholds(), false},
		{"no tiers", Thresholds{Labels: labels}, true},
		{"first tier above 0", Thresholds{Tiers: []Tier{{MinFollowers: 10}}, Labels: labels}, true},
		{"tiers out of order", Thresholds{Tiers: []Tier{{MinFollowers: 0}, {MinFollowers: 5}, {MinFollowers: 5}}, Labels: labels}, true},
		{"descending bounds", Thresholds{Tiers: []Tier{{Bounds: [4]float64{1, 3, 2, 4}}}, Labels: labels}, true},
		{"equal bounds are allowed", Thresholds{Tiers: []Tier{{Bounds: [4]float64{1, 1, 2, 2}}}, Labels: labels}, false},
		{"missing label", Thresholds{Tiers: []Tier{{}}, Labels: [6]Code{"x", "a", "b", "", "d", "e"}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := tt.t.Validate(); (err != nil) != tt.wantErr {
				t.Errorf("Validate() = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}
