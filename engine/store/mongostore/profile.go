package mongostore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/analysis"
	"glimpse/engine/profile"
)

// profilesCollection holds one document per connected profile, found by the
// user's id (_id). The refresh job finds the due ones by nextRefresh (absent:
// never) and leases each with a findOneAndUpdate conditional on leaseUntil.
var profilesCollection = collection{name: "profiles", indexes: []index{
	{name: "by_next_refresh", keys: bson.D{{Key: "nextRefresh", Value: 1}}},
	// The support desk's lookup by the start of a username
	// (WithUsernamePrefix): a range on it, in its order.
	{name: "by_username", keys: bson.D{{Key: "username", Value: 1}}},
}}

// snapshotsCollection holds a snapshot's figures and posts; its follower and
// following lists are in chunksCollection, cut under MongoDB's 16 MB document
// limit. Both carry the user's id, by which erasure deletes them.
var snapshotsCollection = collection{name: "profile_snapshots", indexes: []index{
	{name: "by_user", keys: bson.D{{Key: "userId", Value: 1}, {Key: "takenAt", Value: 1}}},
}}

var chunksCollection = collection{name: "profile_chunks", indexes: []index{
	{name: "by_user_snapshot", keys: bson.D{{Key: "userId", Value: 1}, {Key: "snapshotId", Value: 1}}},
}}

// instagramLinksCollection maps an Instagram account's id (_id, so one
// subscriber at a time) to the subscriber who connected it.
var instagramLinksCollection = collection{name: "instagram_links", indexes: []index{
	{name: "by_user", keys: bson.D{{Key: "userId", Value: 1}}},
}}

// chunkSize bounds one chunk document: 20,000 usernames of up to 30 bytes
// stay far below MongoDB's 16 MB document limit, and a 1,000,000-follower
// list is 50 documents.
const chunkSize = 20000

// notLeased is the leaseUntil of a profile nobody holds: always stored, so
// the due query's filter is two ranges the nextRefresh index serves.
var notLeased = time.Unix(0, 0).UTC()

type profileDoc struct {
	UserID      string           `bson:"_id"`
	Source      string           `bson:"source"`
	Username    string           `bson:"username,omitempty"`
	Status      string           `bson:"status"`
	Problem     string           `bson:"problem,omitempty"`
	Snapshots   []snapshotRefDoc `bson:"snapshots"`
	Result      *analysis.Result `bson:"result,omitempty"`
	NextRefresh *time.Time       `bson:"nextRefresh,omitempty"`
	LeaseUntil  time.Time        `bson:"leaseUntil"`
	Seed        int64            `bson:"seed,omitempty"`
	Credential  string           `bson:"credential,omitempty"`
	// Version changes with every rewrite of the snapshot list, which is
	// conditional on the version read (AddSnapshot).
	Version string `bson:"version"`
}

type snapshotRefDoc struct {
	ID             string    `bson:"id"`
	TakenAt        time.Time `bson:"takenAt"`
	Followers      float64   `bson:"followers"`
	EngagementRate float64   `bson:"engagementRate"`
	HasFollowers   bool      `bson:"hasFollowers"`
	HasEngagement  bool      `bson:"hasEngagement"`
}

type snapshotDoc struct {
	ID              string          `bson:"_id"`
	UserID          string          `bson:"userId"`
	TakenAt         time.Time       `bson:"takenAt"`
	FollowerCount   int             `bson:"followerCount"`
	FollowersKnown  bool            `bson:"followersKnown"`
	FollowingKnown  bool            `bson:"followingKnown"`
	FollowerChunks  int             `bson:"followerChunks"`
	FollowingChunks int             `bson:"followingChunks"`
	Posts           []analysis.Post `bson:"posts"`
}

type chunkDoc struct {
	ID         string   `bson:"_id"`
	UserID     string   `bson:"userId"`
	SnapshotID string   `bson:"snapshotId"`
	Names      []string `bson:"names"`
}

type instagramLinkDoc struct {
	InstagramID string `bson:"_id"`
	UserID      string `bson:"userId"`
}

// Profiles stores connected profiles in MongoDB.
type Profiles struct {
	profiles, snapshots, chunks, links *mongo.Collection
	// beforeWrite, when set, runs before each write and fails it with its
	// error (tests: a use case stopped between two writes).
	beforeWrite func() error
}

// NewProfiles returns profile's storage on db.
func NewProfiles(db *mongo.Database) *Profiles {
	return &Profiles{profiles: db.Collection(profilesCollection.name), snapshots: db.Collection(snapshotsCollection.name),
		chunks: db.Collection(chunksCollection.name), links: db.Collection(instagramLinksCollection.name)}
}

var _ profile.Profiles = (*Profiles)(nil)

func (s *Profiles) step() error {
	if s.beforeWrite != nil {
		return s.beforeWrite()
	}
	return nil
}

func refDocs(refs []profile.SnapshotRef) []snapshotRefDoc {
	out := make([]snapshotRefDoc, len(refs))
	for i, r := range refs {
		out[i] = snapshotRefDoc(r)
	}
	return out
}

func docOf(p profile.Profile) profileDoc {
	d := profileDoc{UserID: p.UserID, Source: p.Source, Username: p.Username, Status: p.Status, Problem: p.Problem,
		Snapshots: refDocs(p.Snapshots), Result: p.Result, LeaseUntil: notLeased, Seed: p.Seed, Credential: p.Credential,
		Version: engine.NewID()}
	if !p.NextRefresh.IsZero() {
		next := p.NextRefresh
		d.NextRefresh = &next
	}
	if !p.LeaseUntil.IsZero() {
		d.LeaseUntil = p.LeaseUntil
	}
	return d
}

func (d profileDoc) profile() profile.Profile {
	p := profile.Profile{UserID: d.UserID, Source: d.Source, Username: d.Username, Status: d.Status, Problem: d.Problem,
		Result: d.Result, Seed: d.Seed, Credential: d.Credential, Snapshots: make([]profile.SnapshotRef, len(d.Snapshots))}
	for i, r := range d.Snapshots {
		p.Snapshots[i] = profile.SnapshotRef(r)
		p.Snapshots[i].TakenAt = r.TakenAt.UTC()
	}
	if d.NextRefresh != nil {
		p.NextRefresh = d.NextRefresh.UTC()
	}
	if d.LeaseUntil.After(notLeased) {
		p.LeaseUntil = d.LeaseUntil.UTC()
	}
	return p
}

// Get returns the user's profile.
func (s *Profiles) Get(ctx context.Context, userID string) (profile.Profile, bool, error) {
	var d profileDoc
	err := s.profiles.FindOne(ctx, bson.D{{Key: "_id", Value: userID}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return profile.Profile{}, false, nil
	}
	if err != nil {
		return profile.Profile{}, false, fmt.Errorf("profile of %s: %w", userID, err)
	}
	return d.profile(), true, nil
}

// Summary reads the status and the result's engagement only.
func (s *Profiles) Summary(ctx context.Context, userID string) (profile.Summary, bool, error) {
	var doc struct {
		Status string `bson:"status"`
		Result *struct {
			Engagement analysis.Engagement `bson:"engagement"`
		} `bson:"result"`
	}
	err := s.profiles.FindOne(ctx, bson.D{{Key: "_id", Value: userID}},
		options.FindOne().SetProjection(bson.D{{Key: "status", Value: 1}, {Key: "result.engagement", Value: 1}})).Decode(&doc)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return profile.Summary{}, false, nil
	}
	if err != nil {
		return profile.Summary{}, false, fmt.Errorf("profile summary of %s: %w", userID, err)
	}
	sum := profile.Summary{Status: doc.Status}
	if doc.Result != nil {
		sum.Engagement = &doc.Result.Engagement
	}
	return sum, true, nil
}

// Put replaces the profile, then deletes the snapshots it does not name:
// a crash in between leaves snapshots under the user, which the next Put or
// Delete removes.
func (s *Profiles) Put(ctx context.Context, p profile.Profile) error {
	if err := s.step(); err != nil {
		return err
	}
	_, err := s.profiles.ReplaceOne(ctx, bson.D{{Key: "_id", Value: p.UserID}}, docOf(p), options.Replace().SetUpsert(true))
	if mongo.IsDuplicateKeyError(err) {
		// Two upserts raced to insert: the other's document is there now.
		_, err = s.profiles.ReplaceOne(ctx, bson.D{{Key: "_id", Value: p.UserID}}, docOf(p))
	}
	if err != nil {
		return fmt.Errorf("put profile %s: %w", p.UserID, err)
	}
	named := map[string]bool{}
	for _, r := range p.Snapshots {
		named[r.ID] = true
	}
	cur, err := s.snapshots.Find(ctx, bson.D{{Key: "userId", Value: p.UserID}}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return fmt.Errorf("put profile %s: %w", p.UserID, err)
	}
	var stored []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &stored); err != nil {
		return fmt.Errorf("put profile %s: %w", p.UserID, err)
	}
	for _, sn := range stored {
		if !named[sn.ID] {
			if err := s.deleteSnapshot(ctx, p.UserID, sn.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// deleteOlderSnapshots deletes the user's snapshots taken before oldest.
func (s *Profiles) deleteOlderSnapshots(ctx context.Context, userID string, oldest time.Time) error {
	cur, err := s.snapshots.Find(ctx, bson.D{{Key: "userId", Value: userID}, {Key: "takenAt", Value: bson.D{{Key: "$lt", Value: oldest}}}},
		options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return fmt.Errorf("dropped snapshots of %s: %w", userID, err)
	}
	var old []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &old); err != nil {
		return fmt.Errorf("dropped snapshots of %s: %w", userID, err)
	}
	for _, sn := range old {
		if err := s.deleteSnapshot(ctx, userID, sn.ID); err != nil {
			return err
		}
	}
	return nil
}

// deleteSnapshot deletes a snapshot's chunks, then the snapshot.
func (s *Profiles) deleteSnapshot(ctx context.Context, userID, id string) error {
	if err := s.step(); err != nil {
		return err
	}
	if _, err := s.chunks.DeleteMany(ctx, bson.D{{Key: "userId", Value: userID}, {Key: "snapshotId", Value: id}}); err != nil {
		return fmt.Errorf("delete snapshot %s: %w", id, err)
	}
	if err := s.step(); err != nil {
		return err
	}
	if _, err := s.snapshots.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
		return fmt.Errorf("delete snapshot %s: %w", id, err)
	}
	return nil
}

// Change applies c with one updateOne (conditional on the lease when c
// names one).
func (s *Profiles) Change(ctx context.Context, userID string, c profile.Change) (bool, error) {
	set := bson.D{}
	if c.Status != nil {
		set = append(set, bson.E{Key: "status", Value: *c.Status})
	}
	if c.Problem != nil {
		set = append(set, bson.E{Key: "problem", Value: *c.Problem})
	}
	if c.Result != nil {
		set = append(set, bson.E{Key: "result", Value: c.Result})
	}
	if c.Credential != nil {
		set = append(set, bson.E{Key: "credential", Value: *c.Credential})
	}
	if c.EndLease {
		set = append(set, bson.E{Key: "leaseUntil", Value: notLeased})
	}
	update := bson.D{}
	if c.NextRefresh != nil && c.NextRefresh.IsZero() {
		update = append(update, bson.E{Key: "$unset", Value: bson.D{{Key: "nextRefresh", Value: ""}}})
	} else if c.NextRefresh != nil {
		set = append(set, bson.E{Key: "nextRefresh", Value: *c.NextRefresh})
	}
	if len(set) > 0 {
		update = append(update, bson.E{Key: "$set", Value: set})
	}
	filter := bson.D{{Key: "_id", Value: userID}}
	if !c.Lease.IsZero() {
		filter = append(filter, bson.E{Key: "leaseUntil", Value: c.Lease})
	}
	if len(update) == 0 {
		err := s.profiles.FindOne(ctx, filter, options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 1}})).Err()
		if errors.Is(err, mongo.ErrNoDocuments) {
			return false, nil
		}
		return err == nil, err
	}
	if err := s.step(); err != nil {
		return false, err
	}
	res, err := s.profiles.UpdateOne(ctx, filter, update)
	if err != nil {
		return false, fmt.Errorf("change profile %s: %w", userID, err)
	}
	return res.MatchedCount > 0, nil
}

// snapshotRetries bounds the rewrites of one profile's snapshot list that
// another writer's rewrite made stale.
const snapshotRetries = 100

// AddSnapshot writes the lists' chunks and the snapshot (upserts by _id, so
// a retry rewrites them), then rewrites the profile's list with an update
// conditional on the version it read, again if another writer changed it
// meanwhile, and last deletes the snapshots that fell off.
func (s *Profiles) AddSnapshot(ctx context.Context, userID string, ref profile.SnapshotRef, snap analysis.Snapshot, keep int) error {
	d := snapshotDoc{ID: ref.ID, UserID: userID, TakenAt: ref.TakenAt, FollowerCount: snap.FollowerCount,
		FollowersKnown: snap.Followers != nil, FollowingKnown: snap.Following != nil, Posts: snap.Posts}
	var err error
	if d.FollowerChunks, err = s.putChunks(ctx, userID, ref.ID, "followers", snap.Followers); err != nil {
		return err
	}
	if d.FollowingChunks, err = s.putChunks(ctx, userID, ref.ID, "following", snap.Following); err != nil {
		return err
	}
	if err := s.step(); err != nil {
		return err
	}
	if _, err := s.snapshots.ReplaceOne(ctx, bson.D{{Key: "_id", Value: ref.ID}}, d, options.Replace().SetUpsert(true)); err != nil {
		return fmt.Errorf("store snapshot %s: %w", ref.ID, err)
	}
	for range snapshotRetries {
		var p profileDoc
		err := s.profiles.FindOne(ctx, bson.D{{Key: "_id", Value: userID}},
			options.FindOne().SetProjection(bson.D{{Key: "snapshots", Value: 1}, {Key: "version", Value: 1}})).Decode(&p)
		if errors.Is(err, mongo.ErrNoDocuments) {
			return nil // kept under the user, whose erasure finds it
		}
		if err != nil {
			return fmt.Errorf("record snapshot %s: %w", ref.ID, err)
		}
		kept, dropped := profile.WithSnapshot(p.profile().Snapshots, ref, keep)
		if err := s.step(); err != nil {
			return err
		}
		res, err := s.profiles.UpdateOne(ctx, bson.D{{Key: "_id", Value: userID}, {Key: "version", Value: p.Version}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "snapshots", Value: refDocs(kept)}, {Key: "version", Value: engine.NewID()}}}})
		if err != nil {
			return fmt.Errorf("record snapshot %s: %w", ref.ID, err)
		}
		if res.MatchedCount == 0 {
			continue // another writer rewrote the list since it was read
		}
		if len(dropped) == 0 && len(kept) < keep {
			return nil
		}
		// Every snapshot older than the oldest kept, not only the ones
		// this write dropped: a retry after a crash here finds the list
		// trimmed already, and deletes what the first run left.
		return s.deleteOlderSnapshots(ctx, userID, kept[0].TakenAt)
	}
	return fmt.Errorf("record snapshot %s: %w", ref.ID, engine.Errorf(engine.CodeConflict, "Your profile is being updated; try again in a minute."))
}

func (s *Profiles) putChunks(ctx context.Context, userID, snapshotID, list string, names []string) (int, error) {
	n := 0
	for start := 0; start < len(names); start += chunkSize {
		id := snapshotID + ":" + list + ":" + strconv.Itoa(n)
		if err := s.step(); err != nil {
			return 0, err
		}
		if _, err := s.chunks.ReplaceOne(ctx, bson.D{{Key: "_id", Value: id}},
			chunkDoc{ID: id, UserID: userID, SnapshotID: snapshotID, Names: names[start:min(start+chunkSize, len(names))]},
			options.Replace().SetUpsert(true)); err != nil {
			return 0, fmt.Errorf("store %s: %w", id, err)
		}
		n++
	}
	return n, nil
}

func (s *Profiles) getChunks(ctx context.Context, snapshotID, list string, n int, known bool) ([]string, error) {
	if !known {
		return nil, nil
	}
	names := make([]string, 0, n*chunkSize)
	for i := range n {
		var c chunkDoc
		id := snapshotID + ":" + list + ":" + strconv.Itoa(i)
		if err := s.chunks.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&c); err != nil {
			return nil, fmt.Errorf("read %s: %w", id, err)
		}
		names = append(names, c.Names...)
	}
	return names, nil
}

// Snapshot reads a snapshot and its chunks.
func (s *Profiles) Snapshot(ctx context.Context, id string) (analysis.Snapshot, bool, error) {
	var d snapshotDoc
	err := s.snapshots.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return analysis.Snapshot{}, false, nil
	}
	if err != nil {
		return analysis.Snapshot{}, false, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	followers, err := s.getChunks(ctx, id, "followers", d.FollowerChunks, d.FollowersKnown)
	if err != nil {
		return analysis.Snapshot{}, false, err
	}
	following, err := s.getChunks(ctx, id, "following", d.FollowingChunks, d.FollowingKnown)
	if err != nil {
		return analysis.Snapshot{}, false, err
	}
	for i := range d.Posts {
		d.Posts[i].TakenAt = d.Posts[i].TakenAt.UTC()
	}
	return analysis.Snapshot{TakenAt: d.TakenAt.UTC(), FollowerCount: d.FollowerCount, Followers: followers,
		Following: following, Posts: d.Posts}, true, nil
}

// ClaimDue finds due profiles by nextRefresh and leases each with a
// findOneAndUpdate that matches only while it is still due and unleased:
// MongoDB applies it to one document atomically, so of runners claiming
// together one leases it (FerretDB v1 does not: see the contract's Atomic).
func (s *Profiles) ClaimDue(ctx context.Context, now, leaseUntil time.Time, n int) ([]profile.Profile, error) {
	due := bson.D{{Key: "nextRefresh", Value: bson.D{{Key: "$lte", Value: now}}}, {Key: "leaseUntil", Value: bson.D{{Key: "$lte", Value: now}}}}
	docs, err := leaseEach[profileDoc](ctx, s.profiles, due, bson.D{{Key: "nextRefresh", Value: 1}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "leaseUntil", Value: leaseUntil}}}}, n, s.step)
	leased := make([]profile.Profile, len(docs))
	for i, d := range docs {
		leased[i] = d.profile()
	}
	if err != nil {
		return leased, fmt.Errorf("due profiles: %w", err)
	}
	return leased, nil
}

// Delete deletes the user's chunks, snapshots, links and profile, each step
// by the user's id: a rerun after a crash finishes what is left.
func (s *Profiles) Delete(ctx context.Context, userID string) error {
	for _, c := range []*mongo.Collection{s.chunks, s.snapshots, s.links} {
		if err := s.step(); err != nil {
			return err
		}
		if _, err := c.DeleteMany(ctx, bson.D{{Key: "userId", Value: userID}}); err != nil {
			return fmt.Errorf("delete profile of %s from %s: %w", userID, c.Name(), err)
		}
	}
	if err := s.step(); err != nil {
		return err
	}
	if _, err := s.profiles.DeleteOne(ctx, bson.D{{Key: "_id", Value: userID}}); err != nil {
		return fmt.Errorf("delete profile of %s: %w", userID, err)
	}
	return nil
}

// Link upserts the account's link by _id: one document per account.
func (s *Profiles) Link(ctx context.Context, userID, instagramID string) error {
	if err := s.step(); err != nil {
		return err
	}
	_, err := s.links.ReplaceOne(ctx, bson.D{{Key: "_id", Value: instagramID}}, instagramLinkDoc{InstagramID: instagramID, UserID: userID},
		options.Replace().SetUpsert(true))
	if mongo.IsDuplicateKeyError(err) {
		// Two upserts raced to insert: the other's document is there now.
		_, err = s.links.ReplaceOne(ctx, bson.D{{Key: "_id", Value: instagramID}}, instagramLinkDoc{InstagramID: instagramID, UserID: userID})
	}
	if err != nil {
		return fmt.Errorf("link instagram account: %w", err)
	}
	return nil
}

// UserOf returns the account's subscriber.
func (s *Profiles) UserOf(ctx context.Context, instagramID string) (string, error) {
	var l instagramLinkDoc
	err := s.links.FindOne(ctx, bson.D{{Key: "_id", Value: instagramID}}).Decode(&l)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("instagram link: %w", err)
	}
	return l.UserID, nil
}

// InsertMany writes the profiles, their snapshots and chunks with unordered
// insertMany calls.
func (s *Profiles) InsertMany(ctx context.Context, seeded []profile.Seeded) error {
	var profiles, snapshots, chunks []any
	for _, sd := range seeded {
		p := sd.Profile
		profiles = append(profiles, docOf(p))
		for i, snap := range sd.Snapshots {
			ref := p.Snapshots[i]
			d := snapshotDoc{ID: ref.ID, UserID: p.UserID, TakenAt: ref.TakenAt, FollowerCount: snap.FollowerCount,
				FollowersKnown: snap.Followers != nil, FollowingKnown: snap.Following != nil, Posts: snap.Posts}
			for _, l := range []struct {
				name  string
				names []string
				n     *int
			}{{"followers", snap.Followers, &d.FollowerChunks}, {"following", snap.Following, &d.FollowingChunks}} {
				for start := 0; start < len(l.names); start += chunkSize {
					id := ref.ID + ":" + l.name + ":" + strconv.Itoa(*l.n)
					chunks = append(chunks, chunkDoc{ID: id, UserID: p.UserID, SnapshotID: ref.ID, Names: l.names[start:min(start+chunkSize, len(l.names))]})
					*l.n++
				}
			}
			snapshots = append(snapshots, d)
		}
	}
	for _, w := range []struct {
		coll *mongo.Collection
		docs []any
	}{{s.chunks, chunks}, {s.snapshots, snapshots}, {s.profiles, profiles}} {
		if len(w.docs) == 0 {
			continue
		}
		if _, err := w.coll.InsertMany(ctx, w.docs, options.InsertMany().SetOrdered(false)); err != nil {
			return fmt.Errorf("insert into %s: %w", w.coll.Name(), err)
		}
	}
	return nil
}

// WithUsernamePrefix reads a range of the by_username index, in its order,
// the user's id and username only.
func (s *Profiles) WithUsernamePrefix(ctx context.Context, prefix string, n int) ([]profile.Handle, error) {
	if prefix == "" || n < 1 {
		return nil, nil
	}
	filter := bson.D{{Key: "username", Value: bson.D{{Key: "$gte", Value: prefix}, {Key: "$lt", Value: profile.UsernamePrefixEnd(prefix)}}}}
	cur, err := s.profiles.Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "username", Value: 1}}).SetLimit(int64(n)).
		SetProjection(bson.D{{Key: "_id", Value: 1}, {Key: "username", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("profiles from @%s: %w", prefix, err)
	}
	var docs []struct {
		UserID   string `bson:"_id"`
		Username string `bson:"username"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("profiles from @%s: %w", prefix, err)
	}
	out := make([]profile.Handle, len(docs))
	for i, d := range docs {
		out[i] = profile.Handle{UserID: d.UserID, Username: d.Username}
	}
	return out, nil
}
