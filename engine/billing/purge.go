package billing

import (
	"context"
	"fmt"
	"time"
)

// What an erasure keeps for the tax period (the subscriptions, their
// charges, refunds and receipts) carries the end of that period, and the
// purge finds what is due by the stores' indexes on it
// (Subscriptions.Retained, Ledger.Retained), a batch at a time: the
// subscriptions with their refunds, receipts and lines, then the charges
// (a charge outlives its subscription when a purge stopped half way, and
// is found again on its own).

// purgeBatch is how many kept subscriptions or charges the purge reads at a
// time.
const purgeBatch = 200

// PurgeRetained deletes the erased subscribers' subscriptions, charges,
// refunds and receipts whose tax period has ended, and returns how many
// records went.
func (s *Service) PurgeRetained(ctx context.Context) (int64, error) {
	now := s.clock.Now()
	subs, err := purgeEach(ctx, func() ([]string, error) {
		kept, err := s.st.Subscriptions().Retained(ctx, now, purgeBatch)
		ids := make([]string, len(kept))
		for i, sub := range kept {
			ids[i] = sub.ID
		}
		return ids, err
	}, func(id string) (int64, error) { return s.purgeSubscription(ctx, id, now) })
	if err != nil {
		return subs, err
	}
	charges, err := purgeEach(ctx, func() ([]string, error) {
		kept, err := s.st.Ledger().Retained(ctx, now, purgeBatch)
		ids := make([]string, len(kept))
		for i, ch := range kept {
			ids[i] = ch.ID
		}
		return ids, err
	}, func(id string) (int64, error) { return s.purgeCharge(ctx, id, now) })
	return subs + charges, err
}

// purgeEach purges what retained finds, purgeBatch at a time, until a
// batch is short or purges nothing (what is left is not yet due), and
// returns how many records went.
func purgeEach(ctx context.Context, retained func() ([]string, error), purge func(id string) (int64, error)) (int64, error) {
	var n int64
	for ctx.Err() == nil {
		ids, err := retained()
		if err != nil {
			return n, fmt.Errorf("purge retained: %w", err)
		}
		var gone int64
		for _, id := range ids {
			deleted, err := purge(id)
			gone += deleted
			if err != nil {
				return n + gone, err
			}
		}
		n += gone
		if len(ids) < purgeBatch || gone == 0 {
			break
		}
	}
	return n, ctx.Err()
}

// purgeSubscription deletes an erased subscription whose period has ended:
// its receipts, its charges' refunds, then its charges, then itself: a
// purge stopped half way and run again still finds what is left through
// the subscription (or the charge, by its own retention).
func (s *Service) purgeSubscription(ctx context.Context, id string, now time.Time) (int64, error) {
	var n int64
	receipts, err := s.st.Receipts().OfSubscriptions(ctx, []string{id})
	if err != nil {
		return n, fmt.Errorf("purge receipts of %s: %w", id, err)
	}
	for _, r := range receipts {
		deleted, err := s.st.Receipts().DeleteRetained(ctx, r.Number, now)
		n += deleted
		if err != nil {
			return n, err
		}
	}
	charges, err := s.ChargesOf(ctx, []string{id})
	if err != nil {
		return n, err
	}
	for _, ch := range charges {
		deleted, err := s.purgeCharge(ctx, ch.ID, now)
		n += deleted
		if err != nil {
			return n, err
		}
	}
	purged, err := s.st.Subscriptions().Purge(ctx, id, now)
	if purged {
		n++
	}
	return n, err
}

// purgeCharge deletes a kept charge whose period has ended: its refunds,
// then the charge with its events.
func (s *Service) purgeCharge(ctx context.Context, id string, now time.Time) (int64, error) {
	var n int64
	refunds, err := s.RefundsOf(ctx, id)
	if err != nil {
		return n, err
	}
	for _, r := range refunds {
		deleted, err := s.st.Refunds().DeleteRetained(ctx, r.ID, now)
		n += deleted
		if err != nil {
			return n, err
		}
	}
	purged, err := s.st.Ledger().Purge(ctx, id, now)
	if err != nil {
		return n, fmt.Errorf("purge charge %s: %w", id, err)
	}
	if purged {
		n++
	}
	return n, nil
}
