package lesson

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"glimpse/engine/ui"
)

// loadContent loads the real lessons from the repository's content
// directory.
func loadContent(tb testing.TB) []Doc {
	tb.Helper()
	docs, err := Load(os.DirFS("../../content"))
	if err != nil {
		tb.Fatalf("Load: %v", err)
	}
	return docs
}

func TestLoad(t *testing.T) {
	t.Parallel()
	docs := loadContent(t)
	// A key word of each lesson title in the course's order, then the
	// playbook.
	want := []string{"bio", "profile picture", "planning", "stories", "captions", "hashtag",
		"community", "giveaways", "insights", "collaborating", "reels playbook"}
	if len(docs) != len(want) {
		t.Fatalf("%d documents, want %d", len(docs), len(want))
	}
	for i, d := range docs {
		if !strings.Contains(strings.ToLower(d.Title), want[i]) {
			t.Errorf("document %d is %q, want a title with %q", i+1, d.Title, want[i])
		}
		if i < 10 {
			if d.Number != i+1 || d.Slug != fmt.Sprintf("lesson-%02d", i+1) {
				t.Errorf("document %d has number %d and slug %q", i+1, d.Number, d.Slug)
			}
		} else if d.Slug != "reels-playbook" || d.IsLesson() {
			t.Errorf("last document is %q (number %d), want the playbook", d.Slug, d.Number)
		}
		if d.Subtitle == "" || len(d.Body) < 5 {
			t.Errorf("%s: subtitle %q and %d blocks, want a subtitle and a body", d.Slug, d.Subtitle, len(d.Body))
		}
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	docs := loadContent(t)
	tests := []struct {
		name string
		doc  Doc
		// cover are whole lines expected on page 1.
		cover []string
	}{
		{"lesson 1", docs[0], []string{"Glimpse", "Instagram PRO course", "Lesson 1", "Crafting the Perfect Bio"}},
		{"playbook", docs[len(docs)-1], []string{"Glimpse", "Reels playbook", "The Reels Playbook"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pdf, err := Render(tt.doc, "Glimpse")
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
				t.Fatalf("output starts with %q, want %%PDF-", pdf[:min(8, len(pdf))])
			}
			doc := parsePDF(t, pdf)
			if got := len(regexp.MustCompile(`/Type\s*/Page\b`).FindAll(pdf, -1)); got != len(doc.Pages) {
				t.Errorf("%d /Type /Page objects, but the page tree has %d kids", got, len(doc.Pages))
			}
			if len(doc.Pages) < 3 {
				t.Fatalf("%d pages, want at least 3", len(doc.Pages))
			}
			// Every font is embedded as a TrueType program with a ToUnicode
			// map, which is what makes the text extractable.
			fonts, maps := bytes.Count(pdf, []byte("/FontFile2")), bytes.Count(pdf, []byte("/ToUnicode"))
			if fonts < 2 || maps != fonts {
				t.Errorf("%d /FontFile2 and %d /ToUnicode entries, want at least 2 fonts each with a map", fonts, maps)
			}
			for _, line := range tt.cover {
				if !slices.Contains(doc.Pages[0], line) {
					t.Errorf("cover has no line %q; its lines are %q", line, doc.Pages[0])
				}
			}
			for n, page := range doc.Pages {
				footer := fmt.Sprintf("Page %d of %d", n+1, len(doc.Pages))
				if !slices.Contains(page, footer) {
					t.Errorf("page %d has no footer %q", n+1, footer)
				}
			}
			// The body's headings are extractable, and its text survives
			// wrapping: each heading is one line, since none is long.
			all := doc.Joined()
			for _, b := range tt.doc.Body {
				if b.Kind == "heading" && !strings.Contains(all, plain(b.Spans)) {
					t.Errorf("text has no heading %q", plain(b.Spans))
				}
			}
		})
	}
}

// plain is the text of spans without styles.
func plain(spans []ui.Span) string {
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(s.Text)
	}
	return b.String()
}

func TestRenderRichText(t *testing.T) {
	t.Parallel()
	d := Doc{
		Slug: "lesson-99", Number: 99, Title: "Styles", Subtitle: "Every inline style",
		Body: []ui.RichBlock{
			{Kind: "heading", Level: 2, Spans: []ui.Span{{Text: "Mixed "}, {Text: "spans", Em: true}}},
			{Kind: "paragraph", Spans: []ui.Span{
				{Text: "Plain, "}, {Text: "bold", Strong: true}, {Text: ", "}, {Text: "italic", Em: true},
				{Text: ", "}, {Text: "both", Strong: true, Em: true}, {Text: " and "},
				{Text: "a link", Href: "https://example.com/a"}, {Text: " and "},
				{Text: "https://example.com/b", Href: "https://example.com/b"}, {Text: ". " + strings.Repeat("x", 200)},
			}},
			{Kind: "list", Ordered: true, Items: [][]ui.Span{{{Text: "first"}}, {{Text: "second"}}}},
			{Kind: "list", Items: [][]ui.Span{{{Text: "bullet"}}}},
		},
	}
	pdf, err := Render(d, "Glimpse")
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	if got := bytes.Count(pdf, []byte("/FontFile2")); got != 4 {
		t.Errorf("%d fonts embedded, want 4 (regular, bold, italic, bold italic)", got)
	}
	body := parsePDF(t, pdf).Pages[1]
	for _, line := range []string{"Mixed", "spans", "bold", "italic", "both", "a link", "(https://example.com/a) and",
		"https://example.com/b", "1.", "first", "2.", "second", "•", "bullet"} {
		if !slices.Contains(body, line) {
			t.Errorf("page 2 has no line %q; its lines are %q", line, body)
		}
	}
	if strings.Contains(strings.Join(body, " "), "(https://example.com/b)") {
		t.Error("a link whose text is its address has the address repeated")
	}
	for _, line := range body {
		if strings.Count(line, "x") > 120 {
			t.Errorf("a %d-character word was not broken to fit the line", len(line))
		}
	}
}

func TestRenderDeterministic(t *testing.T) {
	t.Parallel()
	d := loadContent(t)[0]
	first, err := Render(d, "Glimpse")
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	second, err := Render(d, "Glimpse")
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	if !bytes.Equal(first, second) {
		t.Error("two renders of the same lesson differ")
	}
}

func TestCache(t *testing.T) {
	t.Parallel()
	d := loadContent(t)[0]
	cache := NewCache(func(d Doc) ([]byte, error) { return Render(d, "Glimpse") })

	first, etag, err := cache.Get(d)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	second, etag2, err := cache.Get(d)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if cache.Renders() != 1 || etag != etag2 || !bytes.Equal(first, second) {
		t.Errorf("two Gets of an unchanged lesson: %d renders, etags %s and %s; want 1 render and one etag", cache.Renders(), etag, etag2)
	}

	changed := d
	changed.Body = append(slices.Clone(d.Body), ui.RichBlock{Kind: "paragraph", Spans: []ui.Span{{Text: "A new closing line."}}})
	third, etag3, err := cache.Get(changed)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if cache.Renders() != 2 || etag3 == etag || bytes.Equal(third, first) {
		t.Errorf("Get after the body changed: %d renders, etag %s (was %s); want a second render and a new etag", cache.Renders(), etag3, etag)
	}
	if !strings.Contains(parsePDF(t, third).Joined(), "A new closing line.") {
		t.Error("the regenerated PDF lacks the new text")
	}
}

// TestCacheConcurrent checks that Gets racing for the same lesson render it
// once.
func TestCacheConcurrent(t *testing.T) {
	t.Parallel()
	docs := loadContent(t)[:2]
	cache := NewCache(func(d Doc) ([]byte, error) { return []byte(d.Title), nil })
	var wg sync.WaitGroup
	for range 8 {
		for _, d := range docs {
			wg.Go(func() {
				if _, _, err := cache.Get(d); err != nil {
					t.Errorf("Get: %v", err)
				}
			})
		}
	}
	wg.Wait()
	if got := cache.Renders(); got != len(docs) {
		t.Errorf("%d renders, want %d (one per lesson)", got, len(docs))
	}
}

func BenchmarkRenderLesson(b *testing.B) {
	d := loadContent(b)[0]
	var size int
	for b.Loop() {
		pdf, err := Render(d, "Glimpse")
		if err != nil {
			b.Fatal(err)
		}
		size = len(pdf)
	}
	b.ReportMetric(float64(size), "bytes/pdf")
}

// BenchmarkCacheHit is the cost of serving a cached PDF: hashing the
// lesson's content, no rendering.
func BenchmarkCacheHit(b *testing.B) {
	d := loadContent(b)[0]
	cache := NewCache(func(d Doc) ([]byte, error) { return Render(d, "Glimpse") })
	if _, _, err := cache.Get(d); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := cache.Get(d); err != nil {
			b.Fatal(err)
		}
	}
	if cache.Renders() != 1 {
		b.Fatalf("%d renders, want 1", cache.Renders())
	}
}
