package library

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// SeedDoc is one editable item as it comes from the content/ files: its
// kind, slug and fields (front matter values and the Markdown body).
type SeedDoc struct {
	Kind, Slug string
	Fields     map[string]string
}

// SeedDocs reads the content files as editable items.
func SeedDocs(fsys fs.FS) ([]SeedDoc, error) {
	var out []SeedDoc
	add := func(kind, slug, p string) error {
		var meta map[string]any
		body, err := readDoc(fsys, p, &meta)
		if err != nil {
			return err
		}
		fields := map[string]string{"body": strings.TrimSpace(body)}
		for k, v := range meta {
			// Only what editors can change (the field table, Fields) is
			// copied; other keys, such as a legal page's review note, stay
			// in the files.
			if _, ok := fieldRules[k]; k == "body" || !ok {
				continue
			}
			switch x := v.(type) {
			case time.Time:
				fields[k] = x.Format(time.DateOnly)
			default:
				fields[k] = fmt.Sprint(x)
			}
		}
		if kind == KindTopic {
			delete(fields, "body")
		}
		out = append(out, SeedDoc{Kind: kind, Slug: slug, Fields: fields})
		return nil
	}
	pages := map[string]string{"insights": "insights/insights.md", "top-trends": "articles/top-trends.md",
		"top-hacks": "articles/top-hacks.md", "privacy": "legal/privacy.md", "terms": "legal/terms-of-use.md"}
	for slug, p := range pages {
		if err := add(KindPage, slug, p); err != nil {
			return nil, err
		}
	}
	topics, _ := fs.Glob(fsys, "articles/*/topic.md")
	for _, p := range topics {
		topic := path.Base(path.Dir(p))
		if err := add(KindTopic, topic, p); err != nil {
			return nil, err
		}
		parts, _ := fs.Glob(fsys, path.Join(path.Dir(p), "*.md"))
		for _, pp := range parts {
			if path.Base(pp) != "topic.md" {
				if err := add(KindArticle, topic+"/"+strings.TrimSuffix(path.Base(pp), ".md"), pp); err != nil {
					return nil, err
				}
			}
		}
	}
	news, _ := fs.Glob(fsys, "news/*.md")
	for _, p := range news {
		if err := add(KindNews, strings.TrimSuffix(path.Base(p), ".md"), p); err != nil {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return DocID(out[i].Kind, out[i].Slug) < DocID(out[j].Kind, out[j].Slug) })
	return out, nil
}

// FromDocs builds the reading library from items' fields (the published
// copies, in production), the same way Load reads the files.
func FromDocs(docs []SeedDoc) (*Library, error) {
	lib := &Library{Topics: map[string]Topic{}}
	parts := map[string][]Article{}
	for _, d := range docs {
		f := d.Fields
		switch d.Kind {
		case KindPage:
			switch d.Slug {
			case "insights":
				// An incomplete page shows what it has rather than failing
				// every reading screen.
				in, _ := parseInsights(f["body"])
				in.Title = f["title"]
				lib.Insights = in
			case "top-trends":
				lib.Trends = Article{Slug: d.Slug, Title: f["title"], Body: Markdown(f["body"])}
			case "top-hacks":
				lib.Hacks = Article{Slug: d.Slug, Title: f["title"], Body: Markdown(f["body"])}
			case "privacy", "terms":
				updated, _ := time.Parse(time.DateOnly, f["updated"])
				l := Legal{Title: f["title"], Updated: updated, Source: f["body"]}
				if d.Slug == "privacy" {
					lib.Privacy = l
				} else {
					lib.Terms = l
				}
			}
		case KindTopic:
			lib.Topics[d.Slug] = Topic{Slug: d.Slug, Title: f["title"], Description: f["description"], Background: f["background"]}
		case KindArticle:
			topic, slug, _ := strings.Cut(d.Slug, "/")
			part, _ := strconv.Atoi(f["part"])
			parts[topic] = append(parts[topic], Article{Slug: slug, Part: part, Title: f["title"],
				Description: f["description"], Overview: f["overview"], Conclusion: f["conclusion"], Body: Markdown(f["body"])})
		case KindNews:
			date, _ := time.Parse(time.DateOnly, f["date"])
			lib.News = append(lib.News, NewsItem{Slug: d.Slug, Title: f["title"], Date: date, Image: f["image"],
				Summary: f["summary"], Body: Markdown(f["body"])})
		}
	}
	for slug, t := range lib.Topics {
		t.Parts = parts[slug]
		sort.Slice(t.Parts, func(i, j int) bool { return t.Parts[i].Part < t.Parts[j].Part })
		lib.Topics[slug] = t
	}
	sort.Slice(lib.News, func(i, j int) bool {
		if !lib.News[i].Date.Equal(lib.News[j].Date) {
			return lib.News[i].Date.After(lib.News[j].Date)
		}
		return lib.News[i].Slug < lib.News[j].Slug
	})
	return lib, nil
}

// SeedRepo copies the content files into the repository, leaving items that
// already exist (and so any editor's work) alone.
func SeedRepo(ctx context.Context, repo *Repo, fsys fs.FS) error {
	docs, err := SeedDocs(fsys)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if err := repo.SeedItem(ctx, d.Kind, d.Slug, d.Fields); err != nil {
			return fmt.Errorf("seed %s: %w", DocID(d.Kind, d.Slug), err)
		}
	}
	return nil
}

// LoadPublished builds the reading library from what is published in the
// repository; drafts and unpublished items are not shown to subscribers.
func LoadPublished(ctx context.Context, repo *Repo) (*Library, error) {
	var docs []SeedDoc
	for _, kind := range []string{KindPage, KindTopic, KindArticle, KindNews} {
		items, err := repo.List(ctx, kind)
		if err != nil {
			return nil, err
		}
		for _, d := range items {
			if d.Status == StatusPublished && d.Published != nil {
				docs = append(docs, SeedDoc{Kind: d.Kind, Slug: d.Slug, Fields: d.Published})
			}
		}
	}
	return FromDocs(docs)
}

// LoadCopyOverrides returns the published copy edits: brand → key → text.
func LoadCopyOverrides(ctx context.Context, repo *Repo) (map[string]map[string]string, error) {
	items, err := repo.List(ctx, KindCopy)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	for _, d := range items {
		if d.Status != StatusPublished || d.Published == nil {
			continue
		}
		brandKey, key, _ := strings.Cut(d.Slug, "/")
		if out[brandKey] == nil {
			out[brandKey] = map[string]string{}
		}
		out[brandKey][key] = d.Published["body"]
	}
	return out, nil
}
