package analysis

import (
	"fmt"
	"time"
)

// Category is one audience group of the Analytics screen.
type Category struct {
	// Count is the size of the group, or nil when the data source does not
	// give what the group needs (the screen then shows no number).
	Count *int
	// Usernames are the first names of the group in byte order, at most
	// Input.SampleSize of them, as the source spelled them (one spelling per
	// account when a list holds case variants). Nil when Count is.
	Usernames []string
	// Basis says, in words a person can read, what the group is based on or
	// why it could not be computed. Groups built from comments say that likes
	// are invisible, so a reader does not take them for more than they are.
	Basis string
}

// Audience holds the audience groups, each defined as a set operation in
// docs/instagram.md §2.3. Fw is the follower list, Fg the following list and E the
// accounts that commented on the analysed posts.
type Audience struct {
	// LostFollowers is Fw(previous) − Fw(current).
	LostFollowers Category
	// NewFollowers is Fw(current) − Fw(previous).
	NewFollowers Category
	// Friends ("Your friends") is Fw ∩ Fg: you follow each other.
	Friends Category
	// Fans ("Your fans") is Fw − Fg: they follow you, you don't follow back.
	Fans Category
	// NotFollowingBack is Fg − Fw: you follow them, they don't follow you.
	NotFollowingBack Category
	// SecretFans is E − Fw: they commented on your latest posts but don't
	// follow you. Likers cannot be seen, so it counts commenters only.
	SecretFans Category
	// InactiveFollowers is Fw − E: followers who did not comment on any of
	// the analysed posts. Some may have liked them; likers cannot be seen.
	InactiveFollowers Category
}

// The reasons a group cannot be computed.
const (
	basisNoPrevious   = "Needs an earlier snapshot of your followers to compare with."
	basisNoFollowers  = "Needs your list of followers, which the data source does not give."
	basisNoFollowing  = "Needs the list of accounts you follow, which the data source does not give."
	basisNoPosts      = "Needs at least one post to look at."
	basisNoCommenters = "Needs the usernames of the people who commented on your posts, which the data source does not give."
)

// audience computes the audience groups of current, against previous for the
// follower changes and against the commenters of posts for secret fans and
// inactive followers.
func audience(current Snapshot, previous *Snapshot, posts []Post, sampleSize int) Audience {
	h := newHasher()
	var scratch []uint64
	var a Audience
	unknown := func(basis string, categories ...*Category) {
		for _, c := range categories {
			*c = Category{Basis: basis}
		}
	}
	known := func(count int, usernames []string, basis string) Category {
		return Category{Count: &count, Usernames: usernames, Basis: basis}
	}

	if current.Followers == nil {
		unknown(basisNoFollowers, &a.LostFollowers, &a.NewFollowers, &a.Friends, &a.Fans, &a.NotFollowingBack, &a.SecretFans, &a.InactiveFollowers)
		return a
	}
	followers := h.list(current.Followers, &scratch)
	now := day(current.TakenAt)

	switch {
	case previous == nil:
		unknown(basisNoPrevious, &a.LostFollowers, &a.NewFollowers)
	case previous.Followers == nil:
		unknown(fmt.Sprintf("The earlier snapshot of %s has no list of followers to compare with.", day(previous.TakenAt)), &a.LostFollowers, &a.NewFollowers)
	default:
		before := h.list(previous.Followers, &scratch)
		lost, _, gained := overlap(before.set, followers.set)
		then := day(previous.TakenAt)
		a.LostFollowers = known(lost, h.sample(before, followers.set, false, sampleSize),
			fmt.Sprintf("Followers on %s who no longer follow you on %s.", then, now))
		a.NewFollowers = known(gained, h.sample(followers, before.set, false, sampleSize),
			fmt.Sprintf("Followers on %s who did not follow you on %s.", now, then))
	}

	if current.Following == nil {
		unknown(basisNoFollowing, &a.Friends, &a.Fans, &a.NotFollowingBack)
	} else {
		following := h.list(current.Following, &scratch)
		fans, friends, notBack := overlap(followers.set, following.set)
		a.Friends = known(friends, h.sample(followers, following.set, true, sampleSize),
			fmt.Sprintf("Accounts that follow you and that you follow, on %s.", now))
		a.Fans = known(fans, h.sample(followers, following.set, false, sampleSize),
			fmt.Sprintf("Accounts that follow you but that you don't follow, on %s.", now))
		a.NotFollowingBack = known(notBack, h.sample(following, followers.set, false, sampleSize),
			fmt.Sprintf("Accounts you follow that don't follow you, on %s.", now))
	}

	commenters, ok := commentersOf(posts)
	switch {
	case len(posts) == 0:
		unknown(basisNoPosts, &a.SecretFans, &a.InactiveFollowers)
	case !ok:
		unknown(basisNoCommenters, &a.SecretFans, &a.InactiveFollowers)
	default:
		engaged := h.list(commenters, &scratch)
		inactive, _, secret := overlap(followers.set, engaged.set)
		latest := latestPhrase(len(posts))
		a.SecretFans = known(secret, h.sample(engaged, followers.set, false, sampleSize),
			fmt.Sprintf("Accounts that commented on %s but don't follow you. Likes are not visible, so fans who only like are not counted.", latest))
		a.InactiveFollowers = known(inactive, h.sample(followers, engaged.set, false, sampleSize),
			fmt.Sprintf("Followers who did not comment on %s. Likes are not visible, so some of them may have liked your posts.", latest))
	}
	return a
}

// commentersOf returns the commenters of posts, and false when the source
// did not say who commented on a post that has comments.
func commentersOf(posts []Post) ([]string, bool) {
	var commenters []string
	for _, p := range posts {
		if p.Comments > 0 && len(p.Commenters) == 0 {
			return nil, false
		}
		commenters = append(commenters, p.Commenters...)
	}
	return commenters, true
}

func latestPhrase(n int) string {
	if n == 1 {
		return "your latest post"
	}
	return fmt.Sprintf("any of your latest %d posts", n)
}

func day(t time.Time) string { return t.Format("2 Jan 2006") }
