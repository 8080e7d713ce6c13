package library

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine"
	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// openRepo returns a Repo on a fresh database with its collections created,
// and the clock it reads.
func openRepo(t *testing.T) (*Repo, *store.Store, *engine.ManualClock) {
	t.Helper()
	st := storetest.Open(t)
	var specs []store.CollectionSpec
	for name, idx := range RepoCollections() {
		specs = append(specs, store.CollectionSpec{Name: name, Indexes: idx})
	}
	if err := st.EnsureCollections(context.Background(), specs); err != nil {
		t.Fatal(err)
	}
	clock := engine.NewManualClock(time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC))
	return NewRepo(st.DB(), clock), st, clock
}

func newsFields(title string) map[string]string {
	return map[string]string{"title": title, "date": "2025-02-28", "summary": "A summary.", "body": "Some **news**.\n"}
}

func fieldsOf(t *testing.T, err error) Problems {
	t.Helper()
	var invalid *InvalidError
	if engine.ErrorCode(err) != engine.CodeInvalid || !errors.As(err, &invalid) {
		t.Fatalf("error %v, want field problems", err)
	}
	return invalid.Problems
}

func TestSeedIsIdempotentAndKeepsEdits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _, _ := openRepo(t)
	if err := r.SeedItem(ctx, KindNews, "launch", newsFields("Launch")); err != nil {
		t.Fatal(err)
	}
	seeded, err := r.Get(ctx, KindNews, "launch")
	if err != nil {
		t.Fatal(err)
	}
	if seeded.Status != StatusPublished || !cmp.Equal(seeded.Published, newsFields("Launch")) || len(seeded.Revisions) != 1 ||
		seeded.Revisions[0].Action != ActionSeed {
		t.Fatalf("seeded doc: %+v", seeded)
	}
	if err := r.SeedItem(ctx, KindNews, "launch", newsFields("Other")); err != nil {
		t.Fatal(err)
	}
	again, err := r.Get(ctx, KindNews, "launch")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(seeded, again); diff != "" {
		t.Errorf("second seed changed the doc (-first +second):\n%s", diff)
	}

	if _, err := r.Save(ctx, KindNews, "launch", newsFields("Edited"), "ed@example.com", false); err != nil {
		t.Fatal(err)
	}
	if err := r.SeedItem(ctx, KindNews, "launch", newsFields("Launch")); err != nil {
		t.Fatal(err)
	}
	d, err := r.Get(ctx, KindNews, "launch")
	if err != nil {
		t.Fatal(err)
	}
	if d.Draft["title"] != "Edited" {
		t.Errorf("seed overwrote the edit: draft title %q", d.Draft["title"])
	}
}

func TestSaveValidation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _, _ := openRepo(t)
	if _, err := r.Save(ctx, KindNews, "launch", newsFields("Launch"), "ed", true); err != nil {
		t.Fatal(err)
	}
	before, err := r.Get(ctx, KindNews, "launch")
	if err != nil {
		t.Fatal(err)
	}
	with := func(name, value string) map[string]string {
		f := newsFields("Launch 2")
		if value == "" {
			delete(f, name)
		} else {
			f[name] = value
		}
		return f
	}
	tests := []struct {
		name   string
		kind   string
		slug   string
		fields map[string]string
		isNew  bool
		want   []string // fields with an error
	}{
		{"bad slug", KindNews, "Launch_Day", newsFields("X"), true, []string{"slug"}},
		{"missing title", KindNews, "launch", with("title", ""), false, []string{"title"}},
		{"bad date", KindNews, "launch", with("date", "28/02/2025"), false, []string{"date"}},
		{"external image", KindNews, "launch", with("image", "https://evil.example/x.png"), false, []string{"image"}},
		{"duplicate slug", KindNews, "launch", newsFields("Again"), true, []string{"slug"}},
		{"long title", KindNews, "launch", with("title", string(make([]byte, 141))+"x"), false, []string{"title"}},
		{"unknown field", KindNews, "launch", with("script", "x"), false, []string{"script"}},
		{"article slug without topic", KindArticle, "part-one",
			map[string]string{"title": "T", "description": "D", "body": "B"}, true, []string{"slug"}},
		{"topic without description", KindTopic, "stalkers", map[string]string{"title": "T"}, true, []string{"description"}},
		{"unknown page", KindPage, "about", map[string]string{"title": "T", "body": "B"}, false, []string{"slug"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.Save(ctx, tc.kind, tc.slug, tc.fields, "ed", tc.isNew)
			var got []string
			for k := range fieldsOf(t, err) {
				got = append(got, k)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("fields with errors (-want +got):\n%s", diff)
			}
		})
	}
	after, err := r.Get(ctx, KindNews, "launch")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("invalid saves changed the doc (-before +after):\n%s", diff)
	}
	docs, err := r.List(ctx, KindNews)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 {
		t.Errorf("invalid creates stored docs: %+v", docs)
	}
}

func TestSavePublishEditUnpublish(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _, clock := openRepo(t)
	d, err := r.Save(ctx, KindArticle, "stalkers/part-one",
		map[string]string{"title": "Part one", "description": "D", "body": "Body", "image": "/static/img/a.svg"}, "ann", true)
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "article:stalkers/part-one" || d.Status != StatusDraft || d.Published != nil {
		t.Fatalf("created doc: %+v", d)
	}
	v0, err := r.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}

	clock.Advance(time.Minute)
	d, err = r.Publish(ctx, KindArticle, "stalkers/part-one", "bob")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := r.Version(ctx); v != v0+1 {
		t.Errorf("version after publish: %d, want %d", v, v0+1)
	}
	if d.Status != StatusPublished || d.HasUnpublishedChanges() {
		t.Errorf("after publish: status %q, pending %v", d.Status, d.HasUnpublishedChanges())
	}
	if diff := cmp.Diff(d.Draft, d.Published); diff != "" {
		t.Errorf("published differs from draft:\n%s", diff)
	}

	edited := map[string]string{"title": "Part one, revised", "description": "D", "body": "Body"}
	if d, err = r.Save(ctx, KindArticle, "stalkers/part-one", edited, "ann", false); err != nil {
		t.Fatal(err)
	}
	if !d.HasUnpublishedChanges() || d.Status != StatusPublished || d.Published["title"] != "Part one" {
		t.Errorf("after edit: %+v", d)
	}
	if diff := cmp.Diff([]string{"image", "title"}, d.Revisions[len(d.Revisions)-1].Changed); diff != "" {
		t.Errorf("changed fields (-want +got):\n%s", diff)
	}
	stored, err := r.Get(ctx, KindArticle, "stalkers/part-one")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, stored); diff != "" {
		t.Errorf("returned doc differs from stored (-returned +stored):\n%s", diff)
	}

	if d, err = r.Unpublish(ctx, KindArticle, "stalkers/part-one", "bob"); err != nil {
		t.Fatal(err)
	}
	if d.Status != StatusUnpublished || d.Published != nil || d.Draft["title"] != "Part one, revised" {
		t.Errorf("after unpublish: %+v", d)
	}
	if v, _ := r.Version(ctx); v != v0+2 {
		t.Errorf("version after unpublish: %d, want %d", v, v0+2)
	}
	if d, err = r.Save(ctx, KindArticle, "stalkers/part-one", edited, "ann", false); err != nil || d.Status != StatusUnpublished {
		t.Errorf("an unchanged save: status %q, err %v; want no change", d.Status, err)
	}

	var want []string
	for _, v := range d.Revisions {
		want = append(want, fmt.Sprintf("%d %s %s %s", v.N, v.Action, v.By, v.At.Format(time.TimeOnly)))
	}
	if diff := cmp.Diff([]string{"1 save ann 09:00:00", "2 publish bob 09:01:00", "3 save ann 09:01:00", "4 unpublish bob 09:01:00"}, want); diff != "" {
		t.Errorf("revisions (-want +got):\n%s", diff)
	}
}

func TestRevisionsAreCappedAndRestorable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _, clock := openRepo(t)
	if _, err := r.Save(ctx, KindTopic, "stalkers", map[string]string{"title": "v1", "description": "D"}, "ann", true); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 60; i++ {
		clock.Advance(time.Second)
		if _, err := r.Save(ctx, KindTopic, "stalkers", map[string]string{"title": fmt.Sprint("v", i), "description": "D"}, "ann", false); err != nil {
			t.Fatal(err)
		}
	}
	revs, err := r.Revisions(ctx, KindTopic, "stalkers")
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != MaxRevisions || revs[0].N != 11 || revs[len(revs)-1].N != 60 {
		t.Fatalf("kept %d revisions, %d to %d; want 50, 11 to 60", len(revs), revs[0].N, revs[len(revs)-1].N)
	}
	if _, err := r.Restore(ctx, KindTopic, "stalkers", 3, "ann"); !engine.IsNotFound(err) {
		t.Errorf("restore of a dropped revision: %v, want not found", err)
	}

	d, err := r.Restore(ctx, KindTopic, "stalkers", 20, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"title": "v20", "description": "D"}, d.Draft); diff != "" {
		t.Errorf("restored draft (-want +got):\n%s", diff)
	}
	last := d.Revisions[len(d.Revisions)-1]
	if diff := cmp.Diff(Revision{N: 61, At: clock.Now(), By: "bob", Action: ActionRestore, Fields: d.Draft, Changed: []string{"title"}}, last); diff != "" {
		t.Errorf("restore revision (-want +got):\n%s", diff)
	}
	if d.Status != StatusDraft || d.Published != nil {
		t.Errorf("restore published by itself: %+v", d)
	}
	if d, err = r.Publish(ctx, KindTopic, "stalkers", "bob"); err != nil {
		t.Fatal(err)
	}
	if d.Published["title"] != "v20" {
		t.Errorf("published title after restore: %q, want v20", d.Published["title"])
	}
}

func TestWatchSeesAPublishFromAnotherInstance(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, st, clock := openRepo(t)
	other := NewRepo(st.DB(), clock)
	if err := r.SeedItem(ctx, KindPage, "privacy", map[string]string{"title": "Privacy", "body": "Text"}); err != nil {
		t.Fatal(err)
	}
	changes := make(chan int64, 100)
	go r.Watch(ctx, 10*time.Millisecond, func(v int64) { changes <- v })
	select {
	case v := <-changes:
		t.Fatalf("onChange(%d) before any publish", v)
	case <-time.After(50 * time.Millisecond):
	}
	// Watch's first poll only sets its baseline, and nothing says when it
	// has happened; publishing until a change is seen keeps the test
	// independent of that timing.
	deadline := time.After(10 * time.Second)
	for i := 1; ; i++ {
		body := fmt.Sprint("New text ", i)
		if _, err := other.Save(ctx, KindPage, "privacy", map[string]string{"title": "Privacy", "body": body}, "ann", false); err != nil {
			t.Fatal(err)
		}
		if _, err := other.Publish(ctx, KindPage, "privacy", "ann"); err != nil {
			t.Fatal(err)
		}
		select {
		case v := <-changes:
			if v < 1 || v > int64(i) {
				t.Errorf("onChange(%d) after %d publishes", v, i)
			}
			return
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatal("onChange not called after publishes from another instance")
		}
	}
}

func TestGetMissing(t *testing.T) {
	t.Parallel()
	r, _, _ := openRepo(t)
	if _, err := r.Get(context.Background(), KindNews, "nope"); !engine.IsNotFound(err) {
		t.Errorf("Get of a missing doc: %v, want not found", err)
	}
	if _, err := r.Save(context.Background(), KindNews, "nope", newsFields("X"), "ed", false); !engine.IsNotFound(err) {
		t.Errorf("Save of a missing doc: %v, want not found", err)
	}
}

// TestConcurrentSavesKeepEveryRevision runs 50 editors saving one item at
// once. Each save either succeeds and is in the history, or is refused with
// a conflict; none may succeed and vanish (a stale writer used to re-claim a
// revision number whose claim had been deleted, and the replace's match count
// was not checked).
func TestConcurrentSavesKeepEveryRevision(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _, _ := openRepo(t)
	if _, err := r.Save(ctx, KindTopic, "stalkers", map[string]string{"title": "v0", "description": "D"}, "ann", true); err != nil {
		t.Fatal(err)
	}
	const editors = 50
	type result struct {
		editor int
		err    error
	}
	results := make(chan result, editors)
	start := make(chan struct{})
	for i := range editors {
		go func() {
			<-start
			_, err := r.Save(ctx, KindTopic, "stalkers", map[string]string{"title": fmt.Sprint("by ", i), "description": "D"}, fmt.Sprint("editor", i), false)
			results <- result{i, err}
		}()
	}
	close(start)
	var saved []int
	for range editors {
		res := <-results
		switch engine.ErrorCode(res.err) {
		case "":
			saved = append(saved, res.editor)
		case engine.CodeConflict, engine.CodeUnavailable:
			// Refused, and the editor is told so: a clash, or an
			// overloaded embedded store's write lock timing out.
		default:
			t.Fatal(res.err)
		}
	}
	if len(saved) == 0 {
		t.Fatal("no save of 50 succeeded")
	}
	d, err := r.Get(ctx, KindTopic, "stalkers")
	if err != nil {
		t.Fatal(err)
	}
	inHistory := map[string]bool{}
	for i, v := range d.Revisions {
		if i > 0 && v.N != d.Revisions[i-1].N+1 {
			t.Errorf("revision %d follows revision %d", v.N, d.Revisions[i-1].N)
		}
		inHistory[v.By+": "+v.Fields["title"]] = true
	}
	for _, i := range saved {
		if !inHistory[fmt.Sprintf("editor%d: by %d", i, i)] {
			t.Errorf("editor%d's save succeeded but is not in the history", i)
		}
	}
	if want := min(len(saved)+1, MaxRevisions); len(d.Revisions) != want {
		t.Errorf("%d revisions kept for %d successful saves and the first, want %d", len(d.Revisions), len(saved), want)
	}
	last := d.Revisions[len(d.Revisions)-1]
	if d.Rev != last.N || !cmp.Equal(d.Draft, last.Fields) {
		t.Errorf("head at rev %d with draft %v; newest revision %d has %v", d.Rev, d.Draft, last.N, last.Fields)
	}
	t.Logf("%d of %d concurrent saves succeeded; the rest were refused as conflicts", len(saved), editors)
}

// TestConcurrentPublishesGetDistinctVersions publishes 30 items at once: each
// publish must get a version of its own (the version used to be an $inc,
// whose increments the embedded FerretDB loses under concurrent writers), and
// a watcher must end on the last.
func TestConcurrentPublishesGetDistinctVersions(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, _, _ := openRepo(t)
	const publishers = 30
	for i := range publishers {
		if _, err := r.Save(ctx, KindNews, fmt.Sprint("item-", i), newsFields(fmt.Sprint("Item ", i)), "ann", true); err != nil {
			t.Fatal(err)
		}
	}
	v0, err := r.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan int64, 1000)
	watching := make(chan struct{})
	go r.watch(ctx, 5*time.Millisecond, func(v int64) { seen <- v }, func() { close(watching) })
	<-watching

	versions := make(chan int64, publishers)
	errs := make(chan error, publishers)
	start := make(chan struct{})
	for i := range publishers {
		go func() {
			<-start
			if _, err := r.Publish(ctx, KindNews, fmt.Sprint("item-", i), "bob"); err != nil {
				errs <- err
				return
			}
			// The version this publish made, read through the same path.
			v, err := r.bump(ctx)
			if err != nil {
				errs <- err
				return
			}
			versions <- v
		}()
	}
	close(start)
	got := map[int64]bool{}
	for range publishers {
		select {
		case err := <-errs:
			t.Fatal(err)
		case v := <-versions:
			if got[v] {
				t.Errorf("version %d given to two publishes", v)
			}
			got[v] = true
		}
	}
	last, err := r.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Each goroutine bumped twice: once in Publish, once itself.
	if want := v0 + 2*publishers; last != want {
		t.Errorf("version after %d publishes and %d bumps from %d: %d, want %d", publishers, publishers, v0, last, want)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case v := <-seen:
			if v == last {
				return
			}
			if v > last {
				t.Fatalf("watcher saw %d, beyond the last version %d", v, last)
			}
		case <-deadline:
			t.Fatalf("the watcher never saw the last version %d", last)
		}
	}
}

// TestValidateFieldTable checks Validate against the field table itself:
// every text field takes exactly its limit and refuses one character more
// with the problem the studio words.
func TestValidateFieldTable(t *testing.T) {
	t.Parallel()
	valid := map[FieldFormat]string{FormatText: "x", FormatDate: "2025-01-31", FormatImage: "/static/a.png", FormatPart: "1"}
	items := map[string]string{KindNews: "launch", KindArticle: "topic/part", KindTopic: "topic",
		KindPage: "privacy", KindCopy: "default/signIn.headline"}
	for kind, slug := range items {
		base := map[string]string{}
		for _, f := range Fields(kind, slug) {
			if f.Required {
				base[f.Name] = valid[f.Format]
			}
		}
		if _, problems := Validate(kind, slug, base); len(problems) > 0 {
			t.Fatalf("%s %s with its required fields: %v", kind, slug, problems)
		}
		for _, f := range Fields(kind, slug) {
			if f.Format != FormatText {
				continue
			}
			with := func(v string) map[string]string {
				m := map[string]string{}
				for k, x := range base {
					m[k] = x
				}
				m[f.Name] = v
				return m
			}
			if _, problems := Validate(kind, slug, with(strings.Repeat("é", f.Max))); len(problems) > 0 {
				t.Errorf("%s %s at its limit of %d: %v", kind, f.Name, f.Max, problems)
			}
			_, problems := Validate(kind, slug, with(strings.Repeat("é", f.Max+1)))
			want := Problem{Code: ProblemTooLong, Args: map[string]string{ArgUnder: fmt.Sprint(f.Max + 1)}}
			if diff := cmp.Diff(want, problems[f.Name]); diff != "" {
				t.Errorf("%s %s over its limit (-want +got):\n%s", kind, f.Name, diff)
			}
		}
	}
	if got := len(Fields(KindPage, "insights")); got != 2 {
		t.Errorf("a page other than the legal ones has %d fields, want title and body", got)
	}
	// A field keeps its rule on a kind whose form does not show it.
	_, problems := Validate(KindNews, "launch", map[string]string{"title": "T", "date": "2025-01-31", "summary": "S",
		"body": "B", "part": "one"})
	if problems["part"].Code != ProblemPart {
		t.Errorf("a bad part on a news item: %v", problems)
	}
}
