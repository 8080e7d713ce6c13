package analysis

import (
	"slices"
	"strconv"
	"testing"
)

func TestCompareNatural(t *testing.T) {
	t.Parallel()
	want := []string{"Anna", "anna1", "anna2", "anna02b", "anna10", "brook2723", "brook27210", "brook9999999999999999999999", "brook10000000000000000000000", "zed"}
	got := slices.Clone(want)
	slices.Reverse(got)
	slices.SortFunc(got, CompareNatural)
	if !slices.Equal(got, want) {
		t.Fatalf("natural order\n got %q\nwant %q", got, want)
	}
	// Names that read the same are still ordered, by their bytes.
	if CompareNatural("ann01", "ann1") == 0 || CompareNatural("Bob", "bob") == 0 {
		t.Fatal("different names compare equal")
	}
	for _, pair := range [][2]string{{"a", "a"}, {"", ""}} {
		if CompareNatural(pair[0], pair[1]) != 0 {
			t.Fatalf("%q and %q differ", pair[0], pair[1])
		}
	}
}

// Members lists every name Audience counts, for each group of the hand-made
// fixture, in natural order.
func TestMembersOfEachGroup(t *testing.T) {
	t.Parallel()
	in := audienceFixture()
	want := map[string][]string{
		GroupLostFollowers:     {"alice", "dave"},
		GroupNewFollowers:      {"erin", "frank", "gina"},
		GroupFriends:           {"bob", "erin"},
		GroupFans:              {"Carol", "frank", "gina"},
		GroupNotFollowingBack:  {"henry", "ivan"},
		GroupSecretFans:        {"yara", "zed"},
		GroupInactiveFollowers: {"Carol", "frank", "gina"},
	}
	a := Analyse(in).Audience
	counts := map[string]*int{GroupLostFollowers: a.LostFollowers.Count, GroupNewFollowers: a.NewFollowers.Count,
		GroupFriends: a.Friends.Count, GroupFans: a.Fans.Count, GroupNotFollowingBack: a.NotFollowingBack.Count,
		GroupSecretFans: a.SecretFans.Count, GroupInactiveFollowers: a.InactiveFollowers.Count}
	for _, group := range Groups {
		got, ok := Members(in, group)
		if !ok || !slices.Equal(got, want[group]) {
			t.Errorf("%s: %q %v, want %q", group, got, ok, want[group])
		}
		if counts[group] == nil || *counts[group] != len(got) {
			t.Errorf("%s: %d names, Audience counts %v", group, len(got), counts[group])
		}
	}
}

// A large list comes back whole (no sample limit) and naturally ordered.
func TestMembersIsTheWholeGroup(t *testing.T) {
	t.Parallel()
	followers := make([]string, 0, 3000)
	for i := 3000; i > 0; i-- {
		followers = append(followers, "brook"+strconv.Itoa(i))
	}
	got, ok := Members(Input{Current: Snapshot{Followers: followers, Following: []string{}}}, GroupFans)
	if !ok || len(got) != 3000 || got[0] != "brook1" || got[1] != "brook2" || got[2999] != "brook3000" {
		t.Fatalf("%v %d %q…", ok, len(got), got[:3])
	}
}

func TestMembersUnknown(t *testing.T) {
	t.Parallel()
	in := audienceFixture()
	if _, ok := Members(in, "everyone"); ok {
		t.Error("an unknown group was listed")
	}
	in.Previous = nil
	if _, ok := Members(in, GroupLostFollowers); ok {
		t.Error("lost followers without an earlier snapshot")
	}
	in.Current.Following = nil
	if _, ok := Members(in, GroupFans); ok {
		t.Error("fans without the following list")
	}
	in.Current.Followers = nil
	if _, ok := Members(in, GroupSecretFans); ok {
		t.Error("secret fans without the follower list")
	}
}
