package library_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine"
	"glimpse/engine/library"
	"glimpse/engine/store/sqlite"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/store/storetest"
)

// openRepo returns a library.Repo on a fresh embedded database, the database, and
// the clock it reads.
func openRepo(t *testing.T) (*library.Repo, *sqlite.DB, *engine.ManualClock) {
	t.Helper()
	db := storetest.OpenSQL(t)
	clock := engine.NewManualClock(time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC))
	return library.NewRepo(sqlstore.NewContentItems(db), clock), db, clock
}

func newsFields(title string) map[string]string {
	return map[string]string{"title": title, "date": "2025-02-28", "summary": "A summary.", "body": "Some **news**.\n"}
}

func fieldsOf(t *testing.T, err error) library.Problems {
	t.Helper()
	var invalid *library.InvalidError
	if engine.ErrorCode(err) != engine.CodeInvalid || !errors.As(err, &invalid) {
		t.Fatalf("error %v, want field problems", err)
	}
	return invalid.Problems
}

func TestSeedIsIdempotentAndKeepsEdits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _, _ := openRepo(t)
	if err := r.SeedItem(ctx, library.KindNews, "launch", newsFields("Launch")); err != nil {
		t.Fatal(err)
	}
	seeded, err := r.Get(ctx, library.KindNews, "launch")
	if err != nil {
		t.Fatal(err)
	}
	if seeded.Status != library.StatusPublished || !cmp.Equal(seeded.Published, newsFields("Launch")) || len(seeded.Revisions) != 1 ||
		seeded.Revisions[0].Action != library.ActionSeed {
		t.Fatalf("seeded doc: %+v", seeded)
	}
	if err := r.SeedItem(ctx, library.KindNews, "launch", newsFields("Other")); err != nil {
		t.Fatal(err)
	}
	again, err := r.Get(ctx, library.KindNews, "launch")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(seeded, again); diff != "" {
		t.Errorf("second seed changed the doc (-first +second):\n%s", diff)
	}

	if _, err := r.Save(ctx, library.KindNews, "launch", newsFields("Edited"), "ed@example.com", false); err != nil {
		t.Fatal(err)
	}
	if err := r.SeedItem(ctx, library.KindNews, "launch", newsFields("Launch")); err != nil {
		t.Fatal(err)
	}
	d, err := r.Get(ctx, library.KindNews, "launch")
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
	if _, err := r.Save(ctx, library.KindNews, "launch", newsFields("Launch"), "ed", true); err != nil {
		t.Fatal(err)
	}
	before, err := r.Get(ctx, library.KindNews, "launch")
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
		{"bad slug", library.KindNews, "Launch_Day", newsFields("X"), true, []string{"slug"}},
		{"missing title", library.KindNews, "launch", with("title", ""), false, []string{"title"}},
		{"bad date", library.KindNews, "launch", with("date", "28/02/2025"), false, []string{"date"}},
		{"external image", library.KindNews, "launch", with("image", "https://evil.example/x.png"), false, []string{"image"}},
		{"duplicate slug", library.KindNews, "launch", newsFields("Again"), true, []string{"slug"}},
		{"long title", library.KindNews, "launch", with("title", string(make([]byte, 141))+"x"), false, []string{"title"}},
		{"unknown field", library.KindNews, "launch", with("script", "x"), false, []string{"script"}},
		{"article slug without topic", library.KindArticle, "part-one",
			map[string]string{"title": "T", "description": "D", "body": "B"}, true, []string{"slug"}},
		{"topic without description", library.KindTopic, "stalkers", map[string]string{"title": "T"}, true, []string{"description"}},
		{"unknown page", library.KindPage, "about", map[string]string{"title": "T", "body": "B"}, false, []string{"slug"}},
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
	after, err := r.Get(ctx, library.KindNews, "launch")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("invalid saves changed the doc (-before +after):\n%s", diff)
	}
	docs, err := r.List(ctx, library.KindNews)
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
	d, err := r.Save(ctx, library.KindArticle, "stalkers/part-one",
		map[string]string{"title": "Part one", "description": "D", "body": "Body", "image": "/static/img/a.svg"}, "ann", true)
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "article:stalkers/part-one" || d.Status != library.StatusDraft || d.Published != nil {
		t.Fatalf("created doc: %+v", d)
	}
	v0, err := r.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}

	clock.Advance(time.Minute)
	d, err = r.Publish(ctx, library.KindArticle, "stalkers/part-one", "bob")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := r.Version(ctx); v != v0+1 {
		t.Errorf("version after publish: %d, want %d", v, v0+1)
	}
	if d.Status != library.StatusPublished || d.HasUnpublishedChanges() {
		t.Errorf("after publish: status %q, pending %v", d.Status, d.HasUnpublishedChanges())
	}
	if diff := cmp.Diff(d.Draft, d.Published); diff != "" {
		t.Errorf("published differs from draft:\n%s", diff)
	}

	edited := map[string]string{"title": "Part one, revised", "description": "D", "body": "Body"}
	if d, err = r.Save(ctx, library.KindArticle, "stalkers/part-one", edited, "ann", false); err != nil {
		t.Fatal(err)
	}
	if !d.HasUnpublishedChanges() || d.Status != library.StatusPublished || d.Published["title"] != "Part one" {
		t.Errorf("after edit: %+v", d)
	}
	if diff := cmp.Diff([]string{"image", "title"}, d.Revisions[len(d.Revisions)-1].Changed); diff != "" {
		t.Errorf("changed fields (-want +got):\n%s", diff)
	}
	stored, err := r.Get(ctx, library.KindArticle, "stalkers/part-one")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, stored); diff != "" {
		t.Errorf("returned doc differs from stored (-returned +stored):\n%s", diff)
	}

	if d, err = r.Unpublish(ctx, library.KindArticle, "stalkers/part-one", "bob"); err != nil {
		t.Fatal(err)
	}
	if d.Status != library.StatusUnpublished || d.Published != nil || d.Draft["title"] != "Part one, revised" {
		t.Errorf("after unpublish: %+v", d)
	}
	if v, _ := r.Version(ctx); v != v0+2 {
		t.Errorf("version after unpublish: %d, want %d", v, v0+2)
	}
	if d, err = r.Save(ctx, library.KindArticle, "stalkers/part-one", edited, "ann", false); err != nil || d.Status != library.StatusUnpublished {
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
	if _, err := r.Save(ctx, library.KindTopic, "stalkers", map[string]string{"title": "v1", "description": "D"}, "ann", true); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 60; i++ {
		clock.Advance(time.Second)
		if _, err := r.Save(ctx, library.KindTopic, "stalkers", map[string]string{"title": fmt.Sprint("v", i), "description": "D"}, "ann", false); err != nil {
			t.Fatal(err)
		}
	}
	revs, err := r.Revisions(ctx, library.KindTopic, "stalkers")
	if err != nil {
		t.Fatal(err)
	}
	if len(revs) != library.MaxRevisions || revs[0].N != 11 || revs[len(revs)-1].N != 60 {
		t.Fatalf("kept %d revisions, %d to %d; want 50, 11 to 60", len(revs), revs[0].N, revs[len(revs)-1].N)
	}
	if _, err := r.Restore(ctx, library.KindTopic, "stalkers", 3, "ann"); !engine.IsNotFound(err) {
		t.Errorf("restore of a dropped revision: %v, want not found", err)
	}

	d, err := r.Restore(ctx, library.KindTopic, "stalkers", 20, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"title": "v20", "description": "D"}, d.Draft); diff != "" {
		t.Errorf("restored draft (-want +got):\n%s", diff)
	}
	last := d.Revisions[len(d.Revisions)-1]
	if diff := cmp.Diff(library.Revision{N: 61, At: clock.Now(), By: "bob", Action: library.ActionRestore, Fields: d.Draft, Changed: []string{"title"}}, last); diff != "" {
		t.Errorf("restore revision (-want +got):\n%s", diff)
	}
	if d.Status != library.StatusDraft || d.Published != nil {
		t.Errorf("restore published by itself: %+v", d)
	}
	if d, err = r.Publish(ctx, library.KindTopic, "stalkers", "bob"); err != nil {
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
	r, db, clock := openRepo(t)
	other := library.NewRepo(sqlstore.NewContentItems(db), clock)
	if err := r.SeedItem(ctx, library.KindPage, "privacy", map[string]string{"title": "Privacy", "body": "Text"}); err != nil {
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
		if _, err := other.Save(ctx, library.KindPage, "privacy", map[string]string{"title": "Privacy", "body": body}, "ann", false); err != nil {
			t.Fatal(err)
		}
		if _, err := other.Publish(ctx, library.KindPage, "privacy", "ann"); err != nil {
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
	if _, err := r.Get(context.Background(), library.KindNews, "nope"); !engine.IsNotFound(err) {
		t.Errorf("Get of a missing doc: %v, want not found", err)
	}
	if _, err := r.Save(context.Background(), library.KindNews, "nope", newsFields("X"), "ed", false); !engine.IsNotFound(err) {
		t.Errorf("Save of a missing doc: %v, want not found", err)
	}
}

// TestConcurrentSavesKeepEveryRevision runs 50 editors saving one item at
// once. Each save either succeeds and is in the history, or is refused with
// a conflict; none may succeed and vanish (each write is conditional on the
// revision its writer read).
func TestConcurrentSavesKeepEveryRevision(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _, _ := openRepo(t)
	if _, err := r.Save(ctx, library.KindTopic, "stalkers", map[string]string{"title": "v0", "description": "D"}, "ann", true); err != nil {
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
			_, err := r.Save(ctx, library.KindTopic, "stalkers", map[string]string{"title": fmt.Sprint("by ", i), "description": "D"}, fmt.Sprint("editor", i), false)
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
		case engine.CodeConflict:
			// Refused, and the editor is told so.
		default:
			t.Fatal(res.err)
		}
	}
	if len(saved) == 0 {
		t.Fatal("no save of 50 succeeded")
	}
	d, err := r.Get(ctx, library.KindTopic, "stalkers")
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
	if want := min(len(saved)+1, library.MaxRevisions); len(d.Revisions) != want {
		t.Errorf("%d revisions kept for %d successful saves and the first, want %d", len(d.Revisions), len(saved), want)
	}
	last := d.Revisions[len(d.Revisions)-1]
	if d.Rev != last.N || !cmp.Equal(d.Draft, last.Fields) {
		t.Errorf("head at rev %d with draft %v; newest revision %d has %v", d.Rev, d.Draft, last.N, last.Fields)
	}
	t.Logf("%d of %d concurrent saves succeeded; the rest were refused as conflicts", len(saved), editors)
}

// TestConcurrentPublishesGetDistinctVersions publishes 30 items at once: each
// publish must get a version of its own (the version is bumped in the
// publish's transaction), and a watcher must end on the last.
func TestConcurrentPublishesGetDistinctVersions(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, _, _ := openRepo(t)
	const publishers = 30
	for i := range publishers {
		if _, err := r.Save(ctx, library.KindNews, fmt.Sprint("item-", i), newsFields(fmt.Sprint("Item ", i)), "ann", true); err != nil {
			t.Fatal(err)
		}
	}
	v0, err := r.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := make(chan int64, 1000)
	watching := make(chan struct{})
	go library.WatchReady(r, ctx, 5*time.Millisecond, func(v int64) { seen <- v }, func() { close(watching) })
	<-watching

	versions := make(chan int64, publishers)
	errs := make(chan error, publishers)
	start := make(chan struct{})
	for i := range publishers {
		go func() {
			<-start
			if _, err := r.Publish(ctx, library.KindNews, fmt.Sprint("item-", i), "bob"); err != nil {
				errs <- err
				return
			}
			// A bump of its own, as an experiment's change makes.
			v, err := r.Bump(ctx)
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

func TestEditCreatesACopyItemOnItsFirstSave(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _, _ := openRepo(t)
	slug := "default/signIn.headline"
	for _, text := range []string{"Welcome", "Welcome back"} {
		// isNew is false both times: the form of a copy key never says new.
		if _, err := r.Edit(ctx, library.KindCopy, slug, map[string]string{"body": text}, "ann", false); err != nil {
			t.Fatalf("edit %q: %v", text, err)
		}
	}
	d, err := r.Get(ctx, library.KindCopy, slug)
	if err != nil || d.Draft["body"] != "Welcome back" || len(d.Revisions) != 2 {
		t.Fatalf("copy item: %+v %v", d, err)
	}
}

func TestPublishEditSavesWhatTheEditorSees(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r, _, _ := openRepo(t)
	if _, err := r.Save(ctx, library.KindNews, "n", newsFields("First"), "ann", true); err != nil {
		t.Fatal(err)
	}
	if _, err := r.PublishEdit(ctx, library.KindNews, "n", map[string]string{"title": ""}, "ann"); len(fieldsOf(t, err)) == 0 {
		t.Fatal("invalid fields were published")
	}
	d, err := r.PublishEdit(ctx, library.KindNews, "n", newsFields("Second"), "ann")
	if err != nil || d.Status != library.StatusPublished || d.Published["title"] != "Second" {
		t.Fatalf("publish: %+v %v", d, err)
	}
	if d, err = r.PublishEdit(ctx, library.KindNews, "n", nil, "ann"); err != nil || d.Published["title"] != "Second" {
		t.Fatalf("publish without fields: %+v %v", d, err)
	}
}
