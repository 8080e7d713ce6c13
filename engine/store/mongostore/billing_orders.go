package mongostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/billing"
)

// Billing's hosted-page orders, in the documents the checkout wrote before
// the move (same field names), plus the outcome claimed once and the time
// the reconciliation looks at an unsettled order again. The outcome is set
// by an update filtered on its absence (atomic on MongoDB), so of events
// settling an order together one decides.
var ordersCollection = collection{name: "checkout_orders", indexes: []index{
	{name: "by_email", keys: bson.D{{Key: "email", Value: 1}}},
	{name: "by_subscription", keys: bson.D{{Key: "subscriptionId", Value: 1}}},
	// Only orders with a check time are in it: settling one unsets it.
	{name: "unsettled", keys: bson.D{{Key: "status", Value: 1}, {Key: "checkAt", Value: 1}},
		partial: bson.D{{Key: "checkAt", Value: bson.D{{Key: "$exists", Value: true}}}}},
}}

// Orders returns the hosted-page orders' store.
func (b *Billing) Orders() billing.Orders {
	return mongoOrders{b: b, c: b.subs.Database().Collection(ordersCollection.name)}
}

type orderDoc struct {
	ID             string           `bson:"_id"`
	Kind           string           `bson:"kind"`
	Brand          string           `bson:"brand"`
	Bundle         string           `bson:"bundle"`
	PlanCode       string           `bson:"planCode"`
	Family         string           `bson:"family,omitempty"`
	Email          string           `bson:"email"`
	UserID         string           `bson:"userId,omitempty"`
	SubscriptionID string           `bson:"subscriptionId"`
	MainID         string           `bson:"mainSubscriptionId,omitempty"`
	Period         int64            `bson:"period,omitempty"`
	ChargeKey      string           `bson:"chargeKey,omitempty"`
	Amount         moneyDoc         `bson:"amount"`
	Saved          paymentMethodDoc `bson:"saved,omitempty"`
	Session        string           `bson:"session,omitempty"`
	URL            string           `bson:"url,omitempty"`
	Return         string           `bson:"return,omitempty"`
	Status         string           `bson:"status"`
	CreatedAt      time.Time        `bson:"createdAt"`
	// Outcome is absent until claimed; CheckAt is absent when the
	// reconciliation has nothing to ask.
	Outcome string     `bson:"outcome,omitempty"`
	CheckAt *time.Time `bson:"checkAt,omitempty"`
}

func toOrderDoc(o billing.Order) orderDoc {
	return orderDoc{ID: o.ID, Kind: o.Kind, Brand: o.Brand, Bundle: o.Bundle, PlanCode: o.PlanCode, Family: o.Family, Email: o.Email,
		UserID: o.UserID, SubscriptionID: o.SubscriptionID, MainID: o.MainID, Period: o.Period, ChargeKey: o.ChargeKey,
		Amount: moneyDoc(o.Amount), Saved: paymentMethodDoc(o.Saved), Session: o.Session, URL: o.URL, Return: o.Return,
		Status: o.Status, CreatedAt: o.CreatedAt}
}

func (d orderDoc) order() billing.Order {
	return billing.Order{ID: d.ID, Kind: d.Kind, Brand: d.Brand, Bundle: d.Bundle, PlanCode: d.PlanCode, Family: d.Family, Email: d.Email,
		UserID: d.UserID, SubscriptionID: d.SubscriptionID, MainID: d.MainID, Period: d.Period, ChargeKey: d.ChargeKey,
		Amount: billing.Money(d.Amount), Saved: billing.PaymentMethod(d.Saved), Session: d.Session, URL: d.URL, Return: d.Return,
		Status: d.Status, CreatedAt: d.CreatedAt.UTC()}
}

type mongoOrders struct {
	b *Billing
	c *mongo.Collection
}

// Open stores o unless its id is stored, and returns the stored order.
func (m mongoOrders) Open(ctx context.Context, o billing.Order) (billing.Order, bool, error) {
	if err := m.b.step(); err != nil {
		return billing.Order{}, false, err
	}
	_, err := m.c.InsertOne(ctx, toOrderDoc(o))
	if err == nil {
		return o, true, nil
	}
	if !mongo.IsDuplicateKeyError(err) {
		return billing.Order{}, false, fmt.Errorf("open order %s: %w", o.ID, err)
	}
	stored, err := m.Get(ctx, o.ID)
	return stored, false, err
}

// Get returns an order.
func (m mongoOrders) Get(ctx context.Context, id string) (billing.Order, error) {
	var d orderDoc
	err := m.c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return billing.Order{}, billing.ErrNoOrder
	}
	if err != nil {
		return billing.Order{}, fmt.Errorf("read order %s: %w", id, err)
	}
	return d.order(), nil
}

func (m mongoOrders) update(ctx context.Context, filter, update bson.D) (*mongo.UpdateResult, error) {
	if err := m.b.step(); err != nil {
		return nil, err
	}
	return m.c.UpdateOne(ctx, filter, update)
}

func set(fields ...bson.E) bson.D { return bson.D{{Key: "$set", Value: bson.D(fields)}} }

func byID(id string) bson.D { return bson.D{{Key: "_id", Value: id}} }

// SetSession records the order's hosted page.
func (m mongoOrders) SetSession(ctx context.Context, id, session, url string) error {
	if _, err := m.update(ctx, byID(id), set(bson.E{Key: "session", Value: session}, bson.E{Key: "url", Value: url})); err != nil {
		return fmt.Errorf("order %s: %w", id, err)
	}
	return nil
}

// Processing moves a pending order to processing, filtered on pending.
func (m mongoOrders) Processing(ctx context.Context, id string) error {
	if _, err := m.update(ctx, bson.D{{Key: "_id", Value: id}, {Key: "status", Value: billing.OrderPending}},
		set(bson.E{Key: "status", Value: billing.OrderProcessing})); err != nil {
		return fmt.Errorf("order %s: %w", id, err)
	}
	return nil
}

// ClaimOutcome sets the outcome by an update filtered on its absence (and
// on the order being unsettled), then reads the one that stands.
func (m mongoOrders) ClaimOutcome(ctx context.Context, id, outcome string) (string, error) {
	if _, err := m.update(ctx, bson.D{{Key: "_id", Value: id}, {Key: "outcome", Value: nil},
		{Key: "status", Value: bson.D{{Key: "$in", Value: bson.A{billing.OrderPending, billing.OrderProcessing}}}}},
		set(bson.E{Key: "outcome", Value: outcome})); err != nil {
		return "", fmt.Errorf("claim the outcome of order %s: %w", id, err)
	}
	var d struct {
		Outcome string `bson:"outcome"`
		Status  string `bson:"status"`
	}
	err := m.c.FindOne(ctx, byID(id), options.FindOne().SetProjection(bson.D{{Key: "outcome", Value: 1}, {Key: "status", Value: 1}})).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return "", billing.ErrNoOrder
	}
	if err != nil {
		return "", fmt.Errorf("claim the outcome of order %s: %w", id, err)
	}
	if d.Outcome == "" {
		// Settled before outcomes were stored (the claims collection
		// held them): it stands as its status says.
		return d.Status, nil
	}
	return d.Outcome, nil
}

// Settled writes the final status; a settled order needs no check.
func (m mongoOrders) Settled(ctx context.Context, id, status string) error {
	if _, err := m.update(ctx, byID(id), bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: status}}},
		{Key: "$unset", Value: bson.D{{Key: "checkAt", Value: ""}}}}); err != nil {
		return fmt.Errorf("settle order %s: %w", id, err)
	}
	return nil
}

// ChangeEmail writes the buyer's corrected address.
func (m mongoOrders) ChangeEmail(ctx context.Context, id, email string) error {
	if _, err := m.update(ctx, byID(id), set(bson.E{Key: "email", Value: email})); err != nil {
		return fmt.Errorf("order %s: %w", id, err)
	}
	return nil
}

func (m mongoOrders) find(ctx context.Context, filter bson.D, opts ...options.Lister[options.FindOptions]) ([]billing.Order, error) {
	cur, err := m.c.Find(ctx, filter, opts...)
	if err != nil {
		return nil, err
	}
	var docs []orderDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, err
	}
	out := make([]billing.Order, 0, len(docs))
	for _, d := range docs {
		out = append(out, d.order())
	}
	return out, nil
}

// ByEmail returns an address's orders.
func (m mongoOrders) ByEmail(ctx context.Context, email string) ([]billing.Order, error) {
	out, err := m.find(ctx, bson.D{{Key: "email", Value: email}})
	if err != nil {
		return nil, fmt.Errorf("orders of an address: %w", err)
	}
	return out, nil
}

// OfSubscription returns a subscription's orders.
func (m mongoOrders) OfSubscription(ctx context.Context, subID string) ([]billing.Order, error) {
	out, err := m.find(ctx, bson.D{{Key: "subscriptionId", Value: subID}})
	if err != nil {
		return nil, fmt.Errorf("orders of %s: %w", subID, err)
	}
	return out, nil
}

// Unsettled returns up to n unsettled orders due for a check.
func (m mongoOrders) Unsettled(ctx context.Context, now time.Time, n int) ([]billing.Order, error) {
	out, err := m.find(ctx, bson.D{
		{Key: "status", Value: bson.D{{Key: "$in", Value: bson.A{billing.OrderPending, billing.OrderProcessing}}}},
		{Key: "checkAt", Value: bson.D{{Key: "$lte", Value: now}}},
	}, options.Find().SetSort(bson.D{{Key: "checkAt", Value: 1}}).SetLimit(int64(n)))
	if err != nil {
		return nil, fmt.Errorf("unsettled orders: %w", err)
	}
	return out, nil
}

// Recheck sets the order's check time, or unsets it for a zero at.
func (m mongoOrders) Recheck(ctx context.Context, id string, at time.Time) error {
	update := set(bson.E{Key: "checkAt", Value: at})
	if at.IsZero() {
		update = bson.D{{Key: "$unset", Value: bson.D{{Key: "checkAt", Value: ""}}}}
	}
	if _, err := m.update(ctx, byID(id), update); err != nil {
		return fmt.Errorf("order %s: %w", id, err)
	}
	return nil
}

// Delete deletes an order.
func (m mongoOrders) Delete(ctx context.Context, id string) error {
	if err := m.b.step(); err != nil {
		return err
	}
	if _, err := m.c.DeleteOne(ctx, byID(id)); err != nil {
		return fmt.Errorf("delete order %s: %w", id, err)
	}
	return nil
}
