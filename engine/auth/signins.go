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

	"glimpse/engine/store"
)

// A person's sign-ins, for the support desk, read by _id. Finding a
// user's sessions by userId scans every session on the embedded store
// (docs/store.md §10): at a million subscribers the desk's dossier waited
// on it for 20 s and more. So each session is listed, when it opens, under
// its account and the day it opened (SessionsByUserCollection:
// "<hash of userId@YYYY-MM-DD>#n" → session id). A session lives
// less than a day past the day it opened, so the desk reads the lists of
// the days a live or recently expired session can have opened on.
//
// A day's list outlives its sessions and is erased by a schedule
// (SessionListExpiryCollection) once they have all expired: store.DatedLists.
const (
	SessionsByUserCollection    = "sessions_by_user"
	SessionListExpiryCollection = "session_list_expiry"
)

// sessionsListedMarker marks, in the settings collection, that the
// sessions opened before the lists existed are listed.
const sessionsListedMarker = "sessions-listed"

func newSessionLists(db *mongo.Database, lifetime time.Duration) *store.DatedLists {
	return store.NewDatedLists(db, SessionsByUserCollection, SessionListExpiryCollection, lifetime)
}

// listSession lists a session under its account and day before it is
// written (a crash in between leaves a slot readers skip).
func (s *Service) listSession(ctx context.Context, sess Session) error {
	if err := s.sessionLists.Add(ctx, sess.UserID, sess.ID, sess.CreatedAt); err != nil {
		return fmt.Errorf("list session: %w", err)
	}
	return nil
}

// listedSessions reads the sessions a user opened on the days a session
// not yet swept can have opened on, oldest first.
func (s *Service) listedSessions(ctx context.Context, userID string) ([]Session, error) {
	ids, err := s.sessionLists.Refs(ctx, userID, s.clock.Now())
	if err != nil {
		return nil, fmt.Errorf("sessions of %s: %w", userID, err)
	}
	var out []Session
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
	return out, nil
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
	refs := make([]store.DatedRef, 0, len(sessions))
	for _, sess := range sessions {
		refs = append(refs, store.DatedRef{Key: sess.UserID, Ref: sess.ID, At: sess.CreatedAt})
	}
	if err := newSessionLists(db, lifetime).Seed(ctx, now, refs); err != nil {
		return fmt.Errorf("list existing sessions: %w", err)
	}
	return nil
}
