package billing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine"
	"glimpse/engine/store"
)

// Collections whose documents a subscriber's erasure touches, exported for
// the privacy package's declaration of what happens to each collection.
const (
	SandboxCollection         = sandboxCollection
	CancelLinksCollection     = cancelLinksCollection
	StripeEventsCollection    = stripeEventsCollection
	ReceiptsCollection        = receiptsCollection
	RefundsCollection         = refundsCollection
	SandboxRefundsCollection  = sandboxRefundsCollection
	OrdersCollection          = ordersCollection
	SandboxSessionsCollection = sandboxSessionsCollection
)

// ErasedEmail stands in for the address of an erased subscriber on the
// records kept for the tax period: it is no address, so no mail, index or
// sign-in can reach it.
const ErasedEmail = "erased"

// ChargesOf returns the charges that paid for the given subscriptions,
// oldest first (billing history, the support desk, the privacy export and
// erasure read them), each with its status (the newest event's).
func (s *Service) ChargesOf(ctx context.Context, subIDs []string) ([]Charge, error) {
	out, err := s.st.Ledger().OfSubscriptions(ctx, subIDs)
	if err != nil {
		return nil, fmt.Errorf("charges of subscriptions: %w", err)
	}
	return out, nil
}

// EraseSubscriber ends a deleted subscriber's subscriptions at once and
// strips them of the person: the subscriptions and their charges stay,
// without any address, account or card reference, until retainUntil (the
// tax period the operator keeps receipts for), so the books still add up;
// the history's free text, orders and cancel links go now. Running it
// again changes nothing more. The subscriptions are anonymised last: they
// are how an erasure stopped half-way finds the rest when run again
// (privacy finds them by account and address).
func (s *Service) EraseSubscriber(ctx context.Context, subs []Subscription, emails []string, retainUntil time.Time) error {
	ids := make([]string, 0, len(subs))
	for _, sub := range subs {
		ids = append(ids, sub.ID)
		if err := s.st.Subscriptions().EraseLines(ctx, sub.ID, append([]string{sub.UserID}, emails...)); err != nil {
			return fmt.Errorf("erase history of %s: %w", sub.ID, err)
		}
	}
	if len(ids) > 0 {
		if err := s.eraseLedger(ctx, ids, retainUntil); err != nil {
			return err
		}
	}
	if err := s.eraseOrders(ctx, ids, emails); err != nil {
		return err
	}
	for _, email := range normaliseEmails(emails) {
		if err := s.eraseCancelLinks(ctx, email); err != nil {
			return err
		}
	}
	for _, sub := range subs {
		if _, err := s.change(ctx, sub.ID, func(sub Subscription) (Subscription, Effects, bool, error) {
			return sub.Erase(s.clock.Now(), retainUntil), Effects{}, true, nil
		}); err != nil && !errors.Is(err, ErrNoSubscription) {
			return fmt.Errorf("erase subscription %s: %w", sub.ID, err)
		}
		s.touched(sub.UserID)
	}
	return nil
}

// eraseLedger keeps the subscriptions' charges, receipts and refunds for
// the tax period, marked so and stripped of the person: a receipt loses its
// address, a refund staff's reason, and a charge its key, which can name
// the account (an add-on's is "purchase:<user id>:<plan>"). Everything that
// refers to a charge names it by its opaque id, so nothing moves. The
// charges go last: an erasure stopped half way and run again finds them
// again by their subscriptions, and each step changes nothing more.
func (s *Service) eraseLedger(ctx context.Context, ids []string, retainUntil time.Time) error {
	charges, err := s.ChargesOf(ctx, ids)
	if err != nil {
		return err
	}
	// Receipts are kept with the ledger, without the address they went to.
	receipts, err := s.st.Receipts().OfSubscriptions(ctx, ids)
	if err != nil {
		return fmt.Errorf("anonymise receipts: %w", err)
	}
	for _, r := range receipts {
		if err := s.st.Receipts().Anonymise(ctx, r.Number, retainUntil); err != nil {
			return fmt.Errorf("anonymise receipts: %w", err)
		}
	}
	for _, ch := range charges {
		// A refund's reason is staff's free text about the person.
		refunds, err := s.RefundsOf(ctx, ch.ID)
		if err != nil {
			return fmt.Errorf("anonymise refunds: %w", err)
		}
		for _, ref := range refunds {
			if !slices.Contains(ids, ref.SubscriptionID) {
				continue
			}
			if err := s.st.Refunds().Anonymise(ctx, ref.ID, retainUntil); err != nil {
				return fmt.Errorf("anonymise refunds: %w", err)
			}
		}
	}
	for _, ch := range charges {
		if ch.Erased {
			continue // an earlier run's
		}
		newKey := "erased:" + engine.HashToken(ch.Key)
		// The sandbox's record of the charge is kept under its key.
		if err := s.rekeySandboxRecords(ctx, ch, newKey); err != nil {
			return err
		}
		if err := s.st.Ledger().Erase(ctx, ch.ID, newKey, retainUntil); err != nil {
			return fmt.Errorf("keep charges for the tax period: %w", err)
		}
	}
	return nil
}

// eraseOrders deletes the hosted-page orders of the subscriptions or the
// addresses, and the sandbox's pages for them: what they bought is in the
// ledger already, and an order names the buyer. The orders are found on
// their addresses' lists and their subscriptions' filings (listOrder),
// each read and deleted by _id; the lists go after what they lead to, so
// an erasure stopped half way and run again finds what is left.
func (s *Service) eraseOrders(ctx context.Context, subIDs, emails []string) error {
	addresses := normaliseEmails(emails)
	var listed []string
	for _, email := range addresses {
		refs, err := ordersByEmail(s.db).Refs(ctx, email)
		if err != nil {
			return fmt.Errorf("erase orders: %w", err)
		}
		listed = append(listed, refs...)
	}
	for _, subID := range subIDs {
		refs, err := filed(ctx, s.db, filedOrders, subID)
		if err != nil {
			return fmt.Errorf("erase orders: %w", err)
		}
		listed = append(listed, refs...)
	}
	slices.Sort(listed)
	for _, id := range slices.Compact(listed) {
		var o Order
		err := s.db.Collection(ordersCollection).FindOne(ctx, bson.M{"_id": id}).Decode(&o)
		if errors.Is(err, mongo.ErrNoDocuments) {
			continue // listed, then never stored, or deleted by an earlier run
		}
		if err != nil {
			return fmt.Errorf("erase orders: %w", err)
		}
		if !slices.Contains(subIDs, o.SubscriptionID) && !slices.Contains(addresses, normaliseEmail(o.Email)) {
			continue
		}
		// The sandbox's page of an order is keyed by the order (a page
		// another provider opened is not in the sandbox's collection, and
		// deleting nothing costs one lookup).
		if _, err := s.db.Collection(sandboxSessionsCollection).DeleteOne(ctx,
			bson.M{"_id": sandboxSessionID(orderSessionKey(o.ID))}); err != nil {
			return fmt.Errorf("erase sandbox pages: %w", err)
		}
		if _, err := s.db.Collection(ordersCollection).DeleteOne(ctx, bson.M{"_id": o.ID}); err != nil {
			return fmt.Errorf("erase orders: %w", err)
		}
	}
	for _, email := range addresses {
		if err := ordersByEmail(s.db).Erase(ctx, email); err != nil {
			return fmt.Errorf("erase orders: %w", err)
		}
	}
	for _, subID := range subIDs {
		if err := filings(s.db).Erase(ctx, filedOrders+":"+subID); err != nil {
			return fmt.Errorf("erase orders: %w", err)
		}
	}
	return nil
}

// eraseCancelLinks deletes an address's cancel links.
func (s *Service) eraseCancelLinks(ctx context.Context, email string) error {
	if _, err := s.st.CancelLinks().DeleteOf(ctx, email); err != nil {
		return fmt.Errorf("erase cancel links: %w", err)
	}
	return nil
}

// normaliseEmails is emails as billing keeps them, each once, without the
// empty ones.
func normaliseEmails(emails []string) []string {
	out := make([]string, 0, len(emails))
	for _, e := range emails {
		if e = normaliseEmail(e); e != "" && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// rekeySandboxRecords moves the sandbox's record of a charge from the
// charge's key to its new one (the sandbox provider's books, which are not
// the ledger's).
func (s *Service) rekeySandboxRecords(ctx context.Context, ch Charge, newKey string) error {
	for _, id := range sandboxRecordIDs(ch) {
		if err := s.moveDoc(ctx, sandboxCollection, id, newKey, bson.M{"key": newKey}); err != nil {
			return err
		}
	}
	return nil
}

// moveDoc stores a document under a new _id with fields set, then deletes
// the old one; a missing document is no error. Inserting first means a
// failure half way leaves a copy, never nothing.
func (s *Service) moveDoc(ctx context.Context, coll, oldID, newID string, set bson.M) error {
	var doc bson.M
	err := s.db.Collection(coll).FindOne(ctx, bson.M{"_id": oldID}).Decode(&doc)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("move %s document: %w", coll, err)
	}
	doc["_id"] = newID
	for k, v := range set {
		doc[k] = v
	}
	if _, err := s.db.Collection(coll).InsertOne(ctx, doc); err != nil && !store.IsDuplicateKey(err) {
		return fmt.Errorf("move %s document: %w", coll, err)
	}
	if _, err := s.db.Collection(coll).DeleteOne(ctx, bson.M{"_id": oldID}); err != nil {
		return fmt.Errorf("move %s document: %w", coll, err)
	}
	return nil
}
