package library

import (
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPreviewFields(t *testing.T) {
	t.Parallel()
	today := time.Date(2026, 11, 2, 23, 0, 0, 0, time.UTC)
	tests := []struct {
		name, kind string
		in, want   map[string]string
	}{
		{"valid fields kept", KindNews, newsFields("T"), newsFields("T")},
		{"a bad date is left out and today's shown", KindNews,
			map[string]string{"title": "T", "date": "soon"}, map[string]string{"title": "T", "date": "2026-11-02"}},
		{"no date is today", KindNews, map[string]string{"title": "T"}, map[string]string{"title": "T", "date": "2026-11-02"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, PreviewFields(tc.kind, "n", tc.in, today)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormDraft(t *testing.T) {
	t.Parallel()
	form := map[string]string{"slug": " typed ", "title": "T", "unknown": "x"}
	slug, fields := FormDraft(KindNews, "", form)
	if slug != "typed" || fields["title"] != "T" || fields["unknown"] != "" {
		t.Errorf("new item: %q %v", slug, fields)
	}
	if slug, _ := FormDraft(KindTopic, "", map[string]string{}); slug != "preview" {
		t.Errorf("a topic without a slug yet: %q", slug)
	}
	if slug, _ := FormDraft(KindNews, "stored", form); slug != "stored" {
		t.Errorf("a stored item: %q", slug)
	}
}

func TestWithDraft(t *testing.T) {
	t.Parallel()
	published := &Library{Topics: map[string]Topic{"stalkers": {Slug: "stalkers", Title: "Stalkers",
		Parts: []Article{{Slug: "one", Part: 1, Title: "One"}}}}}
	lib, err := published.WithDraft(KindArticle, "stalkers/two", map[string]string{"title": "Two", "part": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if topic := lib.Topics["stalkers"]; topic.Title != "Stalkers" || len(topic.Parts) != 1 || topic.Parts[0].Title != "Two" {
		t.Errorf("a part shows inside its published topic, alone: %+v", topic)
	}
	lib, err = published.WithDraft(KindTopic, "stalkers", map[string]string{"title": "Stalkers 2"})
	if err != nil {
		t.Fatal(err)
	}
	if topic := lib.Topics["stalkers"]; topic.Title != "Stalkers 2" || len(topic.Parts) != 1 || topic.Parts[0].Title != "One" {
		t.Errorf("a topic shows with its published parts: %+v", topic)
	}
}

func TestPictures(t *testing.T) {
	t.Parallel()
	static := fstest.MapFS{
		"static/img/b.png":           {},
		"static/img/a.svg":           {},
		"static/img/notes.txt":       {},
		"static/brands/x/logo.svg":   {},
		"static/breaches/y/logo.png": {},
	}
	got, err := Pictures(static)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"/static/img/a.svg", "/static/img/b.png"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got, err := Pictures(nil); got != nil || err != nil {
		t.Errorf("no static files: %v %v", got, err)
	}
}

func newsFields(title string) map[string]string {
	return map[string]string{"title": title, "date": "2025-02-28", "summary": "A summary.", "body": "Some **news**.\n"}
}
