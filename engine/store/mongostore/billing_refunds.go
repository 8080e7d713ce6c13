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

// Billing's refunds, by "<charge id>#<seq>" (_id), with the field names the
// refunds collection had before the move. A claim inserts the charge's next
// number: the unique _id lets one of two claims made together have it, and
// each claim is decided over every refund numbered before it, so refunds
// never add up to more than the charge and a request sent twice (its twin
// racing for the same number) refunds once.
var refundsCollection = collection{name: "refunds", indexes: []index{
	{name: "of_charge", keys: bson.D{{Key: "chargeId", Value: 1}, {Key: "seq", Value: 1}}},
	{name: "pending", keys: bson.D{{Key: "status", Value: 1}, {Key: "createdAt", Value: 1}}},
}}

// Refunds returns the refunds' store.
func (b *Billing) Refunds() billing.Refunds {
	return mongoRefunds{b: b, c: b.subs.Database().Collection(refundsCollection.name)}
}

type refundDoc struct {
	ID             string    `bson:"_id"`
	ChargeID       string    `bson:"chargeId"`
	SubscriptionID string    `bson:"subscriptionId,omitempty"`
	Seq            int       `bson:"seq"`
	Amount         moneyDoc  `bson:"amount"`
	Full           bool      `bson:"full"`
	Status         string    `bson:"status"`
	Reference      string    `bson:"reference,omitempty"`
	Failure        string    `bson:"failure,omitempty"`
	By             string    `bson:"by"`
	Reason         string    `bson:"reason"`
	Key            string    `bson:"key,omitempty"`
	CreatedAt      time.Time `bson:"createdAt"`
	Erased         bool      `bson:"erased,omitempty"`
	RetainUntil    time.Time `bson:"retainUntil,omitempty"`
}

func toRefundDoc(r billing.Refund) refundDoc {
	return refundDoc{ID: r.ID, ChargeID: r.ChargeID, SubscriptionID: r.SubscriptionID, Seq: r.Seq, Amount: moneyDoc(r.Amount),
		Full: r.Full, Status: r.Status, Reference: r.Reference, Failure: r.Failure, By: r.By, Reason: r.Reason, Key: r.Key,
		CreatedAt: r.CreatedAt, Erased: r.Erased, RetainUntil: r.RetainUntil}
}

func (d refundDoc) refund() billing.Refund {
	return billing.Refund{ID: d.ID, ChargeID: d.ChargeID, SubscriptionID: d.SubscriptionID, Seq: d.Seq, Amount: billing.Money(d.Amount),
		Full: d.Full, Status: d.Status, Reference: d.Reference, Failure: d.Failure, By: d.By, Reason: d.Reason, Key: d.Key,
		CreatedAt: utcOrZero(d.CreatedAt), Erased: d.Erased, RetainUntil: utcOrZero(d.RetainUntil)}
}

type mongoRefunds struct {
	b *Billing
	c *mongo.Collection
}

func (m mongoRefunds) find(ctx context.Context, filter bson.D, opts ...options.Lister[options.FindOptions]) ([]billing.Refund, error) {
	cur, err := m.c.Find(ctx, filter, opts...)
	if err != nil {
		return nil, err
	}
	var docs []refundDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, err
	}
	out := make([]billing.Refund, len(docs))
	for i, d := range docs {
		out[i] = d.refund()
	}
	return out, nil
}

// Of returns a charge's refunds in the order they were claimed.
func (m mongoRefunds) Of(ctx context.Context, chargeID string) ([]billing.Refund, error) {
	out, err := m.find(ctx, bson.D{{Key: "chargeId", Value: chargeID}}, options.Find().SetSort(bson.D{{Key: "seq", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("refunds of %s: %w", chargeID, err)
	}
	return out, nil
}

// Claim decides over the charge's refunds and inserts number r.Seq, which
// the unique _id gives to one claim.
func (m mongoRefunds) Claim(ctx context.Context, r billing.Refund, chargeAmount int64) (billing.Refund, bool, error) {
	earlier, err := m.Of(ctx, r.ChargeID)
	if err != nil {
		return billing.Refund{}, false, err
	}
	if first, ok := withKey(earlier, r.Key); ok {
		return first, false, nil
	}
	if len(earlier) != r.Seq {
		return billing.Refund{}, false, billing.ErrRefundInProgress
	}
	if billing.Refunded(earlier)+r.Amount.Amount > chargeAmount {
		return billing.Refund{}, false, billing.ErrRefundTooLarge
	}
	r.ID, r.Status = billing.RefundID(r.ChargeID, r.Seq), billing.RefundPending
	if err := m.b.step(); err != nil {
		return billing.Refund{}, false, err
	}
	_, err = m.c.InsertOne(ctx, toRefundDoc(r))
	if mongo.IsDuplicateKeyError(err) {
		// Another claim took the number: this request's twin, or another.
		again, err := m.Of(ctx, r.ChargeID)
		if err != nil {
			return billing.Refund{}, false, err
		}
		if first, ok := withKey(again, r.Key); ok {
			return first, false, nil
		}
		return billing.Refund{}, false, billing.ErrRefundInProgress
	}
	if err != nil {
		return billing.Refund{}, false, fmt.Errorf("claim refund %s: %w", r.ID, err)
	}
	return r, true, nil
}

func withKey(refunds []billing.Refund, key string) (billing.Refund, bool) {
	for _, r := range refunds {
		if key != "" && r.Key == key {
			return r, true
		}
	}
	return billing.Refund{}, false
}

func (m mongoRefunds) get(ctx context.Context, id string) (billing.Refund, error) {
	var d refundDoc
	err := m.c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return billing.Refund{}, billing.ErrNoRefund
	}
	if err != nil {
		return billing.Refund{}, fmt.Errorf("read refund %s: %w", id, err)
	}
	return d.refund(), nil
}

// Settle records the provider's answer on a pending refund: an update
// filtered on the status, so a refund is settled once.
func (m mongoRefunds) Settle(ctx context.Context, id, status, reference, failure string) (billing.Refund, error) {
	if err := m.b.step(); err != nil {
		return billing.Refund{}, err
	}
	set := bson.D{{Key: "status", Value: status}}
	if reference != "" {
		set = append(set, bson.E{Key: "reference", Value: reference})
	}
	if failure != "" {
		set = append(set, bson.E{Key: "failure", Value: failure})
	}
	if _, err := m.c.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "status", Value: billing.RefundPending}},
		bson.D{{Key: "$set", Value: set}}); err != nil {
		return billing.Refund{}, fmt.Errorf("settle refund %s: %w", id, err)
	}
	return m.get(ctx, id)
}

// Pending returns up to n pending refunds claimed before before.
func (m mongoRefunds) Pending(ctx context.Context, before time.Time, n int) ([]billing.Refund, error) {
	out, err := m.find(ctx, bson.D{{Key: "status", Value: billing.RefundPending}, {Key: "createdAt", Value: bson.D{{Key: "$lt", Value: before}}}},
		options.Find().SetSort(bson.D{{Key: "createdAt", Value: 1}}).SetLimit(int64(n)))
	if err != nil {
		return nil, fmt.Errorf("pending refunds: %w", err)
	}
	return out, nil
}

// Anonymise strips a refund of staff's reason and keeps it until
// retainUntil.
func (m mongoRefunds) Anonymise(ctx context.Context, id string, retainUntil time.Time) error {
	if err := m.b.step(); err != nil {
		return err
	}
	if _, err := m.c.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: bson.D{
		{Key: "reason", Value: "erased"}, {Key: "erased", Value: true}, {Key: "retainUntil", Value: retainUntil}}}}); err != nil {
		return fmt.Errorf("anonymise refund %s: %w", id, err)
	}
	return nil
}

// DeleteRetained deletes the refund if it was kept and its period ended.
func (m mongoRefunds) DeleteRetained(ctx context.Context, id string, now time.Time) (int64, error) {
	if err := m.b.step(); err != nil {
		return 0, err
	}
	res, err := m.c.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "erased", Value: true},
		{Key: "retainUntil", Value: bson.D{{Key: "$lt", Value: now}}}})
	if err != nil {
		return 0, fmt.Errorf("purge refund %s: %w", id, err)
	}
	return res.DeletedCount, nil
}
