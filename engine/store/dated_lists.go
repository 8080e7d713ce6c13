package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// DatedLists list documents that expire (sessions, one-time links,
// analytics events) under the key that owns them (an account, a
// subscription) and the UTC day they were written, so that what belongs to
// a key is read and erased by _id: on the embedded store, finding them by a
// field decodes the whole collection (docs/store.md §10), and a person's
// erasure at a million subscribers ran for minutes on such scans.
//
// A document is swept as it expires, one by one, and a list has no gap, so
// a day's list outlives what it names: it is erased whole once everything
// it can name has expired. Its first writer files it in a schedule at that
// time (a day plus the lifetime after the first document), and Sweep
// erases what falls due. A day's owner is a hash of the key and the day, so
// the schedule, which outlives an erased key's lists, names nobody.
type DatedLists struct {
	lists    *Lists
	expiry   *Schedule
	expiryAt string
	// lifetime is the longest a listed document lives.
	lifetime time.Duration

	mu sync.Mutex
	// next holds, per list this instance appended to, a slot every slot
	// below which is taken, so that a busy list (a person's events of a
	// day) costs one insert per document, not a search of its length.
	next map[string]int
}

// datedListHints bounds DatedLists.next; past it the map starts afresh.
const datedListHints = 50_000

// datedListSlack is how long after expiring a document may still be there
// to read: sweeps run every few minutes and may be late.
const datedListSlack = time.Hour

// NewDatedLists returns the lists in collection, whose erasure is filed in
// the schedule expiryCollection, of documents living at most lifetime.
func NewDatedLists(db *mongo.Database, collection, expiryCollection string, lifetime time.Duration) *DatedLists {
	return &DatedLists{lists: NewLists(db, collection), expiry: NewSchedule(db, expiryCollection, time.Minute),
		expiryAt: expiryCollection, lifetime: lifetime, next: map[string]int{}}
}

// DatedListOwner is the owner of key's list of the UTC day of at.
func DatedListOwner(key string, at time.Time) string {
	sum := sha256.Sum256([]byte(key + "@" + at.UTC().Format(time.DateOnly)))
	return hex.EncodeToString(sum[:])
}

// datedListExpiry is when everything a day's list can name has expired: its
// first document was written at first, any other before first+24h, and
// each lives at most lifetime.
func datedListExpiry(first time.Time, lifetime time.Duration) time.Time {
	return first.Add(24*time.Hour + lifetime)
}

// owners are key's lists of the days from since to now.
func (d *DatedLists) owners(key string, since, now time.Time) []string {
	var owners []string
	for day := since.UTC().Truncate(24 * time.Hour); !day.After(now); day = day.Add(24 * time.Hour) {
		owners = append(owners, DatedListOwner(key, day))
	}
	return owners
}

// Add lists ref under key and the day of at (when the document is
// written). List before writing the document: a crash in between leaves a
// slot readers skip, never a document no list leads to. The first of a day
// files the list's erasure first; two first writers at once both file it,
// and erasing twice is harmless.
func (d *DatedLists) Add(ctx context.Context, key, ref string, at time.Time) error {
	owner := DatedListOwner(key, at)
	d.mu.Lock()
	n, known := d.next[owner]
	d.mu.Unlock()
	if !known {
		var err error
		if n, err = d.lists.Len(ctx, owner); err != nil {
			return err
		}
		if n == 0 {
			if err := d.expiry.File(ctx, at, ScheduleEntry{Ref: owner, At: datedListExpiry(at, d.lifetime)}); err != nil {
				return fmt.Errorf("file the erasure of a dated list: %w", err)
			}
		}
	}
	next, err := d.lists.AppendFrom(ctx, owner, ref, n)
	if err != nil {
		return err
	}
	d.mu.Lock()
	if len(d.next) >= datedListHints {
		clear(d.next)
	}
	d.next[owner] = max(d.next[owner], next)
	d.mu.Unlock()
	return nil
}

// Refs reads what is listed under key on the days a document not yet swept
// can have been written on, oldest day first, each reference once a day.
func (d *DatedLists) Refs(ctx context.Context, key string, now time.Time) ([]string, error) {
	var out []string
	for _, owner := range d.owners(key, now.Add(-d.lifetime-datedListSlack), now) {
		refs, err := d.lists.Refs(ctx, owner)
		if err != nil {
			return nil, err
		}
		out = append(out, refs...)
	}
	return out, nil
}

// Erase erases key's lists that the schedule has not erased yet, of the
// days a document can have been written on since.
func (d *DatedLists) Erase(ctx context.Context, key string, now time.Time) error {
	for _, owner := range d.owners(key, now.Add(-24*time.Hour-d.lifetime-datedListSlack), now) {
		if err := d.erase(ctx, owner); err != nil {
			return err
		}
	}
	return nil
}

// erase erases one list, and this instance's bound of it: a bound past an
// erased list's end would make the next Add leave a gap.
func (d *DatedLists) erase(ctx context.Context, owner string) error {
	d.mu.Lock()
	delete(d.next, owner)
	d.mu.Unlock()
	return d.lists.Erase(ctx, owner)
}

// EraseWithDocuments deletes the documents of docs that key's lists name,
// each by _id alone (a delete whose filter adds a field scans on the
// embedded store; the lists are the key's, written with its documents),
// then the lists.
func (d *DatedLists) EraseWithDocuments(ctx context.Context, key string, now time.Time, docs *mongo.Collection) error {
	ids, err := d.Refs(ctx, key, now)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := docs.DeleteOne(ctx, bson.M{"_id": id}); err != nil {
			return fmt.Errorf("erase from %s: %w", docs.Name(), err)
		}
	}
	return d.Erase(ctx, key, now)
}

// Sweep erases the lists whose every document has expired, as the schedule
// names them, and returns how many it erased.
func (d *DatedLists) Sweep(ctx context.Context, now time.Time) (int, error) {
	due, err := d.expiry.Due(ctx, now)
	if err != nil {
		return 0, fmt.Errorf("sweep %s: %w", d.expiryAt, err)
	}
	var unfinished []ScheduleEntry
	for _, e := range due {
		if err := d.erase(ctx, e.Ref); err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			unfinished = append(unfinished, e)
		}
	}
	if err := d.expiry.Settle(ctx, now, unfinished); err != nil {
		return 0, fmt.Errorf("sweep %s: %w", d.expiryAt, err)
	}
	return len(due) - len(unfinished), nil
}

// DatedRef is a document to list in bulk: its reference, its key and when
// it was written.
type DatedRef struct {
	Key, Ref string
	At       time.Time
}

// Seed lists documents in bulk, in the order given, for lists that do not
// exist yet (a slot found taken is appended after), and files each list's
// erasure: for documents written before the lists existed, and the scale
// seed.
func (d *DatedLists) Seed(ctx context.Context, now time.Time, docs []DatedRef) error {
	byOwner := map[string][]string{}
	first := map[string]time.Time{}
	var owners []string
	for _, doc := range docs {
		owner := DatedListOwner(doc.Key, doc.At)
		if _, ok := first[owner]; !ok {
			owners = append(owners, owner)
			first[owner] = doc.At
		}
		byOwner[owner] = append(byOwner[owner], doc.Ref)
		if doc.At.Before(first[owner]) {
			first[owner] = doc.At
		}
	}
	entries := make([]ScheduleEntry, 0, len(owners))
	for _, owner := range owners {
		entries = append(entries, ScheduleEntry{Ref: owner, At: datedListExpiry(first[owner], d.lifetime)})
	}
	if err := SeedSchedule(ctx, d.lists.coll.Database(), d.expiryAt, d.expiry.step, now, entries); err != nil {
		return fmt.Errorf("seed %s: %w", d.expiryAt, err)
	}
	return d.lists.SeedLists(ctx, owners, byOwner)
}
