package billing

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/store"
)

// ChargeMany answers each request as Charge would, with one unordered
// insertMany of the charges: each is still its own insert by its key, so a
// key charged before (a retry, another worker) is refused alone and answered
// with its first charge, read back by key. The renewal pass uses it
// (batchCharger); a real processor takes charges one request at a time.
func (s *Sandbox) ChargeMany(ctx context.Context, reqs []ChargeRequest) ([]Charge, []error) {
	charges, errs := make([]Charge, len(reqs)), make([]error, len(reqs))
	docs := make([]any, 0, len(reqs))
	at := make([]int, 0, len(reqs)) // docs[j] is reqs[at[j]]
	for i, req := range reqs {
		if req.Key == "" {
			errs[i] = errors.New("sandbox charge: no idempotency key")
			continue
		}
		charges[i] = s.newCharge(req)
		docs = append(docs, charges[i])
		at = append(at, i)
	}
	if len(docs) == 0 {
		return charges, errs
	}
	_, err := s.db.Collection(sandboxCollection).InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	var bwe mongo.BulkWriteException
	switch {
	case err == nil:
	case errors.As(err, &bwe) && bwe.WriteConcernError == nil:
		for _, we := range bwe.WriteErrors {
			if we.Index < 0 || we.Index >= len(at) {
				continue
			}
			i := at[we.Index]
			if store.IsDuplicateKey(we) {
				charges[i], errs[i] = s.firstAnswer(ctx, reqs[i])
			} else {
				charges[i], errs[i] = Charge{}, fmt.Errorf("sandbox charge %s: %w", reqs[i].Key, we)
			}
		}
	default:
		for _, i := range at {
			charges[i], errs[i] = Charge{}, fmt.Errorf("sandbox charge %s: %w", reqs[i].Key, err)
		}
	}
	for _, i := range at {
		switch {
		case errs[i] != nil || charges[i].Status == "succeeded":
		case strings.HasSuffix(charges[i].Failure, "authentication_required"):
			errs[i] = ErrAuthenticationRequired
		default:
			errs[i] = ErrCardDeclined
		}
	}
	return charges, errs
}

// newCharge is the charge the sandbox makes for req: its card's behaviour
// decides whether it succeeds.
func (s *Sandbox) newCharge(req ChargeRequest) Charge {
	ch := Charge{ID: req.Key, Key: req.Key, Provider: sandboxName, Reference: "pi_sandbox_" + engine.NewID(),
		Amount: req.Amount, Method: req.Method.ID, Status: "succeeded", CreatedAt: s.clock.Now()}
	switch behaviourOf(req.Method.ID) {
	case behaviourDeclined, behaviourFailsLater:
		ch.Status, ch.Failure = "failed", "card_declined"
	case behaviourAuthenticate:
		ch.Status, ch.Failure = "failed", "card_declined:authentication_required"
	}
	return ch
}

// firstAnswer is the charge made before under req's key, refused when req
// asks for something else with it (as Charge refuses it).
func (s *Sandbox) firstAnswer(ctx context.Context, req ChargeRequest) (Charge, error) {
	var first Charge
	if err := s.db.Collection(sandboxCollection).FindOne(ctx, bson.M{"_id": req.Key}).Decode(&first); err != nil {
		return Charge{}, fmt.Errorf("sandbox charge %s: read first answer: %w", req.Key, err)
	}
	if first.Amount != req.Amount || behaviourOf(first.Method) != behaviourOf(req.Method.ID) {
		return Charge{}, fmt.Errorf("sandbox charge %s: %w", req.Key, ErrIdempotencyMismatch)
	}
	return first, nil
}
