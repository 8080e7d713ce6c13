package billing

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"glimpse/engine"
)

// ChargeMany answers each request as Charge would, with one write of the
// charges: each is still stored under its key's id unless one is there, so a
// key charged before (a retry, another worker) is answered with its first
// charge. The renewal pass uses it (batchCharger); a real processor takes
// charges one request at a time.
func (s *Sandbox) ChargeMany(ctx context.Context, reqs []ChargeRequest) ([]Charge, []error) {
	charges, errs := make([]Charge, len(reqs)), make([]error, len(reqs))
	recs := make([]Charge, 0, len(reqs))
	at := make([]int, 0, len(reqs)) // recs[j] is reqs[at[j]]
	for i, req := range reqs {
		if req.Key == "" {
			errs[i] = errors.New("sandbox charge: no idempotency key")
			continue
		}
		recs = append(recs, s.newCharge(req))
		at = append(at, i)
	}
	if len(recs) == 0 {
		return charges, errs
	}
	stored, _, err := s.recs.Charges(ctx, recs)
	if err != nil {
		for _, i := range at {
			errs[i] = fmt.Errorf("sandbox charge %s: %w", reqs[i].Key, err)
		}
		return charges, errs
	}
	for j, i := range at {
		first := stored[j]
		// As Stripe does: a key reused with other parameters is an error,
		// never the first request's answer for a different charge. The
		// card is compared by what it does (each saved card has its own
		// token, as Stripe's test tokens are per call).
		if first.Amount != reqs[i].Amount || behaviourOf(first.Method) != behaviourOf(reqs[i].Method.ID) {
			errs[i] = fmt.Errorf("sandbox charge %s: %w", reqs[i].Key, ErrIdempotencyMismatch)
			continue
		}
		// The record is kept under an id naming nobody; the answer is
		// named by the request's key, as the provider's answer always was.
		first.ID = reqs[i].Key
		charges[i] = first
		switch {
		case first.Status == "succeeded":
		case strings.HasSuffix(first.Failure, "authentication_required"):
			errs[i] = ErrAuthenticationRequired
		default:
			errs[i] = ErrCardDeclined
		}
	}
	return charges, errs
}

// sandboxChargeID is the id the sandbox keeps a saved card's charge under:
// derived from the idempotency key, so the same key finds the same record,
// and naming nobody (an add-on's key holds the account id), so an erasure
// rewrites only the key beside it (SandboxRecords.Rekey), never the id.
func sandboxChargeID(key string) string {
	return "sbx_" + engine.HashToken("sandbox-charge:" + key)[:24]
}

// newCharge is the record the sandbox makes for req: its card's behaviour
// decides whether it succeeds.
func (s *Sandbox) newCharge(req ChargeRequest) Charge {
	ch := Charge{ID: sandboxChargeID(req.Key), Key: req.Key, Provider: sandboxName, Reference: "pi_sandbox_" + engine.NewID(),
		Amount: req.Amount, Method: req.Method.ID, Status: "succeeded", CreatedAt: s.clock.Now()}
	switch behaviourOf(req.Method.ID) {
	case behaviourDeclined, behaviourFailsLater:
		ch.Status, ch.Failure = "failed", "card_declined"
	case behaviourAuthenticate:
		ch.Status, ch.Failure = "failed", "card_declined:authentication_required"
	}
	return ch
}
