package profile_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine"
	"glimpse/engine/analysis"
	"glimpse/engine/profile"
)

// TestSummaryFollowsThisInstancesWritesAndOthersWithinTheTTL runs two
// Services on one database, as two instances would: the one that analyses
// sees its result at once; the other keeps what it read until SummaryTTL has
// passed, which is also what shows that it does not read again meanwhile.
func TestSummaryFollowsThisInstancesWritesAndOthersWithinTheTTL(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	ctx := context.Background()
	clock := engine.NewManualClock(start)
	here := profile.NewService(st, clock, slog.New(slog.DiscardHandler))
	there := profile.NewService(st, clock, slog.New(slog.DiscardHandler))
	summary := func(svc *profile.Service) profile.Summary {
		t.Helper()
		s, err := svc.Summary(ctx, "u1")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	idle := profile.Summary{Status: profile.StatusIdle}
	for _, svc := range []*profile.Service{here, there} {
		if diff := cmp.Diff(idle, summary(svc)); diff != "" {
			t.Fatalf("a user with no profile (-want +got):\n%s", diff)
		}
	}

	if err := here.Connect(ctx, "u1", profile.SourceExport, "ann", 0); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(profile.Summary{Status: profile.StatusPending}, summary(here)); diff != "" {
		t.Errorf("after connecting, on the same instance (-want +got):\n%s", diff)
	}
	snap := analysis.Snapshot{TakenAt: start, FollowerCount: 200, Followers: names("f", 200),
		Posts: []analysis.Post{{ID: "p1", TakenAt: start.Add(-time.Hour), Likes: 7, Comments: 1}}}
	if _, err := here.AddSnapshot(ctx, "u1", snap); err != nil {
		t.Fatal(err)
	}
	p, err := here.Analyse(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	want := profile.Summary{Status: profile.StatusCompleted, Engagement: &p.Result.Engagement}
	if diff := cmp.Diff(want, summary(here)); diff != "" {
		t.Errorf("after analysing, on the same instance (-want +got):\n%s", diff)
	}
	if want.Engagement.Rate != 4 || want.Engagement.Level == 0 {
		t.Errorf("engagement = %+v, want rate 4%% ((7+1)/1/200) with a level", want.Engagement)
	}

	clock.Advance(profile.SummaryTTL - time.Millisecond)
	if diff := cmp.Diff(idle, summary(there)); diff != "" {
		t.Errorf("another instance within the TTL reuses what it read (-want +got):\n%s", diff)
	}
	clock.Advance(time.Millisecond)
	if diff := cmp.Diff(want, summary(there)); diff != "" {
		t.Errorf("another instance once the TTL has passed (-want +got):\n%s", diff)
	}
}
