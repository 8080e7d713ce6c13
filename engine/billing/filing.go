package billing

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/store"
)

// filingsCollection lists documents under an owner: a subscription's
// hosted-page orders (the ledger's charges and events are found by the
// ledger's indexes, Ledger). Documents
// "<kind>:<owner>#0", "#1", … each name one document (ref). The embedded
// database finds documents without a scan only by _id equality (docs/store.md
// §10), and these lists were finds by a field, each a scan of every
// subscription's history or every charge's events. A slot is a unique insert,
// so concurrent writers each take their own.
const filingsCollection = "billing_filings"

// Kinds of filing.
const (
	filedOrders = "orders" // owner: a subscription; ref: a hosted-page order's _id (listOrder)
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

// fileFrom files ref under owner unless it is in one of the slots from
// from on, where every slot below from is known to be taken (a subscription
// keeps that bound for its lists: Subscription.FiledCharges, FiledHistory),
// so only the slots from there are read. It returns the new bound.
func fileFrom(ctx context.Context, db *mongo.Database, kind, owner, ref string, from int) (int, error) {
	return filings(db).AddFrom(ctx, kind+":"+owner, ref, from)
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

// ordersListedMarker is the settings document saying the hosted-page
// orders are on their addresses' lists and their subscriptions' filings
// (kept since account deletion erases them by _id).
const ordersListedMarker = "billing-listed-orders"

// FileExistingBillingLists files, once per database, the orders written
// before lists existed. It reads the orders whole, so it runs at start and
// then marks the step done.
func FileExistingBillingLists(ctx context.Context, db *mongo.Database, settings string) error {
	for _, step := range []struct {
		marker string
		fill   func(context.Context, *mongo.Database) error
	}{{ordersListedMarker, listExistingOrders}} {
		if err := store.OncePerDatabase(ctx, db, settings, step.marker, func(ctx context.Context) error { return step.fill(ctx, db) }); err != nil {
			return err
		}
	}
	return nil
}

// listExistingOrders puts every stored order on its address's list and
// files it under its subscription, as listOrder does for a new one.
func listExistingOrders(ctx context.Context, db *mongo.Database) error {
	cur, err := db.Collection(ordersCollection).Find(ctx, bson.M{},
		options.Find().SetProjection(bson.M{"email": 1, "subscriptionId": 1}))
	if err != nil {
		return fmt.Errorf("list existing orders: %w", err)
	}
	var orders []Order
	if err := cur.All(ctx, &orders); err != nil {
		return fmt.Errorf("list existing orders: %w", err)
	}
	byEmail, bySubscription := map[string][]string{}, map[string][]string{}
	var emails []string
	for _, o := range orders {
		if isListSlot(o.ID) {
			continue // listed by this release already
		}
		if email := normaliseEmail(o.Email); email != "" {
			if byEmail[email] == nil {
				emails = append(emails, email)
			}
			byEmail[email] = append(byEmail[email], o.ID)
		}
		if o.SubscriptionID != "" {
			bySubscription[o.SubscriptionID] = append(bySubscription[o.SubscriptionID], o.ID)
		}
	}
	if err := ordersByEmail(db).SeedLists(ctx, emails, byEmail); err != nil {
		return fmt.Errorf("list orders under their addresses: %w", err)
	}
	if _, err := fileMany(ctx, db, filedOrders, bySubscription, nil); err != nil {
		return fmt.Errorf("file orders under their subscriptions: %w", err)
	}
	return nil
}

// isListSlot tells a slot of a list kept beside the documents it lists
// ("<owner>#n": ordersByEmail) from those documents,
// whose _ids hold no "#".
func isListSlot(id string) bool { return strings.Contains(id, "#") }

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

// FilingsCollection names billing's filings for the privacy package's
// declaration of what happens to each collection.
const FilingsCollection = filingsCollection
