package analysis

import (
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The 1M benchmarks analyse a profile with 1,000,000 followers and 1,000,000
// following (half of them mutual), an earlier snapshot with 2 % churn, and
// 1,000 posts with commenters. BenchmarkBaselineMaps1M does the same set
// operations with plain Go maps, so the two can be compared as a ratio
// measured in one run (docs/benchmarks.md §1: absolute numbers drift).
//
//	go test -run '^$' -bench 1M -benchmem -benchtime 3x ./engine/analysis/

const (
	benchFollowers = 1_000_000
	benchChurn     = 20_000 // 2 % lost and 2 % new since the earlier snapshot
	benchPosts     = 1_000
)

// The sizes the generated input is built to have; the benchmark checks
// Analyse finds exactly these.
var benchWant = map[string]int{
	"lost": benchChurn, "new": benchChurn,
	"friends": benchFollowers / 2, "fans": benchFollowers / 2, "notBack": benchFollowers / 2,
}

var benchInput = sync.OnceValue(func() Input {
	r := rand.New(rand.NewPCG(2026, 3))
	// Distinct usernames: random letters for realism, a base-36 counter for
	// uniqueness. 0…1M follow you now, 1.5M…1.52M followed you before,
	// 0.5M…1.5M are followed by you, and the rest only comment.
	pool := make([]string, benchFollowers*3/2+benchChurn+50_000)
	letters := make([]byte, 0, 16)
	for i := range pool {
		letters = letters[:0]
		for range 4 + r.IntN(8) {
			letters = append(letters, byte('a'+r.IntN(26)))
		}
		pool[i] = string(letters) + "." + strconv.FormatInt(int64(i), 36)
	}
	shuffled := func(names []string) []string {
		names = slices.Clone(names)
		r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		return names
	}
	followers := shuffled(pool[:benchFollowers])
	following := shuffled(pool[benchFollowers/2 : benchFollowers*3/2])
	lost := pool[benchFollowers*3/2 : benchFollowers*3/2+benchChurn]
	previous := shuffled(append(slices.Clone(pool[benchChurn:benchFollowers]), lost...))
	outsiders := pool[benchFollowers*3/2+benchChurn:]

	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	posts := make([]Post, benchPosts)
	for i := range posts {
		commenters := make([]string, 5+r.IntN(40))
		for j := range commenters {
			if r.IntN(10) == 0 {
				commenters[j] = outsiders[r.IntN(len(outsiders))]
			} else {
				commenters[j] = followers[r.IntN(len(followers))]
			}
		}
		posts[i] = Post{
			ID: strconv.Itoa(i), TakenAt: start.Add(time.Duration(i) * 7 * time.Hour),
			Likes: 200 + r.IntN(5_000), Comments: len(commenters), Commenters: commenters,
			PictureURL: "https://cdn.example/" + strconv.Itoa(i) + ".jpg",
		}
	}
	return Input{
		Previous: &Snapshot{TakenAt: start, FollowerCount: len(previous), Followers: previous},
		Current: Snapshot{
			TakenAt: start.Add(24 * time.Hour), FollowerCount: len(followers),
			Followers: followers, Following: following, Posts: posts,
		},
	}
})

func BenchmarkAnalyse1M(b *testing.B) {
	in := benchInput()
	got := Analyse(in).Audience
	for name, c := range map[string]Category{"lost": got.LostFollowers, "new": got.NewFollowers, "friends": got.Friends, "fans": got.Fans, "notBack": got.NotFollowingBack} {
		if c.Count == nil || *c.Count != benchWant[name] {
			b.Fatalf("%s = %v, want %d", name, c.Count, benchWant[name])
		}
	}
	peak := watchHeap(b)
	for b.Loop() {
		Analyse(in)
	}
	peak()
}

// BenchmarkBaselineMaps1M is the straightforward way: one map[string]struct{}
// per list and a lookup per name, counting the same seven groups as Analyse.
// It neither folds case nor lists names, so it does less than Analyse.
func BenchmarkBaselineMaps1M(b *testing.B) {
	in := benchInput()
	if got := baselineMaps(in); got["lost"] != benchWant["lost"] || got["friends"] != benchWant["friends"] {
		b.Fatalf("baseline = %v", got)
	}
	peak := watchHeap(b)
	for b.Loop() {
		baselineMaps(in)
	}
	peak()
}

func baselineMaps(in Input) map[string]int {
	toSet := func(names []string) map[string]struct{} {
		set := make(map[string]struct{}, len(names))
		for _, name := range names {
			set[name] = struct{}{}
		}
		return set
	}
	minus := func(a, b map[string]struct{}) (n int) {
		for name := range a {
			if _, ok := b[name]; !ok {
				n++
			}
		}
		return n
	}
	var commenters []string
	for _, p := range latestPosts(in.Current.Posts, DefaultLatestN) {
		commenters = append(commenters, p.Commenters...)
	}
	followers, following := toSet(in.Current.Followers), toSet(in.Current.Following)
	previous, engaged := toSet(in.Previous.Followers), toSet(commenters)
	fans := minus(followers, following)
	return map[string]int{
		"lost":     minus(previous, followers),
		"new":      minus(followers, previous),
		"fans":     fans,
		"friends":  len(followers) - fans,
		"notBack":  minus(following, followers),
		"secret":   minus(engaged, followers),
		"inactive": minus(followers, engaged),
	}
}

// cpuTime is the CPU time the process has used: unlike wall time, it means
// something on a shared machine (docs/benchmarks.md §1).
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// watchHeap samples the bytes of live and not yet swept heap objects every
// millisecond until the returned function is called, which reports the peak
// as peak-heap-MB and the heap before the loop (mostly the generated input)
// as input-heap-MB, with the CPU time per operation as cpu-s/op. Their
// difference is what the analysis itself holds at
// its busiest, up to garbage the collector had not yet freed.
func watchHeap(b *testing.B) (stop func()) {
	b.Helper()
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	before := read()
	began := cpuTime(b)
	done, peakCh := make(chan struct{}), make(chan uint64)
	go func() {
		peak := before
		ticker := time.NewTicker(time.Millisecond)
		defer ticker.Stop()
		for {
			select {
			case <-done:
				peakCh <- peak
				return
			case <-ticker.C:
				peak = max(peak, read())
			}
		}
	}()
	return func() {
		close(done)
		peak := <-peakCh
		b.ReportMetric(float64(before)/(1<<20), "input-heap-MB")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		b.ReportMetric((cpuTime(b)-began).Seconds()/float64(b.N), "cpu-s/op")
	}
}
