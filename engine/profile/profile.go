// Package profile keeps the Instagram profiles subscribers connect: their
// snapshots (follower and following lists in chunks, posts), the latest
// analysis and the insights status, and refreshes them every 24 hours.
package profile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/analysis"
	"glimpse/engine/metrics"
	"glimpse/engine/store"
)

// Collections of this package. Every lookup is by _id, the one key the
// embedded database can find without a scan.
const (
	ProfilesCollection  = "profiles"
	SnapshotsCollection = "profile_snapshots"
	ChunksCollection    = "profile_chunks"
)

// chunkSize bounds one chunk document: 20,000 usernames of up to 30 bytes
// stay far below MongoDB's 16 MB document limit, and a 1,000,000-follower
// list is 50 documents.
const chunkSize = 20000

// keptSnapshots is how many snapshots a profile keeps; older ones are
// deleted with their chunks.
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

// Profile is one subscriber's connected profile: one document, so its
// status, result and snapshot list change together.
type Profile struct {
	UserID    string           `bson:"_id"`
	Source    string           `bson:"source"`
	Username  string           `bson:"username,omitempty"`
	Status    string           `bson:"status"`
	Problem   string           `bson:"problem,omitempty"` // why the last refresh failed, safe to show: an analysis code, a message, or (stored before codes) English
	Snapshots []SnapshotRef    `bson:"snapshots"`         // oldest first
	Result    *analysis.Result `bson:"result,omitempty"`
	// NextRefresh is when the refresh job takes the profile again; the
	// refresh lease is a store claim named after it (refresh.go).
	NextRefresh time.Time `bson:"nextRefresh"`
	Seed        int64     `bson:"seed,omitempty"` // demo profiles: the generator's seed
	// Credential is the source's access token, sealed (never stored in
	// the clear); empty for demo and export profiles.
	Credential string `bson:"credential,omitempty"`
	// RefreshKey names the profile in the refresh schedule: a random key
	// mapped to the account by a document erased with the profile, so the
	// schedule's entries name nobody once it is gone (refresh.go).
	RefreshKey string `bson:"refreshKey,omitempty"`
}

// SnapshotRef names a stored snapshot and keeps the two figures the charts
// need, so drawing them reads no lists.
type SnapshotRef struct {
	ID             string    `bson:"id"`
	TakenAt        time.Time `bson:"takenAt"`
	Followers      float64   `bson:"followers"`
	EngagementRate float64   `bson:"engagementRate"`
	HasFollowers   bool      `bson:"hasFollowers"`
	HasEngagement  bool      `bson:"hasEngagement"`
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

type snapshotDoc struct {
	ID             string          `bson:"_id"`
	UserID         string          `bson:"userId"`
	TakenAt        time.Time       `bson:"takenAt"`
	FollowerCount  int             `bson:"followerCount"`
	FollowersKnown bool            `bson:"followersKnown"`
	FollowingKnown bool            `bson:"followingKnown"`
	FollowerChunks int             `bson:"followerChunks"`
	FollowingChunk int             `bson:"followingChunks"`
	Posts          []analysis.Post `bson:"posts"`
}

type chunkDoc struct {
	ID    string   `bson:"_id"`
	Names []string `bson:"names"`
}

// Fetcher takes a new snapshot of a profile from its source, returning the
// credential to keep (a refreshed token) or "" to keep the old one.
type Fetcher func(ctx context.Context, p Profile, now time.Time) (analysis.Snapshot, string, error)

// Service stores and analyses profiles.
type Service struct {
	db       *mongo.Database
	clock    engine.Clock
	logger   *slog.Logger
	fetchers map[string]Fetcher
	claims   *store.Claims
	// due files each profile under its nextRefresh (refresh.go).
	due *store.Schedule
	// owner names this Service in the refresh leases it takes.
	owner string
	// summaries are the dashboard's per-user summaries; every write below
	// that changes a status or a result drops the user's.
	summaries *engine.TTLCache[Summary]
	// metrics counts analyses (metrics.go); nil counts nothing.
	metrics *metrics.Business
	// linksByUser lists each subscriber's Instagram links (erase.go).
	linksByUser *store.Lists
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
	if _, err := s.db.Collection(ProfilesCollection).UpdateOne(ctx, bson.M{"_id": userID},
		bson.M{"$set": bson.M{"credential": sealed}}); err != nil {
		return fmt.Errorf("store credential: %w", err)
	}
	return nil
}

// NewService returns the profile service over db.
func NewService(db *mongo.Database, clock engine.Clock, logger *slog.Logger) *Service {
	return &Service{db: db, clock: clock, logger: logger, fetchers: map[string]Fetcher{},
		claims: store.NewClaims(db), due: store.NewSchedule(db, refreshScheduleCollection, RefreshStep), owner: "profile-refresh:" + engine.NewID(),
		summaries: engine.NewTTLCache[Summary](clock, SummaryTTL), linksByUser: store.NewLists(db, InstagramLinksByUserCollection)}
}

// Collections lists this package's collections for the store to create,
// with the claims collection its refresh leases live in.
func Collections() map[string][]mongo.IndexModel {
	c := map[string][]mongo.IndexModel{ProfilesCollection: nil, SnapshotsCollection: nil, ChunksCollection: nil, InstagramLinksCollection: nil, InstagramLinksByUserCollection: nil,
		refreshScheduleCollection: nil, refreshKeysCollection: nil}
	maps.Copy(c, store.ClaimsCollections())
	return c
}

// Get returns a user's profile; a user with none gets an idle profile.
func (s *Service) Get(ctx context.Context, userID string) (Profile, error) {
	var p Profile
	err := s.db.Collection(ProfilesCollection).FindOne(ctx, bson.M{"_id": userID}).Decode(&p)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return Profile{UserID: userID, Status: StatusIdle}, nil
	}
	if err != nil {
		return Profile{}, fmt.Errorf("get profile: %w", err)
	}
	return p, nil
}

// Connect creates (or resets) a user's profile for a source; the first
// snapshot arrives with AddSnapshot.
func (s *Service) Connect(ctx context.Context, userID, source, username string, seed int64) error {
	old, err := s.Get(ctx, userID)
	if err != nil {
		return err
	}
	p := Profile{UserID: userID, Source: source, Username: username, Status: StatusPending, Seed: seed,
		Snapshots: []SnapshotRef{}, NextRefresh: s.clock.Now(), RefreshKey: old.RefreshKey}
	if err := s.scheduleRefresh(ctx, &p, p.NextRefresh); err != nil {
		return err
	}
	_, err = s.db.Collection(ProfilesCollection).ReplaceOne(ctx, bson.M{"_id": userID}, p, options.Replace().SetUpsert(true))
	s.summaries.Drop(userID)
	if err != nil {
		return fmt.Errorf("connect profile: %w", err)
	}
	return nil
}

// AddSnapshot stores a snapshot (lists in chunks) and records it on the
// profile. Writing chunks before the reference keeps a half-written snapshot
// invisible; writes are by _id and idempotent.
func (s *Service) AddSnapshot(ctx context.Context, userID string, snap analysis.Snapshot) (SnapshotRef, error) {
	ref := SnapshotRef{ID: userID + ":" + strconv.FormatInt(snap.TakenAt.UnixMilli(), 10), TakenAt: snap.TakenAt.UTC()}
	if f := analysis.FollowerSeries([]analysis.Snapshot{snap}); len(f) == 1 {
		ref.Followers, ref.HasFollowers = f[0].Value, true
	}
	if e := analysis.EngagementSeries([]analysis.Snapshot{snap}, 0); len(e) == 1 {
		ref.EngagementRate, ref.HasEngagement = e[0].Value, true
	}
	doc := snapshotDoc{ID: ref.ID, UserID: userID, TakenAt: ref.TakenAt, FollowerCount: snap.FollowerCount,
		FollowersKnown: snap.Followers != nil, FollowingKnown: snap.Following != nil, Posts: snap.Posts}
	var err error
	if doc.FollowerChunks, err = s.putChunks(ctx, ref.ID+":followers", snap.Followers); err != nil {
		return SnapshotRef{}, err
	}
	if doc.FollowingChunk, err = s.putChunks(ctx, ref.ID+":following", snap.Following); err != nil {
		return SnapshotRef{}, err
	}
	if _, err := s.db.Collection(SnapshotsCollection).ReplaceOne(ctx, bson.M{"_id": ref.ID}, doc,
		options.Replace().SetUpsert(true)); err != nil {
		return SnapshotRef{}, fmt.Errorf("store snapshot: %w", err)
	}
	var dropped []SnapshotRef
	err = s.exclusively(ctx, userID, func() error {
		p, err := s.Get(ctx, userID)
		if err != nil {
			return err
		}
		// Kept in time order whatever order writers finish in; the same
		// snapshot added twice (a retry) is one entry.
		refs := slices.DeleteFunc(slices.Clone(p.Snapshots), func(r SnapshotRef) bool { return r.ID == ref.ID })
		i, _ := slices.BinarySearchFunc(refs, ref, func(a, b SnapshotRef) int { return a.TakenAt.Compare(b.TakenAt) })
		refs = slices.Insert(refs, i, ref)
		if len(refs) > keptSnapshots {
			dropped, refs = refs[:len(refs)-keptSnapshots], refs[len(refs)-keptSnapshots:]
		}
		if _, err := s.db.Collection(ProfilesCollection).UpdateOne(ctx, bson.M{"_id": userID},
			bson.M{"$set": bson.M{"snapshots": refs}}); err != nil {
			return fmt.Errorf("record snapshot: %w", err)
		}
		return nil
	})
	if err != nil {
		return SnapshotRef{}, err
	}
	for _, d := range dropped {
		s.deleteSnapshot(ctx, d.ID)
	}
	return ref, nil
}

func (s *Service) putChunks(ctx context.Context, prefix string, names []string) (int, error) {
	n := 0
	for start := 0; start < len(names); start += chunkSize {
		part := names[start:min(start+chunkSize, len(names))]
		id := prefix + ":" + strconv.Itoa(n)
		if _, err := s.db.Collection(ChunksCollection).ReplaceOne(ctx, bson.M{"_id": id},
			chunkDoc{ID: id, Names: part}, options.Replace().SetUpsert(true)); err != nil {
			return 0, fmt.Errorf("store %s: %w", id, err)
		}
		n++
	}
	return n, nil
}

func (s *Service) getChunks(ctx context.Context, prefix string, n int, known bool) ([]string, error) {
	if !known {
		return nil, nil
	}
	names := make([]string, 0, n*chunkSize)
	for i := 0; i < n; i++ {
		var c chunkDoc
		id := prefix + ":" + strconv.Itoa(i)
		if err := s.db.Collection(ChunksCollection).FindOne(ctx, bson.M{"_id": id}).Decode(&c); err != nil {
			return nil, fmt.Errorf("read %s: %w", id, err)
		}
		names = append(names, c.Names...)
	}
	return names, nil
}

// Snapshot loads a stored snapshot with its lists.
func (s *Service) Snapshot(ctx context.Context, id string) (analysis.Snapshot, error) {
	var d snapshotDoc
	if err := s.db.Collection(SnapshotsCollection).FindOne(ctx, bson.M{"_id": id}).Decode(&d); err != nil {
		return analysis.Snapshot{}, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	followers, err := s.getChunks(ctx, id+":followers", d.FollowerChunks, d.FollowersKnown)
	if err != nil {
		return analysis.Snapshot{}, err
	}
	following, err := s.getChunks(ctx, id+":following", d.FollowingChunk, d.FollowingKnown)
	if err != nil {
		return analysis.Snapshot{}, err
	}
	return analysis.Snapshot{TakenAt: d.TakenAt, FollowerCount: d.FollowerCount, Followers: followers,
		Following: following, Posts: d.Posts}, nil
}

func (s *Service) deleteSnapshot(ctx context.Context, id string) {
	var d snapshotDoc
	if err := s.db.Collection(SnapshotsCollection).FindOne(ctx, bson.M{"_id": id}).Decode(&d); err != nil {
		return
	}
	for list, n := range map[string]int{"followers": d.FollowerChunks, "following": d.FollowingChunk} {
		for i := 0; i < n; i++ {
			_, _ = s.db.Collection(ChunksCollection).DeleteOne(ctx, bson.M{"_id": id + ":" + list + ":" + strconv.Itoa(i)})
		}
	}
	_, _ = s.db.Collection(SnapshotsCollection).DeleteOne(ctx, bson.M{"_id": id})
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
	coll := s.db.Collection(ProfilesCollection)
	// Dropped after each write: a summary read meanwhile says processing,
	// and the one after says how it ended.
	defer s.summaries.Drop(userID)
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": userID}, bson.M{"$set": bson.M{"status": StatusProcessing}}); err != nil {
		return p, fmt.Errorf("mark processing: %w", err)
	}
	s.summaries.Drop(userID)
	result, err := s.analyse(ctx, p)
	if err != nil {
		_, _ = coll.UpdateOne(ctx, bson.M{"_id": userID}, bson.M{"$set": bson.M{
			"status": statusAfterFailure(p), "problem": string(analysis.ProblemAnalyseFailed)}})
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
	if err := s.scheduleRefresh(ctx, &p, p.NextRefresh); err != nil {
		return p, err
	}
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": userID}, bson.M{"$set": bson.M{
		"result": result, "status": StatusCompleted, "problem": "", "nextRefresh": p.NextRefresh, "refreshKey": p.RefreshKey}}); err != nil {
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
	current, err := s.Snapshot(ctx, p.Snapshots[len(p.Snapshots)-1].ID)
	if err != nil {
		return analysis.Result{}, err
	}
	in := analysis.Input{Current: current}
	if len(p.Snapshots) > 1 {
		prev, err := s.Snapshot(ctx, p.Snapshots[len(p.Snapshots)-2].ID)
		if err != nil {
			return analysis.Result{}, err
		}
		in.Previous = &prev
	}
	return analysis.Analyse(in), nil
}
