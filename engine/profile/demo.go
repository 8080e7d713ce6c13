package profile

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"glimpse/engine/analysis"
)

// Demo profile shape: tens of thousands of followers, a few hundred posts.
const (
	demoPopulation = 30000 // accounts that may follow the demo profile
	demoFollowing  = 900
	demoPosts      = 320
	demoPictures   = 6
)

// DemoSnapshot generates the demo profile as it looks at `at`, the same for
// the same seed and time: a realistic, slowly changing audience (about 0.5%
// leaves and a little more arrives each day) and a posting history with
// likes and comments in believable proportions. It lets the analytics work
// on a bare machine with nothing connected.
func DemoSnapshot(seed int64, at time.Time) analysis.Snapshot {
	day := int(at.Unix() / 86400)
	followers := make([]string, 0, demoPopulation)
	for i := 0; i < demoPopulation; i++ {
		if demoFollows(seed, i, day) {
			followers = append(followers, demoName(seed, i))
		}
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	following := make([]string, 0, demoFollowing)
	for len(following) < demoFollowing {
		// Most accounts followed back are followers (friends); some are not.
		i := rng.IntN(demoPopulation + demoPopulation/5)
		following = append(following, demoName(seed, i))
	}
	posts := make([]analysis.Post, 0, demoPosts)
	postRng := rand.New(rand.NewPCG(uint64(seed), 11))
	latest := time.Unix(int64(day)*86400+18*3600, 0).UTC() // the day's post at 18:00 UTC
	if latest.After(at) {
		latest = latest.Add(-36 * time.Hour)
	}
	for n := 0; n < demoPosts; n++ {
		taken := latest.Add(-time.Duration(n) * 36 * time.Hour)
		// Likes around 2.4% of followers, varying post to post.
		likes := int(float64(len(followers)) * 0.024 * math.Exp(postRng.NormFloat64()*0.45))
		comments := max(0, int(float64(likes)*0.06*math.Exp(postRng.NormFloat64()*0.5)))
		commenters := make([]string, 0, min(comments, 40))
		for k := 0; k < min(comments, 40); k++ {
			// Mostly followers; about one in six is not following (a
			// secret fan).
			commenters = append(commenters, demoName(seed, postRng.IntN(demoPopulation+demoPopulation/5)))
		}
		id := "demo-" + strconv.FormatInt(taken.Unix(), 10)
		posts = append(posts, analysis.Post{ID: id, TakenAt: taken, Likes: likes, Comments: comments,
			PictureURL: DemoPicture(id), Commenters: commenters})
	}
	return analysis.Snapshot{TakenAt: at.UTC(), FollowerCount: len(followers), Followers: followers,
		Following: following, Posts: posts}
}

// DemoPicture is the bundled picture a demo post shows.
func DemoPicture(postID string) string {
	h := fnv.New32a()
	h.Write([]byte(postID))
	return "/static/posts/demo-" + strconv.Itoa(int(h.Sum32()%demoPictures)+1) + ".svg"
}

// demoFollows decides whether account i follows on a given day: each
// account joins on some day and may leave on a later one.
func demoFollows(seed int64, i, day int) bool {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d:%d", seed, i)
	v := h.Sum64()
	const epoch = 20000              // days since 1970, mid-2024
	joined := epoch + int(v%900)     // joined over ~2.5 years
	stays := 200 + int((v>>20)%1500) // stays 200 to 1700 days
	return day >= joined && day < joined+stays
}

func demoName(seed int64, i int) string {
	words := []string{"sun", "moss", "pixel", "coast", "lumen", "fern", "nova", "brook", "ember", "cedar", "vale", "kite"}
	h := fnv.New32a()
	fmt.Fprintf(h, "%d:%d", seed, i)
	v := h.Sum32()
	return words[v%12] + "." + words[(v>>8)%12] + strconv.Itoa(i)
}

// SeedDemo connects the demo profile for a user, with snapshots for the
// last three days, and analyses it, unless the user already has a profile.
func (s *Service) SeedDemo(ctx context.Context, userID string, seed int64) error {
	p, err := s.Get(ctx, userID)
	if err != nil {
		return err
	}
	if p.Status != StatusIdle {
		return nil
	}
	if err := s.Connect(ctx, userID, SourceDemo, "glimpse.demo", seed); err != nil {
		return err
	}
	now := s.clock.Now()
	for _, back := range []time.Duration{50 * time.Hour, 26 * time.Hour, 2 * time.Hour} {
		if _, err := s.AddSnapshot(ctx, userID, DemoSnapshot(seed, now.Add(-back))); err != nil {
			return err
		}
	}
	_, err = s.Analyse(ctx, userID)
	return err
}
