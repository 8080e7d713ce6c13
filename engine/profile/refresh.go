package profile

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
	"glimpse/engine/store"
)

// leaseFor is the length of a lease window. A runner that takes a profile
// keeps it from the other runners for the rest of its window and the whole
// next one, so for at least leaseFor; after that another runner may take it
// over (the first one crashed, or a refresh hung).
const leaseFor = 10 * time.Minute

// refreshScheduleCollection files each profile under the minute of its
// nextRefresh (store.Schedule): the refresh pass reads the due ones by _id,
// where a find on nextRefresh decoded every profile (about 25 KB each with
// its analysis) every minute on the embedded store.
const refreshScheduleCollection = "profile_refresh_schedule"

// RefreshStep is the width of the refresh schedule's buckets.
const RefreshStep = time.Minute

// refreshKeysCollection maps each profile's RefreshKey to its account:
// {_id: key, userId}. The schedule's entries hold keys, not account ids, so
// erasing a profile (Disconnect) erases the one document that ties its
// entries to a person; the entries themselves go as their minutes pass.
const refreshKeysCollection = "profile_refresh_keys"

// RefreshKeysCollection is refreshKeysCollection, for the privacy fates and
// the scale seed.
const RefreshKeysCollection = refreshKeysCollection

type refreshKeyDoc struct {
	ID     string `bson:"_id"`
	UserID string `bson:"userId"`
}

// RefreshKeyDoc is the document mapping key to userID, for the scale seed.
func RefreshKeyDoc(key, userID string) any { return refreshKeyDoc{ID: key, UserID: userID} }

// scheduleRefresh files a profile under its next refresh, giving it a
// refresh key first if it has none (the caller writes p.RefreshKey with the
// nextRefresh); call it before writing that nextRefresh.
func (s *Service) scheduleRefresh(ctx context.Context, p *Profile, at time.Time) error {
	if at.IsZero() {
		return nil
	}
	if err := ensureRefreshKey(ctx, s.db, p); err != nil {
		return err
	}
	if err := s.due.File(ctx, s.clock.Now(), store.ScheduleEntry{Ref: p.RefreshKey, At: at}); err != nil {
		return fmt.Errorf("schedule the refresh of %s: %w", p.UserID, err)
	}
	return nil
}

func ensureRefreshKey(ctx context.Context, db *mongo.Database, p *Profile) error {
	if p.RefreshKey != "" {
		return nil
	}
	key := engine.NewID()
	if _, err := db.Collection(refreshKeysCollection).InsertOne(ctx, refreshKeyDoc{ID: key, UserID: p.UserID}); err != nil {
		return fmt.Errorf("make the refresh key of %s: %w", p.UserID, err)
	}
	p.RefreshKey = key
	return nil
}

// scheduled reads the profile a schedule entry names: false when its key
// no longer leads to a profile holding it (erased, or reconnected under
// another key).
func (s *Service) scheduled(ctx context.Context, key string) (Profile, bool, error) {
	var k refreshKeyDoc
	err := s.db.Collection(refreshKeysCollection).FindOne(ctx, bson.M{"_id": key}).Decode(&k)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return Profile{}, false, nil
	}
	if err != nil {
		return Profile{}, false, fmt.Errorf("read refresh key: %w", err)
	}
	p, err := s.Get(ctx, k.UserID)
	if err != nil {
		return Profile{}, false, err
	}
	return p, p.RefreshKey == key, nil
}

// RefreshDue refreshes every profile whose next refresh has come: it takes a
// lease on each (so several instances can run this at once), adds a new
// snapshot where the source can give one, and analyses again. It returns how
// many profiles it refreshed. A failure of one profile leaves its previous
// result in place and does not stop the others. The due profiles are those
// the refresh schedule names up to now whose nextRefresh is still due; one
// another runner holds is filed again under now, for the next pass.
func (s *Service) RefreshDue(ctx context.Context) (int, error) {
	now := s.clock.Now()
	entries, err := s.due.Due(ctx, now)
	if err != nil {
		return 0, fmt.Errorf("read the refresh schedule: %w", err)
	}
	done := 0
	var unfinished []store.ScheduleEntry
	for _, e := range entries {
		p, ok, err := s.scheduled(ctx, e.Ref)
		if err != nil {
			return done, err
		}
		if !ok || p.NextRefresh.IsZero() || p.NextRefresh.After(now) {
			continue // refreshed since, or disconnected
		}
		l, ok, err := s.lease(ctx, p.UserID, p.NextRefresh)
		if err != nil {
			return done, err
		}
		if !ok {
			unfinished = append(unfinished, e) // another runner has it
			continue
		}
		refreshed, err := s.refreshLeased(ctx, p.UserID, p.NextRefresh, now)
		// Released only now, when the profile's nextRefresh has moved on (or
		// the refresh failed and may be retried): a runner that takes the
		// same claim afterwards reads the new nextRefresh and skips.
		if rerr := s.claims.Release(ctx, l); rerr != nil {
			s.logger.Warn("release refresh lease", "userId", p.UserID, "error", rerr)
		}
		if err != nil {
			// The schedule is not settled: the next pass reads it all again.
			return done, err
		}
		if refreshed {
			done++
		}
	}
	if err := s.due.Settle(ctx, now, unfinished); err != nil {
		return done, fmt.Errorf("settle the refresh schedule: %w", err)
	}
	return done, nil
}

// refreshLeased refreshes a profile this runner holds the lease on, unless
// it was refreshed since the list of due profiles was read.
func (s *Service) refreshLeased(ctx context.Context, userID string, due, now time.Time) (bool, error) {
	p, err := s.Get(ctx, userID)
	if err != nil {
		return false, err
	}
	if !p.NextRefresh.Equal(due) {
		return false, nil // another runner finished it before we took the lease
	}
	if err := s.refresh(ctx, p); err != nil {
		s.logger.Warn("profile refresh failed", "userId", p.UserID, "error", err)
		// A code, not words: the Analytics screen shows it in the brand's
		// language. An engine.Error's message is already meant for people.
		problem := string(analysis.ProblemRefreshFailed)
		var e *engine.Error
		if errors.As(err, &e) && e.Message != "" {
			problem = e.Message
		}
		if err := s.scheduleRefresh(ctx, &p, now.Add(time.Hour)); err != nil {
			return false, err
		}
		if _, err := s.db.Collection(ProfilesCollection).UpdateOne(ctx, bson.M{"_id": p.UserID}, bson.M{"$set": bson.M{
			"nextRefresh": now.Add(time.Hour), "problem": problem, "refreshKey": p.RefreshKey}}); err != nil {
			s.logger.Warn("record profile refresh failure", "userId", p.UserID, "error", err)
		}
		return false, nil
	}
	return true, nil
}

// lease takes the refresh of a profile that is due at `due`, returning the
// claim to release when done. The key holds the due time, so a new due time
// is a new lease (see tryExclusive for why a claim and how it lapses).
func (s *Service) lease(ctx context.Context, userID string, due time.Time) (string, bool, error) {
	return s.tryExclusive(ctx, "refresh:"+userID+":"+strconv.FormatInt(due.UnixMilli(), 10), leaseFor)
}

func (s *Service) refresh(ctx context.Context, p Profile) error {
	now := s.clock.Now()
	switch p.Source {
	case SourceDemo:
		if _, err := s.AddSnapshot(ctx, p.UserID, DemoSnapshot(p.Seed, now)); err != nil {
			return err
		}
	default:
		if fetch, ok := s.fetchers[p.Source]; ok {
			snap, credential, err := fetch(ctx, p, now)
			if err != nil {
				return err
			}
			if credential != "" {
				if err := s.SetCredential(ctx, p.UserID, credential); err != nil {
					return err
				}
			}
			if _, err := s.AddSnapshot(ctx, p.UserID, snap); err != nil {
				return err
			}
		}
		// An uploaded export changes only when the person uploads another;
		// analysing again keeps the countdown honest.
	}
	if _, err := s.Analyse(ctx, p.UserID); err != nil {
		return err
	}
	return nil
}

// RunRefresh refreshes due profiles every interval until ctx ends, at most
// engine.PassShare of the time.
func (s *Service) RunRefresh(ctx context.Context, every time.Duration) {
	refresh := func(ctx context.Context) {
		if n, err := s.RefreshDue(ctx); err != nil {
			s.logger.Warn("profile refresh", "error", err)
		} else if n > 0 {
			s.logger.Info("profiles refreshed", "count", n)
		}
	}
	refresh(ctx)
	// A refresh adds a snapshot and analyses it again: many due at once
	// (after an outage) must not take the cores the requests need.
	engine.EveryAtMost(ctx, every, engine.PassShare, refresh)
}

// refreshScheduledMarker is the settings document saying every profile
// written before the refresh schedule existed has been filed in it.
const refreshScheduledMarker = "refreshes-scheduled"

// FileExistingRefreshes files, once per database, the next refresh of every
// profile written before the refresh schedule existed. It reads every
// profile, so it runs at start and then marks itself done.
func FileExistingRefreshes(ctx context.Context, db *mongo.Database, settings string, now time.Time) error {
	return store.OncePerDatabase(ctx, db, settings, refreshScheduledMarker, func(ctx context.Context) error {
		cur, err := db.Collection(ProfilesCollection).Find(ctx, bson.M{},
			options.Find().SetProjection(bson.M{"_id": 1, "nextRefresh": 1, "refreshKey": 1}))
		if err != nil {
			return fmt.Errorf("schedule existing refreshes: %w", err)
		}
		var due []Profile
		if err := cur.All(ctx, &due); err != nil {
			return fmt.Errorf("schedule existing refreshes: %w", err)
		}
		var entries []store.ScheduleEntry
		for _, p := range due {
			if p.NextRefresh.IsZero() {
				continue
			}
			if p.RefreshKey == "" {
				if err := ensureRefreshKey(ctx, db, &p); err != nil {
					return err
				}
				if _, err := db.Collection(ProfilesCollection).UpdateOne(ctx, bson.M{"_id": p.UserID},
					bson.M{"$set": bson.M{"refreshKey": p.RefreshKey}}); err != nil {
					return fmt.Errorf("schedule existing refreshes: %w", err)
				}
			}
			entries = append(entries, store.ScheduleEntry{Ref: p.RefreshKey, At: p.NextRefresh})
		}
		if err := SeedRefreshSchedule(ctx, db, now, entries); err != nil {
			return fmt.Errorf("schedule existing refreshes: %w", err)
		}
		return nil
	})
}

// SeedRefreshSchedule files many profiles' next refreshes at once (entries
// name their refresh keys; store.SeedSchedule), for the filing above and
// the scale seed, which then calls MarkRefreshesScheduled.
func SeedRefreshSchedule(ctx context.Context, db *mongo.Database, now time.Time, entries []store.ScheduleEntry) error {
	return store.SeedSchedule(ctx, db, refreshScheduleCollection, RefreshStep, now, entries)
}

// RefreshScheduleCollection is refreshScheduleCollection, for the privacy
// fates.
const RefreshScheduleCollection = refreshScheduleCollection

// MarkRefreshesScheduled records that every profile's next refresh is
// filed, for a writer that filed them itself (the scale seed).
func MarkRefreshesScheduled(ctx context.Context, db *mongo.Database, settings string) error {
	return store.MarkDone(ctx, db, settings, refreshScheduledMarker)
}
