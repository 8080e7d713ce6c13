package mongostore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine/billing"
)

// Billing's receipts, by number (_id): the field names are those the
// receipts collection had before the move, so receipts written then read
// as they are. The unique _id is what makes one receipt per charge (the
// number derives from the charge's key).
var receiptsCollection = collection{name: "receipts", indexes: []index{
	{name: "of_charge", keys: bson.D{{Key: "chargeId", Value: 1}}},
	{name: "of_subscription", keys: bson.D{{Key: "subscriptionId", Value: 1}}},
}}

// Receipts returns the receipts' store.
func (b *Billing) Receipts() billing.Receipts {
	return mongoReceipts{b: b, c: b.subs.Database().Collection(receiptsCollection.name)}
}

type receiptDoc struct {
	Number         string    `bson:"_id"`
	ChargeID       string    `bson:"chargeId,omitempty"`
	SubscriptionID string    `bson:"subscriptionId"`
	Email          string    `bson:"email"`
	Brand          string    `bson:"brand"`
	Kind           string    `bson:"kind"`
	PlanCode       string    `bson:"planCode"`
	Amount         moneyDoc  `bson:"amount"`
	CardBrand      string    `bson:"cardBrand"`
	CardLast4      string    `bson:"cardLast4"`
	PaidAt         time.Time `bson:"paidAt"`
	PeriodStart    time.Time `bson:"periodStart,omitempty"`
	PeriodEnd      time.Time `bson:"periodEnd,omitempty"`
	Erased         bool      `bson:"erased,omitempty"`
	RetainUntil    time.Time `bson:"retainUntil,omitempty"`
}

func toReceiptDoc(r billing.Receipt) receiptDoc {
	return receiptDoc{Number: r.Number, ChargeID: r.ChargeID, SubscriptionID: r.SubscriptionID, Email: r.Email, Brand: r.Brand,
		Kind: r.Kind, PlanCode: r.PlanCode, Amount: moneyDoc(r.Amount), CardBrand: r.CardBrand, CardLast4: r.CardLast4,
		PaidAt: r.PaidAt, PeriodStart: r.PeriodStart, PeriodEnd: r.PeriodEnd, Erased: r.Erased, RetainUntil: r.RetainUntil}
}

func (d receiptDoc) receipt() billing.Receipt {
	return billing.Receipt{Number: d.Number, ChargeID: d.ChargeID, SubscriptionID: d.SubscriptionID, Email: d.Email, Brand: d.Brand,
		Kind: d.Kind, PlanCode: d.PlanCode, Amount: billing.Money(d.Amount), CardBrand: d.CardBrand, CardLast4: d.CardLast4,
		PaidAt: utcOrZero(d.PaidAt), PeriodStart: utcOrZero(d.PeriodStart), PeriodEnd: utcOrZero(d.PeriodEnd), Erased: d.Erased,
		RetainUntil: utcOrZero(d.RetainUntil)}
}

type mongoReceipts struct {
	b *Billing
	c *mongo.Collection
}

// Issue inserts each receipt unless its number is taken (the unique _id),
// then reads what each number holds.
func (m mongoReceipts) Issue(ctx context.Context, rs []billing.Receipt) ([]billing.Receipt, error) {
	out := make([]billing.Receipt, len(rs))
	for i, r := range rs {
		if err := m.b.step(); err != nil {
			return nil, err
		}
		if _, err := m.c.InsertOne(ctx, toReceiptDoc(r)); err != nil && !mongo.IsDuplicateKeyError(err) {
			return nil, fmt.Errorf("issue receipt %s: %w", r.Number, err)
		}
		stored, err := m.ByNumber(ctx, r.Number)
		if err != nil {
			return nil, err
		}
		out[i] = stored
	}
	return out, nil
}

// ByNumber returns a receipt by number.
func (m mongoReceipts) ByNumber(ctx context.Context, number string) (billing.Receipt, error) {
	return m.one(ctx, bson.D{{Key: "_id", Value: number}})
}

// OfCharge returns the receipt of the charge with this opaque id.
func (m mongoReceipts) OfCharge(ctx context.Context, chargeID string) (billing.Receipt, error) {
	return m.one(ctx, bson.D{{Key: "chargeId", Value: chargeID}})
}

// OfSubscriptions returns the receipts of the subscriptions, oldest paid
// first.
func (m mongoReceipts) OfSubscriptions(ctx context.Context, subIDs []string) ([]billing.Receipt, error) {
	if len(subIDs) == 0 {
		return nil, nil
	}
	cur, err := m.c.Find(ctx, bson.D{{Key: "subscriptionId", Value: bson.D{{Key: "$in", Value: subIDs}}}})
	if err != nil {
		return nil, fmt.Errorf("receipts of subscriptions: %w", err)
	}
	var docs []receiptDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("receipts of subscriptions: %w", err)
	}
	out := make([]billing.Receipt, len(docs))
	for i, d := range docs {
		out[i] = d.receipt()
	}
	slices.SortStableFunc(out, func(a, b billing.Receipt) int {
		return cmp.Or(a.PaidAt.Compare(b.PaidAt), strings.Compare(a.Number, b.Number))
	})
	return out, nil
}

func (m mongoReceipts) one(ctx context.Context, filter bson.D) (billing.Receipt, error) {
	var d receiptDoc
	err := m.c.FindOne(ctx, filter).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return billing.Receipt{}, billing.ErrNoReceipt
	}
	if err != nil {
		return billing.Receipt{}, fmt.Errorf("read receipt: %w", err)
	}
	return d.receipt(), nil
}

// Anonymise strips a receipt of the person and keeps it until retainUntil.
func (m mongoReceipts) Anonymise(ctx context.Context, number string, retainUntil time.Time) error {
	if err := m.b.step(); err != nil {
		return err
	}
	if _, err := m.c.UpdateOne(ctx, bson.D{{Key: "_id", Value: number}}, bson.D{
		{Key: "$set", Value: bson.D{{Key: "email", Value: billing.ErasedEmail}, {Key: "erased", Value: true}, {Key: "retainUntil", Value: retainUntil}}},
		{Key: "$unset", Value: bson.D{{Key: "chargeId", Value: ""}}},
	}); err != nil {
		return fmt.Errorf("anonymise receipt %s: %w", number, err)
	}
	return nil
}

// DeleteRetained deletes the receipt if it was kept and its period ended.
func (m mongoReceipts) DeleteRetained(ctx context.Context, number string, now time.Time) (int64, error) {
	if err := m.b.step(); err != nil {
		return 0, err
	}
	res, err := m.c.DeleteOne(ctx, bson.D{{Key: "_id", Value: number}, {Key: "erased", Value: true},
		{Key: "retainUntil", Value: bson.D{{Key: "$lt", Value: now}}}})
	if err != nil {
		return 0, fmt.Errorf("purge receipt %s: %w", number, err)
	}
	return res.DeletedCount, nil
}
