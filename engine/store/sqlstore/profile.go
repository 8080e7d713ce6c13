package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"glimpse/engine/analysis"
	"glimpse/engine/profile"
	"glimpse/engine/store/sqlite"
)

// Profiles stores connected profiles, their snapshots and the Instagram
// links in the profiles, profile_snapshots and instagram_links tables
// (migration 0006).
type Profiles struct {
	db *sqlite.DB
	// beforeWrite, when set, runs before each write and fails it with its
	// error (tests: a use case stopped between two writes).
	beforeWrite func() error
}

// NewProfiles returns profile's storage on db.
func NewProfiles(db *sqlite.DB) *Profiles { return &Profiles{db: db} }

var _ profile.Profiles = (*Profiles)(nil)

// profileRest is what a profile keeps beside its indexed columns.
type profileRest struct {
	Source     string           `json:"source"`
	Username   string           `json:"username,omitempty"`
	Problem    string           `json:"problem,omitempty"`
	Snapshots  []snapshotRef    `json:"snapshots"`
	Result     *analysis.Result `json:"result,omitempty"`
	Seed       int64            `json:"seed,omitempty"`
	Credential string           `json:"credential,omitempty"`
}

type snapshotRef struct {
	ID             string    `json:"id"`
	TakenAt        time.Time `json:"takenAt"`
	Followers      float64   `json:"followers"`
	EngagementRate float64   `json:"engagementRate"`
	HasFollowers   bool      `json:"hasFollowers"`
	HasEngagement  bool      `json:"hasEngagement"`
}

// snapshotRest is a snapshot beside its columns: the lists are null when
// the source did not give them.
type snapshotRest struct {
	FollowerCount int             `json:"followerCount"`
	Followers     []string        `json:"followers"`
	Following     []string        `json:"following"`
	Posts         []analysis.Post `json:"posts"`
}

func (s *Profiles) write(ctx context.Context, q sqlite.Querier, query string, args ...any) (sql.Result, error) {
	if s.beforeWrite != nil {
		if err := s.beforeWrite(); err != nil {
			return nil, err
		}
	}
	return q.ExecContext(ctx, query, args...)
}

func restOf(p profile.Profile) profileRest {
	r := profileRest{Source: p.Source, Username: p.Username, Problem: p.Problem, Result: p.Result, Seed: p.Seed,
		Credential: p.Credential, Snapshots: make([]snapshotRef, len(p.Snapshots))}
	for i, ref := range p.Snapshots {
		r.Snapshots[i] = snapshotRef(ref)
	}
	return r
}

func (r profileRest) refs() []profile.SnapshotRef {
	out := make([]profile.SnapshotRef, len(r.Snapshots))
	for i, ref := range r.Snapshots {
		out[i] = profile.SnapshotRef(ref)
		out[i].TakenAt = ref.TakenAt.UTC()
	}
	return out
}

func (r *profileRest) setRefs(refs []profile.SnapshotRef) {
	r.Snapshots = make([]snapshotRef, len(refs))
	for i, ref := range refs {
		r.Snapshots[i] = snapshotRef(ref)
	}
}

func leaseOf(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return unixNano(t)
}

const profileColumns = `user_id, status, next_refresh, lease_until, doc`

func scanProfile(row interface{ Scan(...any) error }) (profile.Profile, profileRest, error) {
	var p profile.Profile
	var next sql.NullInt64
	var lease int64
	var doc string
	if err := row.Scan(&p.UserID, &p.Status, &next, &lease, &doc); err != nil {
		return profile.Profile{}, profileRest{}, err
	}
	var rest profileRest
	if err := json.Unmarshal([]byte(doc), &rest); err != nil {
		return profile.Profile{}, profileRest{}, fmt.Errorf("profile %s: %w", p.UserID, err)
	}
	if next.Valid {
		p.NextRefresh = fromUnixNano(next.Int64)
	}
	if lease != 0 {
		p.LeaseUntil = fromUnixNano(lease)
	}
	p.Source, p.Username, p.Problem, p.Result, p.Seed, p.Credential = rest.Source, rest.Username, rest.Problem, rest.Result, rest.Seed, rest.Credential
	p.Snapshots = rest.refs()
	return p, rest, nil
}

// Get returns the user's profile.
func (s *Profiles) Get(ctx context.Context, userID string) (profile.Profile, bool, error) {
	p, _, err := scanProfile(s.db.Reader().QueryRowContext(ctx, `SELECT `+profileColumns+` FROM profiles WHERE user_id = ?`, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return profile.Profile{}, false, nil
	}
	if err != nil {
		return profile.Profile{}, false, fmt.Errorf("profile of %s: %w", userID, err)
	}
	return p, true, nil
}

// Summary returns the user's status and the latest engagement, reading the
// one field of the result it needs.
func (s *Profiles) Summary(ctx context.Context, userID string) (profile.Summary, bool, error) {
	var sum profile.Summary
	var engagement sql.NullString
	err := s.db.Reader().QueryRowContext(ctx, `SELECT status, json_extract(doc, '$.result.Engagement') FROM profiles WHERE user_id = ?`,
		userID).Scan(&sum.Status, &engagement)
	if errors.Is(err, sql.ErrNoRows) {
		return profile.Summary{}, false, nil
	}
	if err != nil {
		return profile.Summary{}, false, fmt.Errorf("profile summary of %s: %w", userID, err)
	}
	if engagement.Valid {
		sum.Engagement = new(analysis.Engagement)
		if err := json.Unmarshal([]byte(engagement.String), sum.Engagement); err != nil {
			return profile.Summary{}, false, fmt.Errorf("profile summary of %s: %w", userID, err)
		}
	}
	return sum, true, nil
}

// Put creates or replaces the user's profile and deletes the snapshots it
// does not name, in one transaction.
func (s *Profiles) Put(ctx context.Context, p profile.Profile) error {
	return s.db.Update(ctx, func(tx *sqlite.Tx) error {
		named := map[string]bool{}
		for _, ref := range p.Snapshots {
			named[ref.ID] = true
		}
		ids, err := snapshotIDs(ctx, tx, p.UserID)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if named[id] {
				continue
			}
			if _, err := s.write(ctx, tx, `DELETE FROM profile_snapshots WHERE id = ?`, id); err != nil {
				return fmt.Errorf("put profile %s: %w", p.UserID, err)
			}
		}
		doc, err := json.Marshal(restOf(p))
		if err != nil {
			return fmt.Errorf("put profile %s: %w", p.UserID, err)
		}
		if _, err := s.write(ctx, tx, `INSERT INTO profiles (`+profileColumns+`) VALUES (?, ?, ?, 0, ?)
			ON CONFLICT (user_id) DO UPDATE SET status = excluded.status, next_refresh = excluded.next_refresh,
			lease_until = 0, doc = excluded.doc`, p.UserID, p.Status, nullTime(p.NextRefresh), string(doc)); err != nil {
			return fmt.Errorf("put profile %s: %w", p.UserID, err)
		}
		return nil
	})
}

func snapshotIDs(ctx context.Context, q sqlite.Querier, userID string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT id FROM profile_snapshots WHERE user_id = ?`, userID)
	if err != nil {
		return nil, fmt.Errorf("snapshots of %s: %w", userID, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("snapshots of %s: %w", userID, err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// Change applies c to the user's profile in one transaction.
func (s *Profiles) Change(ctx context.Context, userID string, c profile.Change) (bool, error) {
	changed := false
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		query, args := `SELECT `+profileColumns+` FROM profiles WHERE user_id = ?`, []any{userID}
		if !c.Lease.IsZero() {
			query, args = query+` AND lease_until = ?`, append(args, leaseOf(c.Lease))
		}
		p, rest, err := scanProfile(tx.QueryRowContext(ctx, query, args...))
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if c.Status != nil {
			p.Status = *c.Status
		}
		if c.Problem != nil {
			rest.Problem = *c.Problem
		}
		if c.Result != nil {
			rest.Result = c.Result
		}
		if c.NextRefresh != nil {
			p.NextRefresh = *c.NextRefresh
		}
		if c.Credential != nil {
			rest.Credential = *c.Credential
		}
		if c.EndLease {
			p.LeaseUntil = time.Time{}
		}
		doc, err := json.Marshal(rest)
		if err != nil {
			return err
		}
		if _, err := s.write(ctx, tx, `UPDATE profiles SET status = ?, next_refresh = ?, lease_until = ?, doc = ? WHERE user_id = ?`,
			p.Status, nullTime(p.NextRefresh), leaseOf(p.LeaseUntil), string(doc), userID); err != nil {
			return err
		}
		changed = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("change profile %s: %w", userID, err)
	}
	return changed, nil
}

// AddSnapshot stores the snapshot and rewrites the profile's list in one
// transaction: snapshots added together are serialised by the writer.
func (s *Profiles) AddSnapshot(ctx context.Context, userID string, ref profile.SnapshotRef, snap analysis.Snapshot, keep int) error {
	doc, err := json.Marshal(snapshotRest{FollowerCount: snap.FollowerCount, Followers: snap.Followers,
		Following: snap.Following, Posts: snap.Posts})
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", ref.ID, err)
	}
	err = s.db.Update(ctx, func(tx *sqlite.Tx) error {
		if _, err := s.write(ctx, tx, `INSERT INTO profile_snapshots (id, user_id, taken_at, doc) VALUES (?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, taken_at = excluded.taken_at, doc = excluded.doc`,
			ref.ID, userID, unixNano(ref.TakenAt), string(doc)); err != nil {
			return err
		}
		p, rest, err := scanProfile(tx.QueryRowContext(ctx, `SELECT `+profileColumns+` FROM profiles WHERE user_id = ?`, userID))
		if errors.Is(err, sql.ErrNoRows) {
			return nil // kept under the user, whose erasure finds it
		}
		if err != nil {
			return err
		}
		kept, dropped := profile.WithSnapshot(p.Snapshots, ref, keep)
		rest.setRefs(kept)
		list, err := json.Marshal(rest)
		if err != nil {
			return err
		}
		if _, err := s.write(ctx, tx, `UPDATE profiles SET doc = ? WHERE user_id = ?`, string(list), userID); err != nil {
			return err
		}
		for _, d := range dropped {
			if _, err := s.write(ctx, tx, `DELETE FROM profile_snapshots WHERE id = ?`, d.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add snapshot %s: %w", ref.ID, err)
	}
	return nil
}

// Snapshot returns a stored snapshot with its lists.
func (s *Profiles) Snapshot(ctx context.Context, id string) (analysis.Snapshot, bool, error) {
	var takenAt int64
	var doc string
	err := s.db.Reader().QueryRowContext(ctx, `SELECT taken_at, doc FROM profile_snapshots WHERE id = ?`, id).Scan(&takenAt, &doc)
	if errors.Is(err, sql.ErrNoRows) {
		return analysis.Snapshot{}, false, nil
	}
	if err != nil {
		return analysis.Snapshot{}, false, fmt.Errorf("snapshot %s: %w", id, err)
	}
	var rest snapshotRest
	if err := json.Unmarshal([]byte(doc), &rest); err != nil {
		return analysis.Snapshot{}, false, fmt.Errorf("snapshot %s: %w", id, err)
	}
	for i := range rest.Posts {
		rest.Posts[i].TakenAt = rest.Posts[i].TakenAt.UTC()
	}
	return analysis.Snapshot{TakenAt: fromUnixNano(takenAt), FollowerCount: rest.FollowerCount, Followers: rest.Followers,
		Following: rest.Following, Posts: rest.Posts}, true, nil
}

// ClaimDue finds due profiles by next_refresh and leases each with an update
// that holds only while it is still due and unleased: of runners claiming
// together, one updates the row and the others find it leased.
func (s *Profiles) ClaimDue(ctx context.Context, now, leaseUntil time.Time, n int) ([]profile.Profile, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT user_id FROM profiles WHERE next_refresh <= ? AND lease_until <= ?
		ORDER BY next_refresh LIMIT ?`, unixNano(now), unixNano(now), n)
	if err != nil {
		return nil, fmt.Errorf("due profiles: %w", err)
	}
	var due []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("due profiles: %w", err)
		}
		due = append(due, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("due profiles: %w", err)
	}
	var leased []profile.Profile
	for _, id := range due {
		if s.beforeWrite != nil {
			if err := s.beforeWrite(); err != nil {
				return leased, err
			}
		}
		p, _, err := scanProfile(s.db.Writer().QueryRowContext(ctx, `UPDATE profiles SET lease_until = ?
			WHERE user_id = ? AND next_refresh <= ? AND lease_until <= ? RETURNING `+profileColumns,
			unixNano(leaseUntil), id, unixNano(now), unixNano(now)))
		if errors.Is(err, sql.ErrNoRows) {
			continue // another runner leased it first
		}
		if err != nil {
			return leased, fmt.Errorf("lease profile %s: %w", id, err)
		}
		leased = append(leased, p)
	}
	return leased, nil
}

// Delete deletes the user's snapshots, links and profile in one
// transaction.
func (s *Profiles) Delete(ctx context.Context, userID string) error {
	err := s.db.Update(ctx, func(tx *sqlite.Tx) error {
		for _, q := range []string{`DELETE FROM profile_snapshots WHERE user_id = ?`, `DELETE FROM instagram_links WHERE user_id = ?`,
			`DELETE FROM profiles WHERE user_id = ?`} {
			if _, err := s.write(ctx, tx, q, userID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete profile of %s: %w", userID, err)
	}
	return nil
}

// Link records the account's subscriber, replacing the one before: the
// primary key on instagram_id keeps one row per account.
func (s *Profiles) Link(ctx context.Context, userID, instagramID string) error {
	if _, err := s.write(ctx, s.db.Writer(), `INSERT INTO instagram_links (instagram_id, user_id) VALUES (?, ?)
		ON CONFLICT (instagram_id) DO UPDATE SET user_id = excluded.user_id`, instagramID, userID); err != nil {
		return fmt.Errorf("link instagram account: %w", err)
	}
	return nil
}

// UserOf returns the account's subscriber.
func (s *Profiles) UserOf(ctx context.Context, instagramID string) (string, error) {
	var userID string
	err := s.db.Reader().QueryRowContext(ctx, `SELECT user_id FROM instagram_links WHERE instagram_id = ?`, instagramID).Scan(&userID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("instagram link: %w", err)
	}
	return userID, nil
}

// InsertMany writes new profiles and their snapshots in one transaction,
// in multi-row statements.
func (s *Profiles) InsertMany(ctx context.Context, seeded []profile.Seeded) error {
	type snapshotRow struct {
		userID string
		ref    profile.SnapshotRef
		snap   analysis.Snapshot
	}
	var snaps []snapshotRow
	for _, sd := range seeded {
		for i, snap := range sd.Snapshots {
			snaps = append(snaps, snapshotRow{sd.Profile.UserID, sd.Profile.Snapshots[i], snap})
		}
	}
	return s.db.Update(ctx, func(tx *sqlite.Tx) error {
		q := beforeEach{tx, s.beforeWrite}
		if _, err := insertRows(ctx, q, profilesInsert, seeded, func(args []any, sd profile.Seeded) ([]any, error) {
			p := sd.Profile
			doc, err := json.Marshal(restOf(p))
			if err != nil {
				return nil, fmt.Errorf("profile %s: %w", p.UserID, err)
			}
			return append(args, p.UserID, p.Status, nullTime(p.NextRefresh), leaseOf(p.LeaseUntil), string(doc)), nil
		}); err != nil {
			return fmt.Errorf("insert profiles: %w", err)
		}
		if _, err := insertRows(ctx, q, snapshotsInsert, snaps, func(args []any, r snapshotRow) ([]any, error) {
			doc, err := json.Marshal(snapshotRest{FollowerCount: r.snap.FollowerCount, Followers: r.snap.Followers,
				Following: r.snap.Following, Posts: r.snap.Posts})
			if err != nil {
				return nil, fmt.Errorf("snapshot %s: %w", r.ref.ID, err)
			}
			return append(args, r.ref.ID, r.userID, unixNano(r.ref.TakenAt), string(doc)), nil
		}); err != nil {
			return fmt.Errorf("insert snapshots: %w", err)
		}
		return nil
	})
}

var (
	profilesInsert  = newMultiRow("profiles", profileColumns, "")
	snapshotsInsert = newMultiRow("profile_snapshots", "id, user_id, taken_at, doc", "")
)

// WithUsernamePrefix reads a range of profiles_username (0043), which holds
// the username and the user's id: n index entries at most, no row.
func (s *Profiles) WithUsernamePrefix(ctx context.Context, prefix string, n int) ([]profile.Handle, error) {
	if prefix == "" || n < 1 {
		return nil, nil
	}
	rows, err := s.db.Reader().QueryContext(ctx, `SELECT user_id, json_extract(doc, '$.username') FROM profiles
		WHERE json_extract(doc, '$.username') >= ? AND json_extract(doc, '$.username') < ?
		ORDER BY json_extract(doc, '$.username') LIMIT ?`, prefix, profile.UsernamePrefixEnd(prefix), n)
	if err != nil {
		return nil, fmt.Errorf("profiles from @%s: %w", prefix, err)
	}
	defer rows.Close()
	var out []profile.Handle
	for rows.Next() {
		var h profile.Handle
		if err := rows.Scan(&h.UserID, &h.Username); err != nil {
			return nil, fmt.Errorf("profiles from @%s: %w", prefix, err)
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("profiles from @%s: %w", prefix, err)
	}
	return out, nil
}
