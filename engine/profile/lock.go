package profile

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"glimpse/engine"
	"glimpse/engine/store"
)

// tryExclusive takes the exclusive right named key, for the rest of the
// current window of length window and the whole next one, and returns the
// claim to release. ok is false when another holder has it.
//
// A conditional update is no lock on the embedded FerretDB, which lets
// several concurrent callers match; a unique insert has exactly one winner
// there as on MongoDB (store.Claims). The claim's id is key plus the current
// window, so a holder that crashed stops mattering two windows later. Right
// after winning, the taker looks for a claim in the window before and after
// its own: one there means another holder took key near a window boundary
// (or on a clock slightly off), and this taker backs off. Both insert before
// they look, so of two such takers at least one sees the other
// (docs/store.md §3).
func (s *Service) tryExclusive(ctx context.Context, key string, window time.Duration) (string, bool, error) {
	now := s.clock.Now()
	id := key + ":" + store.Window(now, window)
	// Kept until the sweeper's cut-off, well after its window is over.
	ok, err := s.claims.Take(ctx, id, s.owner, now.Add(3*window))
	if err != nil || !ok {
		return "", false, err
	}
	for _, near := range []time.Time{now.Add(-window), now.Add(window)} {
		holder, err := s.claims.Owner(ctx, key+":"+store.Window(near, window))
		if err == nil && holder == "" {
			continue
		}
		if rerr := s.claims.Release(ctx, id); rerr != nil {
			err = errors.Join(err, rerr)
		}
		if err != nil {
			return "", false, fmt.Errorf("take %s: %w", key, err)
		}
		return "", false, nil
	}
	return id, true, nil
}

// writeWindow is the window of the short exclusive rights that serialise
// read-modify-writes of one profile document; a write holds one for
// milliseconds, and a crashed writer's lapses within three windows.
const writeWindow = time.Minute

// writeAttempts bounds the waits for a profile another writer is changing.
const writeAttempts = 50

// exclusively runs fn while holding the right to rewrite userID's profile
// document, waiting for another holder to finish. The profile's snapshot
// list is read, changed and written back whole (FerretDB v1.24 ignores
// $push's $slice, and its $push is no more atomic than its $inc), so two
// writers at once would drop each other's entries.
func (s *Service) exclusively(ctx context.Context, userID string, fn func() error) error {
	key := "profile-write:" + userID
	for attempt := range writeAttempts {
		id, ok, err := s.tryExclusive(ctx, key, writeWindow)
		if err != nil {
			return err
		}
		if ok {
			err := fn()
			if rerr := s.claims.Release(ctx, id); rerr != nil {
				// It lapses by itself; until then writers of this profile wait.
				s.logger.Warn("release profile write claim", "userId", userID, "error", rerr)
			}
			return err
		}
		wait := time.Duration(min(attempt+1, 10))*10*time.Millisecond + time.Duration(rand.IntN(10))*time.Millisecond
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return engine.Errorf(engine.CodeConflict, "Your profile is being updated; try again in a minute.")
}
