package privacy

import (
	"context"
	"fmt"
)

// eraseClaims deletes the claims (store.Claims) of other domains that name
// the account, each by _id: a search on a part of the _id or on the owner
// reads every claim on the embedded store (docs/store.md §10). Privacy's
// own rules hold at its stores' writes and take no claim.
//
// Claims whose id or owner names the account or one of its addresses, and
// how each goes:
//
//   - "finalize:<subscription>", owned by the account id, kept 100 years
//     (billing.Finalize): deleted for each of the person's subscriptions.
//
// Billing's checkout keys and attempt counters are in billing's own keys
// (billing_keys), under hashes and subscription and order ids: no address.
//
// Every other claim names no person: subscription, order and attempt ids
// ("renew:", "free-month:", "order-outcome:", "extend:", "cancel-mail:"),
// hashes of addresses and of the account id (the sign-in and request
// limits, "once:", "purchase-failed:"), random ids, days and windows.
func (s *Service) eraseClaims(ctx context.Context, subIDs []string) error {
	for _, sub := range subIDs {
		if err := s.claims.Release(ctx, "finalize:"+sub); err != nil {
			return fmt.Errorf("erase claims: %w", err)
		}
	}
	return nil
}
