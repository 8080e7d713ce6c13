package analysis

import (
	"cmp"
	"slices"
	"strings"
)

// The audience groups Members lists, by the names the Analytics screen
// gives their lists.
const (
	GroupLostFollowers     = "lost-followers"
	GroupNewFollowers      = "new-followers"
	GroupSecretFans        = "secret-fans"
	GroupInactiveFollowers = "inactive-followers"
	GroupFriends           = "friends"
	GroupFans              = "fans"
	GroupNotFollowingBack  = "not-following-back"
)

// Groups lists the group names Members knows.
var Groups = []string{GroupLostFollowers, GroupNewFollowers, GroupSecretFans, GroupInactiveFollowers,
	GroupFriends, GroupFans, GroupNotFollowingBack}

// Members returns every name of one audience group of in, defined as
// Audience defines it, spelled as the source spelled it (the first spelling
// of an account a list holds in several cases), in natural order
// (CompareNatural). ok is false for an unknown group and where the group's
// Category has no count: the source does not give what it needs.
func Members(in Input, group string) (names []string, ok bool) {
	current := in.Current
	if current.Followers == nil {
		return nil, false
	}
	var from, against []string
	keep := false // keep names also in against (an intersection), else drop them
	switch group {
	case GroupLostFollowers, GroupNewFollowers:
		if in.Previous == nil || in.Previous.Followers == nil {
			return nil, false
		}
		from, against = current.Followers, in.Previous.Followers
		if group == GroupLostFollowers {
			from, against = in.Previous.Followers, current.Followers
		}
	case GroupFriends, GroupFans, GroupNotFollowingBack:
		if current.Following == nil {
			return nil, false
		}
		from, against, keep = current.Followers, current.Following, group == GroupFriends
		if group == GroupNotFollowingBack {
			from, against = current.Following, current.Followers
		}
	case GroupSecretFans, GroupInactiveFollowers:
		latest := latestPosts(current.Posts, positive(in.LatestN, DefaultLatestN))
		commenters, known := commentersOf(latest)
		if len(latest) == 0 || !known {
			return nil, false
		}
		from, against = current.Followers, commenters
		if group == GroupSecretFans {
			from, against = commenters, current.Followers
		}
	default:
		return nil, false
	}
	other := make(map[string]struct{}, len(against))
	for _, name := range against {
		other[foldASCII(name)] = struct{}{}
	}
	seen := make(map[string]struct{}, len(from))
	names = []string{}
	for _, name := range from {
		key := foldASCII(name)
		if _, dup := seen[key]; dup {
			continue
		}
		seen[key] = struct{}{}
		if _, in := other[key]; in == keep {
			names = append(names, name)
		}
	}
	slices.SortFunc(names, CompareNatural)
	return names, true
}

// foldASCII lower-cases ASCII letters only, as usernames compare.
func foldASCII(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// CompareNatural orders names as a reader expects: runs of digits by their
// value (brook2723 before brook27210, which byte order puts first), other
// characters case-insensitively (ASCII), and equal-reading names by their
// bytes so the order is total.
func CompareNatural(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			// Compare the runs' values: without leading zeros, the longer is
			// larger; of equal length, the first differing digit decides.
			da, db := strings.TrimLeft(a[si:i], "0"), strings.TrimLeft(b[sj:j], "0")
			if len(da) != len(db) {
				return cmp.Compare(len(da), len(db))
			}
			if c := strings.Compare(da, db); c != 0 {
				return c
			}
			continue
		}
		la, lb := foldByte(ca), foldByte(cb)
		if la != lb {
			return cmp.Compare(la, lb)
		}
		i++
		j++
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func foldByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
