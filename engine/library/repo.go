package library

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/store"
)

// The collections the editors' studio stores content in.
const (
	// DocsCollection holds one document per content item, _id "<kind>:<slug>".
	DocsCollection = "content_docs"
	// MetaCollection holds the claims of revision numbers (Repo.modify) and
	// the legacy "version" counter.
	MetaCollection = "content_meta"
	// VersionsCollection holds one document per content version; instances
	// poll the newest to reload published content.
	VersionsCollection = "content_versions"
)

// The kinds of content item.
const (
	KindNews    = "news"
	KindArticle = "article" // a topic part; its slug is "<topic>/<part>"
	KindTopic   = "topic"
	KindPage    = "page" // one of Pages
)

// The statuses of a content item.
const (
	StatusDraft       = "draft"
	StatusPublished   = "published"
	StatusUnpublished = "unpublished"
)

// The actions a revision records.
const (
	ActionSeed      = "seed"
	ActionSave      = "save"
	ActionPublish   = "publish"
	ActionUnpublish = "unpublish"
	ActionRestore   = "restore"
)

// MaxRevisions is how many revisions a document keeps; older ones are
// dropped. FerretDB v1.24 ignores $push's $slice, so the cap is applied in Go
// on a read-modify-write (see Repo.modify).
const MaxRevisions = 50

// Pages are the slugs of the single pages editors can change.
var Pages = []string{"insights", "top-trends", "top-hacks", "privacy", "terms"}

// writeAttempts bounds the retries of a read-modify-write that lost a race
// with another editor's write to the same document; with the waits between
// them a save gives up after about two seconds.
const writeAttempts = 20

// Revision is one saved state of a content item.
type Revision struct {
	N      int               `bson:"n"`
	At     time.Time         `bson:"at"`
	By     string            `bson:"by"`
	Action string            `bson:"action"`
	Fields map[string]string `bson:"fields"`
	// Changed names the fields that differ from the previous revision.
	Changed []string `bson:"changed"`
}

// Doc is one content item: its editable draft, what subscribers see
// (Published) and its history.
type Doc struct {
	ID        string            `bson:"_id"`
	Kind      string            `bson:"kind"`
	Slug      string            `bson:"slug"`
	Draft     map[string]string `bson:"draft"`
	Published map[string]string `bson:"published,omitempty"`
	Status    string            `bson:"status"`
	UpdatedAt time.Time         `bson:"updatedAt"`
	UpdatedBy string            `bson:"updatedBy"`
	// Rev is the number of the newest revision. Each write claims the next
	// number first, so two editors saving at once cannot drop each other's
	// revision.
	Rev       int        `bson:"rev"`
	Revisions []Revision `bson:"revisions"` // newest last, at most MaxRevisions
}

// HasUnpublishedChanges reports whether a published item has a draft that
// differs from what subscribers see.
func (d Doc) HasUnpublishedChanges() bool {
	return d.Status == StatusPublished && !maps.Equal(d.Draft, d.Published)
}

// DocID returns the _id of a content item.
func DocID(kind, slug string) string { return kind + ":" + slug }

// RepoCollections lists the collections of the studio's content with their
// indexes, for the store to create at start.
func RepoCollections() map[string][]mongo.IndexModel {
	return map[string][]mongo.IndexModel{
		DocsCollection:     {{Keys: bson.D{{Key: "kind", Value: 1}}, Options: options.Index().SetName("kind")}},
		MetaCollection:     nil,
		VersionsCollection: nil,
	}
}

// Repo stores the content editors change. Every write touches one document
// by _id: FerretDB has no transactions.
type Repo struct {
	db    *mongo.Database
	clock engine.Clock
}

// NewRepo returns the content repository over db.
func NewRepo(db *mongo.Database, clock engine.Clock) *Repo {
	return &Repo{db: db, clock: clock}
}

func (r *Repo) docs() *mongo.Collection { return r.db.Collection(DocsCollection) }

// now is the clock's time at the millisecond precision BSON keeps, so that a
// Doc returned by a write equals the same Doc read back.
func (r *Repo) now() time.Time { return r.clock.Now().UTC().Truncate(time.Millisecond) }

func notFound(kind, slug string) error {
	return engine.Errorf(engine.CodeNotFound, "There is no %s %q.", kind, slug)
}

// SeedItem stores an item read from the content/ files as published, with a
// "seed" revision, unless an item with that kind and slug already exists: it
// runs at every start and never overwrites an editor's change.
func (r *Repo) SeedItem(ctx context.Context, kind, slug string, fields map[string]string) error {
	now := r.now()
	fields = maps.Clone(fields)
	d := Doc{ID: DocID(kind, slug), Kind: kind, Slug: slug, Draft: fields, Published: fields,
		Status: StatusPublished, UpdatedAt: now, UpdatedBy: ActionSeed, Rev: 1,
		Revisions: []Revision{{N: 1, At: now, By: ActionSeed, Action: ActionSeed, Fields: fields, Changed: changed(nil, fields)}}}
	_, err := r.docs().InsertOne(ctx, d)
	if err != nil && !mongo.IsDuplicateKeyError(err) {
		return fmt.Errorf("seed content %s: %w", d.ID, err)
	}
	return nil
}

// Get returns one item; a missing item is a not-found *engine.Error.
func (r *Repo) Get(ctx context.Context, kind, slug string) (Doc, error) {
	var d Doc
	err := r.docs().FindOne(ctx, bson.M{"_id": DocID(kind, slug)}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return Doc{}, notFound(kind, slug)
	}
	if err != nil {
		return Doc{}, fmt.Errorf("get content %s: %w", DocID(kind, slug), err)
	}
	return d, nil
}

// List returns the items of a kind ordered by slug, without their
// revisions. It scans the kind; the studio is not a hot path.
func (r *Repo) List(ctx context.Context, kind string) ([]Doc, error) {
	cur, err := r.docs().Find(ctx, bson.M{"kind": kind}, options.Find().SetProjection(bson.M{"revisions": 0}))
	if err != nil {
		return nil, fmt.Errorf("list content %s: %w", kind, err)
	}
	docs := []Doc{}
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("list content %s: %w", kind, err)
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].Slug < docs[j].Slug })
	return docs, nil
}

// Save validates an editor's fields and stores them as the item's draft with
// a "save" revision. A published item stays published, with the draft
// pending until Publish. isNew creates the item: a slug already used is a
// field error. Invalid input returns an *InvalidError (in an *engine.Error of
// engine.CodeInvalid) and changes nothing;
// saving fields equal to the draft adds no revision, so a retried save is
// harmless.
func (r *Repo) Save(ctx context.Context, kind, slug string, fields map[string]string, by string, isNew bool) (Doc, error) {
	fields, problems := Validate(kind, slug, fields)
	if err := invalid(problems); err != nil {
		return Doc{}, err
	}
	if isNew {
		now := r.now()
		d := Doc{ID: DocID(kind, slug), Kind: kind, Slug: slug, Draft: fields, Status: StatusDraft,
			UpdatedAt: now, UpdatedBy: by, Rev: 1,
			Revisions: []Revision{{N: 1, At: now, By: by, Action: ActionSave, Fields: fields, Changed: changed(nil, fields)}}}
		_, err := r.docs().InsertOne(ctx, d)
		if mongo.IsDuplicateKeyError(err) {
			return Doc{}, invalid(Problems{"slug": {Code: ProblemSlugUsed}})
		}
		if err != nil {
			return Doc{}, fmt.Errorf("create content %s: %w", d.ID, err)
		}
		return d, nil
	}
	return r.modify(ctx, kind, slug, func(d *Doc) (string, bool) {
		if maps.Equal(d.Draft, fields) {
			return "", false
		}
		d.Draft = fields
		if d.Status != StatusPublished {
			d.Status = StatusDraft
		}
		return ActionSave, true
	}, by)
}

// Publish makes the draft what subscribers see and bumps the version every
// instance polls. Publishing an item already published as is adds no
// revision but still bumps the version, so retrying after a failed bump
// completes it.
func (r *Repo) Publish(ctx context.Context, kind, slug, by string) (Doc, error) {
	d, err := r.modify(ctx, kind, slug, func(d *Doc) (string, bool) {
		if d.Status == StatusPublished && maps.Equal(d.Draft, d.Published) {
			return "", false
		}
		d.Published, d.Status = maps.Clone(d.Draft), StatusPublished
		return ActionPublish, true
	}, by)
	if err != nil {
		return Doc{}, err
	}
	if _, err := r.bump(ctx); err != nil {
		return Doc{}, err
	}
	return d, nil
}

// Unpublish hides an item from subscribers, keeping its draft, and bumps the
// version.
func (r *Repo) Unpublish(ctx context.Context, kind, slug, by string) (Doc, error) {
	d, err := r.modify(ctx, kind, slug, func(d *Doc) (string, bool) {
		if d.Status == StatusUnpublished {
			return "", false
		}
		d.Published, d.Status = nil, StatusUnpublished
		return ActionUnpublish, true
	}, by)
	if err != nil {
		return Doc{}, err
	}
	if _, err := r.bump(ctx); err != nil {
		return Doc{}, err
	}
	return d, nil
}

// Revisions returns an item's kept revisions, oldest first.
func (r *Repo) Revisions(ctx context.Context, kind, slug string) ([]Revision, error) {
	d, err := r.Get(ctx, kind, slug)
	if err != nil {
		return nil, err
	}
	return d.Revisions, nil
}

// Restore makes revision n's fields the draft, recorded as a "restore"
// revision. It does not publish: the editor previews, then publishes.
func (r *Repo) Restore(ctx context.Context, kind, slug string, n int, by string) (Doc, error) {
	missing := false
	d, err := r.modify(ctx, kind, slug, func(d *Doc) (string, bool) {
		i := slices.IndexFunc(d.Revisions, func(v Revision) bool { return v.N == n })
		if i < 0 {
			missing = true
			return "", false
		}
		d.Draft = maps.Clone(d.Revisions[i].Fields)
		if d.Status != StatusPublished {
			d.Status = StatusDraft
		}
		return ActionRestore, true
	}, by)
	if err == nil && missing {
		return Doc{}, engine.Errorf(engine.CodeNotFound, "There is no revision %d of %s %q.", n, kind, slug)
	}
	return d, err
}

// modify applies change to the stored item and writes it back with a new
// revision, unless change reports nothing to record. It returns the written
// Doc only if that Doc became the stored one, so a save that returns nil is
// in the history; otherwise it returns a conflict *engine.Error.
//
// A filter on rev alone does not make the write conditional: FerretDB v1.24
// matches and replaces in two steps, so two editors could both replace
// revision n. Inserting a unique _id is atomic, though, so a writer first
// claims revision n+1 by inserting a claim document (holding the new Doc)
// into MetaCollection, and only the winner writes. A writer that finds the
// claim taken waits briefly and starts over on the newer Doc. Only a claim
// older than staleClaim is completed by another writer (its writer died
// between claiming and writing): completing a live one could land after
// later writes and undo them.
//
// Claims stay after the write, shrunk to a small tombstone, for keptClaims
// revisions: a claim deleted right away let a writer that had read an old
// revision claim the same number again and "succeed" with a write that
// matched nothing. The match count is checked as well, for a writer stalled
// so long that its number's claim was pruned (docs/store.md §4).
func (r *Repo) modify(ctx context.Context, kind, slug string, change func(*Doc) (action string, ok bool), by string) (Doc, error) {
	meta := r.db.Collection(MetaCollection)
	for attempt := range writeAttempts {
		d, err := r.Get(ctx, kind, slug)
		if err != nil {
			return Doc{}, err
		}
		read := d.Rev
		action, ok := change(&d)
		if !ok {
			return d, nil
		}
		now := r.now()
		var previous map[string]string
		if len(d.Revisions) > 0 {
			previous = d.Revisions[len(d.Revisions)-1].Fields
		}
		d.Rev++
		d.UpdatedAt, d.UpdatedBy = now, by
		d.Revisions = append(d.Revisions, Revision{N: d.Rev, At: now, By: by, Action: action,
			Fields: maps.Clone(d.Draft), Changed: changed(previous, d.Draft)})
		if extra := len(d.Revisions) - MaxRevisions; extra > 0 {
			d.Revisions = slices.Clone(d.Revisions[extra:])
		}
		_, err = meta.InsertOne(ctx, claim{ID: claimID(d.ID, d.Rev), At: now, Doc: &d})
		if store.IsDuplicateKey(err) {
			if err := r.completeStaleClaim(ctx, d.ID, d.Rev); err != nil {
				return Doc{}, err
			}
			// Jittered, growing waits keep many writers from retrying in step.
			wait := time.Duration(attempt+1)*5*time.Millisecond + time.Duration(rand.IntN(20))*time.Millisecond
			if err := sleep(ctx, wait); err != nil {
				return Doc{}, err
			}
			continue
		}
		if store.IsUnavailable(err) && attempt+1 < writeAttempts {
			// Nothing was written (an overloaded embedded store gave up
			// waiting for its write lock): the same as losing the race.
			if err := sleep(ctx, time.Duration(attempt+1)*5*time.Millisecond+time.Duration(rand.IntN(20))*time.Millisecond); err != nil {
				return Doc{}, err
			}
			continue
		}
		if err != nil {
			return Doc{}, fmt.Errorf("%s content %s: claim: %w", action, d.ID, err)
		}
		res, err := r.docs().ReplaceOne(ctx, bson.M{"_id": d.ID, "rev": read}, d)
		if store.IsUnavailable(err) {
			// Not acknowledged, so nothing acknowledged is lost; the editor
			// is told to try again (503), as for any database outage.
			return Doc{}, engine.Wrap(engine.CodeUnavailable, fmt.Errorf("%s content %s: %w", action, d.ID, err),
				"Saving failed for a moment. Please try again.")
		}
		if err != nil {
			return Doc{}, fmt.Errorf("%s content %s: %w", action, d.ID, err)
		}
		if res.MatchedCount == 0 && !r.writtenByOther(ctx, d) {
			return Doc{}, engine.Errorf(engine.CodeConflict,
				"Someone else changed this %s while you were saving; reload it and try again.", kind)
		}
		// The claim keeps its number taken; the Doc in it is no longer
		// needed, and the claim keptClaims revisions back is dropped.
		// Failures only leave bigger or more documents behind.
		_, _ = meta.ReplaceOne(ctx, bson.M{"_id": claimID(d.ID, d.Rev)}, claim{ID: claimID(d.ID, d.Rev), At: now})
		if old := d.Rev - keptClaims; old > 0 {
			_, _ = meta.DeleteOne(ctx, bson.M{"_id": claimID(d.ID, old)})
		}
		return d, nil
	}
	return Doc{}, engine.Errorf(engine.CodeConflict, "Someone else is changing this %s; try again.", kind)
}

// writtenByOther reports whether d is stored although our replace matched
// nothing: another writer completed our claim, thinking it stale.
func (r *Repo) writtenByOther(ctx context.Context, d Doc) bool {
	var cur Doc
	if err := r.docs().FindOne(ctx, bson.M{"_id": d.ID}).Decode(&cur); err != nil {
		return false
	}
	i := slices.IndexFunc(cur.Revisions, func(v Revision) bool { return v.N == d.Rev })
	if i < 0 {
		return false
	}
	mine := d.Revisions[len(d.Revisions)-1]
	v := cur.Revisions[i]
	return v.At.Equal(mine.At) && v.By == mine.By && v.Action == mine.Action && maps.Equal(v.Fields, mine.Fields)
}

// claim is a writer's reservation of a revision number of one Doc. Until the
// write is done it holds the Doc being written, so that others can complete
// the write; afterwards only the reservation stays.
type claim struct {
	ID  string    `bson:"_id"`
	At  time.Time `bson:"at"`
	Doc *Doc      `bson:"doc,omitempty"`
}

// staleClaim is how long after its claim a write must have finished; an
// older claim on a Doc that was not written is completed by the next writer.
const staleClaim = time.Minute

// keptClaims is how many revision numbers back a claim is kept, so that a
// writer that read an old revision finds its next number taken. It is twice
// MaxRevisions, far more than the writes that fit in a save's attempts.
const keptClaims = 2 * MaxRevisions

func claimID(docID string, rev int) string { return "claim:" + docID + ":" + strconv.Itoa(rev) }

// completeStaleClaim writes the Doc of the claim on revision rev if the
// claim is stale, not done, and the stored Doc is still at the revision
// before it.
func (r *Repo) completeStaleClaim(ctx context.Context, docID string, rev int) error {
	var c claim
	err := r.db.Collection(MetaCollection).FindOne(ctx, bson.M{"_id": claimID(docID, rev)}).Decode(&c)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil // pruned: long done
	}
	if err != nil {
		return fmt.Errorf("read claim on %s: %w", docID, err)
	}
	if c.Doc == nil || r.clock.Now().Sub(c.At) < staleClaim {
		return nil
	}
	if _, err := r.docs().ReplaceOne(ctx, bson.M{"_id": docID, "rev": rev - 1}, *c.Doc); err != nil {
		return fmt.Errorf("complete claim on %s: %w", docID, err)
	}
	return nil
}

// Version returns the content version: the highest number in
// VersionsCollection, or, before the first publish since versions moved
// there, the legacy counter in MetaCollection (0 if there is none).
func (r *Repo) Version(ctx context.Context) (int64, error) {
	var v versionDoc
	err := r.db.Collection(VersionsCollection).FindOne(ctx, bson.M{},
		options.FindOne().SetSort(bson.D{{Key: "_id", Value: -1}})).Decode(&v)
	if err == nil {
		return v.N, nil
	}
	if !errors.Is(err, mongo.ErrNoDocuments) {
		return 0, fmt.Errorf("content version: %w", err)
	}
	var legacy struct {
		Version int64 `bson:"version"`
	}
	err = r.db.Collection(MetaCollection).FindOne(ctx, bson.M{"_id": "version"}).Decode(&legacy)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("content version: %w", err)
	}
	return legacy.Version, nil
}

// versionDoc is one content version; its number is its _id, so inserting it
// is the claim of that number.
type versionDoc struct {
	N  int64     `bson:"_id"`
	At time.Time `bson:"at"`
}

// Versions are kept for keptVersions numbers and at least keepVersionsFor,
// so that the newest always stays and a number is never handed out twice: a
// publisher that read the newest number and then stalled (a day at most,
// given request timeouts) finds its next number still taken.
const (
	keptVersions    = 100
	keepVersionsFor = 24 * time.Hour
	bumpAttempts    = 100
)

// bump records a new content version, one above the newest, and returns it.
//
// It inserts the version rather than $inc-ing a counter because an $inc is
// not atomic on the embedded FerretDB (concurrent increments are lost, and
// two publishes could leave the same version), while an insert of one _id has
// exactly one winner. A publisher whose number was taken tries the next one;
// each round has a winner, so N concurrent publishers finish in at most N
// rounds. A number is tried only once the one below it exists, so versions
// appear in order, and every version is inserted after the publish that
// asked for it was written: a watcher that sees the newest version and
// reloads sees every publish (docs/store.md §4).
func (r *Repo) bump(ctx context.Context) (int64, error) {
	return r.Bump(ctx)
}

// Bump records a new content version without a content change, for other
// published state that every instance reloads with the content (the A/B
// experiments): the watchers of every instance see it within seconds.
func (r *Repo) Bump(ctx context.Context) (int64, error) {
	coll := r.db.Collection(VersionsCollection)
	var next int64
	for attempt := range bumpAttempts {
		// A lost number means a newer one exists; trying the one after it
		// saves a read, and reading again now and then catches up with a
		// burst that went further.
		if attempt%8 == 0 {
			v, err := r.Version(ctx)
			if err != nil {
				return 0, fmt.Errorf("bump content version: %w", err)
			}
			next = max(next, v+1)
		}
		now := r.now()
		_, err := coll.InsertOne(ctx, versionDoc{N: next, At: now})
		if store.IsDuplicateKey(err) {
			next++
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("bump content version: %w", err)
		}
		// Old versions only take space; failing to drop them is harmless.
		_, _ = coll.DeleteMany(ctx, bson.M{"_id": bson.M{"$lte": next - keptVersions},
			"at": bson.M{"$lt": now.Add(-keepVersionsFor)}})
		return next, nil
	}
	return 0, engine.Errorf(engine.CodeConflict, "Too many publishes at once; try again.")
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Watch polls the version every interval until ctx ends and calls onChange
// with each new version. The first successful read sets the baseline
// without a call; failed reads are retried at the next tick. It blocks, so
// run it in its own goroutine.
func (r *Repo) Watch(ctx context.Context, every time.Duration, onChange func(version int64)) {
	r.watch(ctx, every, onChange, func() {})
}

// watch is Watch with a call once the baseline is set, for tests.
func (r *Repo) watch(ctx context.Context, every time.Duration, onChange func(version int64), ready func()) {
	var last int64
	known := false
	poll := func(ctx context.Context) {
		v, err := r.Version(ctx)
		if err != nil {
			return // retried at the next tick
		}
		switch {
		case !known:
			last, known = v, true
			ready()
		case v != last:
			last = v
			onChange(v)
		}
	}
	poll(ctx)
	engine.Every(ctx, every, poll)
}

// changed returns the sorted names of the fields that differ between two
// revisions' fields.
func changed(before, after map[string]string) []string {
	names := []string{}
	for k, v := range after {
		if w, ok := before[k]; !ok || w != v {
			names = append(names, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

var (
	slugPattern  = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	imagePattern = regexp.MustCompile(`^/static/[A-Za-z0-9._/-]+\.(svg|png|jpg|webp)$`)
)

// FieldFormat is a check a field's value must pass beyond its length.
type FieldFormat int

// The formats of fields.
const (
	FormatText  FieldFormat = iota // any text
	FormatDate                     // 2025-01-31
	FormatImage                    // a path under /static/
	FormatPart                     // a whole number from 1
)

// Field is one editable field of a kind of item, in the studio's form: the
// rules Save checks (kept only here; the studio's form and request take
// their fields from Fields) and whether its input spans lines.
type Field struct {
	Name      string
	Required  bool
	Multiline bool
	Max       int // characters
	Format    FieldFormat
}

// fieldRule is what a field's value must be, whatever the kind of item.
type fieldRule struct {
	max    int // characters
	format FieldFormat
}

// fieldRules are the editable fields and their rules; a field not listed
// cannot be edited on any item. A field keeps its rule across kinds, so an
// item may carry a field its kind's form does not show (a seeded file's
// front matter, say) and it is still checked.
var fieldRules = map[string]fieldRule{
	"title": {max: 140}, "summary": {max: 300}, "description": {max: 300},
	"date": {max: 10, format: FormatDate}, "updated": {max: 10, format: FormatDate},
	"image": {max: 200, format: FormatImage}, "part": {max: 3, format: FormatPart},
	"overview": {max: 5000}, "conclusion": {max: 5000}, "background": {max: 5000}, "body": {max: 100 << 10},
}

// kindFields lists each kind's fields in form order, and which it must
// have. A page's fields depend on its slug (see Fields).
var kindFields = map[string][]Field{
	KindNews: {{Name: "title", Required: true}, {Name: "date", Required: true}, {Name: "image"},
		{Name: "summary", Required: true}, {Name: "body", Required: true, Multiline: true}},
	KindArticle: {{Name: "part"}, {Name: "title", Required: true}, {Name: "description", Required: true},
		{Name: "overview", Multiline: true}, {Name: "body", Required: true, Multiline: true}, {Name: "conclusion", Multiline: true}},
	KindTopic: {{Name: "title", Required: true}, {Name: "description", Required: true, Multiline: true}, {Name: "background"}},
	KindPage:  {{Name: "title", Required: true}, {Name: "body", Required: true, Multiline: true}},
	KindCopy:  {{Name: "body", Required: true, Multiline: true}},
}

// legalPageFields are the fields of the legal pages, which also carry the
// date they were last updated.
var legalPageFields = []Field{{Name: "title", Required: true}, {Name: "updated"},
	{Name: "body", Required: true, Multiline: true}}

// Fields returns the fields of the item kind/slug in form order with their
// rules, or nil for an unknown kind.
func Fields(kind, slug string) []Field {
	fields := kindFields[kind]
	if kind == KindPage && (slug == "privacy" || slug == "terms") {
		fields = legalPageFields
	}
	if fields == nil {
		return nil
	}
	out := make([]Field, len(fields))
	for i, f := range fields {
		f.Max, f.Format = fieldRules[f.Name].max, fieldRules[f.Name].format
		out[i] = f
	}
	return out
}

// checkField returns what is wrong with a non-empty value of the field
// name, if anything.
func checkField(name, value string) (Problem, bool) {
	rule, ok := fieldRules[name]
	switch {
	case !ok:
		return Problem{Code: ProblemNotEditable}, true
	case utf8.RuneCountInString(value) > rule.max:
		return tooLong(ProblemTooLong, rule.max), true
	case rule.format == FormatDate && !isDate(value):
		return Problem{Code: ProblemDate}, true
	case rule.format == FormatImage && !imagePattern.MatchString(value):
		return Problem{Code: ProblemImage}, true
	case rule.format == FormatPart && !isPartNumber(value):
		return Problem{Code: ProblemPart}, true
	}
	return Problem{}, false
}

// KindCopy is one brand's text for one copy key; its slug is "<brand>/<key>"
// and its body the text. Published copy overrides the seeded brand copy.
const KindCopy = "copy"

var copySlugPattern = regexp.MustCompile(`^(default|_[a-z]_)/[a-z][a-zA-Z0-9]*(\.[a-zA-Z0-9]+)+$`)

// Validate checks an editor's input for an item and returns the fields to
// store (single-line fields trimmed, empty fields dropped) and what is wrong
// with each invalid input, keyed by field name ("slug" for the slug, "kind"
// for an unknown kind).
func Validate(kind, slug string, fields map[string]string) (map[string]string, Problems) {
	problems := Problems{}
	rules := Fields(kind, slug)
	if rules == nil {
		problems["kind"] = Problem{Code: ProblemUnknownKind}
		return nil, problems
	}
	if p, bad := checkSlug(kind, slug); bad {
		problems["slug"] = p
	}
	clean := map[string]string{}
	for name, value := range fields {
		if name != "body" {
			value = strings.TrimSpace(value)
		}
		if strings.TrimSpace(value) == "" {
			continue
		}
		if p, bad := checkField(name, value); bad {
			problems[name] = p
		}
		clean[name] = value
	}
	for _, f := range rules {
		if _, ok := clean[f.Name]; f.Required && !ok {
			if _, bad := problems[f.Name]; !bad {
				problems[f.Name] = Problem{Code: ProblemRequired}
			}
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return clean, nil
}

func checkSlug(kind, slug string) (Problem, bool) {
	switch kind {
	case KindPage:
		if !slices.Contains(Pages, slug) {
			return Problem{Code: ProblemUnknownPage}, true
		}
	case KindCopy:
		if !copySlugPattern.MatchString(slug) {
			return Problem{Code: ProblemCopySlug}, true
		}
	case KindArticle:
		topic, part, ok := strings.Cut(slug, "/")
		if !ok || !slugPattern.MatchString(topic) || !slugPattern.MatchString(part) {
			return Problem{Code: ProblemArticleSlug}, true
		}
	default:
		if !slugPattern.MatchString(slug) {
			return Problem{Code: ProblemSlug}, true
		}
	}
	if len(slug) > maxSlug {
		return tooLong(ProblemSlugTooLong, maxSlug), true
	}
	return Problem{}, false
}

// maxSlug bounds a slug, in bytes (a slug is ASCII).
const maxSlug = 100

func isDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

func isPartNumber(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 1 && strconv.Itoa(n) == s
}
