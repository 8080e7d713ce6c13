package billing

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/store"
)

// renewalScheduleCollection files each subscription under the minute its
// dueAt falls in (store.Schedule), so the renewal pass reads the due ones by
// _id: on the embedded store a find on dueAt read every subscription each
// pass, the largest share of an idle server's CPU over a large base
// (docs/benchmarks.md §7).
const renewalScheduleCollection = "renewal_schedule"

// RenewalStep is the width of the renewal schedule's buckets. A pass runs
// every minute, so a pass reads about one bucket beyond those kept for
// the grace.
const RenewalStep = time.Minute

// renewalsScheduledMarker is the settings document saying every
// subscription written before the schedule existed has been filed in it.
const renewalsScheduledMarker = "renewals-scheduled"

func newRenewalSchedule(db *mongo.Database) *store.Schedule {
	return store.NewSchedule(db, renewalScheduleCollection, RenewalStep)
}

// scheduleRenewal files a subscription under the time it falls due; call it
// before writing that dueAt (store.Schedule says why). A zero time (an
// add-on, which renews with its main plan) files nothing.
func (s *Service) scheduleRenewal(ctx context.Context, subID string, at time.Time) error {
	if at.IsZero() {
		return nil
	}
	if err := s.due.File(ctx, s.clock.Now(), store.ScheduleEntry{Ref: subID, At: at}); err != nil {
		return fmt.Errorf("schedule the renewal of %s: %w", subID, err)
	}
	return nil
}

// FileExistingRenewals files, once per database, the due times of the
// subscriptions written before the renewal schedule existed. It reads every
// subscription, so it runs at start and then marks itself done.
func FileExistingRenewals(ctx context.Context, db *mongo.Database, settings string, now time.Time) error {
	return store.OncePerDatabase(ctx, db, settings, renewalsScheduledMarker, func(ctx context.Context) error {
		cur, err := db.Collection(SubscriptionsCollection).Find(ctx, bson.M{},
			options.Find().SetProjection(bson.M{"_id": 1, "dueAt": 1}))
		if err != nil {
			return fmt.Errorf("schedule existing renewals: %w", err)
		}
		var subs []Subscription
		if err := cur.All(ctx, &subs); err != nil {
			return fmt.Errorf("schedule existing renewals: %w", err)
		}
		var entries []store.ScheduleEntry
		for _, sub := range subs {
			if !sub.DueAt.IsZero() {
				entries = append(entries, store.ScheduleEntry{Ref: sub.ID, At: sub.DueAt})
			}
		}
		if err := SeedRenewalSchedule(ctx, db, now, entries); err != nil {
			return fmt.Errorf("schedule existing renewals: %w", err)
		}
		return nil
	})
}

// MarkRenewalsScheduled records that every subscription's due time is
// filed, for a writer that filed them itself (the scale seed).
func MarkRenewalsScheduled(ctx context.Context, db *mongo.Database, settings string) error {
	return store.MarkDone(ctx, db, settings, renewalsScheduledMarker)
}

// SeedRenewalSchedule files many subscriptions' due times at once
// (store.SeedSchedule), for the filing above and the scale seed, which then
// calls MarkRenewalsScheduled.
func SeedRenewalSchedule(ctx context.Context, db *mongo.Database, now time.Time, entries []store.ScheduleEntry) error {
	return store.SeedSchedule(ctx, db, renewalScheduleCollection, RenewalStep, now, entries)
}

// RenewalScheduleCollection is renewalScheduleCollection, for the privacy
// fates.
const RenewalScheduleCollection = renewalScheduleCollection

// Reading the due subscriptions. Measured on the embedded store (20,000
// subscriptions, docs/benchmarks.md §3): a read by _id costs about 1.1 ms of
// CPU, and a find on dueAt about 0.24 ms for every subscription it decodes,
// due or not. So the pass reads what the schedule names by _id unless that
// is more than scanShare of the subscriptions (a pass after an outage, or a
// base renewing all at once), when one scan costs less. The subscriptions
// are counted (collStats: SQLite's page statistics, no document decoded)
// only when the due set is over the tuning's scanFloor.
const (
	scanShare        = 0.2
	defaultScanFloor = 1000
)

// scanCheaper tells whether reading every subscription once costs less
// than reading the due ones named by the schedule.
func (s *Service) scanCheaper(ctx context.Context, due int) bool {
	if due <= s.renewal.scanFloor {
		return false
	}
	var stats struct {
		Count int64 `bson:"count"`
	}
	if err := s.db.RunCommand(ctx, bson.D{{Key: "collStats", Value: SubscriptionsCollection}}).Decode(&stats); err != nil {
		s.logger.Warn("count subscriptions", "error", err)
		return false
	}
	return float64(due) > scanShare*float64(stats.Count)
}

// scanDue reads every subscription due at now in one find, streamed, in no
// order; its cursor is drained and closed before any is worked on (a
// cursor held open while the pass writes kept the embedded database's
// write-ahead log from moving on, and every write got slower).
func (s *Service) scanDue(ctx context.Context, now time.Time) ([]Subscription, error) {
	cur, err := s.db.Collection(SubscriptionsCollection).Find(ctx, bson.M{"dueAt": bson.M{"$lte": now}})
	if err != nil {
		return nil, fmt.Errorf("find due subscriptions: %w", err)
	}
	var subs []Subscription
	if err := cur.All(ctx, &subs); err != nil {
		return nil, fmt.Errorf("find due subscriptions: %w", err)
	}
	return subs, nil
}

// dueReaders is how many reads by _id the renewal pass has in flight when it
// reads the subscriptions its schedule names: each is a round trip to the
// store, and a few at once keep its cores busy while one waits.
const dueReaders = 8

// readScheduled reads the subscriptions entries name, by _id, a few at once,
// in the entries' order. A subscription that no longer exists is left out;
// one that could not be read is returned in failed, to be filed again.
func (s *Service) readScheduled(ctx context.Context, entries []store.ScheduleEntry) (subs []Subscription, failed []store.ScheduleEntry) {
	got := make([]Subscription, len(entries))
	errs := make([]error, len(entries))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(dueReaders, len(entries)) {
		wg.Go(func() {
			for i := range next {
				got[i], errs[i] = s.Subscription(ctx, entries[i].Ref)
			}
		})
	}
	for i := range entries {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		switch {
		case err == nil:
			subs = append(subs, got[i])
		case errors.Is(err, ErrNoSubscription):
		default:
			if ctx.Err() == nil {
				s.logger.Error("read a due subscription", "subscription", entries[i].Ref, "error", err)
			}
			failed = append(failed, entries[i])
		}
	}
	return subs, failed
}
