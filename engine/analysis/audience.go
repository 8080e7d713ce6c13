package analysis

import (
	"strconv"
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
	// Basis says what the group is based on or why it could not be
	// computed, as a code the screen turns into its brand's words, with Args
	// filling the code's placeholders (text.go). Groups built from comments
	// say that likes are invisible, so a reader does not take them for more
	// than they are.
	Basis Code
	Args  map[string]string
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

// audience computes the audience groups of current, against previous for the
// follower changes and against the commenters of posts for secret fans and
// inactive followers.
func audience(current Snapshot, previous *Snapshot, posts []Post, sampleSize int) Audience {
	h := newHasher()
	var a Audience
	unknown := func(basis Code, args map[string]string, categories ...*Category) {
		for _, c := range categories {
			*c = Category{Basis: basis, Args: args}
		}
	}
	known := func(count int, usernames []string, basis Code, args map[string]string) Category {
		return Category{Count: &count, Usernames: usernames, Basis: basis, Args: args}
	}

	if current.Followers == nil {
		unknown(BasisNoFollowers, nil, &a.LostFollowers, &a.NewFollowers, &a.Friends, &a.Fans, &a.NotFollowingBack, &a.SecretFans, &a.InactiveFollowers)
		return a
	}
	var previousFollowers []string
	if previous != nil {
		previousFollowers = previous.Followers
	}
	commenters, commentersKnown := commentersOf(posts)
	// Hashing the lists is most of the work, and each list is hashed on
	// its own, so they are hashed at once.
	lists := h.lists(current.Followers, previousFollowers, current.Following, commenters)
	followers := lists[0]
	now := day(current.TakenAt)

	switch {
	case previous == nil:
		unknown(BasisNoPrevious, nil, &a.LostFollowers, &a.NewFollowers)
	case previous.Followers == nil:
		unknown(BasisPreviousNoFollowers, map[string]string{ArgThen: day(previous.TakenAt)}, &a.LostFollowers, &a.NewFollowers)
	default:
		before := lists[1]
		lost, _, gained := overlap(before.set, followers.set)
		dates := map[string]string{ArgThen: day(previous.TakenAt), ArgNow: now}
		a.LostFollowers = known(lost, h.sample(before, followers.set, false, sampleSize), BasisLostFollowers, dates)
		a.NewFollowers = known(gained, h.sample(followers, before.set, false, sampleSize), BasisNewFollowers, dates)
	}

	if current.Following == nil {
		unknown(BasisNoFollowing, nil, &a.Friends, &a.Fans, &a.NotFollowingBack)
	} else {
		following := lists[2]
		fans, friends, notBack := overlap(followers.set, following.set)
		on := map[string]string{ArgNow: now}
		a.Friends = known(friends, h.sample(followers, following.set, true, sampleSize), BasisFriends, on)
		a.Fans = known(fans, h.sample(followers, following.set, false, sampleSize), BasisFans, on)
		a.NotFollowingBack = known(notBack, h.sample(following, followers.set, false, sampleSize), BasisNotFollowingBack, on)
	}

	switch {
	case len(posts) == 0:
		unknown(BasisNoPosts, nil, &a.SecretFans, &a.InactiveFollowers)
	case !commentersKnown:
		unknown(BasisNoCommenters, nil, &a.SecretFans, &a.InactiveFollowers)
	default:
		engaged := lists[3]
		inactive, _, secret := overlap(followers.set, engaged.set)
		secretBasis, inactiveBasis := BasisSecretFans, BasisInactiveFollowers
		args := map[string]string{ArgPosts: strconv.Itoa(len(posts))}
		if len(posts) == 1 {
			secretBasis, inactiveBasis, args = BasisSecretFansOnePost, BasisInactiveFollowersOnePost, nil
		}
		a.SecretFans = known(secret, h.sample(engaged, followers.set, false, sampleSize), secretBasis, args)
		a.InactiveFollowers = known(inactive, h.sample(followers, engaged.set, false, sampleSize), inactiveBasis, args)
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

// day is the date arg of t's day, in the snapshot's own time zone.
func day(t time.Time) string { return t.Format(DateLayout) }
