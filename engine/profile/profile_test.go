package profile_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine"
	"glimpse/engine/analysis"
	"glimpse/engine/profile"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

var start = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

func newService(t *testing.T) (*profile.Service, *engine.ManualClock) {
	t.Helper()
	clock := engine.NewManualClock(start)
	return profile.NewService(openStore(t), clock, slog.New(slog.DiscardHandler)), clock
}

func names(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%06d", prefix, i)
	}
	return out
}

func TestSnapshotListsRoundTripInChunks(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	ctx := context.Background()
	if err := svc.Connect(ctx, "u1", profile.SourceExport, "ann", 0); err != nil {
		t.Fatal(err)
	}
	// 45,001 followers span three chunks; following is unknown (nil).
	snap := analysis.Snapshot{TakenAt: start, FollowerCount: 45001, Followers: names("f", 45001),
		Posts: []analysis.Post{{ID: "p1", TakenAt: start.Add(-time.Hour), Likes: 3, Comments: 1}}}
	ref, err := svc.AddSnapshot(ctx, "u1", snap)
	if err != nil {
		t.Fatal(err)
	}
	got, err := svc.Snapshot(ctx, ref.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(snap, got); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
	if got.Following != nil {
		t.Fatal("an unknown list came back known")
	}
}

func TestAnalyseStoresResultAndStatus(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	ctx := context.Background()
	p, err := svc.Get(ctx, "u2")
	if err != nil || p.Status != profile.StatusIdle {
		t.Fatalf("a user with nothing connected: %+v %v", p, err)
	}
	if _, err := svc.Analyse(ctx, "u2"); err == nil {
		t.Fatal("analysing with no data must fail")
	}
	_ = svc.Connect(ctx, "u2", profile.SourceExport, "bo", 0)
	if p, _ := svc.Get(ctx, "u2"); p.Status != profile.StatusPending {
		t.Fatalf("after connecting: %s", p.Status)
	}
	prev := analysis.Snapshot{TakenAt: start.Add(-24 * time.Hour), Followers: []string{"a", "b", "c"}, Following: []string{"a"}}
	cur := analysis.Snapshot{TakenAt: start, Followers: []string{"b", "c", "d"}, Following: []string{"a", "b"},
		Posts: []analysis.Post{{ID: "p", TakenAt: start.Add(-time.Hour), Likes: 2, Comments: 1, Commenters: []string{"x"}}}}
	for _, s := range []analysis.Snapshot{prev, cur} {
		if _, err := svc.AddSnapshot(ctx, "u2", s); err != nil {
			t.Fatal(err)
		}
	}
	p, err = svc.Analyse(ctx, "u2")
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := svc.Get(ctx, "u2")
	if stored.Status != profile.StatusCompleted || stored.Result == nil {
		t.Fatalf("after analysing: %+v", stored)
	}
	a := stored.Result.Audience
	if *a.LostFollowers.Count != 1 || *a.NewFollowers.Count != 1 || *a.Friends.Count != 1 || *a.SecretFans.Count != 1 {
		t.Fatalf("audience from the two snapshots: lost %d new %d friends %d secret %d",
			*a.LostFollowers.Count, *a.NewFollowers.Count, *a.Friends.Count, *a.SecretFans.Count)
	}
	if !stored.NextRefresh.Equal(start.Add(24 * time.Hour)) {
		t.Fatalf("next refresh %v", stored.NextRefresh)
	}
	_ = p
}

func TestDemoProfileIsDeterministicAndRealistic(t *testing.T) {
	t.Parallel()
	a := profile.DemoSnapshot(42, start)
	b := profile.DemoSnapshot(42, start)
	if !cmp.Equal(a, b) {
		t.Fatal("the same seed and time gave different demo profiles")
	}
	if n := len(a.Followers); n < 10000 || n > 30000 {
		t.Fatalf("demo followers: %d", n)
	}
	if len(a.Posts) < 200 || len(a.Following) == 0 {
		t.Fatalf("demo posts %d, following %d", len(a.Posts), len(a.Following))
	}
	next := profile.DemoSnapshot(42, start.Add(24*time.Hour))
	r := analysis.Analyse(analysis.Input{Current: next, Previous: &a})
	if *r.Audience.LostFollowers.Count == 0 || *r.Audience.NewFollowers.Count == 0 {
		t.Fatal("a day of the demo audience shows no churn")
	}
	if r.Engagement.Level == 0 || r.Engagement.Rate <= 0 {
		t.Fatalf("demo engagement %+v", r.Engagement)
	}
}

func TestSeedDemoOnce(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if err := svc.SeedDemo(ctx, "demo", 42); err != nil {
			t.Fatal(err)
		}
	}
	p, _ := svc.Get(ctx, "demo")
	if p.Status != profile.StatusCompleted || len(p.Snapshots) != 3 || p.Result == nil {
		t.Fatalf("seeded demo: status %s, %d snapshots", p.Status, len(p.Snapshots))
	}
}

func TestRefreshDueAddsASnapshotEvery24Hours(t *testing.T) {
	t.Parallel()
	svc, clock := newService(t)
	ctx := context.Background()
	if err := svc.SeedDemo(ctx, "demo", 42); err != nil {
		t.Fatal(err)
	}
	before, _ := svc.Get(ctx, "demo")
	if n, err := svc.RefreshDue(ctx); err != nil || n != 0 {
		t.Fatalf("nothing is due yet: %d %v", n, err)
	}
	clock.Set(before.NextRefresh)
	if n, err := svc.RefreshDue(ctx); err != nil || n != 1 {
		t.Fatalf("the demo profile is due: %d %v", n, err)
	}
	after, _ := svc.Get(ctx, "demo")
	if len(after.Snapshots) != len(before.Snapshots)+1 || !after.Result.TakenAt.Equal(before.NextRefresh) ||
		!after.NextRefresh.Equal(before.NextRefresh.Add(24*time.Hour)) {
		t.Fatalf("after the refresh: %d snapshots, taken %v, next %v", len(after.Snapshots), after.Result.TakenAt, after.NextRefresh)
	}
	if n, _ := svc.RefreshDue(ctx); n != 0 {
		t.Fatal("a refreshed profile was refreshed again at once")
	}
}

func TestRefreshUsesTheSourceFetcher(t *testing.T) {
	t.Parallel()
	svc, clock := newService(t)
	ctx := context.Background()
	calls := 0
	svc.SetFetcher(profile.SourceAPI, func(_ context.Context, p profile.Profile, now time.Time) (analysis.Snapshot, string, error) {
		calls++
		if p.Credential != "sealed-1" {
			t.Errorf("fetcher got credential %q", p.Credential)
		}
		return analysis.Snapshot{TakenAt: now, FollowerCount: 100 + calls,
			Posts: []analysis.Post{{ID: "p", TakenAt: now.Add(-time.Hour), Likes: 5, Comments: 1}}}, "sealed-2", nil
	})
	_ = svc.Connect(ctx, "u", profile.SourceAPI, "ann", 0)
	_ = svc.SetCredential(ctx, "u", "sealed-1")
	if n, err := svc.RefreshDue(ctx); err != nil || n != 1 || calls != 1 {
		t.Fatalf("first refresh: %d %v, %d calls", n, err, calls)
	}
	p, _ := svc.Get(ctx, "u")
	if p.Credential != "sealed-2" || p.Status != profile.StatusCompleted || p.Result.Engagement.Followers != 101 {
		t.Fatalf("after refresh: %+v", p)
	}
	clock.Advance(24 * time.Hour)
	svc.SetFetcher(profile.SourceAPI, func(context.Context, profile.Profile, time.Time) (analysis.Snapshot, string, error) {
		return analysis.Snapshot{}, "", engine.Errorf(engine.CodeForbidden, "Reconnect Instagram to keep your analysis up to date.")
	})
	if n, _ := svc.RefreshDue(ctx); n != 0 {
		t.Fatal("a failed refresh counted as done")
	}
	p, _ = svc.Get(ctx, "u")
	if p.Problem != "Reconnect Instagram to keep your analysis up to date." || p.Result == nil {
		t.Fatalf("a failed refresh: problem %q, result kept %v", p.Problem, p.Result != nil)
	}
}

// openStore returns the storage of a fresh embedded database, which
// several services may share as several instances share one database.
func openStore(t *testing.T) profile.Profiles {
	t.Helper()
	return sqlstore.NewProfiles(storetest.OpenSQL(t))
}

// countingFetcher counts the fetches of each profile and returns a small
// snapshot, so a double refresh shows as a count of two.
type countingFetcher struct {
	mu    sync.Mutex
	calls map[string]int
}

func (f *countingFetcher) fetch(_ context.Context, p profile.Profile, now time.Time) (analysis.Snapshot, string, error) {
	f.mu.Lock()
	f.calls[p.UserID]++
	f.mu.Unlock()
	return analysis.Snapshot{TakenAt: now, FollowerCount: 10,
		Posts: []analysis.Post{{ID: "p", TakenAt: now.Add(-time.Hour), Likes: 1, Comments: 1}}}, "", nil
}

// TestConcurrentRefreshRunnersRefreshEachProfileOnce runs several RefreshDue
// runners (as several instances would) at once over the same due profiles
// on one database: each profile must be fetched and refreshed exactly once.
// Each lease is a conditional update on the profile's lease (ClaimDue).
func TestConcurrentRefreshRunnersRefreshEachProfileOnce(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	ctx := context.Background()
	clock := engine.NewManualClock(start)
	const profiles, runners, rounds = 8, 6, 2
	f := &countingFetcher{calls: map[string]int{}}
	services := make([]*profile.Service, runners)
	for i := range services {
		services[i] = profile.NewService(st, clock, slog.New(slog.DiscardHandler))
		services[i].SetFetcher(profile.SourceAPI, f.fetch)
	}
	for round := range rounds {
		for i := range profiles {
			if err := services[0].Connect(ctx, fmt.Sprintf("u%d-%d", round, i), profile.SourceAPI, "ann", 0); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		var done atomic.Int64
		startRun := make(chan struct{})
		errs := make(chan error, runners)
		for _, svc := range services {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-startRun
				n, err := svc.RefreshDue(ctx)
				if err != nil {
					errs <- err
				}
				done.Add(int64(n))
			}()
		}
		close(startRun)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: RefreshDue: %v", round, err)
		}
		if n := done.Load(); n != profiles {
			t.Errorf("round %d: runners reported %d refreshes of %d due profiles", round, n, profiles)
		}
		f.mu.Lock()
		for i := range profiles {
			if n := f.calls[fmt.Sprintf("u%d-%d", round, i)]; n != 1 {
				t.Errorf("round %d: profile u%d-%d fetched %d times, want 1", round, round, i, n)
			}
		}
		f.mu.Unlock()
	}
}

// TestRefreshLeaseOfACrashedRunnerLapses: a runner that took a profile and
// never finished (its fetch blocks) keeps others off for at least one lease
// window, and another runner takes the profile over once its lease lapsed.
func TestRefreshLeaseOfACrashedRunnerLapses(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	ctx := context.Background()
	stuckClock, clock := engine.NewManualClock(start), engine.NewManualClock(start)
	stuck := profile.NewService(st, stuckClock, slog.New(slog.DiscardHandler))
	entered, unblock := make(chan struct{}), make(chan struct{})
	stuck.SetFetcher(profile.SourceAPI, func(context.Context, profile.Profile, time.Time) (analysis.Snapshot, string, error) {
		close(entered)
		<-unblock
		return analysis.Snapshot{}, "", errors.New("the runner crashed")
	})
	f := &countingFetcher{calls: map[string]int{}}
	other := profile.NewService(st, clock, slog.New(slog.DiscardHandler))
	other.SetFetcher(profile.SourceAPI, f.fetch)
	if err := other.Connect(ctx, "u", profile.SourceAPI, "ann", 0); err != nil {
		t.Fatal(err)
	}
	stuckDone := make(chan struct{})
	go func() {
		defer close(stuckDone)
		_, _ = stuck.RefreshDue(ctx)
	}()
	<-entered
	for _, after := range []time.Duration{0, 5 * time.Minute, 10 * time.Minute, 19 * time.Minute} {
		clock.Set(start.Add(after))
		if n, err := other.RefreshDue(ctx); err != nil || n != 0 {
			t.Fatalf("%v after the lease was taken: refreshed %d, %v; want 0 while it holds", after, n, err)
		}
	}
	clock.Set(start.Add(30 * time.Minute))
	if n, err := other.RefreshDue(ctx); err != nil || n != 1 || f.calls["u"] != 1 {
		t.Fatalf("after the lease lapsed: refreshed %d, %v, %d fetches; want the profile taken over", n, err, f.calls["u"])
	}
	refreshed, _ := other.Get(ctx, "u")
	close(unblock)
	<-stuckDone
	// The stuck runner's failure comes after its lease lapsed: it must not
	// move the next refresh the other runner set, nor record a problem.
	if p, _ := other.Get(ctx, "u"); !p.NextRefresh.Equal(refreshed.NextRefresh) || p.Problem != "" {
		t.Fatalf("a runner whose lease lapsed wrote its failure: next %v (want %v), problem %q", p.NextRefresh, refreshed.NextRefresh, p.Problem)
	}
}

// TestConcurrentSnapshotsAreAllRecorded adds 12 snapshots of one profile at
// once (an upload while the refresh job runs, on several instances): every
// one must be in the profile's list. Recording a snapshot reads the list and
// writes it back, which lost entries when writers overlapped.
func TestConcurrentSnapshotsAreAllRecorded(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	ctx := context.Background()
	if err := svc.Connect(ctx, "u", profile.SourceExport, "ann", 0); err != nil {
		t.Fatal(err)
	}
	const writers = 12
	errs := make(chan error, writers)
	startAdd := make(chan struct{})
	for i := range writers {
		go func() {
			<-startAdd
			_, err := svc.AddSnapshot(ctx, "u", analysis.Snapshot{TakenAt: start.Add(time.Duration(i) * time.Minute),
				FollowerCount: i, Followers: []string{"a"}})
			errs <- err
		}()
	}
	close(startAdd)
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	p, err := svc.Get(ctx, "u")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Snapshots) != writers {
		t.Fatalf("%d snapshots recorded of %d added", len(p.Snapshots), writers)
	}
	for i := 1; i < len(p.Snapshots); i++ {
		if !p.Snapshots[i].TakenAt.After(p.Snapshots[i-1].TakenAt) {
			t.Errorf("snapshots out of order: %v after %v", p.Snapshots[i].TakenAt, p.Snapshots[i-1].TakenAt)
		}
	}
}

// TestRefreshFollowsTheProfile: a reconnected profile is refreshed when
// due; a disconnected one is not refreshed at all; and a profile connected
// again after that is refreshed when due.
func TestRefreshFollowsTheProfile(t *testing.T) {
	t.Parallel()
	svc, clock := newService(t)
	ctx := context.Background()
	if err := svc.SeedDemo(ctx, "ann", 42); err != nil {
		t.Fatal(err)
	}
	first, _ := svc.Get(ctx, "ann")
	if err := svc.Connect(ctx, "ann", profile.SourceDemo, "ann", 42); err != nil {
		t.Fatal(err)
	}
	if n, err := svc.RefreshDue(ctx); err != nil || n != 1 {
		t.Fatalf("the reconnected profile is due at once: %d %v", n, err)
	}
	if err := svc.Disconnect(ctx, "ann"); err != nil {
		t.Fatal(err)
	}
	clock.Set(first.NextRefresh.Add(time.Minute))
	if n, err := svc.RefreshDue(ctx); err != nil || n != 0 {
		t.Fatalf("a disconnected profile was refreshed: %d %v", n, err)
	}
	if p, _ := svc.Get(ctx, "ann"); p.Status != profile.StatusIdle {
		t.Fatalf("the refresh job brought a disconnected profile back: %+v", p)
	}
	if err := svc.SeedDemo(ctx, "ann", 7); err != nil {
		t.Fatal(err)
	}
	second, _ := svc.Get(ctx, "ann")
	clock.Set(second.NextRefresh)
	if n, err := svc.RefreshDue(ctx); err != nil || n != 1 {
		t.Fatalf("the new profile is due: %d %v", n, err)
	}
}

// TestAProfileWithNoNewerDataIsRefreshedDaily: a profile whose source gives
// no new snapshot (an uploaded export, or a source this deployment has no
// fetcher for) is analysed again when its next update comes, and then not
// before a day has passed: its newest snapshot's next update stays in the
// past, and refreshing at it analysed the profile again at every pass (the
// 100,000-subscriber database refreshed about 300 such profiles a minute).
func TestAProfileWithNoNewerDataIsRefreshedDaily(t *testing.T) {
	t.Parallel()
	svc, clock := newService(t)
	ctx := context.Background()
	if err := svc.Connect(ctx, "u", profile.SourceAPI, "ann", 0); err != nil {
		t.Fatal(err)
	}
	snap := analysis.Snapshot{TakenAt: clock.Now(), FollowerCount: 100,
		Posts: []analysis.Post{{ID: "p", TakenAt: clock.Now().Add(-time.Hour), Likes: 5, Comments: 1}}}
	if _, err := svc.AddSnapshot(ctx, "u", snap); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Analyse(ctx, "u"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(25 * time.Hour)
	if n, err := svc.RefreshDue(ctx); err != nil || n != 1 {
		t.Fatalf("the day-old profile is due: %d %v", n, err)
	}
	p, _ := svc.Get(ctx, "u")
	if want := clock.Now().Add(analysis.UpdateInterval); !p.NextRefresh.Equal(want) {
		t.Fatalf("next refresh %v, want a day on, %v", p.NextRefresh, want)
	}
	clock.Advance(time.Minute)
	if n, err := svc.RefreshDue(ctx); err != nil || n != 0 {
		t.Fatalf("refreshed again a minute later: %d %v", n, err)
	}
}
