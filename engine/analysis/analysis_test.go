package analysis

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestAnalyseTimes(t *testing.T) {
	t.Parallel()
	got := Analyse(Input{Current: Snapshot{TakenAt: day0}})
	// The countdown runs to the snapshot time plus 86,400 s (product spec §4).
	if !got.TakenAt.Equal(day0) || !got.NextUpdate.Equal(day0.Add(86_400*time.Second)) {
		t.Errorf("TakenAt, NextUpdate = %v, %v; want %v, %v", got.TakenAt, got.NextUpdate, day0, day0.Add(24*time.Hour))
	}
}

func TestTopPosts(t *testing.T) {
	t.Parallel()
	top := func(id string, hour, count int) TopPost {
		return TopPost{ID: id, PictureURL: "https://cdn.example/" + id + ".jpg", TakenAt: at(hour), Count: count}
	}
	post := func(id string, hour, likes, comments int) Post {
		return Post{ID: id, PictureURL: "https://cdn.example/" + id + ".jpg", TakenAt: at(hour), Likes: likes, Comments: comments}
	}
	tests := []struct {
		name              string
		in                Input
		wantLiked         []TopPost
		wantCommented     []TopPost
		wantPostsAnalysed int
	}{
		{
			name: "ranked by count, ties to the newer post, then to the smaller ID",
			in: Input{Current: Snapshot{Posts: []Post{
				post("p1", 1, 10, 2),
				post("p2", 2, 30, 2),
				post("p3", 3, 10, 2), // ties p1 on likes; newer, so first
				post("p4", 3, 10, 7), // ties p3 on likes and time; "p3" < "p4"
				post("p5", 5, 5, 2),
			}}},
			// Likes: p2 30; then p3, p4, p1 at 10 (p3 and p4 at hour 3, p1 at hour 1).
			wantLiked: []TopPost{top("p2", 2, 30), top("p3", 3, 10)},
			// Comments: p4 7; then p3, p2, p1, p5 at 2: newest first is p5 (hour 5).
			wantCommented:     []TopPost{top("p4", 3, 7), top("p5", 5, 2)},
			wantPostsAnalysed: 5,
		},
		{
			name: "only posts in the window, and none with a zero count",
			in: Input{LatestN: 2, Current: Snapshot{Posts: []Post{
				post("old", 1, 900, 90),
				post("new", 3, 4, 0),
				post("mid", 2, 6, 0),
			}}},
			wantLiked:         []TopPost{top("mid", 2, 6), top("new", 3, 4)},
			wantCommented:     []TopPost{},
			wantPostsAnalysed: 2,
		},
		{
			name:              "no posts",
			in:                Input{},
			wantLiked:         []TopPost{},
			wantCommented:     []TopPost{},
			wantPostsAnalysed: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.in.TopK = 2
			got := Analyse(tt.in)
			if diff := cmp.Diff(tt.wantLiked, got.MostLiked); diff != "" {
				t.Errorf("most liked (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCommented, got.MostCommented); diff != "" {
				t.Errorf("most commented (-want +got):\n%s", diff)
			}
			if got.Engagement.PostsAnalysed != tt.wantPostsAnalysed {
				t.Errorf("posts analysed = %d, want %d", got.Engagement.PostsAnalysed, tt.wantPostsAnalysed)
			}
		})
	}
}

func TestTopPostsDefaultK(t *testing.T) {
	t.Parallel()
	got := Analyse(Input{Current: Snapshot{Posts: postsWithLikes(5, 1)}})
	if len(got.MostLiked) != DefaultTopK {
		t.Errorf("len(MostLiked) = %d, want %d", len(got.MostLiked), DefaultTopK)
	}
}

func TestAnalyseDoesNotReorderInput(t *testing.T) {
	t.Parallel()
	posts := []Post{{ID: "a", TakenAt: at(1), Likes: 1}, {ID: "b", TakenAt: at(2), Likes: 2}}
	Analyse(Input{Current: Snapshot{Posts: posts}})
	if posts[0].ID != "a" || posts[1].ID != "b" {
		t.Errorf("Analyse reordered the caller's posts: %v", posts)
	}
}

func count(n int) *int { return &n }

// audienceFixture is a small profile where every group can be counted by
// hand.
//
//	previous followers: alice bob carol dave
//	current followers:  bob Carol erin frank gina   (Carol is carol: usernames ignore case)
//	following:          bob erin henry ivan
//	latest 2 posts:     commented by erin zed bob / yara zed
//	older post:         commented by frank (outside the window)
func audienceFixture() Input {
	return Input{
		LatestN: 2,
		Previous: &Snapshot{
			TakenAt:   day0,
			Followers: []string{"dave", "alice", "carol", "bob"},
		},
		Current: Snapshot{
			TakenAt:   day0.Add(24 * time.Hour),
			Followers: []string{"gina", "bob", "Carol", "frank", "erin"},
			Following: []string{"ivan", "bob", "henry", "erin"},
			Posts: []Post{
				{ID: "p1", TakenAt: at(30), Comments: 3, Commenters: []string{"erin", "zed", "bob"}},
				{ID: "p2", TakenAt: at(29), Comments: 2, Commenters: []string{"yara", "zed"}},
				{ID: "p0", TakenAt: at(1), Comments: 1, Commenters: []string{"frank"}},
			},
		},
	}
}

// The args of the audience codes for audienceFixture: the earlier snapshot
// is of 1 March, the current one of 2 March, and two posts are analysed.
var (
	bothDays = map[string]string{ArgThen: "2026-03-01", ArgNow: "2026-03-02"}
	today    = map[string]string{ArgNow: "2026-03-02"}
	twoPosts = map[string]string{ArgPosts: "2"}
)

func TestAudience(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(*Input)
		want   Audience
	}{
		{
			name:   "every list known",
			change: func(*Input) {},
			want: Audience{
				// {alice bob carol dave} − {bob carol erin frank gina} = {alice dave}
				LostFollowers: Category{Count: count(2), Usernames: []string{"alice", "dave"}, Basis: BasisLostFollowers, Args: bothDays},
				// {bob carol erin frank gina} − {alice bob carol dave} = {erin frank gina}
				NewFollowers: Category{Count: count(3), Usernames: []string{"erin", "frank", "gina"}, Basis: BasisNewFollowers, Args: bothDays},
				// followers ∩ following = {bob erin}
				Friends: Category{Count: count(2), Usernames: []string{"bob", "erin"}, Basis: BasisFriends, Args: today},
				// followers − following = {Carol frank gina}; "C" sorts before "f"
				Fans: Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: BasisFans, Args: today},
				// following − followers = {henry ivan}
				NotFollowingBack: Category{Count: count(2), Usernames: []string{"henry", "ivan"}, Basis: BasisNotFollowingBack, Args: today},
				// commenters {erin zed bob yara} − followers = {yara zed}
				SecretFans: Category{Count: count(2), Usernames: []string{"yara", "zed"}, Basis: BasisSecretFans, Args: twoPosts},
				// followers − commenters = {Carol frank gina}; frank commented only outside the window
				InactiveFollowers: Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: BasisInactiveFollowers, Args: twoPosts},
			},
		},
		{
			name:   "samples are capped but counts are not",
			change: func(in *Input) { in.SampleSize = 2 },
			want: Audience{
				LostFollowers:     Category{Count: count(2), Usernames: []string{"alice", "dave"}, Basis: BasisLostFollowers, Args: bothDays},
				NewFollowers:      Category{Count: count(3), Usernames: []string{"erin", "frank"}, Basis: BasisNewFollowers, Args: bothDays},
				Friends:           Category{Count: count(2), Usernames: []string{"bob", "erin"}, Basis: BasisFriends, Args: today},
				Fans:              Category{Count: count(3), Usernames: []string{"Carol", "frank"}, Basis: BasisFans, Args: today},
				NotFollowingBack:  Category{Count: count(2), Usernames: []string{"henry", "ivan"}, Basis: BasisNotFollowingBack, Args: today},
				SecretFans:        Category{Count: count(2), Usernames: []string{"yara", "zed"}, Basis: BasisSecretFans, Args: twoPosts},
				InactiveFollowers: Category{Count: count(3), Usernames: []string{"Carol", "frank"}, Basis: BasisInactiveFollowers, Args: twoPosts},
			},
		},
		{
			name: "duplicates and case variants count once",
			change: func(in *Input) {
				in.Current.Followers = append(in.Current.Followers, "gina", "GINA", "", "Bob")
				in.Current.Following = append(in.Current.Following, "IVAN")
			},
			want: Audience{
				LostFollowers: Category{Count: count(2), Usernames: []string{"alice", "dave"}, Basis: BasisLostFollowers, Args: bothDays},
				NewFollowers:  Category{Count: count(3), Usernames: []string{"erin", "frank", "gina"}, Basis: BasisNewFollowers, Args: bothDays},
				// One spelling per account: the first one met in the list.
				Friends:           Category{Count: count(2), Usernames: []string{"bob", "erin"}, Basis: BasisFriends, Args: today},
				Fans:              Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: BasisFans, Args: today},
				NotFollowingBack:  Category{Count: count(2), Usernames: []string{"henry", "ivan"}, Basis: BasisNotFollowingBack, Args: today},
				SecretFans:        Category{Count: count(2), Usernames: []string{"yara", "zed"}, Basis: BasisSecretFans, Args: twoPosts},
				InactiveFollowers: Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: BasisInactiveFollowers, Args: twoPosts},
			},
		},
		{
			name:   "no earlier snapshot",
			change: func(in *Input) { in.Previous = nil },
			want: Audience{
				LostFollowers:     Category{Basis: BasisNoPrevious},
				NewFollowers:      Category{Basis: BasisNoPrevious},
				Friends:           Category{Count: count(2), Usernames: []string{"bob", "erin"}, Basis: BasisFriends, Args: today},
				Fans:              Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: BasisFans, Args: today},
				NotFollowingBack:  Category{Count: count(2), Usernames: []string{"henry", "ivan"}, Basis: BasisNotFollowingBack, Args: today},
				SecretFans:        Category{Count: count(2), Usernames: []string{"yara", "zed"}, Basis: BasisSecretFans, Args: twoPosts},
				InactiveFollowers: Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: BasisInactiveFollowers, Args: twoPosts},
			},
		},
		{
			name: "earlier snapshot without a follower list, no following list",
			change: func(in *Input) {
				in.Previous.Followers = nil
				in.Current.Following = nil
			},
			want: Audience{
				LostFollowers:     Category{Basis: BasisPreviousNoFollowers, Args: map[string]string{ArgThen: "2026-03-01"}},
				NewFollowers:      Category{Basis: BasisPreviousNoFollowers, Args: map[string]string{ArgThen: "2026-03-01"}},
				Friends:           Category{Basis: BasisNoFollowing},
				Fans:              Category{Basis: BasisNoFollowing},
				NotFollowingBack:  Category{Basis: BasisNoFollowing},
				SecretFans:        Category{Count: count(2), Usernames: []string{"yara", "zed"}, Basis: BasisSecretFans, Args: twoPosts},
				InactiveFollowers: Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: BasisInactiveFollowers, Args: twoPosts},
			},
		},
		{
			name: "no follower list: nothing can be counted (the official API)",
			change: func(in *Input) {
				in.Current.Followers = nil
			},
			want: func() Audience {
				c := Category{Basis: BasisNoFollowers}
				return Audience{c, c, c, c, c, c, c}
			}(),
		},
		{
			name: "commenters unknown for a post with comments (an export)",
			change: func(in *Input) {
				in.Current.Posts[1].Commenters = nil
			},
			want: Audience{
				LostFollowers:     Category{Count: count(2), Usernames: []string{"alice", "dave"}, Basis: BasisLostFollowers, Args: bothDays},
				NewFollowers:      Category{Count: count(3), Usernames: []string{"erin", "frank", "gina"}, Basis: BasisNewFollowers, Args: bothDays},
				Friends:           Category{Count: count(2), Usernames: []string{"bob", "erin"}, Basis: BasisFriends, Args: today},
				Fans:              Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: BasisFans, Args: today},
				NotFollowingBack:  Category{Count: count(2), Usernames: []string{"henry", "ivan"}, Basis: BasisNotFollowingBack, Args: today},
				SecretFans:        Category{Basis: BasisNoCommenters},
				InactiveFollowers: Category{Basis: BasisNoCommenters},
			},
		},
		{
			name: "no posts",
			change: func(in *Input) {
				in.Current.Posts = nil
			},
			want: Audience{
				LostFollowers:     Category{Count: count(2), Usernames: []string{"alice", "dave"}, Basis: BasisLostFollowers, Args: bothDays},
				NewFollowers:      Category{Count: count(3), Usernames: []string{"erin", "frank", "gina"}, Basis: BasisNewFollowers, Args: bothDays},
				Friends:           Category{Count: count(2), Usernames: []string{"bob", "erin"}, Basis: BasisFriends, Args: today},
				Fans:              Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: BasisFans, Args: today},
				NotFollowingBack:  Category{Count: count(2), Usernames: []string{"henry", "ivan"}, Basis: BasisNotFollowingBack, Args: today},
				SecretFans:        Category{Basis: BasisNoPosts},
				InactiveFollowers: Category{Basis: BasisNoPosts},
			},
		},
		{
			name: "one post without comments: nobody commented, so every follower is inactive",
			change: func(in *Input) {
				in.Current.Posts = []Post{{ID: "quiet", TakenAt: at(40), Likes: 9}}
			},
			want: Audience{
				LostFollowers:    Category{Count: count(2), Usernames: []string{"alice", "dave"}, Basis: BasisLostFollowers, Args: bothDays},
				NewFollowers:     Category{Count: count(3), Usernames: []string{"erin", "frank", "gina"}, Basis: BasisNewFollowers, Args: bothDays},
				Friends:          Category{Count: count(2), Usernames: []string{"bob", "erin"}, Basis: BasisFriends, Args: today},
				Fans:             Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: BasisFans, Args: today},
				NotFollowingBack: Category{Count: count(2), Usernames: []string{"henry", "ivan"}, Basis: BasisNotFollowingBack, Args: today},
				SecretFans: Category{Count: count(0), Usernames: []string{},
					Basis: BasisSecretFansOnePost},
				InactiveFollowers: Category{Count: count(5), Usernames: []string{"Carol", "bob", "erin", "frank", "gina"},
					Basis: BasisInactiveFollowersOnePost},
			},
		},
		{
			name: "empty lists are known and empty",
			change: func(in *Input) {
				in.Previous.Followers = []string{}
				in.Current.Followers = []string{}
				in.Current.Following = []string{}
			},
			want: Audience{
				LostFollowers:    Category{Count: count(0), Usernames: []string{}, Basis: BasisLostFollowers, Args: bothDays},
				NewFollowers:     Category{Count: count(0), Usernames: []string{}, Basis: BasisNewFollowers, Args: bothDays},
				Friends:          Category{Count: count(0), Usernames: []string{}, Basis: BasisFriends, Args: today},
				Fans:             Category{Count: count(0), Usernames: []string{}, Basis: BasisFans, Args: today},
				NotFollowingBack: Category{Count: count(0), Usernames: []string{}, Basis: BasisNotFollowingBack, Args: today},
				// commenters {erin zed bob yara} − {} = all four
				SecretFans:        Category{Count: count(4), Usernames: []string{"bob", "erin", "yara", "zed"}, Basis: BasisSecretFans, Args: twoPosts},
				InactiveFollowers: Category{Count: count(0), Usernames: []string{}, Basis: BasisInactiveFollowers, Args: twoPosts},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := audienceFixture()
			tt.change(&in)
			got := Analyse(in).Audience
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("audience (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnalyseWholeResult(t *testing.T) {
	t.Parallel()
	in := audienceFixture()
	in.Current.FollowerCount = 5
	in.Current.Posts[0].Likes = 7
	in.Current.Posts[1].Likes = 3
	got := Analyse(in)
	want := Result{
		TakenAt:    day0.Add(24 * time.Hour),
		NextUpdate: day0.Add(48 * time.Hour),
		// Latest 2 posts: ΣL = 7 + 3 = 10, ΣC = 3 + 2 = 5, N = 2.
		// ER = (15 / 2) / 5 × 100 = 150 %: tier < 1k, level 5.
		Engagement: Engagement{
			Rate: 150, Level: 5, Status: LevelHigh, Followers: 5, PostsAnalysed: 2,
			TotalLikes: 10, TotalComments: 5, AverageLikes: 5, AverageComments: 2.5,
		},
		MostLiked:     []TopPost{{ID: "p1", TakenAt: at(30), Count: 7}, {ID: "p2", TakenAt: at(29), Count: 3}},
		MostCommented: []TopPost{{ID: "p1", TakenAt: at(30), Count: 3}, {ID: "p2", TakenAt: at(29), Count: 2}},
		Audience:      Analyse(audienceFixture()).Audience,
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}
