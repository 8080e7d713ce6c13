package privacy

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine/mail"
	"glimpse/engine/store"
)

// eraseClaims deletes the claims (store.Claims) that name the account, each
// by _id: a search on a part of the _id or on the owner reads every claim on
// the embedded store (docs/store.md §10), and claims include one per
// subscription and one per order, kept for a century. So every claim that
// can name the account has an id derived from what the erasure knows.
//
// Claims whose id or owner names the account or one of its addresses, and
// how each goes:
//
//   - "finalize:<subscription>", owned by the account id, kept 100 years
//     (billing.Finalize): deleted for each of the person's subscriptions.
//   - "privacy-export-request:<account>:<window>" (RequestExport, ten-minute
//     windows): deleted for every window a claim not yet swept can be in.
//   - "profile-write:<account>:<window>" (profile's write lock, one-minute
//     windows, released after each write; left only by a writer that died):
//     the same.
//   - "mail:profile-report:<account>:<attempt>",
//     "mail:profile-report-pending:<account>:<attempt>" and
//     "mail:inactivity:<account>:<day last used>:<attempt>" (the outbox's
//     delivery claims, mail.Outbox's claimID: one per attempt, held five
//     minutes and never released): deleted for every attempt. The day is the
//     activity record's, still there at this step; the warning of an account
//     used again since has lost it, and its claims, made while that mail was
//     delivered, went with the sweep long before, unless the person deleted
//     the account within minutes of the warning.
//
// Billing's checkout keys and attempt counters are in billing's own keys
// (billing_keys), under hashes and subscription and order ids: no address.
//
// Left to expire: "refresh:<account>:<due>:<window>", the lease of a
// profile's refresh, released when the refresh ends; one left by a runner
// that died names the account until it expires (30 minutes) and is swept,
// and its due time went with the profile. The account id stays in the
// erasure ledger anyway. Every other claim names no person: subscription,
// order and attempt ids ("renew:", "free-month:", "order-outcome:",
// "extend:", "cancel-mail:"), hashes of addresses and of the account id (the
// sign-in and request limits, "once:", "purchase-failed:", "privacy-erase:"),
// random ids, days and windows.
func (s *Service) eraseClaims(ctx context.Context, userID string, subIDs []string) error {
	now := s.now()
	ids := make([]string, 0, len(subIDs)+64)
	for _, sub := range subIDs {
		ids = append(ids, "finalize:"+sub)
	}
	ids = append(ids, windowClaimIDs("privacy-export-request:"+userID, ExportWindow, ExportWindow, now)...)
	ids = append(ids, windowClaimIDs("profile-write:"+userID, profileWriteWindow, 3*profileWriteWindow, now)...)
	ids = append(ids, mailClaimIDs("profile-report:"+userID)...)
	ids = append(ids, mailClaimIDs("profile-report-pending:"+userID)...)
	var a activity
	err := s.db.Collection(ActivityCollection).FindOne(ctx, bson.M{"_id": userID}).Decode(&a)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return fmt.Errorf("erase claims: %w", err)
	}
	if err == nil {
		ids = append(ids, mailClaimIDs("inactivity:"+userID+":"+a.LastActiveAt.Format(time.DateOnly))...)
	}
	for _, id := range ids {
		if err := s.claims.Release(ctx, id); err != nil {
			return fmt.Errorf("erase claims: %w", err)
		}
	}
	return nil
}

// profileWriteWindow is the window of profile's write lock (its
// writeWindow), kept three windows.
const profileWriteWindow = time.Minute

// claimSweepLag is how long an expired claim may wait for the sweep (the
// app sweeps every ten minutes, at most a share of the time), with margin.
const claimSweepLag = 20 * time.Minute

// windowClaimIDs are the ids prefix+":"+store.Window(t, window) of every
// window a claim kept for lifetime can still be found in at now: taken up
// to lifetime and the sweep's lag ago, or in the next window by an instance
// whose clock is a little ahead.
func windowClaimIDs(prefix string, window, lifetime time.Duration, now time.Time) []string {
	first := now.Add(-lifetime-claimSweepLag).UnixNano() / int64(window)
	last := now.Add(window).UnixNano() / int64(window)
	ids := make([]string, 0, last-first+1)
	for n := first; n <= last; n++ {
		ids = append(ids, prefix+":"+store.Window(time.Unix(0, n*int64(window)), window))
	}
	return ids
}

// mailClaimIDs are the ids of the delivery claims of the mail with key, one
// per attempt (mail.Outbox's claimID, "mail:<key>:<attempt>", attempts 0 to
// len(mail.Backoff)).
func mailClaimIDs(key string) []string {
	ids := make([]string, 0, len(mail.Backoff)+1)
	for attempt := 0; attempt <= len(mail.Backoff); attempt++ {
		ids = append(ids, "mail:"+key+":"+strconv.Itoa(attempt))
	}
	return ids
}
