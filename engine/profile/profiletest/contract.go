// Package profiletest is the contract every implementation of
// profile.Profiles keeps, run against each store by its own tests.
package profiletest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"glimpse/engine/analysis"
	"glimpse/engine/profile"
	"glimpse/engine/store/contract"
)

// Options says what the store under test guarantees and how to stop it.
type Options struct {
	// Atomic is true when a conditional update on one document or row is
	// atomic (SQLite, MongoDB; not FerretDB v1): the tests that send
	// requests together need it.
	Atomic bool
	// FailWrites arms s to fail its nth write from now (n ≥ 1), each later
	// one too, until called with 0: a use case stopped between two writes.
	FailWrites func(s profile.Profiles, n int)
}

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// Run runs the contract against stores made by open, one per subtest.
func Run(t *testing.T, open func(t *testing.T) profile.Profiles, o Options) {
	ctx := context.Background()
	needsAtomic := func(t *testing.T) {
		t.Helper()
		if !o.Atomic {
			t.Skip("FerretDB: conditional updates are not atomic; run with GLIMPSE_TEST_MONGODB_URI")
		}
	}

	t.Run("ARoundTripKeepsEveryField", func(t *testing.T) {
		s := open(t)
		snap := snapshotAt(t0, 3)
		result := analysis.Analyse(analysis.Input{Current: snap})
		want := profile.Profile{UserID: "ann", Source: profile.SourceAPI, Username: "ann.insta", Status: profile.StatusCompleted,
			Problem: "refresh_failed", Snapshots: []profile.SnapshotRef{{ID: "ann:1", TakenAt: t0, Followers: 3, EngagementRate: 1.5,
				HasFollowers: true, HasEngagement: true}}, Result: &result, NextRefresh: t0.Add(24 * time.Hour), Seed: 42, Credential: "sealed"}
		contract.Must(t, s.Put(ctx, want))
		got, found, err := s.Get(ctx, "ann")
		if err != nil || !found {
			t.Fatalf("Get = %v, %v", found, err)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip (-want +got):\n%s", diff)
		}
		sum, found, err := s.Summary(ctx, "ann")
		if err != nil || !found || sum.Status != profile.StatusCompleted || sum.Engagement == nil || *sum.Engagement != result.Engagement {
			t.Fatalf("Summary = %+v, %v, %v; want completed with %+v", sum, found, err, result.Engagement)
		}
		if _, found, err := s.Get(ctx, "bob"); err != nil || found {
			t.Fatalf("Get(bob) = %v, %v; want none", found, err)
		}
		if _, found, err := s.Summary(ctx, "bob"); err != nil || found {
			t.Fatalf("Summary(bob) = %v, %v; want none", found, err)
		}
	})

	t.Run("ASnapshotKeepsItsListsWhateverTheirSize", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.Put(ctx, pending("ann")))
		big := snapshotAt(t0, 45001) // more than two MongoDB chunks
		big.Following = nil          // unknown
		empty := snapshotAt(t0.Add(time.Hour), 0)
		empty.Followers, empty.Following = []string{}, []string{} // known to be empty
		for _, sn := range []analysis.Snapshot{big, empty} {
			ref := refAt("ann", sn.TakenAt)
			contract.Must(t, s.AddSnapshot(ctx, "ann", ref, sn, 30))
			got, found, err := s.Snapshot(ctx, ref.ID)
			if err != nil || !found {
				t.Fatalf("Snapshot(%s) = %v, %v", ref.ID, found, err)
			}
			if diff := cmp.Diff(sn, got); diff != "" {
				t.Fatalf("round trip (-want +got):\n%s", diff)
			}
			if (got.Following == nil) != (sn.Following == nil) || (got.Followers == nil) != (sn.Followers == nil) {
				t.Fatalf("a list's being known changed: followers %v following %v", got.Followers == nil, got.Following == nil)
			}
		}
		if _, found, err := s.Snapshot(ctx, "ann:none"); err != nil || found {
			t.Fatalf("a snapshot never stored: %v, %v", found, err)
		}
	})

	t.Run("SnapshotsAreListedInTimeOrderOnceAndTheOldestDropped", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.Put(ctx, pending("ann")))
		for _, h := range []int{2, 0, 3, 1, 3} { // out of order, 3 twice (a retry)
			at := t0.Add(time.Duration(h) * time.Hour)
			contract.Must(t, s.AddSnapshot(ctx, "ann", refAt("ann", at), snapshotAt(at, 2), 3))
		}
		if got := refIDs(t, s, "ann"); got != fmt.Sprint([]string{refAt("ann", t0.Add(time.Hour)).ID, refAt("ann", t0.Add(2*time.Hour)).ID,
			refAt("ann", t0.Add(3*time.Hour)).ID}) {
			t.Fatalf("listed %s", got)
		}
		if _, found, _ := s.Snapshot(ctx, refAt("ann", t0).ID); found {
			t.Fatal("the snapshot that fell off the list is still stored")
		}
	})

	t.Run("SnapshotsAddedTogetherAreAllRecorded", func(t *testing.T) {
		needsAtomic(t)
		s := open(t)
		contract.Must(t, s.Put(ctx, pending("ann")))
		const writers = 12
		together(t, writers, func(i int) error {
			at := t0.Add(time.Duration(i) * time.Minute)
			return s.AddSnapshot(ctx, "ann", refAt("ann", at), snapshotAt(at, 1), 30)
		})
		p, _, err := s.Get(ctx, "ann")
		contract.Must(t, err)
		if len(p.Snapshots) != writers {
			t.Fatalf("%d snapshots recorded of %d added together", len(p.Snapshots), writers)
		}
		if !slices.IsSortedFunc(p.Snapshots, func(a, b profile.SnapshotRef) int { return a.TakenAt.Compare(b.TakenAt) }) {
			t.Fatal("snapshots out of order")
		}
	})

	t.Run("PutReplacesTheProfileAndDeletesItsSnapshots", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.Put(ctx, pending("ann")))
		ref := refAt("ann", t0)
		contract.Must(t, s.AddSnapshot(ctx, "ann", ref, snapshotAt(t0, 2), 30))
		again := pending("ann")
		again.Source = profile.SourceDemo
		contract.Must(t, s.Put(ctx, again))
		p, _, err := s.Get(ctx, "ann")
		if err != nil || p.Source != profile.SourceDemo || len(p.Snapshots) != 0 {
			t.Fatalf("after Put: %+v, %v", p, err)
		}
		if _, found, _ := s.Snapshot(ctx, ref.ID); found {
			t.Fatal("the replaced profile's snapshot is still stored")
		}
	})

	t.Run("ChangeWritesOnlyWhatItNames", func(t *testing.T) {
		s := open(t)
		p := pending("ann")
		p.Credential = "sealed-1"
		contract.Must(t, s.Put(ctx, p))
		status, problem, next := profile.StatusProcessing, "refresh_failed", t0.Add(time.Hour)
		if ok, err := s.Change(ctx, "ann", profile.Change{Status: &status, Problem: &problem, NextRefresh: &next}); err != nil || !ok {
			t.Fatalf("Change = %v, %v", ok, err)
		}
		got, _, _ := s.Get(ctx, "ann")
		if got.Status != status || got.Problem != problem || !got.NextRefresh.Equal(next) || got.Credential != "sealed-1" || got.Source != p.Source {
			t.Fatalf("after Change: %+v", got)
		}
		none := ""
		if ok, err := s.Change(ctx, "ann", profile.Change{Credential: &none}); err != nil || !ok {
			t.Fatalf("Change = %v, %v", ok, err)
		}
		if got, _, _ := s.Get(ctx, "ann"); got.Credential != "" || got.Problem != problem {
			t.Fatalf("after forgetting the credential: %+v", got)
		}
		if ok, err := s.Change(ctx, "bob", profile.Change{Status: &status}); err != nil || ok {
			t.Fatalf("Change of nobody's profile = %v, %v", ok, err)
		}
	})

	t.Run("ClaimDueLeasesTheEarliestDueAndOnlyThose", func(t *testing.T) {
		s := open(t)
		for name, at := range map[string]time.Time{"h3": t0.Add(-3 * time.Hour), "h1": t0.Add(-time.Hour), "h2": t0.Add(-2 * time.Hour),
			"later": t0.Add(5 * time.Hour), "never": {}} {
			p := pending(name)
			p.NextRefresh = at
			contract.Must(t, s.Put(ctx, p))
		}
		lease := t0.Add(20 * time.Minute)
		if got := claimed(t, s, t0, lease, 2); got != "[h3 h2]" {
			t.Fatalf("first claim: %s; want [h3 h2]", got)
		}
		if got := claimed(t, s, t0, lease, 2); got != "[h1]" {
			t.Fatalf("second claim: %s; want [h1] (the others are leased)", got)
		}
		p, _, _ := s.Get(ctx, "h1")
		if !p.LeaseUntil.Equal(lease) {
			t.Fatalf("h1's lease lapses at %v, want %v", p.LeaseUntil, lease)
		}
		if got := claimed(t, s, lease.Add(-time.Second), lease.Add(time.Hour), 10); got != "[]" {
			t.Fatalf("while leased: %s", got)
		}
		later := lease.Add(time.Hour)
		if got := claimed(t, s, lease, later, 10); got != "[h3 h2 h1]" {
			t.Fatalf("once the leases lapsed: %s", got)
		}
		// A runner that finishes releases its lease; its profile's next
		// refresh has moved on, so it is not due.
		next := t0.Add(24 * time.Hour)
		if ok, err := s.Change(ctx, "h3", profile.Change{Lease: later, EndLease: true, NextRefresh: &next}); err != nil || !ok {
			t.Fatalf("release = %v, %v", ok, err)
		}
		if p, _, _ := s.Get(ctx, "h3"); !p.LeaseUntil.IsZero() {
			t.Fatalf("h3 still leased until %v", p.LeaseUntil)
		}
		if got := claimed(t, s, later, later.Add(time.Hour), 10); got != "[h2 h1]" {
			t.Fatalf("after h3 moved on: %s", got)
		}
	})

	t.Run("AChangeUnderALapsedLeaseIsRefused", func(t *testing.T) {
		s := open(t)
		p := pending("ann")
		p.NextRefresh = t0
		contract.Must(t, s.Put(ctx, p))
		first, second := t0.Add(20*time.Minute), t0.Add(40*time.Minute)
		if got := claimed(t, s, t0, first, 1); got != "[ann]" {
			t.Fatalf("first runner: %s", got)
		}
		if got := claimed(t, s, first, second, 1); got != "[ann]" {
			t.Fatalf("second runner after the first's lease lapsed: %s", got)
		}
		problem, next := "refresh_failed", t0.Add(time.Hour)
		if ok, err := s.Change(ctx, "ann", profile.Change{Lease: first, EndLease: true, Problem: &problem, NextRefresh: &next}); err != nil || ok {
			t.Fatalf("the first runner's late change = %v, %v; want refused", ok, err)
		}
		got, _, _ := s.Get(ctx, "ann")
		if got.Problem != "" || !got.NextRefresh.Equal(t0) || !got.LeaseUntil.Equal(second) {
			t.Fatalf("a stale lease changed the profile: %+v", got)
		}
	})

	t.Run("RunnersClaimingTogetherLeaseEachDueProfileOnce", func(t *testing.T) {
		needsAtomic(t)
		s := open(t)
		const profiles, runners = 24, 6
		for i := range profiles {
			p := pending(fmt.Sprint("u", i))
			p.NextRefresh = t0.Add(-time.Duration(i) * time.Minute)
			contract.Must(t, s.Put(ctx, p))
		}
		var mu sync.Mutex
		leases := map[string]int{}
		together(t, runners, func(int) error {
			got, err := s.ClaimDue(ctx, t0, t0.Add(20*time.Minute), profiles)
			mu.Lock()
			defer mu.Unlock()
			for _, p := range got {
				leases[p.UserID]++
			}
			return err
		})
		for i := range profiles {
			if n := leases[fmt.Sprint("u", i)]; n != 1 {
				t.Errorf("u%d leased %d times by runners claiming together, want 1", i, n)
			}
		}
	})

	t.Run("AnInstagramAccountIsLinkedToOneSubscriberAtATime", func(t *testing.T) {
		s := open(t)
		contract.Must(t, s.Link(ctx, "ann", "ig1"))
		contract.Must(t, s.Link(ctx, "ann", "ig2"))
		contract.Must(t, s.Link(ctx, "bob", "ig2")) // bob connected the account since
		for ig, want := range map[string]string{"ig1": "ann", "ig2": "bob", "ig3": ""} {
			if got, err := s.UserOf(ctx, ig); err != nil || got != want {
				t.Errorf("UserOf(%s) = %q, %v; want %q", ig, got, err, want)
			}
		}
		contract.Must(t, s.Delete(ctx, "ann"))
		if got, _ := s.UserOf(ctx, "ig2"); got != "bob" {
			t.Errorf("deleting ann took bob's link: %q", got)
		}
		if got, _ := s.UserOf(ctx, "ig1"); got != "" {
			t.Errorf("ann's link is left: %q", got)
		}
	})

	t.Run("SubscribersLinkingOneAccountTogetherLeaveOneLink", func(t *testing.T) {
		s := open(t)
		const accounts, linkers = 6, 8
		together(t, accounts*linkers, func(i int) error {
			return s.Link(ctx, fmt.Sprint("u", i), fmt.Sprint("ig", i/linkers))
		})
		for a := range accounts {
			ig := fmt.Sprint("ig", a)
			winner, err := s.UserOf(ctx, ig)
			if err != nil || winner == "" {
				t.Fatalf("UserOf(%s) = %q, %v", ig, winner, err)
			}
			// Deleting the winner's data must leave no other subscriber
			// linked: there was one link, not one per linker.
			contract.Must(t, s.Delete(ctx, winner))
			if got, err := s.UserOf(ctx, ig); err != nil || got != "" {
				t.Fatalf("after deleting %s, %s is still linked to %q (%v)", winner, ig, got, err)
			}
		}
	})

	t.Run("DeleteLeavesNothingOfTheUserAndOnlyThat", func(t *testing.T) {
		s := open(t)
		for _, u := range []string{"ann", "bob"} {
			contract.Must(t, s.Put(ctx, pending(u)))
			contract.Must(t, s.AddSnapshot(ctx, u, refAt(u, t0), snapshotAt(t0, 45001), 30))
			contract.Must(t, s.Link(ctx, u, "ig-"+u))
		}
		contract.Must(t, s.Delete(ctx, "ann"))
		contract.Must(t, s.Delete(ctx, "ann")) // again: nothing more
		assertGone(t, s, "ann", refAt("ann", t0).ID)
		if _, found, _ := s.Get(ctx, "bob"); !found {
			t.Fatal("bob's profile went with ann's")
		}
		if _, found, _ := s.Snapshot(ctx, refAt("bob", t0).ID); !found {
			t.Fatal("bob's snapshot went with ann's")
		}
	})

	t.Run("AnAddedSnapshotStoppedBetweenWritesIsCompletedByARetry", func(t *testing.T) {
		if o.FailWrites == nil {
			t.Skip("no way to stop this store between writes")
		}
		for n := 1; ; n++ {
			s := open(t)
			contract.Must(t, s.Put(ctx, pending("ann")))
			for h := range 2 {
				at := t0.Add(time.Duration(h) * time.Hour)
				contract.Must(t, s.AddSnapshot(ctx, "ann", refAt("ann", at), snapshotAt(at, 20001), 2))
			}
			newest := t0.Add(2 * time.Hour)
			o.FailWrites(s, n)
			err := s.AddSnapshot(ctx, "ann", refAt("ann", newest), snapshotAt(newest, 20001), 2)
			o.FailWrites(s, 0)
			if err == nil {
				if n == 1 {
					t.Fatal("a store armed to fail its first write wrote")
				}
				break // stopped after its last write: every stop was tried
			}
			contract.Must(t, s.AddSnapshot(ctx, "ann", refAt("ann", newest), snapshotAt(newest, 20001), 2))
			want := fmt.Sprint([]string{refAt("ann", t0.Add(time.Hour)).ID, refAt("ann", newest).ID})
			if got := refIDs(t, s, "ann"); got != want {
				t.Fatalf("stopped at write %d, then run again: listed %s, want %s", n, got, want)
			}
			if got, found, err := s.Snapshot(ctx, refAt("ann", newest).ID); err != nil || !found || len(got.Followers) != 20001 {
				t.Fatalf("stopped at write %d, then run again: the snapshot reads %v, %v", n, found, err)
			}
			if _, found, _ := s.Snapshot(ctx, refAt("ann", t0).ID); found {
				t.Fatalf("stopped at write %d, then run again: the dropped snapshot is still stored", n)
			}
		}
	})

	t.Run("ADeleteStoppedBetweenWritesIsCompletedByARetry", func(t *testing.T) {
		if o.FailWrites == nil {
			t.Skip("no way to stop this store between writes")
		}
		for n := 1; ; n++ {
			s := open(t)
			contract.Must(t, s.Put(ctx, pending("ann")))
			contract.Must(t, s.AddSnapshot(ctx, "ann", refAt("ann", t0), snapshotAt(t0, 20001), 30))
			contract.Must(t, s.Link(ctx, "ann", "ig-ann"))
			o.FailWrites(s, n)
			err := s.Delete(ctx, "ann")
			o.FailWrites(s, 0)
			if err == nil {
				break
			}
			contract.Must(t, s.Delete(ctx, "ann"))
			assertGone(t, s, "ann", refAt("ann", t0).ID)
		}
	})

	t.Run("APutStoppedBetweenWritesIsCompletedByARetry", func(t *testing.T) {
		if o.FailWrites == nil {
			t.Skip("no way to stop this store between writes")
		}
		for n := 1; ; n++ {
			s := open(t)
			contract.Must(t, s.Put(ctx, pending("ann")))
			for h := range 2 {
				at := t0.Add(time.Duration(h) * time.Hour)
				contract.Must(t, s.AddSnapshot(ctx, "ann", refAt("ann", at), snapshotAt(at, 20001), 30))
			}
			again := pending("ann")
			again.Source = profile.SourceDemo
			o.FailWrites(s, n)
			err := s.Put(ctx, again)
			o.FailWrites(s, 0)
			if err == nil {
				break
			}
			contract.Must(t, s.Put(ctx, again))
			if p, _, err := s.Get(ctx, "ann"); err != nil || p.Source != profile.SourceDemo || len(p.Snapshots) != 0 {
				t.Fatalf("stopped at write %d, then run again: %+v, %v", n, p, err)
			}
			for h := range 2 {
				if _, found, _ := s.Snapshot(ctx, refAt("ann", t0.Add(time.Duration(h)*time.Hour)).ID); found {
					t.Fatalf("stopped at write %d, then run again: the replaced profile's snapshot %d is still stored", n, h)
				}
			}
		}
	})

	t.Run("InsertManyWritesProfilesWithTheirSnapshots", func(t *testing.T) {
		s := open(t)
		var seeded []profile.Seeded
		for i := range 5 {
			u := fmt.Sprint("s", i)
			p := pending(u)
			p.Status, p.NextRefresh = profile.StatusCompleted, t0.Add(time.Duration(i-2)*time.Hour)
			p.Snapshots = []profile.SnapshotRef{refAt(u, t0)}
			seeded = append(seeded, profile.Seeded{Profile: p, Snapshots: []analysis.Snapshot{snapshotAt(t0, i)}})
		}
		contract.Must(t, s.InsertMany(ctx, seeded))
		for i, sd := range seeded {
			got, found, err := s.Get(ctx, sd.Profile.UserID)
			if err != nil || !found {
				t.Fatalf("Get(%s) = %v, %v", sd.Profile.UserID, found, err)
			}
			if diff := cmp.Diff(sd.Profile, got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("seeded profile (-want +got):\n%s", diff)
			}
			snap, found, err := s.Snapshot(ctx, got.Snapshots[0].ID)
			if err != nil || !found || len(snap.Followers) != i {
				t.Fatalf("seeded snapshot of %s: %d followers, %v, %v", got.UserID, len(snap.Followers), found, err)
			}
		}
		if got := claimed(t, s, t0, t0.Add(time.Minute), 10); got != "[s0 s1 s2]" {
			t.Fatalf("seeded profiles due: %s", got)
		}
	})

	// The support desk's search by Instagram username: a prefix, in byte
	// order ('.' < '_' < letters), at most n.
	t.Run("UsernamesAreFoundByTheirStartInOrderAndBounded", func(t *testing.T) {
		s := open(t)
		for user, name := range map[string]string{"u1": "glimpse.demo", "u2": "glimpse_two", "u3": "glimpsed", "u4": "other.glimpse",
			"u5": "gl", "u6": ""} {
			p := pending(user)
			p.Username = name
			contract.Must(t, s.Put(ctx, p))
		}
		for _, c := range []struct {
			prefix string
			n      int
			want   string
		}{
			{"glimpse", 10, "[{u1 glimpse.demo} {u2 glimpse_two} {u3 glimpsed}]"},
			{"glimpse", 2, "[{u1 glimpse.demo} {u2 glimpse_two}]"},
			{"glimpse.", 10, "[{u1 glimpse.demo}]"},
			{"glimpse.demo", 10, "[{u1 glimpse.demo}]"},
			{"glimpse.demo.x", 10, "[]"},
			{"g", 10, "[{u5 gl} {u1 glimpse.demo} {u2 glimpse_two} {u3 glimpsed}]"},
			{"other", 10, "[{u4 other.glimpse}]"},
			{"nobody", 10, "[]"},
			{"", 10, "[]"}, // no prefix finds nothing, not everyone
			{"glimpse", 0, "[]"},
		} {
			got, err := s.WithUsernamePrefix(ctx, c.prefix, c.n)
			if err != nil || fmt.Sprint(handles(got)) != c.want {
				t.Errorf("WithUsernamePrefix(%q, %d) = %v, %v; want %s", c.prefix, c.n, handles(got), err, c.want)
			}
		}
		// A deleted profile (an erased account's) is found no more.
		contract.Must(t, s.Delete(ctx, "u1"))
		if got, err := s.WithUsernamePrefix(ctx, "glimpse.", 10); err != nil || len(got) != 0 {
			t.Errorf("after the delete: %v, %v", got, err)
		}
	})
}

func assertGone(t *testing.T, s profile.Profiles, userID, snapshotID string) {
	t.Helper()
	ctx := context.Background()
	if _, found, err := s.Get(ctx, userID); err != nil || found {
		t.Errorf("%s's profile: %v, %v", userID, found, err)
	}
	if _, found, err := s.Snapshot(ctx, snapshotID); err != nil || found {
		t.Errorf("%s's snapshot: %v, %v", userID, found, err)
	}
	if got, err := s.UserOf(ctx, "ig-"+userID); err != nil || got != "" {
		t.Errorf("%s's link: %q, %v", userID, got, err)
	}
}

func pending(userID string) profile.Profile {
	return profile.Profile{UserID: userID, Source: profile.SourceExport, Username: userID, Status: profile.StatusPending,
		Snapshots: []profile.SnapshotRef{}}
}

func refAt(userID string, at time.Time) profile.SnapshotRef {
	return profile.SnapshotRef{ID: fmt.Sprintf("%s:%d", userID, at.UnixMilli()), TakenAt: at, Followers: 3, HasFollowers: true}
}

// snapshotAt is a snapshot with n followers, following and a post.
// (MongoDB's chunks hold 20,000 names: 20,001 takes two.)
func snapshotAt(at time.Time, n int) analysis.Snapshot {
	followers := make([]string, n)
	for i := range followers {
		followers[i] = fmt.Sprintf("follower%06d", i)
	}
	return analysis.Snapshot{TakenAt: at, FollowerCount: n, Followers: followers, Following: []string{"follower000000", "someone"},
		Posts: []analysis.Post{{ID: "p1", TakenAt: at.Add(-time.Hour), Likes: 3, Comments: 1, PictureURL: "/p1.jpg", Commenters: []string{"x"}}}}
}

func refIDs(t *testing.T, s profile.Profiles, userID string) string {
	t.Helper()
	p, _, err := s.Get(context.Background(), userID)
	contract.Must(t, err)
	ids := make([]string, len(p.Snapshots))
	for i, r := range p.Snapshots {
		ids[i] = r.ID
	}
	return fmt.Sprint(ids)
}

func claimed(t *testing.T, s profile.Profiles, now, lease time.Time, n int) string {
	t.Helper()
	got, err := s.ClaimDue(context.Background(), now, lease, n)
	contract.Must(t, err)
	ids := make([]string, len(got))
	for i, p := range got {
		ids[i] = p.UserID
		if !p.LeaseUntil.Equal(lease) {
			t.Errorf("%s claimed with lease %v, want %v", p.UserID, p.LeaseUntil, lease)
		}
	}
	return fmt.Sprint(ids)
}

// together runs fn(0..n-1) on n goroutines released at once.
func together(t *testing.T, n int, fn func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- fn(i)
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		contract.Must(t, err)
	}
}

// handles lists found profiles as "{user name}", never nil.
func handles(hs []profile.Handle) []profile.Handle {
	if hs == nil {
		return []profile.Handle{}
	}
	return hs
}
