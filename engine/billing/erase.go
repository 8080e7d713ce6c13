package billing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine"
	"glimpse/engine/store"
)

// Collections whose documents a subscriber's erasure touches, exported for
// the privacy package's declaration of what happens to each collection.
const (
	ChargesCollection      = chargesCollection
	CancelLinksCollection  = cancelLinksCollection
	ChargeEventsCollection = chargeEventsCollection
	StripeEventsCollection = stripeEventsCollection
	ReceiptsCollection     = receiptsCollection
	RefundsCollection      = refundsCollection
)

// ErasedEmail stands in for the address of an erased subscriber on the
// records kept for the tax period: it is no address, so no mail, index or
// sign-in can reach it.
const ErasedEmail = "erased"

// ChargesOf returns the charges that paid for the given subscriptions,
// oldest first (billing history, the support desk, the privacy export and
// erasure read them): the charges filed under each subscription, each read
// by _id.
func (s *Service) ChargesOf(ctx context.Context, subIDs []string) ([]Charge, error) {
	var out []Charge
	seen := map[string]bool{}
	for _, subID := range subIDs {
		keys, err := filed(ctx, s.db, filedCharges, subID)
		if err != nil {
			return nil, err
		}
		for _, key := range keys {
			if seen[key] {
				continue
			}
			seen[key] = true
			var ch Charge
			err := s.db.Collection(chargesCollection).FindOne(ctx, bson.M{"_id": key}).Decode(&ch)
			if errors.Is(err, mongo.ErrNoDocuments) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("charges of %s: %w", subID, err)
			}
			if ch.SubscriptionID == subID {
				out = append(out, ch)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Charge) int { return a.CreatedAt.Compare(b.CreatedAt) })
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
		if err := s.eraseLedger(ctx, ids, subs, retainUntil); err != nil {
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
// the tax period, marked so and stripped of the person, then gives the
// charges whose key names the account a key that does not (rekeyCharges).
// The marks are written before the re-keying, which carries them to the
// new keys: a receipt is found by its charge's key as it was issued
// (receiptNumber), and an erasure stopped half way and run again meets a
// charge already re-keyed whose receipt is already stripped.
func (s *Service) eraseLedger(ctx context.Context, ids []string, subs []Subscription, retainUntil time.Time) error {
	charges, err := s.ChargesOf(ctx, ids)
	if err != nil {
		return err
	}
	if err := s.scheduleRetained(ctx, ids, charges, retainUntil); err != nil {
		return err
	}
	kept := bson.M{"erased": true, "retainUntil": retainUntil}
	for _, ch := range charges {
		if _, err := s.db.Collection(chargesCollection).UpdateOne(ctx, bson.M{"_id": ch.ID}, bson.M{"$set": kept}); err != nil {
			return fmt.Errorf("mark charges kept for the tax period: %w", err)
		}
		// Receipts are kept with the ledger, without the address they went
		// to and without the charge key, which can hold the account id.
		r, err := s.ReceiptOfCharge(ctx, ch.Key)
		if err != nil && !errors.Is(err, ErrNoReceipt) {
			return fmt.Errorf("anonymise receipts: %w", err)
		}
		if err == nil && slices.Contains(ids, r.SubscriptionID) {
			if err := s.st.Receipts().Anonymise(ctx, r.Number, retainUntil); err != nil {
				return fmt.Errorf("anonymise receipts: %w", err)
			}
		}
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
	return s.rekeyCharges(ctx, charges, subs)
}

// eraseOrders deletes the hosted-page orders of the subscriptions or the
// addresses, and the sandbox's pages for them: what they bought is in the
// ledger already, and an order names the buyer. Each page goes before its
// order, so an erasure stopped half way and run again still finds the
// order, and through it the page.
func (s *Service) eraseOrders(ctx context.Context, subIDs, emails []string) error {
	var orders []Order
	for _, email := range normaliseEmails(emails) {
		os, err := s.st.Orders().ByEmail(ctx, email)
		if err != nil {
			return fmt.Errorf("erase orders: %w", err)
		}
		orders = append(orders, os...)
	}
	for _, subID := range subIDs {
		os, err := s.st.Orders().OfSubscription(ctx, subID)
		if err != nil {
			return fmt.Errorf("erase orders: %w", err)
		}
		orders = append(orders, os...)
	}
	pages, _ := s.provider.(pageForgetter)
	done := map[string]bool{}
	for _, o := range orders {
		if done[o.ID] {
			continue
		}
		done[o.ID] = true
		// The sandbox's page of an order is keyed by the order (another
		// provider's pages are its own to keep).
		if pages != nil {
			if err := pages.ForgetPage(ctx, orderSessionKey(o.ID)); err != nil {
				return fmt.Errorf("erase sandbox pages: %w", err)
			}
		}
		if err := s.st.Orders().Delete(ctx, o.ID); err != nil {
			return fmt.Errorf("erase orders: %w", err)
		}
	}
	return nil
}

// chargeRekeyer is a provider keeping its charges by our keys (the
// sandbox), whose keys an erasure rewrites with the ledger's.
type chargeRekeyer interface {
	RekeyCharge(ctx context.Context, oldKey, newKey string) error
}

// pageForgetter is a provider keeping the hosted pages it opened (the
// sandbox), which an erasure deletes with their orders.
type pageForgetter interface {
	ForgetPage(ctx context.Context, key string) error
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

// rekeyCharges gives the kept charges whose idempotency key names the
// account (an add-on's key is "purchase:<user id>:<plan>") a key that does
// not: the SHA-256 of the old one. The charge, its status events and the
// sandbox's record move to the new key together; nothing retries a deleted
// person's purchase, so the old key is not needed again.
func (s *Service) rekeyCharges(ctx context.Context, charges []Charge, subs []Subscription) error {
	for _, ch := range charges {
		named := false
		for _, sub := range subs {
			if sub.UserID != "" && strings.Contains(ch.Key+ch.ID, sub.UserID) {
				named = true
			}
		}
		if !named {
			continue
		}
		newKey := "erased:" + engine.HashToken(ch.Key)
		// The provider's records first: a rerun finds the charge by its
		// old key until the charge itself moves.
		if rk, ok := s.provider.(chargeRekeyer); ok {
			if err := rk.RekeyCharge(ctx, ch.Key, newKey); err != nil {
				return err
			}
		}
		if err := s.moveDoc(ctx, chargesCollection, ch.ID, newKey, bson.M{"key": newKey}); err != nil {
			return err
		}
		if err := s.rekeyFilings(ctx, ch, newKey); err != nil {
			return err
		}
		// Refunds are numbered under the charge's key.
		if err := s.st.Refunds().Rekey(ctx, ch.ID, newKey); err != nil {
			return fmt.Errorf("rekey refunds: %w", err)
		}
	}
	return nil
}

// rekeyFilings moves what is filed about a charge to its new key: its
// status events (documents and their filings), and the filings that lead
// to it from its subscription and its provider reference.
func (s *Service) rekeyFilings(ctx context.Context, ch Charge, newKey string) error {
	events, err := filedSlots(ctx, s.db, filedChargeEvents, ch.ID)
	if err != nil {
		return err
	}
	for n, id := range events {
		var ev chargeEvent
		err := s.db.Collection(chargeEventsCollection).FindOne(ctx, bson.M{"_id": id}).Decode(&ev)
		if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
			return fmt.Errorf("rekey charge events: %w", err)
		}
		newID := id
		if err == nil {
			newID = chargeEventID(newKey, ev.At, ev.EventID)
			if err := s.moveDoc(ctx, chargeEventsCollection, ev.ID, newID, bson.M{"key": newKey}); err != nil {
				return err
			}
		}
		if err := s.moveDoc(ctx, filingsCollection, filingID(filedChargeEvents, ch.ID, n), filingID(filedChargeEvents, newKey, n),
			bson.M{"ref": newID}); err != nil {
			return err
		}
	}
	for _, owner := range []struct{ kind, id string }{{filedCharges, ch.SubscriptionID}, {filedReference, ch.Reference}} {
		if owner.id == "" {
			continue
		}
		refs, err := filedSlots(ctx, s.db, owner.kind, owner.id)
		if err != nil {
			return err
		}
		for n, ref := range refs {
			if ref != ch.ID {
				continue
			}
			if _, err := s.db.Collection(filingsCollection).UpdateOne(ctx, bson.M{"_id": filingID(owner.kind, owner.id, n)},
				bson.M{"$set": bson.M{"ref": newKey}}); err != nil {
				return fmt.Errorf("rekey %s filing: %w", owner.kind, err)
			}
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
