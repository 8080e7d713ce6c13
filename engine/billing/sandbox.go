package billing

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine"
	"glimpse/engine/store"
)

// The sandbox's test cards, the numbers Stripe documents for test mode
// (https://docs.stripe.com/testing#cards): one that succeeds, one that is
// declined, and one that can be saved and charged now but fails every later
// charge made without the customer (a renewal).
const (
	TestCardSucceeds           = "4242424242424242"
	TestCardDeclined           = "4000000000000002"
	TestCardFailsOnRenewal     = "4000000000000341"
	sandboxCollection          = "sandbox_charges"
	sandboxName                = "sandbox"
	behaviourSucceeds          = "ok"
	behaviourDeclined          = "decline"
	behaviourFailsWhenOffSessn = "offsession"
)

// Sandbox is the built-in payment provider: it takes no money and keeps no
// card data, and behaves like a processor in test mode. The behaviour of a
// test card travels in its payment-method id, as Stripe's test tokens
// (pm_card_visa, pm_card_chargeDeclined) carry theirs. Any other number that
// passes the Luhn check behaves like the succeeding card.
type Sandbox struct {
	db    *mongo.Database
	clock engine.Clock
}

// NewSandbox returns the sandbox provider; its charges are kept in db so an
// idempotency key answers the same on every instance.
func NewSandbox(db *mongo.Database, clock engine.Clock) *Sandbox {
	return &Sandbox{db: db, clock: clock}
}

// Name implements Provider.
func (s *Sandbox) Name() string { return sandboxName }

// SaveCard implements Provider.
func (s *Sandbox) SaveCard(_ context.Context, _ string, card Card) (PaymentMethod, error) {
	digits, err := checkCard(card, s.clock.Now())
	if err != nil {
		return PaymentMethod{}, err
	}
	behaviour := behaviourSucceeds
	switch digits {
	case TestCardDeclined:
		behaviour = behaviourDeclined
	case TestCardFailsOnRenewal:
		behaviour = behaviourFailsWhenOffSessn
	}
	return PaymentMethod{
		Provider: sandboxName,
		ID:       "pm_sandbox_" + behaviour + "_" + engine.NewID(),
		Brand:    CardBrand(digits),
		Last4:    digits[len(digits)-4:],
	}, nil
}

// Charge implements Provider. The first request with a key decides; every
// later one with the same key gets that answer back.
func (s *Sandbox) Charge(ctx context.Context, req ChargeRequest) (Charge, error) {
	if req.Key == "" {
		return Charge{}, errors.New("sandbox charge: no idempotency key")
	}
	ch := Charge{ID: req.Key, Key: req.Key, Provider: sandboxName, Reference: "ch_sandbox_" + engine.NewID(),
		Amount: req.Amount, Method: req.Method.ID, Status: "succeeded", CreatedAt: s.clock.Now()}
	switch behaviourOf(req.Method.ID) {
	case behaviourDeclined:
		ch.Status, ch.Failure = "failed", "card_declined"
	case behaviourFailsWhenOffSessn:
		if req.OffSession {
			ch.Status, ch.Failure = "failed", "card_declined"
		}
	}
	_, err := s.db.Collection(sandboxCollection).InsertOne(ctx, ch)
	if store.IsDuplicateKey(err) {
		var first Charge
		if err := s.db.Collection(sandboxCollection).FindOne(ctx, bson.M{"_id": req.Key}).Decode(&first); err != nil {
			return Charge{}, fmt.Errorf("sandbox charge %s: read first answer: %w", req.Key, err)
		}
		// As Stripe does: a key reused with other parameters is an error,
		// never the first request's answer for a different charge. The
		// card is compared by what it does (each SaveCard makes a new
		// token for the same card, as Stripe's test tokens are per call).
		if first.Amount != req.Amount || behaviourOf(first.Method) != behaviourOf(req.Method.ID) {
			return Charge{}, fmt.Errorf("sandbox charge %s: %w", req.Key, ErrIdempotencyMismatch)
		}
		ch = first
	} else if err != nil {
		return Charge{}, fmt.Errorf("sandbox charge %s: %w", req.Key, err)
	}
	if ch.Status != "succeeded" {
		return ch, ErrCardDeclined
	}
	return ch, nil
}

func behaviourOf(methodID string) string {
	rest, ok := strings.CutPrefix(methodID, "pm_sandbox_")
	if !ok {
		return behaviourSucceeds
	}
	b, _, _ := strings.Cut(rest, "_")
	return b
}
