package privacy

import (
	"context"
	"fmt"
	"time"

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
//   - "checkout-key:<hash of a random key>" (billing.StartCheckout): bound to
//     the plan and a hash of the address with the key, so it holds no
//     address (billing.checkoutKeyOwner; older ones rewritten at start by
//     billing.HashCheckoutKeyOwners); it expires 30 days after the checkout.
//
// Every other claim names no person: subscription, order and attempt ids
// ("renew:", "free-month:", "order-outcome:", "extend:", "cancel-mail:"),
// hashes of addresses and of the account id (the
// sign-in and request limits, "once:", "purchase-failed:", "privacy-erase:"),
// random ids, days and windows.
func (s *Service) eraseClaims(ctx context.Context, userID string, subIDs []string) error {
	now := s.now()
	ids := make([]string, 0, len(subIDs)+64)
	for _, sub := range subIDs {
		ids = append(ids, "finalize:"+sub)
	}
	ids = append(ids, windowClaimIDs("privacy-export-request:"+userID, ExportWindow, ExportWindow, now)...)
	for _, id := range ids {
		if err := s.claims.Release(ctx, id); err != nil {
			return fmt.Errorf("erase claims: %w", err)
		}
	}
	return nil
}

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
