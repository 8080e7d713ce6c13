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

	"glimpse/engine"
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

// MaxRevisions is how many revisions an item keeps; older ones are dropped
// when a revision is added (Repo.modify).
const MaxRevisions = 50

// Pages are the slugs of the single pages editors can change.
var Pages = []string{"insights", "top-trends", "top-hacks", "privacy", "terms"}

// Revision is one saved state of a content item.
type Revision struct {
	N      int
	At     time.Time
	By     string
	Action string
	Fields map[string]string
	// Changed names the fields that differ from the previous revision.
	Changed []string
}

// Doc is one content item: its editable draft, what subscribers see
// (Published) and its history.
type Doc struct {
	ID        string
	Kind      string
	Slug      string
	Draft     map[string]string
	Published map[string]string
	Status    string
	UpdatedAt time.Time
	UpdatedBy string
	// Rev is the number of the newest revision. A write is stored only if
	// the stored item is still at the revision it read (Items.Update), so
	// two editors saving at once cannot drop each other's revision.
	Rev       int
	Revisions []Revision // newest last, at most MaxRevisions
}

// HasUnpublishedChanges reports whether a published item has a draft that
// differs from what subscribers see.
func (d Doc) HasUnpublishedChanges() bool {
	return d.Status == StatusPublished && !maps.Equal(d.Draft, d.Published)
}

// DocID returns the _id of a content item.
func DocID(kind, slug string) string { return kind + ":" + slug }

// The errors an Items store returns.
var (
	// ErrItemExists is Insert's answer when an item with the id is stored.
	ErrItemExists = errors.New("library: the item exists")
	// ErrNoItem is Get's answer when no item has the id.
	ErrNoItem = errors.New("library: no such item")
	// ErrStaleRevision is Update's answer when the stored item is no longer
	// at the revision the writer read: another write came first.
	ErrStaleRevision = errors.New("library: the item has a newer revision")
)

// Items is what the content repository needs from storage: the editors'
// items and the content version every instance polls to reload what is
// published.
type Items interface {
	// Insert stores a new item, or returns ErrItemExists.
	Insert(ctx context.Context, d Doc) error
	// Get returns the item with the id, or ErrNoItem.
	Get(ctx context.Context, id string) (Doc, error)
	// OfKind returns the kind's items ordered by slug, without their
	// revisions.
	OfKind(ctx context.Context, kind string) ([]Doc, error)
	// Update replaces the stored item by d if the stored one is still at
	// revision from, or returns ErrStaleRevision and changes nothing. With
	// bump it also records a new content version and returns it, after the
	// item's write (in the same transaction where the engine has them, else
	// right after it: a retried publish bumps again), so a watcher that sees
	// the version reads the change.
	Update(ctx context.Context, d Doc, from int, bump bool) (version int64, err error)
	// Bump records a new content version, one above the newest, and returns
	// it. Concurrent bumps each get a number of their own.
	Bump(ctx context.Context) (int64, error)
	// Version returns the newest content version, 0 before the first (one
	// read by key: every instance polls it every few seconds).
	Version(ctx context.Context) (int64, error)
}

// Repo stores the content editors change.
type Repo struct {
	items Items
	clock engine.Clock
}

// NewRepo returns the content repository over items.
func NewRepo(items Items, clock engine.Clock) *Repo {
	return &Repo{items: items, clock: clock}
}

// now is the clock's time at the millisecond precision MongoDB keeps, so
// that a Doc returned by a write equals the same Doc read back on either
// engine.
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
	if err := r.items.Insert(ctx, d); err != nil && !errors.Is(err, ErrItemExists) {
		return fmt.Errorf("seed content %s: %w", d.ID, err)
	}
	return nil
}

// Get returns one item; a missing item is a not-found *engine.Error.
func (r *Repo) Get(ctx context.Context, kind, slug string) (Doc, error) {
	d, err := r.items.Get(ctx, DocID(kind, slug))
	if errors.Is(err, ErrNoItem) {
		return Doc{}, notFound(kind, slug)
	}
	if err != nil {
		return Doc{}, fmt.Errorf("get content %s: %w", DocID(kind, slug), err)
	}
	return d, nil
}

// List returns the items of a kind ordered by slug, without their
// revisions.
func (r *Repo) List(ctx context.Context, kind string) ([]Doc, error) {
	docs, err := r.items.OfKind(ctx, kind)
	if err != nil {
		return nil, fmt.Errorf("list content %s: %w", kind, err)
	}
	if docs == nil {
		docs = []Doc{}
	}
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
		err := r.items.Insert(ctx, d)
		if errors.Is(err, ErrItemExists) {
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
	}, by, false)
}

// Publish makes the draft what subscribers see and bumps the version every
// instance polls. Publishing an item already published as is adds no
// revision but still bumps the version, so retrying a publish whose bump
// was lost (the MongoDB store writes the item, then the version) completes
// it.
func (r *Repo) Publish(ctx context.Context, kind, slug, by string) (Doc, error) {
	return r.modify(ctx, kind, slug, func(d *Doc) (string, bool) {
		if d.Status == StatusPublished && maps.Equal(d.Draft, d.Published) {
			return "", false
		}
		d.Published, d.Status = maps.Clone(d.Draft), StatusPublished
		return ActionPublish, true
	}, by, true)
}

// Unpublish hides an item from subscribers, keeping its draft, and bumps the
// version (again on a retry, as Publish).
func (r *Repo) Unpublish(ctx context.Context, kind, slug, by string) (Doc, error) {
	return r.modify(ctx, kind, slug, func(d *Doc) (string, bool) {
		if d.Status == StatusUnpublished {
			return "", false
		}
		d.Published, d.Status = nil, StatusUnpublished
		return ActionUnpublish, true
	}, by, true)
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
	}, by, false)
	if err == nil && missing {
		return Doc{}, engine.Errorf(engine.CodeNotFound, "There is no revision %d of %s %q.", n, kind, slug)
	}
	return d, err
}

// writeAttempts bounds the retries of a write that lost a race with another
// editor's write to the same item; with the waits between them a save gives
// up after about two seconds.
const writeAttempts = 20

// modify applies change to the stored item and writes it back with a new
// revision, unless change reports nothing to record; with publish, the write
// also bumps the content version (and a change with nothing to record bumps
// it alone). The write is conditional on the revision read
// (Items.Update), so it returns the written Doc only if that Doc became the
// stored one, and a save that returns nil is in the history. A writer whose
// revision was overtaken reads the newer item and applies change again; after
// writeAttempts it answers with a conflict *engine.Error.
func (r *Repo) modify(ctx context.Context, kind, slug string, change func(*Doc) (action string, ok bool), by string, publish bool) (Doc, error) {
	for attempt := range writeAttempts {
		d, err := r.Get(ctx, kind, slug)
		if err != nil {
			return Doc{}, err
		}
		read := d.Rev
		action, ok := change(&d)
		if !ok {
			if publish {
				if _, err := r.items.Bump(ctx); err != nil {
					return Doc{}, fmt.Errorf("bump content version: %w", err)
				}
			}
			return d, nil
		}
		d = d.withRevision(action, by, r.now())
		_, err = r.items.Update(ctx, d, read, publish)
		if errors.Is(err, ErrStaleRevision) {
			// Jittered, growing waits keep many writers from retrying in step.
			wait := time.Duration(attempt+1)*5*time.Millisecond + time.Duration(rand.IntN(20))*time.Millisecond
			if err := sleep(ctx, wait); err != nil {
				return Doc{}, err
			}
			continue
		}
		if err != nil {
			return Doc{}, fmt.Errorf("%s content %s: %w", action, d.ID, err)
		}
		return d, nil
	}
	return Doc{}, engine.Errorf(engine.CodeConflict, "Someone else is changing this %s; try again.", kind)
}

// withRevision returns d, already changed, as its next revision: numbered
// one above d's, recording what changed since the newest kept revision,
// with the oldest revisions beyond MaxRevisions dropped.
func (d Doc) withRevision(action, by string, at time.Time) Doc {
	var previous map[string]string
	if len(d.Revisions) > 0 {
		previous = d.Revisions[len(d.Revisions)-1].Fields
	}
	d.Rev++
	d.UpdatedAt, d.UpdatedBy = at, by
	d.Revisions = append(slices.Clone(d.Revisions), Revision{N: d.Rev, At: at, By: by, Action: action,
		Fields: maps.Clone(d.Draft), Changed: changed(previous, d.Draft)})
	if extra := len(d.Revisions) - MaxRevisions; extra > 0 {
		d.Revisions = slices.Clone(d.Revisions[extra:])
	}
	return d
}

// Version returns the content version: 0 before the first publish.
func (r *Repo) Version(ctx context.Context) (int64, error) {
	v, err := r.items.Version(ctx)
	if err != nil {
		return 0, fmt.Errorf("content version: %w", err)
	}
	return v, nil
}

// Bump records a new content version without a content change, for other
// published state that every instance reloads with the content (the A/B
// experiments): the watchers of every instance see it within seconds.
func (r *Repo) Bump(ctx context.Context) (int64, error) {
	v, err := r.items.Bump(ctx)
	if err != nil {
		return 0, fmt.Errorf("bump content version: %w", err)
	}
	return v, nil
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
