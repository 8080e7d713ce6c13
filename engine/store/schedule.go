package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Schedule files references (the _ids of documents kept elsewhere) under the
// time they fall due, so that a background pass reads what is due by _id
// instead of reading every document for a due field: on the embedded store
// a filter on any field but _id decodes the whole collection (docs/store.md
// §10), which over a large base took the cores requests need.
//
// Time is cut into buckets of the schedule's step. A bucket's entries are
// slot documents "<bucket>#0", "<bucket>#1", … with no gap, each a unique
// insert holding one or more (reference, due time) pairs: a writer of one
// document takes one slot, a batch writer one slot per bucket its batch
// touches. A writer takes the first free slot, so writers at once each get
// their own. Before its first slot in an hour and in a day, a writer marks
// the hour and the day (a marker document each, inserted once), so a pass
// walks the days from its cursor to now, the hours of the marked days, and
// the buckets of the marked hours: a pass after a year away reads 365 days'
// markers, not half a million buckets.
//
// The document's own due field stays the truth. File a reference before
// writing the due time it names: a crash in between leaves an entry the pass
// reads and finds not due, never a due document no entry leads to. An entry
// whose document has moved on (renewed, canceled, refreshed) is read and
// skipped. A pass calls Due, acts, and then Settle with the entries it could
// not finish: Settle files those again under now and deletes the buckets
// (and the markers of the hours and days) that ended more than the grace
// ago, moving the cursor (where the next Due starts) past them.
type Schedule struct {
	coll  *mongo.Collection
	step  time.Duration
	grace time.Duration
	// levels are the marked spans above step, widest first: a day, an hour.
	levels []time.Duration

	mu sync.Mutex
	// free holds, per bucket this instance filed into, a slot number every
	// slot below which is known taken, so a busy bucket is not searched
	// from 0 at each entry.
	free map[int64]int
	// marked holds the markers this instance knows exist.
	marked map[string]bool
	// started is set once this instance has made sure a cursor exists,
	// before its first filing: a Due with no cursor would start at now.
	started bool
}

// ScheduleEntry is a reference due at a time.
type ScheduleEntry struct {
	Ref string    `bson:"r"`
	At  time.Time `bson:"at"`
}

type scheduleSlot struct {
	ID      string          `bson:"_id"`
	Entries []ScheduleEntry `bson:"e"`
}

type scheduleMarker struct {
	ID string `bson:"_id"`
}

type scheduleCursor struct {
	ID     string `bson:"_id"`
	Bucket int64  `bson:"bucket"`
}

const scheduleCursorID = "cursor"

// ScheduleGrace is how long after a bucket ends its entries are kept before
// Settle deletes it: longer than any clock difference between instances and
// than a filing takes, so an entry filed late into a bucket that has just
// ended is still read by a pass before the bucket goes.
const ScheduleGrace = 10 * time.Minute

// NewSchedule keeps a schedule in the collection named, in buckets of step
// (a whole number of seconds that divides an hour).
func NewSchedule(db *mongo.Database, collection string, step time.Duration) *Schedule {
	return &Schedule{coll: db.Collection(collection), step: step, grace: ScheduleGrace, levels: scheduleLevels(step),
		free: map[int64]int{}, marked: map[string]bool{}}
}

func scheduleLevels(step time.Duration) []time.Duration {
	var levels []time.Duration
	for _, l := range []time.Duration{24 * time.Hour, time.Hour} {
		if l > step {
			levels = append(levels, l)
		}
	}
	return levels
}

// rememberAtMost bounds what an instance remembers of the buckets and
// markers it filed into (a renewal files weeks ahead): past it the memory
// starts again, at the cost of a few reads or refused inserts.
const rememberAtMost = 10000

// bucket is the start of the bucket holding t, in Unix seconds.
func (s *Schedule) bucket(t time.Time) int64 {
	return floorTo(t.Unix(), s.step)
}

func floorTo(unix int64, d time.Duration) int64 {
	n := int64(d / time.Second)
	return unix - ((unix%n)+n)%n
}

func scheduleSlotID(bucket int64, n int) string {
	return strconv.FormatInt(bucket, 10) + "#" + strconv.Itoa(n)
}

// scheduleMarkerID names the marker of the span of level l starting at unix.
func scheduleMarkerID(l time.Duration, unix int64) string {
	return "span" + strconv.FormatInt(int64(l/time.Second), 10) + ":" + strconv.FormatInt(unix, 10)
}

// SeedSchedule files entries in the schedule of step kept in collection, as
// File would at now (an entry due before now goes under now's bucket), for
// a writer filing many at once into a schedule nobody or few have filed in
// yet (the scale seed, the filing of an older release's documents at
// start): the cursor at the earliest bucket (unless one exists), each day's
// and hour's marker, and slot 0 onward of each bucket, at most seedSlotSize
// entries each, in unordered insertMany batches, with no read. A slot some
// writer took already is refused, and its entries are filed as File does.
func SeedSchedule(ctx context.Context, db *mongo.Database, collection string, step time.Duration, now time.Time, entries []ScheduleEntry) error {
	docs := scheduleDocs(step, now, entries)
	var refused []ScheduleEntry
	for from := 0; from < len(docs); from += seedSlotSize {
		batch := docs[from:min(from+seedSlotSize, len(docs))]
		taken, err := InsertNew(ctx, db.Collection(collection), batch)
		if err != nil {
			return fmt.Errorf("seed schedule %s: %w", collection, err)
		}
		for i, doc := range batch {
			if slot, ok := doc.(scheduleSlot); ok && taken[i] {
				refused = append(refused, slot.Entries...)
			}
		}
	}
	if len(refused) == 0 {
		return nil
	}
	return NewSchedule(db, collection, step).File(ctx, now, refused...)
}

// scheduleDocs are the documents of a schedule of step holding entries
// filed at now, in the order to insert them: the cursor, the markers, the
// slots.
func scheduleDocs(step time.Duration, now time.Time, entries []ScheduleEntry) []any {
	if len(entries) == 0 {
		return nil
	}
	byBucket := map[int64][]ScheduleEntry{}
	first := int64(math.MaxInt64)
	for _, e := range entries {
		b := max(floorTo(e.At.Unix(), step), floorTo(now.Unix(), step))
		byBucket[b] = append(byBucket[b], e)
		first = min(first, b)
	}
	buckets := slices.Sorted(maps.Keys(byBucket))
	docs := []any{scheduleCursor{ID: scheduleCursorID, Bucket: first}}
	marked := map[string]bool{}
	for _, b := range buckets {
		for _, l := range scheduleLevels(step) {
			if id := scheduleMarkerID(l, floorTo(b, l)); !marked[id] {
				marked[id] = true
				docs = append(docs, scheduleMarker{ID: id})
			}
		}
	}
	for _, b := range buckets {
		for n, es := 0, byBucket[b]; len(es) > 0; n++ {
			k := min(len(es), seedSlotSize)
			docs = append(docs, scheduleSlot{ID: scheduleSlotID(b, n), Entries: es[:k]})
			es = es[k:]
		}
	}
	return docs
}

// seedSlotSize bounds a seeded slot: a thousand entries are about 60 KB.
const seedSlotSize = 1000

// Start sets where the first Due reads from, unless a cursor exists. An
// instance's first File calls it with its now; a seeder that writes slots
// itself calls it with the earliest due time it wrote.
func (s *Schedule) Start(ctx context.Context, from time.Time) error {
	_, err := s.coll.InsertOne(ctx, scheduleCursor{ID: scheduleCursorID, Bucket: s.bucket(from)})
	if err != nil && !IsDuplicateKey(err) {
		return fmt.Errorf("start schedule %s: %w", s.coll.Name(), err)
	}
	return nil
}

// File files each entry under the bucket of its due time, or of now for an
// entry due before now (a bucket in the past may be settled already).
func (s *Schedule) File(ctx context.Context, now time.Time, entries ...ScheduleEntry) error {
	s.mu.Lock()
	started := s.started
	s.mu.Unlock()
	if !started {
		// Every bucket filed from now on is at or after now's, and a cursor
		// already there is at most now's less the grace.
		if err := s.Start(ctx, now); err != nil {
			return err
		}
		s.mu.Lock()
		s.started = true
		s.mu.Unlock()
	}
	byBucket := map[int64][]ScheduleEntry{}
	for _, e := range entries {
		b := max(s.bucket(e.At), s.bucket(now))
		byBucket[b] = append(byBucket[b], e)
	}
	buckets := make([]int64, 0, len(byBucket))
	for b := range byBucket {
		buckets = append(buckets, b)
	}
	slices.Sort(buckets)
	if err := s.mark(ctx, buckets); err != nil {
		return err
	}
	// One unordered insertMany of a slot per bucket at the slot this
	// instance last knew free; a bucket whose slot was taken meanwhile
	// (another writer) searches for its first free slot and goes again.
	for round := 0; len(buckets) > 0; round++ {
		if round == 64 {
			return fmt.Errorf("file in schedule %s: no free slot", s.coll.Name())
		}
		docs := make([]any, len(buckets))
		slots := make([]int, len(buckets))
		for i, b := range buckets {
			n, err := s.freeSlot(ctx, b, round > 0)
			if err != nil {
				return err
			}
			slots[i] = n
			docs[i] = scheduleSlot{ID: scheduleSlotID(b, n), Entries: byBucket[b]}
		}
		taken, err := InsertNew(ctx, s.coll, docs)
		if err != nil {
			return fmt.Errorf("file in schedule: %w", err)
		}
		var again []int64
		s.mu.Lock()
		if len(s.free) > rememberAtMost {
			clear(s.free)
		}
		for i, b := range buckets {
			s.free[b] = max(s.free[b], slots[i]+1)
			if taken[i] {
				again = append(again, b)
			}
		}
		s.mu.Unlock()
		buckets = again
	}
	return nil
}

// mark inserts the markers of the days and hours of buckets this instance
// does not know to exist, in one unordered insertMany (a marker there
// already is refused and left as it is).
func (s *Schedule) mark(ctx context.Context, buckets []int64) error {
	var docs []any
	var ids []string
	s.mu.Lock()
	for _, b := range buckets {
		for _, l := range s.levels {
			id := scheduleMarkerID(l, floorTo(b, l))
			if !s.marked[id] && !slices.Contains(ids, id) {
				ids = append(ids, id)
				docs = append(docs, scheduleMarker{ID: id})
			}
		}
	}
	s.mu.Unlock()
	if len(docs) == 0 {
		return nil
	}
	if _, err := InsertNew(ctx, s.coll, docs); err != nil {
		return fmt.Errorf("mark schedule %s: %w", s.coll.Name(), err)
	}
	s.mu.Lock()
	if len(s.marked) > rememberAtMost {
		clear(s.marked)
	}
	for _, id := range ids {
		s.marked[id] = true
	}
	s.mu.Unlock()
	return nil
}

// freeSlot is the slot of bucket b to insert into: the one this instance
// last knew free, or, when search is set or it knows none, the first free
// one found by reading (slots are taken from 0 with no gap, so a doubling
// walk and a bisection find it in a few reads however full the bucket).
func (s *Schedule) freeSlot(ctx context.Context, b int64, search bool) (int, error) {
	s.mu.Lock()
	known, ok := s.free[b]
	s.mu.Unlock()
	if ok && !search {
		return known, nil
	}
	return firstFree(known, func(n int) (bool, error) { return s.exists(ctx, scheduleSlotID(b, n)) })
}

func (s *Schedule) exists(ctx context.Context, id string) (bool, error) {
	err := s.coll.FindOne(ctx, bson.M{"_id": id}).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read schedule %s: %w", s.coll.Name(), err)
	}
	return true, nil
}

// walk calls visit for each bucket from from to to (Unix seconds, bucket
// starts) that may hold slots: every bucket of every marked hour of every
// marked day. after, when set, is called for each marked span of a level
// once its buckets have been visited, with whether the span ends by to.
func (s *Schedule) walk(ctx context.Context, level int, from, to int64, visit func(b int64) error, after func(id string, whole bool) error) error {
	stepSeconds := int64(s.step / time.Second)
	if level == len(s.levels) {
		for b := from; b <= to; b += stepSeconds {
			if err := visit(b); err != nil {
				return err
			}
		}
		return nil
	}
	l := s.levels[level]
	span := int64(l / time.Second)
	for u := floorTo(from, l); u <= to; u += span {
		id := scheduleMarkerID(l, u)
		ok, err := s.exists(ctx, id)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		last := u + span - stepSeconds // the span's last bucket
		if err := s.walk(ctx, level+1, max(from, u), min(to, last), visit, after); err != nil {
			return err
		}
		if after != nil {
			if err := after(id, last <= to); err != nil {
				return err
			}
		}
	}
	return nil
}

// Due reads every entry due at now: those of the buckets from the cursor to
// now's, each reference once (the earliest due time it was filed with).
// Entries due after now in now's bucket are left for a later pass.
func (s *Schedule) Due(ctx context.Context, now time.Time) ([]ScheduleEntry, error) {
	from, err := s.cursor(ctx, now)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var due []ScheduleEntry
	err = s.walk(ctx, 0, from, s.bucket(now), func(b int64) error {
		for n := 0; ; n++ {
			var slot scheduleSlot
			err := s.coll.FindOne(ctx, bson.M{"_id": scheduleSlotID(b, n)}).Decode(&slot)
			if errors.Is(err, mongo.ErrNoDocuments) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("read schedule %s: %w", s.coll.Name(), err)
			}
			for _, e := range slot.Entries {
				if !e.At.After(now) && !seen[e.Ref] {
					seen[e.Ref] = true
					due = append(due, e)
				}
			}
		}
	}, nil)
	if err != nil {
		return nil, err
	}
	return due, nil
}

// cursor is the first bucket Due reads: the stored cursor, or, on a
// schedule nothing was ever filed in, the bucket of now less the grace.
func (s *Schedule) cursor(ctx context.Context, now time.Time) (int64, error) {
	var c scheduleCursor
	err := s.coll.FindOne(ctx, bson.M{"_id": scheduleCursorID}).Decode(&c)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return s.bucket(now.Add(-s.grace)), nil
	}
	if err != nil {
		return 0, fmt.Errorf("read schedule %s: %w", s.coll.Name(), err)
	}
	return c.Bucket, nil
}

// Settle ends a pass over what Due returned at now: the entries the pass did
// not finish (an error, or a document another worker holds) are filed again
// under now, and the buckets that ended more than the grace before now are
// deleted, the last slot first, then the markers of the hours and days that
// ended with them, with the cursor moved past them. Two passes settling at
// once delete the same documents; a cursor one of them moves back is walked
// again at the cost of its markers' reads.
func (s *Schedule) Settle(ctx context.Context, now time.Time, unfinished []ScheduleEntry) error {
	if len(unfinished) > 0 {
		if err := s.File(ctx, now, unfinished...); err != nil {
			return err
		}
	}
	from, err := s.cursor(ctx, now)
	if err != nil {
		return err
	}
	until := s.bucket(now.Add(-s.grace)) // the first bucket kept
	if until <= from {
		return nil
	}
	del := func(id string) error {
		if _, err := s.coll.DeleteOne(ctx, bson.M{"_id": id}); err != nil {
			return fmt.Errorf("settle schedule %s: %w", s.coll.Name(), err)
		}
		return nil
	}
	stepSeconds := int64(s.step / time.Second)
	err = s.walk(ctx, 0, from, until-stepSeconds, func(b int64) error {
		last := -1
		for n := 0; ; n++ {
			ok, err := s.exists(ctx, scheduleSlotID(b, n))
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			last = n
		}
		for n := last; n >= 0; n-- {
			if err := del(scheduleSlotID(b, n)); err != nil {
				return err
			}
		}
		s.mu.Lock()
		delete(s.free, b)
		s.mu.Unlock()
		return nil
	}, func(id string, whole bool) error {
		if !whole {
			return nil
		}
		s.mu.Lock()
		delete(s.marked, id)
		s.mu.Unlock()
		return del(id)
	})
	if err != nil {
		return err
	}
	// The cursor is a hint of where the undeleted buckets begin, not a rule
	// between writers: a lost update costs a later Due some empty reads.
	if _, err := s.coll.ReplaceOne(ctx, bson.M{"_id": scheduleCursorID}, scheduleCursor{ID: scheduleCursorID, Bucket: until},
		options.Replace().SetUpsert(true)); err != nil {
		return fmt.Errorf("settle schedule %s: %w", s.coll.Name(), err)
	}
	return nil
}

// ScheduleRefs is the references of entries, in order.
func ScheduleRefs(entries []ScheduleEntry) []string {
	refs := make([]string, len(entries))
	for i, e := range entries {
		refs[i] = e.Ref
	}
	return refs
}
