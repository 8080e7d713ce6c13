package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine"
	"glimpse/engine/store"
)

// chargeEventsCollection holds every provider event applied to a charge in
// the ledger, one document per event.
const chargeEventsCollection = "charge_events"

// Charge statuses a provider's events may set in the ledger, besides the
// "succeeded", "processing" and "failed" a charge starts with.
const (
	ChargeSucceeded = "succeeded"
	ChargeFailed    = "failed"
	ChargeRefunded  = "refunded"
	ChargeDisputed  = "disputed"
	// A dispute closed: won keeps the money (and gives access back), lost
	// takes it (and ends what it paid for, as a refund does).
	ChargeDisputeWon  = "dispute_won"
	ChargeDisputeLost = "dispute_lost"
)

// LedgerCollections declares the collections ApplyChargeEvent and
// HandleStripeEvent write, for EnsureCollections (app.Open).
func LedgerCollections() map[string][]mongo.IndexModel {
	return map[string][]mongo.IndexModel{chargeEventsCollection: nil, stripeEventsCollection: nil}
}

// chargeEvent is one event about one charge. Its _id orders a charge's
// events by time: "chargeevent:<key>:<unix nanos, 20 digits>:<event id>".
type chargeEvent struct {
	ID      string    `bson:"_id"`
	Key     string    `bson:"key"`
	Status  string    `bson:"status"`
	At      time.Time `bson:"at"`
	EventID string    `bson:"eventId"`
}

func chargeEventPrefix(key string) string { return "chargeevent:" + key + ":" }

func chargeEventID(key string, at time.Time, eventID string) string {
	// Zero-padded so that the string order of the ids is the time order.
	return fmt.Sprintf("%s%020d:%s", chargeEventPrefix(key), at.UnixNano(), eventID)
}

// ApplyChargeEvent records that the provider reported status for the charge
// whose idempotency key is key, in an event created at at, and sets the
// charge's status in the ledger to that of the newest event seen so far. It
// reports whether this event is now the newest (applied) or arrived after a
// newer one (recorded, not applied).
//
// Events may come twice and in any order (https://docs.stripe.com/webhooks),
// so "newer wins" must hold between concurrent deliveries, and on the
// embedded database a conditional update ("set if lastEventAt < at") is not
// atomic (docs/store.md §1). So the truth is the set of event documents,
// each written with a unique insert; the ledger's status and lastEventAt are
// a copy of the newest one's. Each call inserts its event, then writes the
// newest it reads and reads again until what it wrote is still the newest.
// The last write of all is followed by a read that sees every event inserted
// before it, and every later insert is followed by its own write, so the
// copy always ends on the newest event. Ties in time go to the larger event
// id, on every instance alike.
//
// A charge not yet in the ledger (the webhook beat the charge call's answer)
// gets no status now; its events are kept and ChargeStatus reads them.
func (s *Service) ApplyChargeEvent(ctx context.Context, key, eventID, status string, at time.Time) (applied bool, err error) {
	if key == "" || eventID == "" || status == "" {
		return false, errors.New("apply charge event: key, event id and status are required")
	}
	ev := chargeEvent{ID: chargeEventID(key, at, eventID), Key: key, Status: status, At: at.UTC(), EventID: eventID}
	if _, err := s.db.Collection(chargeEventsCollection).InsertOne(ctx, ev); err != nil && !store.IsDuplicateKey(err) {
		return false, fmt.Errorf("record charge event %s: %w", ev.ID, err)
	}
	if err := file(ctx, s.db, filedChargeEvents, key, ev.ID); err != nil {
		return false, err
	}
	var wrote string
	for range 10 {
		newest, err := s.newestChargeEvent(ctx, key)
		if err != nil {
			return false, err
		}
		if newest.ID == wrote {
			break
		}
		if _, err := s.db.Collection(chargesCollection).UpdateOne(ctx, bson.M{"_id": key}, bson.M{
			"$set": bson.M{"status": newest.Status, "lastEventAt": newest.At, "lastEventId": newest.EventID},
		}); err != nil {
			return false, fmt.Errorf("update charge %s: %w", key, err)
		}
		wrote = newest.ID
	}
	return wrote == ev.ID, nil
}

// ChargeStatus returns a charge's status: the newest provider event's, or
// the ledger's when no event came. "" means the charge is unknown.
func (s *Service) ChargeStatus(ctx context.Context, key string) (string, error) {
	newest, err := s.newestChargeEvent(ctx, key)
	if err != nil {
		return "", err
	}
	if newest.ID != "" {
		return newest.Status, nil
	}
	var ch Charge
	err = s.db.Collection(chargesCollection).FindOne(ctx, bson.M{"_id": key}).Decode(&ch)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read charge %s: %w", key, err)
	}
	return ch.Status, nil
}

// ChargeKeyByReference finds the idempotency key of the charge a provider
// knows as reference (a Stripe pi_… id), for events that do not carry our
// metadata (a dispute). "" when there is none.
func (s *Service) ChargeKeyByReference(ctx context.Context, reference string) (string, error) {
	if reference == "" {
		return "", nil
	}
	keys, err := filed(ctx, s.db, filedReference, reference)
	if err != nil || len(keys) == 0 {
		return "", err
	}
	return keys[0], nil
}

// newestChargeEvent reads the newest event of a charge (the zero value when
// none): of the events filed under its key, the one with the largest _id
// (ids order a charge's events by time).
func (s *Service) newestChargeEvent(ctx context.Context, key string) (chargeEvent, error) {
	ids, err := filed(ctx, s.db, filedChargeEvents, key)
	if err != nil {
		return chargeEvent{}, err
	}
	var newest chargeEvent
	for _, id := range ids {
		if id <= newest.ID {
			continue
		}
		var ev chargeEvent
		err := s.db.Collection(chargeEventsCollection).FindOne(ctx, bson.M{"_id": id}).Decode(&ev)
		if errors.Is(err, mongo.ErrNoDocuments) {
			continue
		}
		if err != nil {
			return chargeEvent{}, fmt.Errorf("read events of charge %s: %w", key, err)
		}
		newest = ev
	}
	return newest, nil
}

// ChargeIDOf is the opaque id of the charge with key: computable from the
// key, naming nobody (a key such as "purchase:<user id>:<plan>" names the
// account). The records that outlive an erasure without being re-keyed
// (stripe_events) name the charge by it.
func ChargeIDOf(key string) string { return "ch_" + engine.HashToken("charge:" + key)[:24] }

// SweepLedger deletes what the ledger's side keeps only for a while: cancel
// links expired CancelLinkGrace ago and the ids of webhook events received
// StripeEventMemory ago. It returns how many went.
func (s *Service) SweepLedger(ctx context.Context) (int64, error) {
	now := s.clock.Now()
	links, err := s.st.CancelLinks().DeleteExpired(ctx, now.Add(-CancelLinkGrace))
	if err != nil {
		return 0, err
	}
	events, err := s.st.StripeEvents().DeleteReceivedBefore(ctx, now.Add(-StripeEventMemory))
	return links + events, err
}
