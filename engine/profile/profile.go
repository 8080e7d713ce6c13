// Package profile keeps the Instagram profiles subscribers connect: their
// snapshots (follower and following lists, posts), the latest analysis and
// the insights status, and refreshes them every 24 hours.
package profile

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"glimpse/engine"
	"glimpse/engine/analysis"
	"glimpse/engine/metrics"
)

// keptSnapshots is how many snapshots a profile keeps; older ones are
// deleted with their lists.
const keptSnapshots = 30

// Statuses of a profile's insights (spec §4).
const (
	StatusIdle       = "idle"
	StatusPending    = "pending"
	StatusProcessing = "processing"
	StatusCompleted  = "completed"
)

// Sources of profile data.
const (
	SourceDemo   = "demo"
	SourceExport = "export"
	SourceAPI    = "instagram"
)

// Profile is one subscriber's connected profile: its status, result and
// snapshot list are stored together and change together.
type Profile struct {
	UserID    string
	Source    string
	Username  string
	Status    string
	Problem   string        // why the last refresh failed, safe to show: an analysis code, a message, or (stored before codes) English
	Snapshots []SnapshotRef // oldest first
	Result    *analysis.Result
	// NextRefresh is when the refresh job takes the profile again; zero:
	// never.
	NextRefresh time.Time
	// LeaseUntil is when the refresh lease a runner holds on the profile
	// lapses; zero (or past): nobody holds it (refresh.go).
	LeaseUntil time.Time
	Seed       int64 // demo profiles: the generator's seed
	// Credential is the source's access token, sealed (never stored in
	// the clear); empty for demo and export profiles.
	Credential string
}

// SnapshotRef names a stored snapshot and keeps the two figures the charts
// need, so drawing them reads no lists.
type SnapshotRef struct {
	ID             string
	TakenAt        time.Time
	Followers      float64
	EngagementRate float64
	HasFollowers   bool
	HasEngagement  bool
}

// Series returns the follower count and engagement rate over the stored
// snapshots, oldest first, for the Analytics charts.
func (p Profile) Series() (followers, engagement []analysis.Point) {
	followers, engagement = []analysis.Point{}, []analysis.Point{}
	for _, r := range p.Snapshots {
		if r.HasFollowers {
			followers = append(followers, analysis.Point{At: r.TakenAt, Value: r.Followers})
		}
		if r.HasEngagement {
			engagement = append(engagement, analysis.Point{At: r.TakenAt, Value: r.EngagementRate})
		}
	}
	return followers, engagement
}

// WithSnapshot records ref in a profile's snapshot list: kept in time order
// whatever order writers finish in, the same snapshot added twice (a retry)
// is one entry, and only the newest keep stay. It returns the new list and
// the snapshots that fell off it, to delete. Every store records snapshots
// with it.
func WithSnapshot(refs []SnapshotRef, ref SnapshotRef, keep int) (kept, dropped []SnapshotRef) {
	kept = slices.DeleteFunc(slices.Clone(refs), func(r SnapshotRef) bool { return r.ID == ref.ID })
	i, _ := slices.BinarySearchFunc(kept, ref, func(a, b SnapshotRef) int { return a.TakenAt.Compare(b.TakenAt) })
	kept = slices.Insert(kept, i, ref)
	if len(kept) > keep {
		dropped, kept = kept[:len(kept)-keep], kept[len(kept)-keep:]
	}
	return kept, dropped
}

// Change is a change to a stored profile: each field set is written, the
// others are left as they are, in one write.
type Change struct {
	Status      *string
	Problem     *string
	Result      *analysis.Result
	NextRefresh *time.Time
	// Credential replaces the sealed token; "" forgets it.
	Credential *string
	// Lease, when not zero, makes the change apply only while the profile's
	// lease is the one that lapses at Lease: a refresh runner's own, not
	// one another runner took after it lapsed.
	Lease time.Time
	// EndLease releases the refresh lease.
	EndLease bool
}

// Seeded is a profile written whole with its snapshots (the scale seed):
// Snapshots[i] is the snapshot Profile.Snapshots[i] names.
type Seeded struct {
	Profile   Profile
	Snapshots []analysis.Snapshot
}

// Profiles is what the profile service needs from storage: the profiles,
// their snapshots and the Instagram links, each user's found by the user's
// id.
type Profiles interface {
	// Get returns the user's profile; false when there is none.
	Get(ctx context.Context, userID string) (Profile, bool, error)
	// Summary returns the user's status and latest engagement without the
	// rest; false when there is no profile.
	Summary(ctx context.Context, userID string) (Summary, bool, error)
	// Put creates or replaces the user's profile; the snapshots of the
	// profile it replaces are deleted, the refresh lease is released.
	Put(ctx context.Context, p Profile) error
	// Change applies c to the user's profile in one write; false when no
	// profile matched (none, or c.Lease is no longer the profile's).
	Change(ctx context.Context, userID string, c Change) (bool, error)
	// AddSnapshot stores snap under ref.ID and records ref in the user's
	// profile (WithSnapshot, keeping keep), deleting the snapshots that fall
	// off: the list is rewritten in one write, so snapshots added together
	// are all recorded.
	AddSnapshot(ctx context.Context, userID string, ref SnapshotRef, snap analysis.Snapshot, keep int) error
	// Snapshot returns a stored snapshot with its lists; false when there is
	// none.
	Snapshot(ctx context.Context, id string) (analysis.Snapshot, bool, error)
	// ClaimDue leases, until leaseUntil, up to n profiles whose NextRefresh
	// is at or before now and whose lease has lapsed by now, earliest due
	// first, and returns them as leased. Each is leased by one conditional
	// write, so runners claiming together never lease one profile twice.
	ClaimDue(ctx context.Context, now, leaseUntil time.Time, n int) ([]Profile, error)
	// Delete deletes the user's profile, its snapshots and the user's
	// Instagram links; deleting again changes nothing.
	Delete(ctx context.Context, userID string) error
	// Link records that the user connected the Instagram account with this
	// id. An account is linked to one subscriber at a time: the latest.
	Link(ctx context.Context, userID, instagramID string) error
	// UserOf returns the subscriber linked to the Instagram account, "" for
	// none.
	UserOf(ctx context.Context, instagramID string) (string, error)
	// InsertMany writes new profiles with their snapshots in bulk (the scale
	// seed).
	InsertMany(ctx context.Context, profiles []Seeded) error
	// WithUsernamePrefix returns up to n profiles whose username starts with
	// prefix (as stored: byte for byte), in username order, each as its user
	// and username only: an index range that reads n entries at most, never
	// the table (the support desk's search).
	WithUsernamePrefix(ctx context.Context, prefix string, n int) ([]Handle, error)
}

// Handle is a connected profile's username and whose it is.
type Handle struct {
	UserID, Username string
}

// UsernamePrefixEnd is the first string after every string that starts
// with prefix, the range's end for a prefix lookup.
func UsernamePrefixEnd(prefix string) string { return prefix + "\U0010FFFF" }

// Fetcher takes a new snapshot of a profile from its source, returning the
// credential to keep (a refreshed token) or "" to keep the old one.
type Fetcher func(ctx context.Context, p Profile, now time.Time) (analysis.Snapshot, string, error)

// Service stores and analyses profiles.
type Service struct {
	profiles Profiles
	clock    engine.Clock
	logger   *slog.Logger
	fetchers map[string]Fetcher
	// summaries are the dashboard's per-user summaries; every write below
	// that changes a status or a result drops the user's.
	summaries *engine.TTLCache[Summary]
	// metrics counts analyses (metrics.go); nil counts nothing.
	metrics *metrics.Business
	// analysed is told of every analysis stored (OnAnalysed); nil: nobody.
	analysed func(ctx context.Context, p Profile)
}

// OnAnalysed installs what runs after each analysis is stored, with the
// profile as stored: the app mails a profile report bought before there was
// an analysis to make it from. It runs on every one (an upload's, a
// connection's, the refresh job's), not only the first, so a delivery a
// crash or a failure interrupted is made by the next; the callee keeps it
// to once. Call it before the service is used.
func (s *Service) OnAnalysed(f func(ctx context.Context, p Profile)) { s.analysed = f }

// SetFetcher installs how the refresh job reads a source (the Instagram API).
func (s *Service) SetFetcher(source string, f Fetcher) { s.fetchers[source] = f }

// SetCredential stores a profile's sealed credential.
func (s *Service) SetCredential(ctx context.Context, userID, sealed string) error {
	if _, err := s.profiles.Change(ctx, userID, Change{Credential: &sealed}); err != nil {
		return fmt.Errorf("store credential: %w", err)
	}
	return nil
}

// NewService returns the profile service over its storage.
func NewService(profiles Profiles, clock engine.Clock, logger *slog.Logger) *Service {
	return &Service{profiles: profiles, clock: clock, logger: logger, fetchers: map[string]Fetcher{},
		summaries: engine.NewTTLCache[Summary](clock, SummaryTTL)}
}

// Get returns a user's profile; a user with none gets an idle profile.
func (s *Service) Get(ctx context.Context, userID string) (Profile, error) {
	p, found, err := s.profiles.Get(ctx, userID)
	if err != nil {
		return Profile{}, fmt.Errorf("get profile: %w", err)
	}
	if !found {
		return Profile{UserID: userID, Status: StatusIdle}, nil
	}
	return p, nil
}

// Connect creates (or resets) a user's profile for a source; the first
// snapshot arrives with AddSnapshot.
func (s *Service) Connect(ctx context.Context, userID, source, username string, seed int64) error {
	p := Profile{UserID: userID, Source: source, Username: NormaliseUsername(username), Status: StatusPending, Seed: seed,
		Snapshots: []SnapshotRef{}, NextRefresh: s.clock.Now()}
	err := s.profiles.Put(ctx, p)
	s.summaries.Drop(userID)
	if err != nil {
		return fmt.Errorf("connect profile: %w", err)
	}
	return nil
}

// AddSnapshot stores a snapshot and records it on the profile.
func (s *Service) AddSnapshot(ctx context.Context, userID string, snap analysis.Snapshot) (SnapshotRef, error) {
	ref := SnapshotRef{ID: userID + ":" + strconv.FormatInt(snap.TakenAt.UnixMilli(), 10), TakenAt: snap.TakenAt.UTC()}
	if f := analysis.FollowerSeries([]analysis.Snapshot{snap}); len(f) == 1 {
		ref.Followers, ref.HasFollowers = f[0].Value, true
	}
	if e := analysis.EngagementSeries([]analysis.Snapshot{snap}, 0); len(e) == 1 {
		ref.EngagementRate, ref.HasEngagement = e[0].Value, true
	}
	snap.TakenAt = ref.TakenAt
	if err := s.profiles.AddSnapshot(ctx, userID, ref, snap, keptSnapshots); err != nil {
		return SnapshotRef{}, fmt.Errorf("store snapshot: %w", err)
	}
	return ref, nil
}

// Snapshot loads a stored snapshot with its lists.
func (s *Service) Snapshot(ctx context.Context, id string) (analysis.Snapshot, error) {
	snap, found, err := s.profiles.Snapshot(ctx, id)
	if err != nil {
		return analysis.Snapshot{}, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	if !found {
		return analysis.Snapshot{}, fmt.Errorf("read snapshot %s: %w", id, engine.Errorf(engine.CodeNotFound, "This snapshot is gone."))
	}
	return snap, nil
}

// change applies c to the user's profile.
func (s *Service) change(ctx context.Context, userID string, c Change) error {
	_, err := s.profiles.Change(ctx, userID, c)
	return err
}

// analyseStored runs the analysis over the two latest snapshots and stores the
// result with status completed. A failure leaves the previous result in
// place and records what happened.
func (s *Service) analyseStored(ctx context.Context, userID string) (Profile, error) {
	p, err := s.Get(ctx, userID)
	if err != nil {
		return Profile{}, err
	}
	if len(p.Snapshots) == 0 {
		return p, engine.Errorf(engine.CodeInvalid, "There is no profile data to analyse yet.")
	}
	// Dropped after each write: a summary read meanwhile says processing,
	// and the one after says how it ended.
	defer s.summaries.Drop(userID)
	processing := StatusProcessing
	if err := s.change(ctx, userID, Change{Status: &processing}); err != nil {
		return p, fmt.Errorf("mark processing: %w", err)
	}
	s.summaries.Drop(userID)
	result, err := s.analyse(ctx, p)
	if err != nil {
		status, problem := statusAfterFailure(p), string(analysis.ProblemAnalyseFailed)
		_ = s.change(ctx, userID, Change{Status: &status, Problem: &problem})
		return p, err
	}
	p.Result, p.Status, p.Problem = &result, StatusCompleted, ""
	p.NextRefresh = result.NextUpdate
	if now := s.clock.Now(); !p.NextRefresh.After(now) {
		// No newer data came (an uploaded export, or a source this
		// deployment cannot fetch): the newest snapshot's next update is
		// past, and refreshing at it would analyse the profile again at
		// every pass, each minute. Once a day is enough.
		p.NextRefresh = now.Add(analysis.UpdateInterval)
	}
	if err := s.change(ctx, userID, Change{Result: &result, Status: &p.Status, Problem: &p.Problem,
		NextRefresh: &p.NextRefresh}); err != nil {
		return p, fmt.Errorf("store analysis: %w", err)
	}
	return p, nil
}

func statusAfterFailure(p Profile) string {
	if p.Result != nil {
		return StatusCompleted
	}
	return StatusPending
}

func (s *Service) analyse(ctx context.Context, p Profile) (analysis.Result, error) {
	in, err := s.latestInput(ctx, p)
	if err != nil {
		return analysis.Result{}, err
	}
	return analysis.Analyse(in), nil
}

// latestInput reads the two latest snapshots, the analysis's input.
func (s *Service) latestInput(ctx context.Context, p Profile) (analysis.Input, error) {
	current, err := s.Snapshot(ctx, p.Snapshots[len(p.Snapshots)-1].ID)
	if err != nil {
		return analysis.Input{}, err
	}
	in := analysis.Input{Current: current}
	if len(p.Snapshots) > 1 {
		prev, err := s.Snapshot(ctx, p.Snapshots[len(p.Snapshots)-2].ID)
		if err != nil {
			return analysis.Input{}, err
		}
		in.Previous = &prev
	}
	return in, nil
}
