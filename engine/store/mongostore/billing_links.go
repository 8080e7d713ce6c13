package mongostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine/billing"
)

// Billing's cancel links and handled webhook events. A link is spent by an
// update filtered on spentAt being absent (atomic on MongoDB), so a link
// cancels once; an event is recorded by its unique _id.
var (
	cancelLinksCollection = collection{name: "cancel_links", indexes: []index{
		{name: "by_email", keys: bson.D{{Key: "email", Value: 1}}},
		{name: "expiry", keys: bson.D{{Key: "expiresAt", Value: 1}}},
	}}
	stripeEventsCollection = collection{name: "stripe_events", indexes: []index{
		{name: "age", keys: bson.D{{Key: "receivedAt", Value: 1}}},
	}}
)

// CancelLinks returns the cancel links' store.
func (b *Billing) CancelLinks() billing.CancelLinks {
	return mongoCancelLinks{b: b, c: b.subs.Database().Collection(cancelLinksCollection.name)}
}

// StripeEvents returns the handled webhook events' store.
func (b *Billing) StripeEvents() billing.StripeEvents {
	return mongoStripeEvents{b: b, c: b.subs.Database().Collection(stripeEventsCollection.name)}
}

type cancelLinkDoc struct {
	ID        string     `bson:"_id"`
	Email     string     `bson:"email"`
	UserID    string     `bson:"userId,omitempty"`
	Bundle    string     `bson:"bundle"`
	ExpiresAt time.Time  `bson:"expiresAt"`
	SpentAt   *time.Time `bson:"spentAt,omitempty"` // absent until the tap
}

func toCancelLinkDoc(l billing.CancelLink) cancelLinkDoc {
	d := cancelLinkDoc{ID: l.ID, Email: l.Email, UserID: l.UserID, Bundle: l.Bundle, ExpiresAt: l.ExpiresAt}
	if !l.SpentAt.IsZero() {
		d.SpentAt = &l.SpentAt
	}
	return d
}

type mongoCancelLinks struct {
	b *Billing
	c *mongo.Collection
}

// Insert stores a new link.
func (m mongoCancelLinks) Insert(ctx context.Context, l billing.CancelLink) error {
	if err := m.b.step(); err != nil {
		return err
	}
	if _, err := m.c.InsertOne(ctx, toCancelLinkDoc(l)); err != nil {
		return fmt.Errorf("insert cancel link: %w", err)
	}
	return nil
}

// Get returns a link by id.
func (m mongoCancelLinks) Get(ctx context.Context, id string) (billing.CancelLink, error) {
	var d cancelLinkDoc
	err := m.c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return billing.CancelLink{}, billing.ErrNoCancelLink
	}
	if err != nil {
		return billing.CancelLink{}, fmt.Errorf("read cancel link: %w", err)
	}
	l := billing.CancelLink{ID: d.ID, Email: d.Email, UserID: d.UserID, Bundle: d.Bundle, ExpiresAt: d.ExpiresAt.UTC()}
	if d.SpentAt != nil {
		l.SpentAt = d.SpentAt.UTC()
	}
	return l, nil
}

// Spend marks the link spent unless it is: one update filtered on spentAt
// being absent, which MongoDB applies to one of racing taps.
func (m mongoCancelLinks) Spend(ctx context.Context, id string, at time.Time) (bool, error) {
	if err := m.b.step(); err != nil {
		return false, err
	}
	res, err := m.c.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "spentAt", Value: nil}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "spentAt", Value: at}}}})
	if err != nil {
		return false, fmt.Errorf("spend cancel link: %w", err)
	}
	return res.MatchedCount == 1, nil
}

// DeleteOf deletes an address's links.
func (m mongoCancelLinks) DeleteOf(ctx context.Context, email string) (int64, error) {
	if err := m.b.step(); err != nil {
		return 0, err
	}
	res, err := m.c.DeleteMany(ctx, bson.D{{Key: "email", Value: email}})
	if err != nil {
		return 0, fmt.Errorf("delete cancel links: %w", err)
	}
	return res.DeletedCount, nil
}

// DeleteExpired deletes the links expired before before.
func (m mongoCancelLinks) DeleteExpired(ctx context.Context, before time.Time) (int64, error) {
	res, err := m.c.DeleteMany(ctx, bson.D{{Key: "expiresAt", Value: bson.D{{Key: "$lt", Value: before}}}})
	if err != nil {
		return 0, fmt.Errorf("delete expired cancel links: %w", err)
	}
	return res.DeletedCount, nil
}

type stripeEventDoc struct {
	ID         string    `bson:"_id"`
	Type       string    `bson:"type"`
	ChargeID   string    `bson:"chargeId"`
	Order      string    `bson:"order"`
	Applied    bool      `bson:"applied"`
	Created    time.Time `bson:"created"`
	ReceivedAt time.Time `bson:"receivedAt"`
}

type mongoStripeEvents struct {
	b *Billing
	c *mongo.Collection
}

// Get returns the event recorded under id; found is false when none is.
func (m mongoStripeEvents) Get(ctx context.Context, id string) (billing.StripeEventRecord, bool, error) {
	var d stripeEventDoc
	err := m.c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return billing.StripeEventRecord{}, false, nil
	}
	if err != nil {
		return billing.StripeEventRecord{}, false, fmt.Errorf("read stripe event: %w", err)
	}
	d.Created, d.ReceivedAt = d.Created.UTC(), d.ReceivedAt.UTC()
	return billing.StripeEventRecord(d), true, nil
}

// Record stores the event unless its id is recorded (the unique _id).
func (m mongoStripeEvents) Record(ctx context.Context, r billing.StripeEventRecord) error {
	if err := m.b.step(); err != nil {
		return err
	}
	_, err := m.c.InsertOne(ctx, stripeEventDoc(r))
	if err != nil && !mongo.IsDuplicateKeyError(err) {
		return fmt.Errorf("record stripe event: %w", err)
	}
	return nil
}

// DeleteReceivedBefore forgets the events received before before.
func (m mongoStripeEvents) DeleteReceivedBefore(ctx context.Context, before time.Time) (int64, error) {
	res, err := m.c.DeleteMany(ctx, bson.D{{Key: "receivedAt", Value: bson.D{{Key: "$lt", Value: before}}}})
	if err != nil {
		return 0, fmt.Errorf("forget stripe events: %w", err)
	}
	return res.DeletedCount, nil
}
