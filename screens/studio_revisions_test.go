package screens

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine/library"
	"glimpse/engine/ui"
)

func TestParseStudioRevisionPath(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]struct {
		n          int
		kind, slug string
		ok         bool
	}{
		"/studio/revision/3/news/launch":                 {3, "news", "launch", true},
		"/studio/revision/12/article/reels/part-1":       {12, "article", "reels/part-1", true},
		"/studio/revision/1/copy/default/home.title":     {1, "copy", "default/home.title", true},
		"/studio/revision/0/news/launch":                 {},
		"/studio/revision/03/news/launch":                {},
		"/studio/revision/x/news/launch":                 {},
		"/studio/revision/3/news":                        {},
		"/studio/edit/news/launch":                       {},
		StudioRevisionPath("article", "reels/part-1", 7): {7, "article", "reels/part-1", true},
	} {
		n, kind, slug, ok := ParseStudioRevisionPath(path)
		if n != want.n || kind != want.kind || slug != want.slug || ok != want.ok {
			t.Errorf("%s: %d %q %q %v, want %+v", path, n, kind, slug, ok, want)
		}
	}
}

func TestDiffBlocksKeepLinesAndMarks(t *testing.T) {
	t.Parallel()
	got := diffBlocks(library.WordDiff("One line.\n\nTwo old words.", "One line.\n\nTwo new words.\nThree."))
	want := []ui.RichBlock{
		{Kind: "paragraph", Spans: []ui.Span{{Text: "One line."}}},
		{Kind: "paragraph", Spans: []ui.Span{{Text: "Two "}, {Text: "old", Del: true}, {Text: "new", Ins: true}, {Text: " words."}}},
		{Kind: "paragraph", Spans: []ui.Span{{Text: "Three.", Ins: true}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func FuzzParseStudioRevisionPath(f *testing.F) {
	for _, s := range []string{"/studio/revision/3/news/launch", "/studio/revision/1/copy/default/home.title", "/studio/revision//x", "/studio/revision/-1/a/b", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		n, kind, slug, ok := ParseStudioRevisionPath(path)
		if !ok {
			return
		}
		// What is read names the same page again.
		if n < 1 || kind == "" || slug == "" || StudioRevisionPath(kind, slug, n) != path {
			t.Fatalf("%q read as %d %q %q", path, n, kind, slug)
		}
	})
}
