package library

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"glimpse/content"
)

func TestLibraryLoadsTheSeedContent(t *testing.T) {
	t.Parallel()
	lib, err := Load(content.Library)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(lib.Insights.Engagement); n != 6 {
		t.Errorf("engagement recommendations: %d, want 6", n)
	}
	if n := len(lib.Insights.Followers); n != 6 {
		t.Errorf("follower recommendations: %d, want 6", n)
	}
	if n := len(lib.Insights.Summary); n != 5 {
		t.Errorf("summary items: %d, want 5", n)
	}
	if lib.Trends.Title != "Top 7 Instagram Trends Shaping 2026" || lib.Hacks.Title != "Top 5 Instagram Algorithm Hacks to Grow in 2026" {
		t.Errorf("article titles: %q, %q", lib.Trends.Title, lib.Hacks.Title)
	}
	want := map[string][]string{
		"secret-admirers": {"key-metrics-to-identify-secret-admirers", "engaging-and-converting-your-secret-admirers",
			"maintaining-and-growing-engagement-with-new-followers", "pro-tips-to-take-advantage-of-secret-admirers"},
		"detect-stalkers": {"recognizing-the-signs-of-stalking-or-unauthorized-data-access", "protecting-your-data-and-privacy",
			"long-term-strategies-for-maintaining-privacy-and-preventing-future-incidents",
			"taking-control-of-who-interacts-with-you-online", "seeking-support-finding-help-when-you-need-it"},
	}
	for slug, parts := range want {
		topic, ok := lib.Topics[slug]
		if !ok {
			t.Fatalf("topic %s missing", slug)
		}
		if len(topic.Parts) != len(parts) {
			t.Fatalf("%s has %d parts, want %d", slug, len(topic.Parts), len(parts))
		}
		for i, p := range parts {
			if topic.Parts[i].Slug != p || topic.Parts[i].Part != i+1 {
				t.Errorf("%s part %d = %s (%d), want %s", slug, i+1, topic.Parts[i].Slug, topic.Parts[i].Part, p)
			}
			assertValid(t, topic.Parts[i].Body)
		}
	}
	if len(lib.News) < 8 {
		t.Errorf("news items: %d, want at least 8", len(lib.News))
	}
	for i := 1; i < len(lib.News); i++ {
		if lib.News[i].Date.After(lib.News[i-1].Date) {
			t.Errorf("news not newest first at %d", i)
		}
	}
}

func TestLibraryFromDocsMatchesTheFiles(t *testing.T) {
	t.Parallel()
	fromFiles, err := Load(content.Library)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := SeedDocs(content.Library)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if _, errs := Validate(d.Kind, d.Slug, d.Fields); len(errs) > 0 {
			t.Errorf("seed %s:%s is not valid editor input: %v", d.Kind, d.Slug, errs)
		}
	}
	fromDocs, err := FromDocs(docs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fromFiles, fromDocs); diff != "" {
		t.Fatalf("library from docs differs from the files (-files +docs):\n%s", diff)
	}
}
