package library

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"strings"
	"time"

	"glimpse/engine"
)

// Edit saves an editor's fields as an item's draft (Save), creating the item
// when isNew. A copy item comes into being on its first save, whatever isNew
// says: every copy key exists in the brand before anyone edits it.
func (r *Repo) Edit(ctx context.Context, kind, slug string, fields map[string]string, by string, isNew bool) (Doc, error) {
	if kind == KindCopy {
		_, err := r.Get(ctx, kind, slug)
		isNew = engine.IsNotFound(err)
	}
	return r.Save(ctx, kind, slug, fields, by, isNew)
}

// PublishEdit publishes what the editor sees: fields, when there are any,
// are saved first (Edit), so an edit not yet saved is published rather than
// silently dropped. Fields that break their rules publish nothing and return
// Save's *InvalidError.
func (r *Repo) PublishEdit(ctx context.Context, kind, slug string, fields map[string]string, by string) (Doc, error) {
	if len(fields) > 0 {
		if _, err := r.Edit(ctx, kind, slug, fields, by, false); err != nil {
			return Doc{}, err
		}
	}
	return r.Publish(ctx, kind, slug, by)
}

// WithDraft is the library subscribers would read once an item with these
// fields is published: the item alone, shown among what l publishes (a
// topic with its published parts, a part inside its published topic).
func (l *Library) WithDraft(kind, slug string, fields map[string]string) (*Library, error) {
	docs := []SeedDoc{{Kind: kind, Slug: slug, Fields: fields}}
	if kind == KindArticle {
		topicSlug, _, _ := strings.Cut(slug, "/")
		topic := l.Topics[topicSlug]
		docs = append(docs, SeedDoc{Kind: KindTopic, Slug: topicSlug,
			Fields: map[string]string{"title": topic.Title, "description": topic.Description}})
	}
	lib, err := FromDocs(docs)
	if err != nil {
		return nil, err
	}
	if t, ok := lib.Topics[slug]; ok && kind == KindTopic {
		t.Parts = l.Topics[slug].Parts
		lib.Topics[slug] = t
	}
	return lib, nil
}

// PreviewFields are the fields of a draft as a preview shows them: a field
// that breaks its rule is left out, as it could never be published, and a
// news item without a date is dated today (it is dated when it is written),
// rather than year 1.
func PreviewFields(kind, slug string, fields map[string]string, today time.Time) map[string]string {
	if _, problems := Validate(kind, slug, fields); len(problems) > 0 {
		kept := make(map[string]string, len(fields))
		for k, v := range fields {
			if _, bad := problems[k]; !bad {
				kept[k] = v
			}
		}
		fields = kept
	}
	if kind == KindNews && fields["date"] == "" {
		fields = maps.Clone(fields)
		fields["date"] = today.UTC().Format(time.DateOnly)
	}
	return fields
}

// FormDraft picks an item's slug and fields out of the values of its edit
// form as the editor has them now: the slug is the stored one, or for a new
// item the one typed so far, or a stand-in until there is one; inputs the
// kind does not have are left out.
func FormDraft(kind, slug string, form map[string]string) (string, map[string]string) {
	if slug == "" {
		slug = strings.TrimSpace(form["slug"])
	}
	if slug == "" && (kind == KindNews || kind == KindTopic) {
		slug = "preview"
	}
	fields := map[string]string{}
	for _, f := range Fields(kind, slug) {
		if v, ok := form[f.Name]; ok {
			fields[f.Name] = v
		}
	}
	return slug, fields
}

// Pictures are the images an editor may pick for a picture field: the
// content's own under static/, as /static/ paths in name order. Brand logos
// and breached services' logos are the app's furniture, not reading
// pictures, so they are left out.
func Pictures(static fs.FS) ([]string, error) {
	if static == nil {
		return nil, nil
	}
	var out []string
	err := fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (p == "static/brands" || p == "static/breaches") {
			return fs.SkipDir
		}
		switch path.Ext(p) {
		case ".svg", ".png", ".jpg", ".webp":
		default:
			return nil
		}
		if d.IsDir() {
			return nil
		}
		out = append(out, "/"+p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("content pictures: %w", err)
	}
	return out, nil
}
