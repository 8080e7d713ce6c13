package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/store"
)

// A person's sign-ins, for the support desk, read by _id. Finding a
// user's sessions by userId scans every session on the embedded store
// (docs/store.md §10): at a million subscribers the desk's dossier waited
// on it for 20 s and more. So each session is listed, when it opens, under
// its account and the day it opened (SessionsByUserCollection:
// "<hash of userId@YYYY-MM-DD>#n" → session id, store.Lists). A session lives
// less than a day past the day it opened, so the desk reads the lists of
// the days a live or recently expired session can have opened on.
//
// A day's list outlives its sessions (they are swept as they expire, one
// by one, and a list has no gap): it is erased whole once every session it
// can name has expired. Its first writer files it in a schedule
// (SessionListExpiryCollection) at that time, and the sweep erases what
// falls due.
const (
	SessionsByUserCollection    = "sessions_by_user"
	SessionListExpiryCollection = "session_list_expiry"
)

// sessionsListedMarker marks, in the settings collection, that the
// sessions opened before the lists existed are listed.
const sessionsListedMarker = "sessions-listed"

// sessionListOwner is the owner of the list of a user's sessions opened on
// the UTC day of at: a hash of the account and the day, so that the
// schedule of the lists' erasure, which outlives a deleted account's
// lists, names nobody.
func sessionListOwner(userID string, at time.Time) string {
	return engine.HashToken(userID + "@" + at.UTC().Format(time.DateOnly))
}

// sessionListExpiry is when every session a day's list can name has
// expired: its first session opened that day, so any other opened before
// first+24h and ends before first+24h+lifetime.
func sessionListExpiry(first time.Time, lifetime time.Duration) time.Time {
	return first.Add(24*time.Hour + lifetime)
}

// sessionListOwners are the owners of a user's lists of the days from
// since to now.
func sessionListOwners(userID string, since, now time.Time) []string {
	var owners []string
	for day := since.UTC().Truncate(24 * time.Hour); !day.After(now); day = day.Add(24 * time.Hour) {
		owners = append(owners, sessionListOwner(userID, day))
	}
	return owners
}

func newSessionListExpiry(db *mongo.Database) *store.Schedule {
	return store.NewSchedule(db, SessionListExpiryCollection, time.Minute)
}

// listSession lists a session under its account and day before it is
// written (a crash in between leaves a slot readers skip); the first of a
// day files the list's erasure first.
func (s *Service) listSession(ctx context.Context, sess Session) error {
	owner := sessionListOwner(sess.UserID, sess.CreatedAt)
	n, err := s.sessionLists.Len(ctx, owner)
	if err != nil {
		return fmt.Errorf("list session: %w", err)
	}
	if n == 0 {
		// Two first sign-ins at once both file it: erasing twice is
		// harmless.
		at := sessionListExpiry(sess.CreatedAt, s.lifetime)
		if err := s.sessionListExpiry.File(ctx, s.clock.Now(), store.ScheduleEntry{Ref: owner, At: at}); err != nil {
			return fmt.Errorf("list session: %w", err)
		}
	}
	if err := s.sessionLists.AppendAt(ctx, owner, sess.ID, n); err != nil {
		return fmt.Errorf("list session: %w", err)
	}
	return nil
}

// listedSessions reads the sessions a user opened on the days a session
// not yet swept can have opened on, oldest first.
func (s *Service) listedSessions(ctx context.Context, userID string) ([]Session, error) {
	now := s.clock.Now()
	var out []Session
	for _, owner := range sessionListOwners(userID, now.Add(-s.lifetime-sweepSlack), now) {
		ids, err := s.sessionLists.Refs(ctx, owner)
		if err != nil {
			return nil, fmt.Errorf("sessions of %s: %w", userID, err)
		}
		for _, id := range ids {
			var sess Session
			err := s.db.Collection(SessionsCollection).FindOne(ctx, bson.M{"_id": id}).Decode(&sess)
			if errors.Is(err, mongo.ErrNoDocuments) || (err == nil && sess.UserID != userID) {
				continue // swept, or never written
			}
			if err != nil {
				return nil, fmt.Errorf("sessions of %s: %w", userID, err)
			}
			out = append(out, sess)
		}
	}
	return out, nil
}

// sweepSlack is how long after expiring a session may still be there to
// read: the sweep runs every ten minutes and may be late.
const sweepSlack = time.Hour

// eraseExpiredSessionLists erases the lists of sessions whose every session
// has expired, as the schedule names them.
func (s *Service) eraseExpiredSessionLists(ctx context.Context) (int, error) {
	now := s.clock.Now()
	due, err := s.sessionListExpiry.Due(ctx, now)
	if err != nil {
		return 0, fmt.Errorf("sweep session lists: %w", err)
	}
	var unfinished []store.ScheduleEntry
	for _, e := range due {
		if err := s.sessionLists.Erase(ctx, e.Ref); err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			unfinished = append(unfinished, e)
		}
	}
	if err := s.sessionListExpiry.Settle(ctx, now, unfinished); err != nil {
		return 0, fmt.Errorf("sweep session lists: %w", err)
	}
	return len(due) - len(unfinished), nil
}

// ListExistingSessions lists, once per database, the live sessions opened
// before the lists existed (a mark in the settings collection). It reads
// every session, so it runs at start; they are a few hours of sign-ins.
func ListExistingSessions(ctx context.Context, db *mongo.Database, settings string, lifetime time.Duration, now time.Time) error {
	return store.OncePerDatabase(ctx, db, settings, sessionsListedMarker, func(ctx context.Context) error {
		cur, err := db.Collection(SessionsCollection).Find(ctx, bson.M{},
			options.Find().SetProjection(bson.M{"_id": 1, "userId": 1, "createdAt": 1, "expiresAt": 1}))
		if err != nil {
			return fmt.Errorf("list existing sessions: %w", err)
		}
		var sessions []Session
		if err := cur.All(ctx, &sessions); err != nil {
			return fmt.Errorf("list existing sessions: %w", err)
		}
		// An expired one is as good as swept.
		sessions = slices.DeleteFunc(sessions, func(sess Session) bool { return !sess.ExpiresAt.After(now) })
		return SeedSessionLists(ctx, db, lifetime, now, sessions)
	})
}

// MarkSessionsListed records that every session is listed, for a writer
// that listed them itself (the scale seed).
func MarkSessionsListed(ctx context.Context, db *mongo.Database, settings string) error {
	return store.MarkDone(ctx, db, settings, sessionsListedMarker)
}

// SeedSessionLists lists sessions under their accounts and days in bulk,
// in the order given, for lists that do not exist yet (a slot found taken
// is appended after), and files each list's erasure.
func SeedSessionLists(ctx context.Context, db *mongo.Database, lifetime time.Duration, now time.Time, sessions []Session) error {
	byOwner := map[string][]string{}
	first := map[string]time.Time{}
	var owners []string
	for _, sess := range sessions {
		owner := sessionListOwner(sess.UserID, sess.CreatedAt)
		if _, ok := first[owner]; !ok {
			owners = append(owners, owner)
			first[owner] = sess.CreatedAt
		}
		byOwner[owner] = append(byOwner[owner], sess.ID)
		if sess.CreatedAt.Before(first[owner]) {
			first[owner] = sess.CreatedAt
		}
	}
	entries := make([]store.ScheduleEntry, 0, len(owners))
	for _, owner := range owners {
		entries = append(entries, store.ScheduleEntry{Ref: owner, At: sessionListExpiry(first[owner], lifetime)})
	}
	if err := store.SeedSchedule(ctx, db, SessionListExpiryCollection, time.Minute, now, entries); err != nil {
		return fmt.Errorf("list existing sessions: %w", err)
	}
	return store.NewLists(db, SessionsByUserCollection).SeedLists(ctx, owners, byOwner)
}
