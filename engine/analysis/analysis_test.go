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

const (
	basisLost      = "Followers on 1 Mar 2026 who no longer follow you on 2 Mar 2026."
	basisNew       = "Followers on 2 Mar 2026 who did not follow you on 1 Mar 2026."
	basisFriends   = "Accounts that follow you and that you follow, on 2 Mar 2026."
	basisFans      = "Accounts that follow you but that you don't follow, on 2 Mar 2026."
	basisNotBack   = "Accounts you follow that don't follow you, on 2 Mar 2026."
	basisSecret2   = "Accounts that commented on any of your latest 2 posts but don't follow you. Likes are not visible, so fans who only like are not counted."
	basisInactive2 = "Followers who did not comment on any of your latest 2 posts. Likes are not visible, so some of them may have liked your posts."
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
				LostFollowers: Category{Count: count(2), Usernames: []string{"alice", "dave"}, Basis: basisLost},
				// {bob carol erin frank gina} − {alice bob carol dave} = {erin frank gina}
				NewFollowers: Category{Count: count(3), Usernames: []string{"erin", "frank", "gina"}, Basis: basisNew},
				// followers ∩ following = {bob erin}
				Friends: Category{Count: count(2), Usernames: []string{"bob", "erin"}, Basis: basisFriends},
				// followers − following = {Carol frank gina}; "C" sorts before "f"
				Fans: Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: basisFans},
				// following − followers = {henry ivan}
				NotFollowingBack: Category{Count: count(2), Usernames: []string{"henry", "ivan"}, Basis: basisNotBack},
				// commenters {erin zed bob yara} − followers = {yara zed}
				SecretFans: Category{Count: count(2), Usernames: []string{"yara", "zed"}, Basis: basisSecret2},
				// followers − commenters = {Carol frank gina}; frank commented only outside the window
				InactiveFollowers: Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: basisInactive2},
			},
		},
		{
			name:   "samples are capped but counts are not",
			change: func(in *Input) { in.SampleSize = 2 },
			want: Audience{
				LostFollowers:     Category{Count: count(2), Usernames: []string{"alice", "dave"}, Basis: basisLost},
				NewFollowers:      Category{Count: count(3), Usernames: []string{"erin", "frank"}, Basis: basisNew},
				Friends:           Category{Count: count(2), Usernames: []string{"bob", "erin"}, Basis: basisFriends},
				Fans:              Category{Count: count(3), Usernames: []string{"Carol", "frank"}, Basis: basisFans},
				NotFollowingBack:  Category{Count: count(2), Usernames: []string{"henry", "ivan"}, Basis: basisNotBack},
				SecretFans:        Category{Count: count(2), Usernames: []string{"yara", "zed"}, Basis: basisSecret2},
				InactiveFollowers: Category{Count: count(3), Usernames: []string{"Carol", "frank"}, Basis: basisInactive2},
			},
		},
		{
			name: "duplicates and case variants count once",
			change: func(in *Input) {
				in.Current.Followers = append(in.Current.Followers, "gina", "GINA", "", "Bob")
				in.Current.Following = append(in.Current.Following, "IVAN")
			},
			want: Audience{
				LostFollowers: Category{Count: count(2), Usernames: []string{"alice", "dave"}, Basis: basisLost},
				NewFollowers:  Category{Count: count(3), Usernames: []string{"erin", "frank", "gina"}, Basis: basisNew},
				// One spelling per account: the first one met in the list.
				Friends:           Category{Count: count(2), Usernames: []string{"bob", "erin"}, Basis: basisFriends},
				Fans:              Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: basisFans},
				NotFollowingBack:  Category{Count: count(2), Usernames: []string{"henry", "ivan"}, Basis: basisNotBack},
				SecretFans:        Category{Count: count(2), Usernames: []string{"yara", "zed"}, Basis: basisSecret2},
				InactiveFollowers: Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: basisInactive2},
			},
		},
		{
			name:   "no earlier snapshot",
			change: func(in *Input) { in.Previous = nil },
			want: Audience{
				LostFollowers:     Category{Basis: "Needs an earlier snapshot of your followers to compare with."},
				NewFollowers:      Category{Basis: "Needs an earlier snapshot of your followers to compare with."},
				Friends:           Category{Count: count(2), Usernames: []string{"bob", "erin"}, Basis: basisFriends},
				Fans:              Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: basisFans},
				NotFollowingBack:  Category{Count: count(2), Usernames: []string{"henry", "ivan"}, Basis: basisNotBack},
				SecretFans:        Category{Count: count(2), Usernames: []string{"yara", "zed"}, Basis: basisSecret2},
				InactiveFollowers: Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: basisInactive2},
			},
		},
		{
			name: "earlier snapshot without a follower list, no following list",
			change: func(in *Input) {
				in.Previous.Followers = nil
				in.Current.Following = nil
			},
			want: Audience{
				LostFollowers:     Category{Basis: "The earlier snapshot of 1 Mar 2026 has no list of followers to compare with."},
				NewFollowers:      Category{Basis: "The earlier snapshot of 1 Mar 2026 has no list of followers to compare with."},
				Friends:           Category{Basis: "Needs the list of accounts you follow, which the data source does not give."},
				Fans:              Category{Basis: "Needs the list of accounts you follow, which the data source does not give."},
				NotFollowingBack:  Category{Basis: "Needs the list of accounts you follow, which the data source does not give."},
				SecretFans:        Category{Count: count(2), Usernames: []string{"yara", "zed"}, Basis: basisSecret2},
				InactiveFollowers: Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: basisInactive2},
			},
		},
		{
			name: "no follower list: nothing can be counted (the official API)",
			change: func(in *Input) {
				in.Current.Followers = nil
			},
			want: func() Audience {
				c := Category{Basis: "Needs your list of followers, which the data source does not give."}
				return Audience{c, c, c, c, c, c, c}
			}(),
		},
		{
			name: "commenters unknown for a post with comments (an export)",
			change: func(in *Input) {
				in.Current.Posts[1].Commenters = nil
			},
			want: Audience{
				LostFollowers:     Category{Count: count(2), Usernames: []string{"alice", "dave"}, Basis: basisLost},
				NewFollowers:      Category{Count: count(3), Usernames: []string{"erin", "frank", "gina"}, Basis: basisNew},
				Friends:           Category{Count: count(2), Usernames: []string{"bob", "erin"}, Basis: basisFriends},
				Fans:              Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: basisFans},
				NotFollowingBack:  Category{Count: count(2), Usernames: []string{"henry", "ivan"}, Basis: basisNotBack},
				SecretFans:        Category{Basis: "Needs the usernames of the people who commented on your posts, which the data source does not give."},
				InactiveFollowers: Category{Basis: "Needs the usernames of the people who commented on your posts, which the data source does not give."},
			},
		},
		{
			name: "no posts",
			change: func(in *Input) {
				in.Current.Posts = nil
			},
			want: Audience{
				LostFollowers:     Category{Count: count(2), Usernames: []string{"alice", "dave"}, Basis: basisLost},
				NewFollowers:      Category{Count: count(3), Usernames: []string{"erin", "frank", "gina"}, Basis: basisNew},
				Friends:           Category{Count: count(2), Usernames: []string{"bob", "erin"}, Basis: basisFriends},
				Fans:              Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: basisFans},
				NotFollowingBack:  Category{Count: count(2), Usernames: []string{"henry", "ivan"}, Basis: basisNotBack},
				SecretFans:        Category{Basis: "Needs at least one post to look at."},
				InactiveFollowers: Category{Basis: "Needs at least one post to look at."},
			},
		},
		{
			name: "one post without comments: nobody commented, so every follower is inactive",
			change: func(in *Input) {
				in.Current.Posts = []Post{{ID: "quiet", TakenAt: at(40), Likes: 9}}
			},
			want: Audience{
				LostFollowers:    Category{Count: count(2), Usernames: []string{"alice", "dave"}, Basis: basisLost},
				NewFollowers:     Category{Count: count(3), Usernames: []string{"erin", "frank", "gina"}, Basis: basisNew},
				Friends:          Category{Count: count(2), Usernames: []string{"bob", "erin"}, Basis: basisFriends},
				Fans:             Category{Count: count(3), Usernames: []string{"Carol", "frank", "gina"}, Basis: basisFans},
				NotFollowingBack: Category{Count: count(2), Usernames: []string{"henry", "ivan"}, Basis: basisNotBack},
				SecretFans: Category{Count: count(0), Usernames: []string{},
					Basis: "Accounts that commented on your latest post but don't follow you. Likes are not visible, so fans who only like are not counted."},
				InactiveFollowers: Category{Count: count(5), Usernames: []string{"Carol", "bob", "erin", "frank", "gina"},
					Basis: "Followers who did not comment on your latest post. Likes are not visible, so some of them may have liked your posts."},
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
				LostFollowers:    Category{Count: count(0), Usernames: []string{}, Basis: basisLost},
				NewFollowers:     Category{Count: count(0), Usernames: []string{}, Basis: basisNew},
				Friends:          Category{Count: count(0), Usernames: []string{}, Basis: basisFriends},
				Fans:             Category{Count: count(0), Usernames: []string{}, Basis: basisFans},
				NotFollowingBack: Category{Count: count(0), Usernames: []string{}, Basis: basisNotBack},
				// commenters {erin zed bob yara} − {} = all four
				SecretFans:        Category{Count: count(4), Usernames: []string{"bob", "erin", "yara", "zed"}, Basis: basisSecret2},
				InactiveFollowers: Category{Count: count(0), Usernames: []string{}, Basis: basisInactive2},
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
			Rate: 150, Level: 5, Status: "High", Followers: 5, PostsAnalysed: 2,
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
