package library

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"glimpse/engine/ui"
)

// Article is a piece of reading: a trend or hack article or one part of a
// topic.
type Article struct {
	Slug        string `yaml:"slug"`
	Part        int    `yaml:"part"`
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
	Overview    string `yaml:"overview"`
	Conclusion  string `yaml:"conclusion"`
	Body        []ui.RichBlock
}

// Topic is a series of articles (secret-admirers, detect-stalkers).
type Topic struct {
	Slug        string `yaml:"slug"`
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
	Background  string `yaml:"background"`
	Parts       []Article
}

// Part returns the part with a sub-slug.
func (t Topic) Part(slug string) (Article, bool) {
	for _, a := range t.Parts {
		if a.Slug == slug {
			return a, true
		}
	}
	return Article{}, false
}

// NewsItem is one news post.
type NewsItem struct {
	Slug    string    `yaml:"slug"`
	Title   string    `yaml:"title"`
	Date    time.Time `yaml:"date"`
	Image   string    `yaml:"image"`
	Summary string    `yaml:"summary"`
	Body    []ui.RichBlock
}

// Recommendation is one card of Tips & Insights.
type Recommendation struct {
	Title string
	Body  []ui.RichBlock
}

// Insights is the Tips & Insights page.
type Insights struct {
	Title      string
	Engagement []Recommendation
	Followers  []Recommendation
	Summary    [][]ui.Span
}

// Legal is a legal page: its title, its date and its text, with the
// operator's details left as {{placeholders}} for the server to fill in.
type Legal struct {
	Title   string    `yaml:"title"`
	Updated time.Time `yaml:"updated"`
	Source  string    // Markdown with {{operator_name}}, {{operator_address}}, {{support_email}}, {{product_name}}, {{tax_years}}
}

// Render fills in the operator's details and parses the text.
func (l Legal) Render(values map[string]string) []ui.RichBlock {
	src := l.Source
	for k, v := range values {
		src = strings.ReplaceAll(src, "{{"+k+"}}", v)
	}
	return Markdown(src)
}

// Library is everything subscribers read, parsed once and held in memory so
// content screens need no database round trip.
type Library struct {
	Insights Insights
	Trends   Article
	Hacks    Article
	Topics   map[string]Topic
	News     []NewsItem // newest first
	Privacy  Legal
	Terms    Legal
}

// NewsItem returns the news post with a slug.
func (l *Library) NewsItem(slug string) (NewsItem, bool) {
	for _, n := range l.News {
		if n.Slug == slug {
			return n, true
		}
	}
	return NewsItem{}, false
}

// Load reads the library from fsys (content.Library in production).
func Load(fsys fs.FS) (*Library, error) {
	lib := &Library{Topics: map[string]Topic{}}
	var err error
	if lib.Insights, err = loadInsights(fsys, "insights/insights.md"); err != nil {
		return nil, err
	}
	if lib.Trends, err = loadArticle(fsys, "articles/top-trends.md"); err != nil {
		return nil, err
	}
	if lib.Hacks, err = loadArticle(fsys, "articles/top-hacks.md"); err != nil {
		return nil, err
	}
	for p, into := range map[string]*Legal{"legal/privacy.md": &lib.Privacy, "legal/terms-of-use.md": &lib.Terms} {
		if into.Source, err = readDoc(fsys, p, into); err != nil {
			return nil, err
		}
		into.Source = strings.TrimSpace(into.Source)
	}
	topics, err := fs.Glob(fsys, "articles/*/topic.md")
	if err != nil {
		return nil, fmt.Errorf("list topics: %w", err)
	}
	for _, p := range topics {
		var t Topic
		if _, err := readDoc(fsys, p, &t); err != nil {
			return nil, err
		}
		parts, _ := fs.Glob(fsys, path.Join(path.Dir(p), "*.md"))
		for _, pp := range parts {
			if path.Base(pp) == "topic.md" {
				continue
			}
			a, err := loadArticle(fsys, pp)
			if err != nil {
				return nil, err
			}
			t.Parts = append(t.Parts, a)
		}
		sort.Slice(t.Parts, func(i, j int) bool { return t.Parts[i].Part < t.Parts[j].Part })
		if t.Slug == "" || len(t.Parts) == 0 {
			return nil, fmt.Errorf("%s: a topic needs a slug and parts", p)
		}
		lib.Topics[t.Slug] = t
	}
	news, _ := fs.Glob(fsys, "news/*.md")
	for _, p := range news {
		var n NewsItem
		body, err := readDoc(fsys, p, &n)
		if err != nil {
			return nil, err
		}
		if n.Slug == "" || n.Title == "" {
			return nil, fmt.Errorf("%s: news needs a slug and a title", p)
		}
		n.Body = Markdown(body)
		lib.News = append(lib.News, n)
	}
	sort.Slice(lib.News, func(i, j int) bool {
		if !lib.News[i].Date.Equal(lib.News[j].Date) {
			return lib.News[i].Date.After(lib.News[j].Date)
		}
		return lib.News[i].Slug < lib.News[j].Slug
	})
	return lib, nil
}

func loadArticle(fsys fs.FS, p string) (Article, error) {
	var a Article
	body, err := readDoc(fsys, p, &a)
	if err != nil {
		return Article{}, err
	}
	if a.Title == "" {
		return Article{}, fmt.Errorf("%s: an article needs a title", p)
	}
	if a.Slug == "" {
		a.Slug = strings.TrimSuffix(path.Base(p), ".md")
	}
	a.Body = Markdown(body)
	return a, nil
}

// loadInsights reads the Tips & Insights page: "## Increase engagement" and
// "## Increase followers" hold "### " recommendations; "## Summary" a list.
func loadInsights(fsys fs.FS, p string) (Insights, error) {
	var title string
	body, err := readDoc(fsys, p, &struct {
		Title *string `yaml:"title"`
	}{&title})
	if err != nil {
		return Insights{}, err
	}
	in, err := parseInsights(body)
	if err != nil {
		return in, fmt.Errorf("%s: %w", p, err)
	}
	in.Title = title
	return in, nil
}

// parseInsights reads the Tips & Insights body.
func parseInsights(body string) (Insights, error) {
	var in Insights
	for _, section := range splitHeadings(body, "## ") {
		switch strings.ToLower(section.title) {
		case "increase engagement":
			in.Engagement = recommendations(section.body)
		case "increase followers":
			in.Followers = recommendations(section.body)
		case "summary":
			for _, b := range Markdown(section.body) {
				if b.Kind == "list" {
					in.Summary = append(in.Summary, b.Items...)
				}
			}
		}
	}
	if len(in.Engagement) == 0 || len(in.Followers) == 0 || len(in.Summary) == 0 {
		return in, fmt.Errorf("insights need engagement and follower recommendations and a summary")
	}
	return in, nil
}

func recommendations(src string) []Recommendation {
	var out []Recommendation
	for _, s := range splitHeadings(src, "### ") {
		if s.title != "" {
			out = append(out, Recommendation{Title: s.title, Body: Markdown(s.body)})
		}
	}
	return out
}

type headed struct{ title, body string }

// splitHeadings cuts Markdown at lines starting with marker ("## ").
func splitHeadings(src, marker string) []headed {
	var out []headed
	cur := headed{}
	var body strings.Builder
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(line, marker) {
			cur.body = body.String()
			out = append(out, cur)
			cur, body = headed{title: strings.TrimSpace(strings.TrimPrefix(line, marker))}, strings.Builder{}
			continue
		}
		body.WriteString(line + "\n")
	}
	cur.body = body.String()
	return append(out, cur)
}

// readDoc splits front matter (YAML between --- lines) from the Markdown
// body and decodes the front matter into meta.
func readDoc(fsys fs.FS, p string, meta any) (string, error) {
	raw, err := fs.ReadFile(fsys, p)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	raw = bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n"))
	rest, ok := bytes.CutPrefix(raw, []byte("---\n"))
	if !ok {
		return "", fmt.Errorf("%s: missing front matter", p)
	}
	front, body, ok := bytes.Cut(rest, []byte("\n---\n"))
	if !ok {
		return "", fmt.Errorf("%s: unterminated front matter", p)
	}
	if err := yaml.Unmarshal(front, meta); err != nil {
		return "", fmt.Errorf("%s: front matter: %w", p, err)
	}
	return string(body), nil
}
