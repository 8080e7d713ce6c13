package profile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"glimpse/engine"
	"glimpse/engine/analysis"
)

// leaseFor is how long a runner that took a profile keeps it from the other
// runners; after that another runner may take it over (the first one
// crashed, or a refresh hung).
const leaseFor = 20 * time.Minute

// claimBatch is how many due profiles a runner leases at a time.
const claimBatch = 50

// RefreshDue refreshes every profile whose next refresh has come: it leases
// each (so several instances can run this at once; Profiles.ClaimDue), adds
// a new snapshot where the source can give one, and analyses again. It
// returns how many profiles it refreshed. A failure of one profile leaves
// its previous result in place, retries it in an hour and does not stop the
// others.
func (s *Service) RefreshDue(ctx context.Context) (int, error) {
	now := s.clock.Now()
	done := 0
	for {
		leased, err := s.profiles.ClaimDue(ctx, now, now.Add(leaseFor), claimBatch)
		if err != nil {
			return done, fmt.Errorf("claim due profiles: %w", err)
		}
		for _, p := range leased {
			refreshed, err := s.refreshLeased(ctx, p, now)
			if err != nil {
				return done, err
			}
			if refreshed {
				done++
			}
		}
		if len(leased) < claimBatch {
			return done, nil
		}
	}
}

// refreshLeased refreshes a profile this runner holds the lease on, then
// releases the lease; a failure moves its next refresh an hour on.
func (s *Service) refreshLeased(ctx context.Context, p Profile, now time.Time) (bool, error) {
	err := s.refresh(ctx, p)
	if err == nil {
		// Its NextRefresh has moved on with the analysis: released, it is
		// not due.
		if _, err := s.profiles.Change(ctx, p.UserID, Change{Lease: p.LeaseUntil, EndLease: true}); err != nil {
			s.logger.Warn("release refresh lease", "userId", p.UserID, "error", err)
		}
		return true, nil
	}
	s.logger.Warn("profile refresh failed", "userId", p.UserID, "error", err)
	// A code, not words: the Analytics screen shows it in the brand's
	// language. An engine.Error's message is already meant for people.
	problem := string(analysis.ProblemRefreshFailed)
	var e *engine.Error
	if errors.As(err, &e) && e.Message != "" {
		problem = e.Message
	}
	next := now.Add(time.Hour)
	// Only while the lease is still this runner's: one that took the
	// profile over since has rescheduled it itself.
	if _, err := s.profiles.Change(ctx, p.UserID, Change{Lease: p.LeaseUntil, EndLease: true,
		NextRefresh: &next, Problem: &problem}); err != nil {
		return false, fmt.Errorf("record profile refresh failure: %w", err)
	}
	s.summaries.Drop(p.UserID)
	return false, nil
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
