package billing

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine/store"
)

// filingsCollection lists documents under an owner, for the lists billing
// reads on a request's path: a subscription's history lines, a charge's
// provider events, and the charge a provider reference names. Documents
// "<kind>:<owner>#0", "#1", … each name one document (ref). The embedded
// database finds documents without a scan only by _id equality (docs/store.md
// §10), and these lists were finds by a field, each a scan of every
// subscription's history or every charge's events. A slot is a unique insert,
// so concurrent writers each take their own.
const filingsCollection = "billing_filings"

// Kinds of filing.
const (
	filedChargeEvents = "chargeevents" // owner: a charge's key; ref: a charge event's _id
	filedReference    = "reference"    // owner: a provider's charge reference; ref: the charge's key (one slot)
	filedCharges      = "charges"      // owner: a subscription; ref: the key of a charge that paid for it
)

func filingID(kind, owner string, n int) string { return kind + ":" + owner + "#" + strconv.Itoa(n) }

type filing struct {
	ID  string `bson:"_id"`
	Ref string `bson:"ref"`
}

// filings is billing's lists: owner "<kind>:<owner>", so a slot's _id is
// filingID's.
func filings(db *mongo.Database) *store.Lists { return store.NewLists(db, filingsCollection) }

// filed reads the refs filed under owner, in slot order, each once: two
// writers filing one ref together may each take a slot for it.
func filed(ctx context.Context, db *mongo.Database, kind, owner string) ([]string, error) {
	return filings(db).Refs(ctx, kind+":"+owner)
}

// filedSlots reads every slot under owner, in order.
func filedSlots(ctx context.Context, db *mongo.Database, kind, owner string) ([]string, error) {
	return filings(db).Slots(ctx, kind+":"+owner)
}

// file files ref under owner unless it is there.
func file(ctx context.Context, db *mongo.Database, kind, owner, ref string) error {
	return filings(db).Add(ctx, kind+":"+owner, ref)
}

// fileFrom files ref under owner unless it is in one of the slots from
// from on, where every slot below from is known to be taken (a subscription
// keeps that bound for its lists: Subscription.FiledCharges, FiledHistory),
// so only the slots from there are read. It returns the new bound.
func fileFrom(ctx context.Context, db *mongo.Database, kind, owner, ref string, from int) (int, error) {
	return filings(db).AddFrom(ctx, kind+":"+owner, ref, from)
}

// fileUnderSubscription files ref in one of a subscription's two growing
// lists (filedCharges, filedHistory) as file does, but from the bound the
// subscription keeps of that list (one read of the subscription by _id), so
// a writer one at a time (a plan change, a cancellation, a checkout's
// charge) reads the slots taken since the renewal pass last moved the bound,
// not every slot since the subscription began. It does not move the bound:
// the pass does, and a lagging bound costs reads, never a lost filing.
func fileUnderSubscription(ctx context.Context, db *mongo.Database, kind, subID, ref string) error {
	if kind != filedCharges {
		return fmt.Errorf("file %s of %s: a subscription keeps no list of that", kind, subID)
	}
	// The subscriptions (billing's Store) keep no bounds of their filings:
	// the list is walked from its first slot.
	_, err := fileFrom(ctx, db, kind, subID, ref, 0)
	return err
}

// fileMany files refs under their owners as fileFrom does, for a batch (the
// renewal pass's): each owner's refs are first tried in the slots from its
// bound in from (0 for an owner not in it), in unordered inserts, which costs
// no read when the bound is the owner's next free slot (a subscription's
// bounds, kept by the pass itself, or an owner with no filing yet); a slot
// found taken sends its ref the slow way (fileFrom: a read of each of the
// owner's slots from its bound, then the next free one). It returns each
// owner's new bound.
func fileMany(ctx context.Context, db *mongo.Database, kind string, byOwner map[string][]string, from map[string]int) (map[string]int, error) {
	return insertSlots(ctx, db.Collection(filingsCollection), byOwner, from, func(owner string, n int, ref string) any {
		return filing{ID: filingID(kind, owner, n), Ref: ref}
	}, func(owner, ref string) (int, error) { return fileFrom(ctx, db, kind, owner, ref, from[owner]) })
}

// filingsMarker is the settings document saying the history lines, charge
// events and charge references written before filings existed are filed;
// chargeFilingsMarker, the charges under their subscriptions (filed since
// billing history, receipts and the support desk list a subscription's
// charges).
const (
	filingsMarker       = "billing-filed"
	chargeFilingsMarker = "billing-filed-charges"
)

// FileExistingBillingLists files, once per database, what was written
// before filings and lists existed. It reads the history, the charge
// events, the charges and the orders whole, so it runs at
// start and then marks each step done.
func FileExistingBillingLists(ctx context.Context, db *mongo.Database, settings string) error {
	for _, step := range []struct {
		marker string
		fill   func(context.Context, *mongo.Database) error
	}{{filingsMarker, fileExistingLists}, {chargeFilingsMarker, fileExistingCharges}} {
		if err := store.OncePerDatabase(ctx, db, settings, step.marker, func(ctx context.Context) error { return step.fill(ctx, db) }); err != nil {
			return err
		}
	}
	return nil
}

// fileExistingCharges files every charge under the subscription it paid
// for.
func fileExistingCharges(ctx context.Context, db *mongo.Database) error {
	var charges []Charge
	if err := readAll(ctx, db.Collection(chargesCollection), &charges); err != nil {
		return err
	}
	bySubscription := map[string][]string{}
	for _, ch := range charges {
		if ch.SubscriptionID != "" {
			bySubscription[ch.SubscriptionID] = append(bySubscription[ch.SubscriptionID], ch.ID)
		}
	}
	_, err := fileMany(ctx, db, filedCharges, bySubscription, nil)
	if err != nil {
		return fmt.Errorf("file charges under subscriptions: %w", err)
	}
	return nil
}

func fileExistingLists(ctx context.Context, db *mongo.Database) error {
	var events []chargeEvent
	if err := readAll(ctx, db.Collection(chargeEventsCollection), &events); err != nil {
		return err
	}
	chargeEvents := map[string][]string{}
	for _, e := range events {
		chargeEvents[e.Key] = append(chargeEvents[e.Key], e.ID)
	}
	var charges []Charge
	if err := readAll(ctx, db.Collection(chargesCollection), &charges); err != nil {
		return err
	}
	references := map[string][]string{}
	for _, ch := range charges {
		if ch.Reference != "" {
			references[ch.Reference] = append(references[ch.Reference], ch.ID)
		}
	}
	for kind, byOwner := range map[string]map[string][]string{filedChargeEvents: chargeEvents, filedReference: references} {
		_, err := fileMany(ctx, db, kind, byOwner, nil)
		if err != nil {
			return fmt.Errorf("file billing lists: %w", err)
		}
	}
	return nil
}

func readAll(ctx context.Context, coll *mongo.Collection, out any) error {
	cur, err := coll.Find(ctx, bson.M{})
	if err != nil {
		return fmt.Errorf("file billing lists: read %s: %w", coll.Name(), err)
	}
	if err := cur.All(ctx, out); err != nil {
		return fmt.Errorf("file billing lists: read %s: %w", coll.Name(), err)
	}
	return nil
}

// ReferenceFiling is the filing of a seeded charge's provider reference.
func ReferenceFiling(reference, chargeKey string) any {
	return filing{ID: filingID(filedReference, reference, 0), Ref: chargeKey}
}

// ChargeFiling is the filing of a seeded charge under its subscription, in
// slot n.
func ChargeFiling(subID string, n int, chargeKey string) any {
	return filing{ID: filingID(filedCharges, subID, n), Ref: chargeKey}
}

// FilingsCollection is where the scale seed puts its filings.
const FilingsCollection = filingsCollection

// insertSlots writes, for each owner, its refs into the slots from its
// bound in from (0 when absent), in batches of unordered inserts, and
// returns each owner's new bound (every slot below it taken). A slot found
// taken (an earlier run stopped half way, or a writer filed meanwhile) sends
// its ref the slow way, through slowFile, which reads the owner's slots and
// takes the next free one.
func insertSlots(ctx context.Context, coll *mongo.Collection, byOwner map[string][]string, from map[string]int,
	doc func(owner string, n int, ref string) any, slowFile func(owner, ref string) (int, error)) (map[string]int, error) {
	owners := slices.Sorted(maps.Keys(byOwner))
	next := make(map[string]int, len(owners))
	type pending struct {
		owner, ref string
		n          int
	}
	batch, what := make([]any, 0, slotBatch), make([]pending, 0, slotBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		taken, err := store.InsertNew(ctx, coll, batch)
		if err != nil {
			return err
		}
		for i, t := range taken {
			slot := what[i].n + 1
			if t {
				if slot, err = slowFile(what[i].owner, what[i].ref); err != nil {
					return err
				}
			}
			next[what[i].owner] = max(next[what[i].owner], slot)
		}
		batch, what = batch[:0], what[:0]
		return nil
	}
	for _, owner := range owners {
		start := from[owner]
		for i, ref := range slices.Compact(slices.Sorted(slices.Values(byOwner[owner]))) {
			batch, what = append(batch, doc(owner, start+i, ref)), append(what, pending{owner, ref, start + i})
			if len(batch) == slotBatch {
				if err := flush(); err != nil {
					return next, err
				}
			}
		}
	}
	return next, flush()
}

const slotBatch = 1000
