package analysis

import (
	"strings"
	"time"
)

// Code names a sentence or label that a person reads, without its words.
// The package never writes copy: a partner brand in another language sets
// the text of each code in its copy (content/brands/<key>.json), and the
// screens look it up there, filling the {placeholders} from the Args that go
// with it. Codes are copy keys, all under "analysis.".
//
// A Code is stored inside the analysis result as a plain string, which is
// also what results stored before codes existed hold: an English sentence.
// Such a string has no copy and is shown as it is (see screens).
type Code string

// The reasons an audience group could not be computed; they take no args.
const (
	BasisNoPrevious   Code = "analysis.basis.noPrevious"
	BasisNoFollowers  Code = "analysis.basis.noFollowers"
	BasisNoFollowing  Code = "analysis.basis.noFollowing"
	BasisNoPosts      Code = "analysis.basis.noPosts"
	BasisNoCommenters Code = "analysis.basis.noCommenters"
)

// What a computed (or, for BasisPreviousNoFollowers, uncomputable) audience
// group is based on. Their args are listed with each.
const (
	// BasisPreviousNoFollowers: ArgThen.
	BasisPreviousNoFollowers Code = "analysis.basis.previousNoFollowers"
	// BasisLostFollowers and BasisNewFollowers: ArgThen and ArgNow.
	BasisLostFollowers Code = "analysis.basis.lostFollowers"
	BasisNewFollowers  Code = "analysis.basis.newFollowers"
	// BasisFriends, BasisFans and BasisNotFollowingBack: ArgNow.
	BasisFriends          Code = "analysis.basis.friends"
	BasisFans             Code = "analysis.basis.fans"
	BasisNotFollowingBack Code = "analysis.basis.notFollowingBack"
	// The groups built from comments, over one post (no args) or several
	// (ArgPosts). Two codes rather than one with a count, because languages
	// word "your latest post" and "any of your latest N posts" differently.
	BasisSecretFansOnePost        Code = "analysis.basis.secretFansOnePost"
	BasisSecretFans               Code = "analysis.basis.secretFans"
	BasisInactiveFollowersOnePost Code = "analysis.basis.inactiveFollowersOnePost"
	BasisInactiveFollowers        Code = "analysis.basis.inactiveFollowers"
)

// The engagement level labels, Level 0 (not enough data) to 5: the default
// Thresholds.Labels.
const (
	LevelNotEnoughData Code = "analysis.level.0"
	LevelLow           Code = "analysis.level.1"
	LevelBelowAverage  Code = "analysis.level.2"
	LevelAverage       Code = "analysis.level.3"
	LevelAboveAverage  Code = "analysis.level.4"
	LevelHigh          Code = "analysis.level.5"
)

// The problems a profile records when an update fails (engine/profile), shown
// on the Analytics screen. They take no args.
const (
	// ProblemAnalyseFailed: analysing stored snapshots failed; the next
	// attempt is soon.
	ProblemAnalyseFailed Code = "analysis.problem.analyseFailed"
	// ProblemRefreshFailed: the scheduled refresh failed; it is retried
	// within the hour.
	ProblemRefreshFailed Code = "analysis.problem.refreshFailed"
)

// Codes lists every code above, so a test can check that the default brand
// has copy for each.
var Codes = []Code{
	BasisNoPrevious, BasisNoFollowers, BasisNoFollowing, BasisNoPosts, BasisNoCommenters,
	BasisPreviousNoFollowers, BasisLostFollowers, BasisNewFollowers,
	BasisFriends, BasisFans, BasisNotFollowingBack,
	BasisSecretFansOnePost, BasisSecretFans, BasisInactiveFollowersOnePost, BasisInactiveFollowers,
	LevelNotEnoughData, LevelLow, LevelBelowAverage, LevelAverage, LevelAboveAverage, LevelHigh,
	ProblemAnalyseFailed, ProblemRefreshFailed,
}

// The args of the codes. Copy refers to them as {then}, {now} and {posts}.
const (
	// ArgNow is the day of the current snapshot, ArgThen that of the earlier
	// one, both in DateLayout: the screen writes dates the way its brand
	// does, so they are not formatted here.
	ArgNow  = "now"
	ArgThen = "then"
	// ArgPosts is the number of posts analysed, in decimal digits.
	ArgPosts = "posts"
)

// DateLayout is the layout of the date args (ISO 8601 calendar date).
const DateLayout = "2006-01-02"

// Words is the text of code from lookup (a brand's copy, reporting whether it
// knows the key), its {placeholders} filled from args, date args written by
// date. A code lookup does not know is returned as it is: results and
// problems stored before codes existed hold English sentences, and configured
// threshold labels may be words rather than codes.
func Words(lookup func(key string) (string, bool), code Code, args map[string]string, date func(time.Time) string) string {
	text, ok := lookup(string(code))
	if !ok {
		return string(code)
	}
	pairs := make([]string, 0, 2*len(args))
	for name, v := range args {
		if d, err := time.Parse(DateLayout, v); err == nil {
			v = date(d)
		}
		pairs = append(pairs, "{"+name+"}", v)
	}
	return strings.NewReplacer(pairs...).Replace(text)
}
