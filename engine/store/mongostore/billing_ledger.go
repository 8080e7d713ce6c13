package mongostore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/billing"
)

// Billing's ledger: charges by their opaque id (_id), one per key (unique
// index), and the provider's events about them. An event is inserted once
// (its _id), then applied by an update conditional on the applied event's
// (lastEventAt, lastEventId), one atomic document write on MongoDB.
var (
	chargesCollection = collection{name: "charges", indexes: []index{
		{name: "key", keys: bson.D{{Key: "key", Value: 1}}, unique: true},
		{name: "of_subscription", keys: bson.D{{Key: "subscriptionId", Value: 1}, {Key: "createdAt", Value: 1}}},
		{name: "reference", keys: bson.D{{Key: "reference", Value: 1}, {Key: "createdAt", Value: 1}},
			partial: bson.D{{Key: "reference", Value: bson.D{{Key: "$gt", Value: ""}}}}},
		// Only an erasure sets retainUntil: the purge's query on it alone is
		// served by this partial index.
		{name: "retain_until", keys: bson.D{{Key: "retainUntil", Value: 1}},
			partial: bson.D{{Key: "retainUntil", Value: bson.D{{Key: "$exists", Value: true}}}}},
	}}
	chargeEventsCollection = collection{name: "charge_events", indexes: []index{
		{name: "newest", keys: bson.D{{Key: "chargeId", Value: 1}, {Key: "at", Value: -1}, {Key: "eventId", Value: -1}}},
		{name: "by_reference", keys: bson.D{{Key: "reference", Value: 1}, {Key: "at", Value: -1}, {Key: "eventId", Value: -1}}},
	}}
)

// Ledger returns the charges' store.
func (b *Billing) Ledger() billing.Ledger {
	db := b.subs.Database()
	return mongoLedger{b: b, charges: db.Collection(chargesCollection.name), events: db.Collection(chargeEventsCollection.name)}
}

type mongoLedger struct {
	b               *Billing
	charges, events *mongo.Collection
}

type chargeDoc struct {
	ID             string    `bson:"_id"`
	Key            string    `bson:"key"`
	Provider       string    `bson:"provider"`
	Reference      string    `bson:"reference,omitempty"`
	Amount         moneyDoc  `bson:"amount"`
	Method         string    `bson:"method"`
	SubscriptionID string    `bson:"subscriptionId,omitempty"`
	Status         string    `bson:"status"`
	Failure        string    `bson:"failure,omitempty"`
	CreatedAt      time.Time `bson:"createdAt"`
	Duplicate      bool      `bson:"duplicate,omitempty"`
	PlanCode       string    `bson:"planCode,omitempty"`
	Erased         bool      `bson:"erased,omitempty"`
	RetainUntil    time.Time `bson:"retainUntil,omitempty"`
	// LastEvent orders the applied event: "" before any, else eventOrder's.
	LastEvent string `bson:"lastEvent"`
}

// eventOrder is a string whose order is the events' (time, then event id),
// so that "newer than the applied event" is one $lt in the update's filter.
func eventOrder(ev billing.ChargeEvent) string {
	return fmt.Sprintf("%020d|%s", ev.At.UnixMilli(), ev.EventID)
}

func (d chargeDoc) charge() billing.Charge {
	return billing.Charge{ID: d.ID, Key: d.Key, Provider: d.Provider, Reference: d.Reference, Amount: billing.Money(d.Amount),
		Method: d.Method, SubscriptionID: d.SubscriptionID, Status: d.Status, Failure: d.Failure, CreatedAt: utcOrZero(d.CreatedAt),
		Duplicate: d.Duplicate, PlanCode: d.PlanCode, Erased: d.Erased, RetainUntil: utcOrZero(d.RetainUntil)}
}

func toChargeDoc(ch billing.Charge) chargeDoc {
	return chargeDoc{ID: ch.ID, Key: ch.Key, Provider: ch.Provider, Reference: ch.Reference,
		Amount: moneyDoc(ch.Amount), Method: ch.Method, SubscriptionID: ch.SubscriptionID, Status: ch.Status, Failure: ch.Failure,
		CreatedAt: ch.CreatedAt, Duplicate: ch.Duplicate, PlanCode: ch.PlanCode}
}

type chargeEventDoc struct {
	ID        string    `bson:"_id"`
	ChargeID  string    `bson:"chargeId,omitempty"`
	Reference string    `bson:"reference,omitempty"`
	EventID   string    `bson:"eventId"`
	Status    string    `bson:"status"`
	At        time.Time `bson:"at"`
}

func chargeEventID(ev billing.ChargeEvent) string {
	if ev.ChargeID != "" {
		return ev.EventID + "|" + ev.ChargeID
	}
	return ev.EventID + "|ref:" + ev.Reference
}

func (m mongoLedger) one(ctx context.Context, filter bson.D, opts ...options.Lister[options.FindOneOptions]) (billing.Charge, error) {
	var d chargeDoc
	err := m.charges.FindOne(ctx, filter, opts...).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return billing.Charge{}, billing.ErrNoCharge
	}
	if err != nil {
		return billing.Charge{}, fmt.Errorf("read charge: %w", err)
	}
	return d.charge(), nil
}

// Record inserts each charge (a taken key keeps the first), then applies
// the newest event already received: a rerun after a stop between the two
// applies it, since the update is conditional and repeatable.
func (m mongoLedger) Record(ctx context.Context, chs []billing.Charge) ([]billing.Charge, error) {
	out := make([]billing.Charge, 0, len(chs))
	for _, ch := range chs {
		if err := m.b.step(); err != nil {
			return nil, err
		}
		_, err := m.charges.InsertOne(ctx, toChargeDoc(ch))
		if err != nil && !mongo.IsDuplicateKeyError(err) {
			return nil, fmt.Errorf("record charge %s: %w", ch.ID, err)
		}
		stored, err := m.ByKey(ctx, ch.Key)
		if err != nil {
			return nil, err
		}
		newest, ok, err := m.newestEventOf(ctx, stored)
		if err != nil {
			return nil, err
		}
		if ok {
			if _, err := m.apply(ctx, bson.D{{Key: "_id", Value: stored.ID}}, newest); err != nil {
				return nil, err
			}
			if stored, err = m.Charge(ctx, stored.ID); err != nil {
				return nil, err
			}
		}
		out = append(out, stored)
	}
	return out, nil
}

func (m mongoLedger) newestEventOf(ctx context.Context, ch billing.Charge) (billing.ChargeEvent, bool, error) {
	var (
		newest billing.ChargeEvent
		found  bool
	)
	newestFirst := options.FindOne().SetSort(bson.D{{Key: "at", Value: -1}, {Key: "eventId", Value: -1}})
	read := func(filter bson.D) error {
		var d chargeEventDoc
		err := m.events.FindOne(ctx, filter, newestFirst).Decode(&d)
		if errors.Is(err, mongo.ErrNoDocuments) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("newest event of charge %s: %w", ch.ID, err)
		}
		ev := billing.ChargeEvent{ChargeID: d.ChargeID, Reference: d.Reference, EventID: d.EventID, Status: d.Status, At: d.At.UTC()}
		if !found || ev.Newer(newest.At, newest.EventID) {
			newest, found = ev, true
		}
		return nil
	}
	if ch.ID != "" {
		if err := read(bson.D{{Key: "chargeId", Value: ch.ID}}); err != nil {
			return newest, false, err
		}
	}
	if ch.Reference != "" {
		if err := read(bson.D{{Key: "reference", Value: ch.Reference}, {Key: "chargeId", Value: bson.D{{Key: "$exists", Value: false}}}}); err != nil {
			return newest, false, err
		}
	}
	return newest, found, nil
}

// apply sets the status of the charge filter names to ev's, when ev is
// newer than the applied event: the condition is in the update's filter.
func (m mongoLedger) apply(ctx context.Context, filter bson.D, ev billing.ChargeEvent) (bool, error) {
	if err := m.b.step(); err != nil {
		return false, err
	}
	order := eventOrder(ev)
	res, err := m.charges.UpdateOne(ctx, append(filter, bson.E{Key: "lastEvent", Value: bson.D{{Key: "$lt", Value: order}}}),
		bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: ev.Status}, {Key: "lastEvent", Value: order}}}})
	if err != nil {
		return false, fmt.Errorf("apply event %s: %w", ev.EventID, err)
	}
	return res.ModifiedCount > 0, nil
}

// Charge returns the charge with the opaque id.
func (m mongoLedger) Charge(ctx context.Context, id string) (billing.Charge, error) {
	return m.one(ctx, bson.D{{Key: "_id", Value: id}})
}

// ByKey returns the charge with the idempotency key.
func (m mongoLedger) ByKey(ctx context.Context, key string) (billing.Charge, error) {
	return m.one(ctx, bson.D{{Key: "key", Value: key}})
}

// ByReference returns the first charge recorded with the reference.
func (m mongoLedger) ByReference(ctx context.Context, ref string) (billing.Charge, error) {
	if ref == "" {
		return billing.Charge{}, billing.ErrNoCharge
	}
	return m.one(ctx, bson.D{{Key: "reference", Value: ref}}, options.FindOne().SetSort(bson.D{{Key: "createdAt", Value: 1}}))
}

// OfSubscriptions reads the charges by the (subscriptionId, createdAt) index.
func (m mongoLedger) OfSubscriptions(ctx context.Context, ids []string) ([]billing.Charge, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	cur, err := m.charges.Find(ctx, bson.D{{Key: "subscriptionId", Value: bson.D{{Key: "$in", Value: ids}}}},
		options.Find().SetSort(bson.D{{Key: "createdAt", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("charges of subscriptions: %w", err)
	}
	var docs []chargeDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("charges of subscriptions: %w", err)
	}
	out := make([]billing.Charge, len(docs))
	for i, d := range docs {
		out[i] = d.charge()
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// AddEvent inserts the event once, then applies it conditionally.
func (m mongoLedger) AddEvent(ctx context.Context, ev billing.ChargeEvent) (bool, error) {
	if ev.EventID == "" || ev.Status == "" || ev.ChargeID == "" && ev.Reference == "" {
		return false, errors.New("add charge event: a charge id or reference, an event id and a status are required")
	}
	if err := m.b.step(); err != nil {
		return false, err
	}
	ev.At = ev.At.UTC().Truncate(time.Millisecond) // what MongoDB keeps
	if _, err := m.events.InsertOne(ctx, chargeEventDoc{ID: chargeEventID(ev), ChargeID: ev.ChargeID, Reference: ev.Reference,
		EventID: ev.EventID, Status: ev.Status, At: ev.At}); err != nil && !mongo.IsDuplicateKeyError(err) {
		return false, fmt.Errorf("record charge event %s: %w", ev.EventID, err)
	}
	ch := billing.Charge{ID: ev.ChargeID}
	if ev.ChargeID == "" {
		byRef, err := m.ByReference(ctx, ev.Reference)
		if err != nil && !errors.Is(err, billing.ErrNoCharge) {
			return false, err
		}
		ch = byRef
	}
	if ch.ID != "" {
		applied, err := m.apply(ctx, bson.D{{Key: "_id", Value: ch.ID}}, ev)
		if err != nil || applied {
			return applied, err
		}
		if _, err := m.Charge(ctx, ch.ID); err == nil || !errors.Is(err, billing.ErrNoCharge) {
			return false, err
		}
	}
	// Not recorded yet: Record applies it; newest if nothing newer came.
	newest, _, err := m.newestEventOf(ctx, billing.Charge{ID: ev.ChargeID, Reference: ev.Reference})
	return err == nil && newest.EventID == ev.EventID && newest.At.Equal(ev.At), err
}

// MarkDuplicate sets the charge's duplicate mark.
func (m mongoLedger) MarkDuplicate(ctx context.Context, id, planCode string) error {
	if err := m.b.step(); err != nil {
		return err
	}
	res, err := m.charges.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "duplicate", Value: true}, {Key: "planCode", Value: planCode}}}})
	if err != nil {
		return fmt.Errorf("mark charge %s duplicate: %w", id, err)
	}
	if res.MatchedCount == 0 {
		return billing.ErrNoCharge
	}
	return nil
}

// Erase rewrites the charge's key and marks it kept until retainUntil, in
// one update conditional on its not being erased: a rerun changes nothing.
func (m mongoLedger) Erase(ctx context.Context, id, newKey string, retainUntil time.Time) error {
	if err := m.b.step(); err != nil {
		return err
	}
	if _, err := m.charges.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "erased", Value: bson.D{{Key: "$ne", Value: true}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "key", Value: newKey}, {Key: "erased", Value: true},
			{Key: "retainUntil", Value: retainUntil}}}}); err != nil {
		return fmt.Errorf("erase charge %s: %w", id, err)
	}
	_, err := m.Charge(ctx, id)
	return err
}

// Retained returns kept charges whose retention ended, earliest first, by
// the partial index on retainUntil.
func (m mongoLedger) Retained(ctx context.Context, before time.Time, n int) ([]billing.Charge, error) {
	docs, err := findRetained[chargeDoc](ctx, m.charges, before, n)
	if err != nil {
		return nil, fmt.Errorf("retained charges: %w", err)
	}
	out := make([]billing.Charge, 0, len(docs))
	for _, d := range docs {
		if d.Erased {
			out = append(out, d.charge())
		}
	}
	return out, nil
}

// Purge deletes a kept charge whose retention ended: its events first,
// then the charge, so a purge stopped between the two finds the charge
// again and finishes.
func (m mongoLedger) Purge(ctx context.Context, id string, now time.Time) (bool, error) {
	ch, err := m.Charge(ctx, id)
	if errors.Is(err, billing.ErrNoCharge) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !ch.Erased || !ch.RetainUntil.Before(now) {
		return false, nil
	}
	if err := m.b.step(); err != nil {
		return false, err
	}
	if _, err := m.events.DeleteMany(ctx, bson.D{{Key: "chargeId", Value: id}}); err != nil {
		return false, fmt.Errorf("purge events of charge %s: %w", id, err)
	}
	if err := m.b.step(); err != nil {
		return false, err
	}
	res, err := m.charges.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "erased", Value: true},
		{Key: "retainUntil", Value: bson.D{{Key: "$lt", Value: now}}}})
	if err != nil {
		return false, fmt.Errorf("purge charge %s: %w", id, err)
	}
	return res.DeletedCount > 0, nil
}
