package profile

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/analysis"
)

// leaseFor is the length of a lease window. A runner that takes a profile
// keeps it from the other runners for the rest of its window and the whole
// next one, so for at least leaseFor; after that another runner may take it
// over (the first one crashed, or a refresh hung).
const leaseFor = 10 * time.Minute

// RefreshDue refreshes every profile whose next refresh has come: it takes a
// lease on each (so several instances can run this at once), adds a new
// snapshot where the source can give one, and analyses again. It returns how
// many profiles it refreshed. A failure of one profile leaves its previous
// result in place and does not stop the others.
func (s *Service) RefreshDue(ctx context.Context) (int, error) {
	now := s.clock.Now()
	cur, err := s.db.Collection(ProfilesCollection).Find(ctx, bson.M{"nextRefresh": bson.M{"$lte": now}},
		options.Find().SetProjection(bson.M{"_id": 1, "nextRefresh": 1}))
	if err != nil {
		return 0, fmt.Errorf("find due profiles: %w", err)
	}
	var due []struct {
		ID          string    `bson:"_id"`
		NextRefresh time.Time `bson:"nextRefresh"`
	}
	if err := cur.All(ctx, &due); err != nil {
		return 0, fmt.Errorf("read due profiles: %w", err)
	}
	done := 0
	for _, d := range due {
		l, ok, err := s.lease(ctx, d.ID, d.NextRefresh)
		if err != nil {
			return done, err
		}
		if !ok {
			continue // another runner has it
		}
		refreshed, err := s.refreshLeased(ctx, d.ID, d.NextRefresh, now)
		// Released only now, when the profile's nextRefresh has moved on (or
		// the refresh failed and may be retried): a runner that takes the
		// same claim afterwards reads the new nextRefresh and skips.
		if rerr := s.claims.Release(ctx, l); rerr != nil {
			s.logger.Warn("release refresh lease", "userId", d.ID, "error", rerr)
		}
		if err != nil {
			return done, err
		}
		if refreshed {
			done++
		}
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
		if _, err := s.db.Collection(ProfilesCollection).UpdateOne(ctx, bson.M{"_id": p.UserID}, bson.M{"$set": bson.M{
			"nextRefresh": now.Add(time.Hour), "problem": problem}}); err != nil {
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
	// Finding the due profiles reads every profile on the embedded store.
	engine.EveryAtMost(ctx, every, engine.PassShare, refresh)
}
