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

// The sandbox provider's books, in the documents it wrote before the move
// (same field names). A page is paid once: its payment record's unique
// insert decides, and only the caller that inserted it completes the page.
var (
	sandboxSessionsCollection = collection{name: "sandbox_sessions"}
	sandboxChargesCollection  = collection{name: "sandbox_charges", indexes: []index{
		{name: "by_key", keys: bson.D{{Key: "key", Value: 1}}},
		{name: "by_reference", keys: bson.D{{Key: "reference", Value: 1}}},
	}}
	sandboxRefundsCollection = collection{name: "sandbox_refunds"}
)

// SandboxRecords are the sandbox provider's books on MongoDB.
type SandboxRecords struct {
	sessions, charges, refunds *mongo.Collection
}

// NewSandboxRecords returns the sandbox's books on db.
func NewSandboxRecords(db *mongo.Database) *SandboxRecords {
	return &SandboxRecords{sessions: db.Collection(sandboxSessionsCollection.name), charges: db.Collection(sandboxChargesCollection.name),
		refunds: db.Collection(sandboxRefundsCollection.name)}
}

var _ billing.SandboxRecords = (*SandboxRecords)(nil)

type sandboxSessionDoc struct {
	ID            string           `bson:"_id"`
	Key           string           `bson:"key"`
	OrderID       string           `bson:"orderId"`
	Mode          string           `bson:"mode"`
	ChargeKey     string           `bson:"chargeKey,omitempty"`
	Amount        moneyDoc         `bson:"amount"`
	Description   string           `bson:"description"`
	Email         string           `bson:"email,omitempty"`
	Brand         string           `bson:"brand"`
	Saved         paymentMethodDoc `bson:"saved,omitempty"`
	SuccessURL    string           `bson:"successUrl"`
	CancelURL     string           `bson:"cancelUrl"`
	Status        string           `bson:"status"`
	PaymentStatus string           `bson:"paymentStatus"`
	Challenge     paymentMethodDoc `bson:"challenge,omitempty"`
	Method        paymentMethodDoc `bson:"method,omitempty"`
	PaymentIntent string           `bson:"paymentIntent,omitempty"`
	CreatedAt     time.Time        `bson:"createdAt"`
	ExpiresAt     time.Time        `bson:"expiresAt"`
}

func toSandboxSessionDoc(s billing.SandboxSession) sandboxSessionDoc {
	return sandboxSessionDoc{ID: s.ID, Key: s.Key, OrderID: s.OrderID, Mode: s.Mode, ChargeKey: s.ChargeKey, Amount: moneyDoc(s.Amount),
		Description: s.Description, Email: s.Email, Brand: s.Brand, Saved: paymentMethodDoc(s.Saved), SuccessURL: s.SuccessURL,
		CancelURL: s.CancelURL, Status: s.Status, PaymentStatus: s.PaymentStatus, Challenge: paymentMethodDoc(s.Challenge),
		Method: paymentMethodDoc(s.Method), PaymentIntent: s.PaymentIntent, CreatedAt: s.CreatedAt, ExpiresAt: s.ExpiresAt}
}

func (d sandboxSessionDoc) session() billing.SandboxSession {
	return billing.SandboxSession{ID: d.ID, Key: d.Key, OrderID: d.OrderID, Mode: d.Mode, ChargeKey: d.ChargeKey,
		Amount: billing.Money(d.Amount), Description: d.Description, Email: d.Email, Brand: d.Brand, Saved: billing.PaymentMethod(d.Saved),
		SuccessURL: d.SuccessURL, CancelURL: d.CancelURL, Status: d.Status, PaymentStatus: d.PaymentStatus,
		Challenge: billing.PaymentMethod(d.Challenge), Method: billing.PaymentMethod(d.Method), PaymentIntent: d.PaymentIntent,
		CreatedAt: d.CreatedAt.UTC(), ExpiresAt: d.ExpiresAt.UTC()}
}

// OpenSession stores s unless its id is stored, and returns the stored page.
func (r *SandboxRecords) OpenSession(ctx context.Context, s billing.SandboxSession) (billing.SandboxSession, error) {
	_, err := r.sessions.InsertOne(ctx, toSandboxSessionDoc(s))
	if err == nil {
		return s, nil
	}
	if !mongo.IsDuplicateKeyError(err) {
		return billing.SandboxSession{}, fmt.Errorf("sandbox session %s: %w", s.ID, err)
	}
	return r.Session(ctx, s.ID)
}

// Session returns a page.
func (r *SandboxRecords) Session(ctx context.Context, id string) (billing.SandboxSession, error) {
	var d sandboxSessionDoc
	err := r.sessions.FindOne(ctx, byID(id)).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return billing.SandboxSession{}, billing.ErrNoSession
	}
	if err != nil {
		return billing.SandboxSession{}, fmt.Errorf("sandbox session %s: %w", id, err)
	}
	return d.session(), nil
}

// Challenge sets the waiting card while the page is open (filtered on
// it), or clears it.
func (r *SandboxRecords) Challenge(ctx context.Context, id string, pm billing.PaymentMethod) error {
	filter, update := bson.D{{Key: "_id", Value: id}, {Key: "status", Value: "open"}}, set(bson.E{Key: "challenge", Value: paymentMethodDoc(pm)})
	if pm.ID == "" {
		filter, update = byID(id), bson.D{{Key: "$unset", Value: bson.D{{Key: "challenge", Value: ""}}}}
	}
	if _, err := r.sessions.UpdateOne(ctx, filter, update); err != nil {
		return fmt.Errorf("sandbox session %s: %w", id, err)
	}
	return nil
}

type sandboxChargeDoc struct {
	ID        string    `bson:"_id"`
	Key       string    `bson:"key"`
	Provider  string    `bson:"provider"`
	Reference string    `bson:"reference"`
	Amount    moneyDoc  `bson:"amount"`
	Method    string    `bson:"method"`
	Status    string    `bson:"status"`
	Failure   string    `bson:"failure,omitempty"`
	CreatedAt time.Time `bson:"createdAt"`
}

func toSandboxChargeDoc(ch billing.Charge) sandboxChargeDoc {
	return sandboxChargeDoc{ID: ch.ID, Key: ch.Key, Provider: ch.Provider, Reference: ch.Reference, Amount: moneyDoc(ch.Amount), Method: ch.Method,
		Status: ch.Status, Failure: ch.Failure, CreatedAt: ch.CreatedAt}
}

func (d sandboxChargeDoc) charge() billing.Charge {
	return billing.Charge{ID: d.ID, Key: d.Key, Provider: d.Provider, Reference: d.Reference, Amount: billing.Money(d.Amount), Method: d.Method,
		Status: d.Status, Failure: d.Failure, CreatedAt: d.CreatedAt.UTC()}
}

// PaySession inserts the page's payment record; the caller that inserted
// it completes the page (a repeat finds it paid, or about to be:
// awaitPaidMark in the domain waits for the mark).
func (r *SandboxRecords) PaySession(ctx context.Context, record billing.Charge, paid billing.SandboxSession) (bool, error) {
	_, err := r.charges.InsertOne(ctx, toSandboxChargeDoc(record))
	if mongo.IsDuplicateKeyError(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("pay sandbox session %s: %w", paid.ID, err)
	}
	d := toSandboxSessionDoc(paid)
	if _, err := r.sessions.UpdateOne(ctx, byID(paid.ID), bson.D{
		{Key: "$set", Value: bson.D{{Key: "status", Value: d.Status}, {Key: "paymentStatus", Value: d.PaymentStatus},
			{Key: "method", Value: d.Method}, {Key: "paymentIntent", Value: d.PaymentIntent}}},
		{Key: "$unset", Value: bson.D{{Key: "challenge", Value: ""}}},
	}); err != nil {
		return false, fmt.Errorf("pay sandbox session %s: %w", paid.ID, err)
	}
	return true, nil
}

// Charges inserts the charges with one unordered insertMany: each is still
// its own insert by id, so one stored before is refused alone and read
// back.
func (r *SandboxRecords) Charges(ctx context.Context, chs []billing.Charge) ([]billing.Charge, []bool, error) {
	stored, created := make([]billing.Charge, len(chs)), make([]bool, len(chs))
	docs := make([]any, len(chs))
	for i, ch := range chs {
		docs[i], stored[i], created[i] = toSandboxChargeDoc(ch), ch, true
	}
	if len(docs) == 0 {
		return stored, created, nil
	}
	_, err := r.charges.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	var bwe mongo.BulkWriteException
	switch {
	case err == nil:
		return stored, created, nil
	case !errors.As(err, &bwe) || bwe.WriteConcernError != nil:
		return nil, nil, fmt.Errorf("sandbox charges: %w", err)
	}
	for _, we := range bwe.WriteErrors {
		if we.Index < 0 || we.Index >= len(chs) {
			continue
		}
		if !mongo.IsDuplicateKeyError(we) {
			return nil, nil, fmt.Errorf("sandbox charge %s: %w", chs[we.Index].ID, we)
		}
		var d sandboxChargeDoc
		if err := r.charges.FindOne(ctx, byID(chs[we.Index].ID)).Decode(&d); err != nil {
			return nil, nil, fmt.Errorf("sandbox charge %s: read first answer: %w", chs[we.Index].ID, err)
		}
		stored[we.Index], created[we.Index] = d.charge(), false
	}
	return stored, created, nil
}

// ChargeOf returns the first record under one of ids, else one with the
// reference.
func (r *SandboxRecords) ChargeOf(ctx context.Context, ids []string, reference string) (billing.Charge, error) {
	filters := make([]bson.D, 0, len(ids)+1)
	for _, id := range ids {
		filters = append(filters, byID(id))
	}
	if reference != "" {
		filters = append(filters, bson.D{{Key: "reference", Value: reference}})
	}
	for _, f := range filters {
		var d sandboxChargeDoc
		err := r.charges.FindOne(ctx, f).Decode(&d)
		if errors.Is(err, mongo.ErrNoDocuments) {
			continue
		}
		if err != nil {
			return billing.Charge{}, fmt.Errorf("sandbox charge: %w", err)
		}
		return d.charge(), nil
	}
	return billing.Charge{}, billing.ErrNoCharge
}

// Rekey rewrites the key of the charges stored with oldKey.
func (r *SandboxRecords) Rekey(ctx context.Context, oldKey, newKey string) error {
	if _, err := r.charges.UpdateMany(ctx, bson.D{{Key: "key", Value: oldKey}}, set(bson.E{Key: "key", Value: newKey})); err != nil {
		return fmt.Errorf("rekey sandbox charges: %w", err)
	}
	return nil
}

type sandboxRefundDoc struct {
	ID        string    `bson:"_id"`
	ChargeKey string    `bson:"chargeKey"`
	Reference string    `bson:"reference"`
	Amount    moneyDoc  `bson:"amount"`
	CreatedAt time.Time `bson:"createdAt"`
}

// Refund inserts r unless its key is stored, and returns the stored one.
func (r *SandboxRecords) Refund(ctx context.Context, ref billing.SandboxRefund) (billing.SandboxRefund, error) {
	_, err := r.refunds.InsertOne(ctx, sandboxRefundDoc{ID: ref.ID, ChargeKey: ref.ChargeKey, Reference: ref.Reference,
		Amount: moneyDoc(ref.Amount), CreatedAt: ref.CreatedAt})
	if err == nil {
		return ref, nil
	}
	if !mongo.IsDuplicateKeyError(err) {
		return billing.SandboxRefund{}, fmt.Errorf("sandbox refund %s: %w", ref.ID, err)
	}
	var d sandboxRefundDoc
	if err := r.refunds.FindOne(ctx, byID(ref.ID)).Decode(&d); err != nil {
		return billing.SandboxRefund{}, fmt.Errorf("sandbox refund %s: read first answer: %w", ref.ID, err)
	}
	return billing.SandboxRefund{ID: d.ID, ChargeKey: d.ChargeKey, Reference: d.Reference, Amount: billing.Money(d.Amount),
		CreatedAt: d.CreatedAt.UTC()}, nil
}

// DeleteSession deletes a page.
func (r *SandboxRecords) DeleteSession(ctx context.Context, id string) error {
	if _, err := r.sessions.DeleteOne(ctx, byID(id)); err != nil {
		return fmt.Errorf("delete sandbox session %s: %w", id, err)
	}
	return nil
}
