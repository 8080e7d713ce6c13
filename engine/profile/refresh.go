package profile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
)

// leaseFor is how long one instance may hold a profile's refresh before
// another may take it over (a crashed worker's lease runs out).
const leaseFor = 10 * time.Minute

// RefreshDue refreshes every profile whose next refresh has come: it takes a
// lease on each (so several instances can run this at once), adds a new
// snapshot where the source can give one, and analyses again. It returns how
// many profiles it refreshed. A failure of one profile leaves its previous
// result in place and does not stop the others.
func (s *Service) RefreshDue(ctx context.Context) (int, error) {
	now := s.clock.Now()
	cur, err := s.db.Collection(ProfilesCollection).Find(ctx, bson.M{"nextRefresh": bson.M{"$lte": now}},
		options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return 0, fmt.Errorf("find due profiles: %w", err)
	}
	var due []struct {
		ID string `bson:"_id"`
	}
	if err := cur.All(ctx, &due); err != nil {
		return 0, fmt.Errorf("read due profiles: %w", err)
	}
	done := 0
	for _, d := range due {
		p, ok, err := s.lease(ctx, d.ID, now)
		if err != nil {
			return done, err
		}
		if !ok {
			continue // another instance has it
		}
		if err := s.refresh(ctx, p); err != nil {
			s.logger.Warn("profile refresh failed", "userId", p.UserID, "error", err)
			problem := "The last update failed; we will try again within the hour."
			var e *engine.Error
			if errors.As(err, &e) && e.Message != "" {
				problem = e.Message
			}
			_, _ = s.db.Collection(ProfilesCollection).UpdateOne(ctx, bson.M{"_id": p.UserID}, bson.M{"$set": bson.M{
				"nextRefresh": now.Add(time.Hour), "leaseUntil": time.Time{}, "problem": problem}})
			continue
		}
		done++
	}
	return done, nil
}

// lease takes a profile for refreshing unless another worker holds it.
func (s *Service) lease(ctx context.Context, userID string, now time.Time) (Profile, bool, error) {
	var p Profile
	err := s.db.Collection(ProfilesCollection).FindOneAndUpdate(ctx,
		bson.M{"_id": userID, "nextRefresh": bson.M{"$lte": now}, "$or": bson.A{
			bson.M{"leaseUntil": bson.M{"$exists": false}}, bson.M{"leaseUntil": bson.M{"$lt": now}}}},
		bson.M{"$set": bson.M{"leaseUntil": now.Add(leaseFor)}},
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&p)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return Profile{}, false, nil
	}
	if err != nil {
		return Profile{}, false, fmt.Errorf("lease profile %s: %w", userID, err)
	}
	return p, true, nil
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
	_, err := s.db.Collection(ProfilesCollection).UpdateOne(ctx, bson.M{"_id": p.UserID},
		bson.M{"$set": bson.M{"leaseUntil": time.Time{}}})
	return err
}

// RunRefresh refreshes due profiles every interval until ctx ends.
func (s *Service) RunRefresh(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if n, err := s.RefreshDue(ctx); err != nil {
			s.logger.Warn("profile refresh", "error", err)
		} else if n > 0 {
			s.logger.Info("profiles refreshed", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
