package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Lists keeps, for each owner, a list of references (the _ids of documents
// kept elsewhere) as numbered documents "<owner>#0", "<owner>#1", … of one
// collection. On the embedded store a list found by a field is a scan of
// the whole collection (docs/store.md §10); a list read slot by slot is one
// lookup by _id per entry. Each slot is a unique insert, so writers adding
// to one owner at once each take their own slot, and a writer takes the
// first free one, so the slots of an owner have no gap for a reader to stop
// at. Add a reference before writing what it names: a crash in between
// leaves a slot readers skip (what it names is missing), never a document
// no slot leads to.
type Lists struct {
	coll *mongo.Collection
	// field holds a slot's reference: "ref", or the name a collection kept
	// from before Lists existed.
	field string
}

// NewLists keeps lists in the collection named, each slot's reference in
// its field "ref".
func NewLists(db *mongo.Database, collection string) *Lists {
	return NewListsIn(db, collection, "ref")
}

// NewListsIn keeps lists in the collection named, each slot's reference in
// field: for a collection whose slots were written with another name.
func NewListsIn(db *mongo.Database, collection, field string) *Lists {
	return &Lists{coll: db.Collection(collection), field: field}
}

type listSlot struct {
	ID  string `bson:"_id"`
	Ref string `bson:"ref"`
}

// slot reads slot n of owner's list: its reference, or false when the slot
// is free.
func (l *Lists) slot(ctx context.Context, owner string, n int) (string, bool, error) {
	raw, err := l.coll.FindOne(ctx, bson.M{"_id": listSlotID(owner, n)}).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("list %s of %s: %w", l.coll.Name(), owner, err)
	}
	ref, _ := raw.Lookup(l.field).StringValueOK()
	return ref, true, nil
}

func listSlotID(owner string, n int) string { return owner + "#" + strconv.Itoa(n) }

// ListSlot is slot n of owner's list holding ref, for a seeder that writes
// lists in bulk (slots from 0, no gap).
func ListSlot(owner string, n int, ref string) any {
	return listSlot{ID: listSlotID(owner, n), Ref: ref}
}

// Add puts ref on owner's list unless it is there.
func (l *Lists) Add(ctx context.Context, owner, ref string) error {
	_, err := l.AddFrom(ctx, owner, ref, 0)
	return err
}

// AddFrom puts ref on owner's list unless it is in one of the slots from
// from on, where the caller knows every slot below from is taken (a bound
// it keeps), so only the slots from there are read. It returns the new
// bound: every slot below it is taken.
func (l *Lists) AddFrom(ctx context.Context, owner, ref string, from int) (int, error) {
	n := from
	for ; ; n++ {
		taken, ok, err := l.slot(ctx, owner, n)
		if err != nil {
			return from, err
		}
		if !ok {
			break
		}
		if taken == ref {
			return n + 1, nil
		}
	}
	for end := n + 64; n < end; n++ {
		_, err := l.coll.InsertOne(ctx, bson.D{{Key: "_id", Value: listSlotID(owner, n)}, {Key: l.field, Value: ref}})
		if err == nil {
			return n + 1, nil
		}
		if !IsDuplicateKey(err) {
			return n, fmt.Errorf("list %s of %s: %w", l.coll.Name(), owner, err)
		}
	}
	return n, fmt.Errorf("list %s of %s: no free slot", l.coll.Name(), owner)
}

// firstFree is the first free slot at or above lo of slots taken from 0
// with no gap, where every slot below lo is known taken: a doubling walk
// and a bisection, so a few reads however long the list.
func firstFree(lo int, taken func(n int) (bool, error)) (int, error) {
	if t, err := taken(lo); err != nil || !t {
		return lo, err
	}
	// lo is taken: find a free hi above it, then the first free between.
	hi, stride := lo+1, 1
	for {
		t, err := taken(hi)
		if err != nil {
			return 0, err
		}
		if !t {
			break
		}
		lo, stride = hi, stride*2
		hi = lo + stride
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		t, err := taken(mid)
		if err != nil {
			return 0, err
		}
		if t {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// Len is the number of slots of owner's list (the first free one), found
// in a few reads however long the list is.
func (l *Lists) Len(ctx context.Context, owner string) (int, error) {
	return firstFree(0, func(n int) (bool, error) {
		_, ok, err := l.slot(ctx, owner, n)
		return ok, err
	})
}

// Append puts ref in the first free slot of owner's list without looking
// for it in the slots taken (Add does): for a long list whose writer
// cannot afford to read it whole, and whose reader takes a reference
// found twice once (a retried Append may file it again).
func (l *Lists) Append(ctx context.Context, owner, ref string) error {
	n, err := l.Len(ctx, owner)
	if err != nil {
		return err
	}
	return l.AppendAt(ctx, owner, ref, n)
}

// AppendAt is Append where the caller has just read the list's length n
// (Len).
func (l *Lists) AppendAt(ctx context.Context, owner, ref string, n int) error {
	_, err := l.AppendFrom(ctx, owner, ref, n)
	return err
}

// AppendFrom is Append where the caller knows every slot below n is taken
// (a length it read, or a bound it keeps): it tries slot n, and when that
// is taken (another writer appended meanwhile) searches the first free
// slot above it. It returns the slot after the one it took.
func (l *Lists) AppendFrom(ctx context.Context, owner, ref string, n int) (int, error) {
	for range 64 {
		_, err := l.coll.InsertOne(ctx, bson.D{{Key: "_id", Value: listSlotID(owner, n)}, {Key: l.field, Value: ref}})
		if err == nil {
			return n + 1, nil
		}
		if !IsDuplicateKey(err) {
			return n, fmt.Errorf("list %s of %s: %w", l.coll.Name(), owner, err)
		}
		if n, err = firstFree(n+1, func(n int) (bool, error) {
			_, ok, err := l.slot(ctx, owner, n)
			return ok, err
		}); err != nil {
			return n, fmt.Errorf("list %s of %s: %w", l.coll.Name(), owner, err)
		}
	}
	return n, fmt.Errorf("list %s of %s: no free slot", l.coll.Name(), owner)
}

// At reads slot n of owner's list: its reference, and false when the slot
// is free.
func (l *Lists) At(ctx context.Context, owner string, n int) (string, bool, error) {
	return l.slot(ctx, owner, n)
}

// SeedLists writes lists in bulk: each owner's refs in slots from 0, in
// batches of unordered inserts, for lists that do not exist yet (a start-up
// filing of what an older release wrote, or a seeder). A slot found taken
// (a writer appended meanwhile) has its ref appended after.
func (l *Lists) SeedLists(ctx context.Context, owners []string, refs map[string][]string) error {
	type entry struct{ owner, ref string }
	var docs []any
	var entries []entry
	flush := func() error {
		taken, err := InsertNew(ctx, l.coll, docs)
		if err != nil {
			return fmt.Errorf("seed lists %s: %w", l.coll.Name(), err)
		}
		for i, t := range taken {
			if t {
				if err := l.Append(ctx, entries[i].owner, entries[i].ref); err != nil {
					return err
				}
			}
		}
		docs, entries = docs[:0], entries[:0]
		return nil
	}
	for _, owner := range owners {
		for n, ref := range refs[owner] {
			docs = append(docs, bson.D{{Key: "_id", Value: listSlotID(owner, n)}, {Key: l.field, Value: ref}})
			entries = append(entries, entry{owner, ref})
			if len(docs) == seedBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// seedBatch is how many slots SeedLists inserts a command.
const seedBatch = 1000

// Refs returns owner's list in the order it was made, each reference once
// (two writers adding one reference at once may each take a slot for it).
func (l *Lists) Refs(ctx context.Context, owner string) ([]string, error) {
	slots, err := l.Slots(ctx, owner)
	if err != nil {
		return nil, err
	}
	refs := make([]string, 0, len(slots))
	for _, ref := range slots {
		if !slices.Contains(refs, ref) {
			refs = append(refs, ref)
		}
	}
	return refs, nil
}

// Erase deletes owner's list, slot by slot.
func (l *Lists) Erase(ctx context.Context, owner string) error {
	slots, err := l.Slots(ctx, owner)
	if err != nil {
		return err
	}
	// The last slot first: a reader meanwhile sees a shorter list, never
	// one cut short by a gap.
	for n := len(slots) - 1; n >= 0; n-- {
		if _, err := l.coll.DeleteOne(ctx, bson.M{"_id": listSlotID(owner, n)}); err != nil {
			return fmt.Errorf("erase list %s of %s: %w", l.coll.Name(), owner, err)
		}
	}
	return nil
}

// Slots reads owner's slots from 0 to the first missing one, a reference
// taken twice listed twice (the slot numbers matter to a caller erasing
// some of them).
func (l *Lists) Slots(ctx context.Context, owner string) ([]string, error) {
	var refs []string
	for n := 0; ; n++ {
		ref, ok, err := l.slot(ctx, owner, n)
		if err != nil {
			return nil, err
		}
		if !ok {
			return refs, nil
		}
		refs = append(refs, ref)
	}
}
