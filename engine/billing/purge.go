package billing

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/store"
)

// What an erasure keeps for the tax period (the subscriptions, their
// charges, refunds and receipts) is filed, when kept, under the time its
// period ends (RetainedScheduleCollection, a store.Schedule), and the purge
// reads what is due by _id. It used to delete by {erased, retainUntil},
// which reads every subscription, charge, receipt and refund on the
// embedded store (docs/store.md §10): four million documents at a million
// subscribers, at every ten-minute sweep.
//
// An entry names a subscription ("subscriptions/<id>": the subscription
// with its charges and their refunds, found through its filings, which the
// re-keying of a charge keeps) or a receipt ("receipts/<number>": a receipt
// is found by the key its charge had when it was issued, which re-keying
// changes, so it is filed on its own).
const RetainedScheduleCollection = "billing_retained_schedule"

// retainedFiledMarker marks, in the settings collection, that the records
// erasures kept before the schedule existed are filed in it.
const retainedFiledMarker = "billing-retained-filed"

// purgeBatch is how many kept subscriptions the purge reads at a time.
const purgeBatch = 200

// subscriptionsRef names a subscription's entry in the schedule.
const subscriptionsRef = "subscriptions"

func newRetainedSchedule(db *mongo.Database) *store.Schedule {
	return store.NewSchedule(db, RetainedScheduleCollection, time.Minute)
}

// scheduleRetained files the purge of the subscriptions, and of the
// receipts of their charges, at retainUntil; before they are marked kept,
// so a crash in between leaves an entry the purge finds not yet due, never
// a record it does not know.
func (s *Service) scheduleRetained(ctx context.Context, subIDs []string, charges []Charge, retainUntil time.Time) error {
	entries := make([]store.ScheduleEntry, 0, len(subIDs)+len(charges))
	for _, id := range subIDs {
		entries = append(entries, store.ScheduleEntry{Ref: subscriptionsRef + "/" + id, At: retainUntil})
	}
	for _, ch := range charges {
		r, err := s.ReceiptOfCharge(ctx, ch.Key)
		if errors.Is(err, ErrNoReceipt) {
			continue
		}
		if err != nil {
			return fmt.Errorf("file the purge of a receipt: %w", err)
		}
		entries = append(entries, store.ScheduleEntry{Ref: receiptsCollection + "/" + r.Number, At: retainUntil})
	}
	if err := s.retained.File(ctx, s.clock.Now(), entries...); err != nil {
		return fmt.Errorf("file the purge of kept records: %w", err)
	}
	return nil
}

// PurgeRetained deletes the erased subscribers' subscriptions, charges,
// refunds and receipts whose tax period has ended, as the schedule names
// them, and returns how many documents went.
func (s *Service) PurgeRetained(ctx context.Context) (int64, error) {
	now := s.clock.Now()
	due, err := s.retained.Due(ctx, now)
	if err != nil {
		return 0, fmt.Errorf("purge retained: %w", err)
	}
	var n int64
	// The subscriptions, by the index of their retention's end.
	for ctx.Err() == nil {
		kept, err := s.st.Subscriptions().Retained(ctx, now, purgeBatch)
		if err != nil {
			return n, fmt.Errorf("purge retained: %w", err)
		}
		var gone int64
		for _, sub := range kept {
			deleted, err := s.purgeSubscription(ctx, sub.ID, now)
			gone += deleted
			if err != nil {
				return n + gone, err
			}
		}
		n += gone
		if len(kept) < purgeBatch || gone == 0 {
			break
		}
	}
	var unfinished []store.ScheduleEntry
	for _, e := range due {
		coll, id, _ := strings.Cut(e.Ref, "/")
		var deleted int64
		var err error
		switch coll {
		case subscriptionsRef:
			deleted, err = s.purgeSubscription(ctx, id, now)
		case receiptsCollection:
			deleted, err = s.st.Receipts().DeleteRetained(ctx, id, now)
		default:
			deleted, err = s.purgeIfRetained(ctx, coll, id, now)
		}
		n += deleted
		if err != nil {
			if ctx.Err() != nil {
				return n, ctx.Err()
			}
			unfinished = append(unfinished, e)
		}
	}
	if err := s.retained.Settle(ctx, now, unfinished); err != nil {
		return n, fmt.Errorf("purge retained: %w", err)
	}
	return n, nil
}

// purgeSubscription deletes an erased subscription whose period has ended,
// its charges' refunds, then its charges, then itself: a purge stopped half
// way and run again still finds what is left through the subscription.
func (s *Service) purgeSubscription(ctx context.Context, id string, now time.Time) (int64, error) {
	sub, err := s.Subscription(ctx, id)
	if errors.Is(err, ErrNoSubscription) || (err == nil && (!sub.Erased || !sub.RetainUntil.Before(now))) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	charges, err := s.ChargesOf(ctx, []string{id})
	if err != nil {
		return 0, err
	}
	var n int64
	for _, ch := range charges {
		refunds, err := s.RefundsOf(ctx, ch.ID)
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
		deleted, err := s.purgeIfRetained(ctx, chargesCollection, ch.ID, now)
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

// purgeIfRetained deletes a document, by _id, if an erasure kept it and
// its period has ended.
func (s *Service) purgeIfRetained(ctx context.Context, coll, id string, now time.Time) (int64, error) {
	if gone, err := s.retainedEnded(ctx, coll, id, now); err != nil || !gone {
		return 0, err
	}
	res, err := s.db.Collection(coll).DeleteOne(ctx, bson.M{"_id": id})
	if err != nil {
		return 0, fmt.Errorf("purge retained %s: %w", coll, err)
	}
	return res.DeletedCount, nil
}

// retainedEnded reports whether a document is one an erasure kept and its
// period has ended.
func (s *Service) retainedEnded(ctx context.Context, coll, id string, now time.Time) (bool, error) {
	var kept struct {
		Erased      bool      `bson:"erased"`
		RetainUntil time.Time `bson:"retainUntil"`
	}
	err := s.db.Collection(coll).FindOne(ctx, bson.M{"_id": id},
		options.FindOne().SetProjection(bson.M{"erased": 1, "retainUntil": 1})).Decode(&kept)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("purge retained %s: %w", coll, err)
	}
	return kept.Erased && kept.RetainUntil.Before(now), nil
}

// FileRetainedBefore files, once per database, the subscriptions erasures
// kept before the schedule existed (receipts are in billing's store, filed
// when erased). It reads the collection whole, so the sweeper runs it (before its first purge) rather
// than the start, which it would hold up for minutes at a million
// subscribers.
func FileRetainedBefore(ctx context.Context, db *mongo.Database, settings string, now time.Time) error {
	return store.OncePerDatabase(ctx, db, settings, retainedFiledMarker, func(ctx context.Context) error {
		var entries []store.ScheduleEntry
		for _, coll := range []string{subscriptionsRef} {
			cur, err := db.Collection(coll).Find(ctx, bson.M{"erased": true},
				options.Find().SetProjection(bson.M{"_id": 1, "retainUntil": 1}))
			if err != nil {
				return fmt.Errorf("file kept records: %w", err)
			}
			var kept []struct {
				ID          string    `bson:"_id"`
				RetainUntil time.Time `bson:"retainUntil"`
			}
			if err := cur.All(ctx, &kept); err != nil {
				return fmt.Errorf("file kept records: %w", err)
			}
			for _, k := range kept {
				entries = append(entries, store.ScheduleEntry{Ref: coll + "/" + k.ID, At: k.RetainUntil})
			}
		}
		if len(entries) == 0 {
			return nil
		}
		if err := newRetainedSchedule(db).File(ctx, now, entries...); err != nil {
			return fmt.Errorf("file kept records: %w", err)
		}
		return nil
	})
}
