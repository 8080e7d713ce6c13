package screens

import (
	"sort"
	"strconv"
	"strings"

	"glimpse/engine/brand"
	"glimpse/engine/library"
	"glimpse/engine/ui"
)

// studioKinds are the kinds the studio's home lists, in its order.
var studioKinds = []string{library.KindNews, library.KindTopic, library.KindArticle, library.KindPage}

// StudioKinds returns the kinds of item the studio's home lists.
func StudioKinds() []string { return studioKinds }

// StudioItems groups stored items by kind for the studio's home.
func StudioItems(docs []library.Doc) map[string][]StudioItem {
	groups := map[string][]StudioItem{}
	for _, d := range docs {
		groups[d.Kind] = append(groups[d.Kind], StudioItem{Kind: d.Kind, Slug: d.Slug, Title: d.Draft["title"],
			Status: d.Status, Pending: d.HasUnpublishedChanges()})
	}
	return groups
}

// StudioFields are the inputs of an item, in form order: the content
// package's fields for its kind, labelled in the brand's copy.
func StudioFields(c Context, kind, slug string) []StudioField {
	var out []StudioField
	for _, f := range library.Fields(kind, slug) {
		label := c.T("studio.field." + f.Name)
		if kind == library.KindCopy {
			label = c.T("studio.field.copy")
		}
		// A topic's background is a picture too, though the content package
		// checks it only as text.
		picture := f.Format == library.FormatImage || f.Name == "background"
		out = append(out, StudioField{Name: f.Name, Label: label, Multiline: f.Multiline, Picture: picture,
			Required: f.Required, Max: f.Max})
	}
	return out
}

// StudioPictures are the options of a picture field: each image (a /static/
// path, library.Pictures) labelled with its path and shown as itself.
func StudioPictures(paths []string) []ui.Option {
	var out []ui.Option
	for _, src := range paths {
		out = append(out, ui.Option{Value: src, Label: src, Image: &ui.ImageRef{Src: src, Alt: ""}})
	}
	return out
}

// StudioNewItem is the edit screen of a new item of kind; its preview starts
// empty and fills in as the editor types.
func StudioNewItem(c Context, kind string, canEdit bool, pictures []string) Page {
	return StudioEdit(c, StudioEditState{Kind: kind, New: true, CanEdit: canEdit, Fields: StudioFields(c, kind, ""),
		Values: map[string]string{}, Pictures: StudioPictures(pictures),
		Preview: &ui.Node{Type: "stack", Gap: "md", Children: []*ui.Node{}}})
}

// StudioNewCopy is the edit screen of a copy item not edited yet: it starts
// from current, the text the brand shows now.
// It says which brand's copy is edited and draws the text in place on its
// screen (preview, CopyPreview).
func StudioNewCopy(c Context, slug, current string, canEdit bool, target StudioCopyTarget, preview *ui.Node) Page {
	return StudioEdit(c, StudioNewCopyState(c, slug, current, canEdit, target, preview))
}

// StudioNewCopyState is what StudioNewCopy shows, for a caller that adds to
// it (scheduled publishing) before composing the screen with StudioEdit.
func StudioNewCopyState(c Context, slug, current string, canEdit bool, target StudioCopyTarget, preview *ui.Node) StudioEditState {
	_, key, _ := strings.Cut(slug, "/")
	return StudioEditState{Kind: library.KindCopy, Slug: slug, Title: key, Status: library.StatusDraft,
		CanEdit: canEdit, Fields: StudioFields(c, library.KindCopy, slug), Values: map[string]string{"body": current},
		Brand: target.BrandName, Preview: preview}
}

// StudioCopyEdit is the edit screen of a stored copy item: StudioItemEdit's,
// with its brand named and its text drawn in place on its screen.
func StudioCopyEdit(c Context, d library.Doc, canEdit bool, pictures []string, target StudioCopyTarget, preview *ui.Node) Page {
	return StudioEdit(c, StudioCopyState(c, d, canEdit, pictures, target, preview))
}

// StudioCopyState is what StudioCopyEdit shows, for a caller that adds to it.
func StudioCopyState(c Context, d library.Doc, canEdit bool, pictures []string, target StudioCopyTarget, preview *ui.Node) StudioEditState {
	return studioItemState(c, d, canEdit, pictures, preview, target.BrandName)
}

// StudioItemEdit is the edit screen of a stored item, its revisions newest
// first; preview is the body of its subscriber screen (StudioPreviewBody).
func StudioItemEdit(c Context, d library.Doc, canEdit bool, pictures []string, preview *ui.Node) Page {
	return StudioEdit(c, StudioItemState(c, d, canEdit, pictures, preview))
}

// StudioItemState is what StudioItemEdit shows, for a caller that adds to it
// (scheduled publishing) before composing the screen with StudioEdit.
func StudioItemState(c Context, d library.Doc, canEdit bool, pictures []string, preview *ui.Node) StudioEditState {
	return studioItemState(c, d, canEdit, pictures, preview, "")
}

func studioItemState(c Context, d library.Doc, canEdit bool, pictures []string, preview *ui.Node, brandName string) StudioEditState {
	revs := make([]StudioRevision, 0, len(d.Revisions))
	for i := len(d.Revisions) - 1; i >= 0; i-- {
		rv := d.Revisions[i]
		revs = append(revs, StudioRevision{N: rv.N, Action: rv.Action, By: rv.By,
			At: rv.At.UTC().Format(studioTimeLayout), Changed: rv.Changed})
	}
	return StudioEditState{Kind: d.Kind, Slug: d.Slug, Title: studioTitle(d), Status: d.Status,
		Pending: d.HasUnpublishedChanges(), CanEdit: canEdit, Fields: StudioFields(c, d.Kind, d.Slug), Values: d.Draft,
		Revisions: revs, Pictures: StudioPictures(pictures), Preview: preview, Brand: brandName}
}

// studioTitle names an item in the studio: its title, or a copy item's key.
func studioTitle(d library.Doc) string {
	if d.Kind == library.KindCopy {
		_, key, _ := strings.Cut(d.Slug, "/")
		return key
	}
	return d.Draft["title"]
}

// StudioCopyItems lists a brand's copy keys (those of the default brand, in
// name order) with the text each shows now.
func StudioCopyItems(copyOf brand.Copy, brandKey string, keys []string) []StudioItem {
	keys = append([]string(nil), keys...)
	sort.Strings(keys)
	items := make([]StudioItem, 0, len(keys))
	for _, k := range keys {
		items = append(items, StudioItem{Kind: library.KindCopy, Slug: brandKey + "/" + k, Title: copyOf.T(k)})
	}
	return items
}

// StudioPreview is a subscriber screen shown as a draft's preview: it keeps
// the studio's way back to the item.
func StudioPreview(c Context, page Page, kind, slug string) Page {
	page.Screen.Header = &ui.Node{Type: "header", Title: c.T("studio.preview"),
		Back: ui.Navigate(PathStudioEdit + kind + "/" + slug), BackLabel: c.T("subpage.back")}
	return page
}

// StudioPreviewBody is the body of a subscriber screen, as the edit screen's
// live preview shows it.
func StudioPreviewBody(page Page) *ui.Node {
	return &ui.Node{Type: "stack", Gap: "md", Children: page.Screen.Children}
}

// Operator is who runs the service, as the legal pages name them.
type Operator struct {
	Name, Address string
	// TaxYears is how long a deleted account's payment records are kept.
	TaxYears int
}

// LegalOf is the privacy policy or the terms with their placeholders filled
// from the operator and the brand.
func LegalOf(c Context, id string, l library.Legal, op Operator) Page {
	body := l.Render(map[string]string{"operator_name": op.Name, "operator_address": op.Address,
		"support_email": c.Brand.SupportEmail, "product_name": c.Brand.Name, "tax_years": strconv.Itoa(op.TaxYears)})
	return LegalPage(c, id, l, body)
}

// ReadingPage composes, from lib, the subscriber screen that shows an
// editable item: one per kind, a page's by its slug. ok is false when no
// reading screen shows the item (copy) or lib does not hold it. The studio
// composes its previews from a library holding a draft (library.WithDraft).
func ReadingPage(c Context, lib *library.Library, kind, slug string, op Operator) (Page, bool) {
	switch kind {
	case library.KindNews:
		if n, ok := lib.NewsItem(slug); ok {
			return NewsPost(c, &n), true
		}
	case library.KindTopic:
		if t, ok := lib.Topics[slug]; ok {
			return TopicPage(c, t), true
		}
	case library.KindArticle:
		topicSlug, partSlug, _ := strings.Cut(slug, "/")
		topic := lib.Topics[topicSlug]
		if part, ok := topic.Part(partSlug); ok {
			return TopicArticle(c, topic, part), true
		}
	case library.KindPage:
		switch slug {
		case "insights":
			var latest *library.NewsItem
			if len(lib.News) > 0 {
				latest = &lib.News[0]
			}
			return Insights(c, lib.Insights, latest), true
		case "top-trends":
			return ReadingArticle(c, slug, lib.Trends), true
		case "top-hacks":
			return ReadingArticle(c, slug, lib.Hacks), true
		case "privacy":
			return LegalOf(c, slug, lib.Privacy, op), true
		case "terms":
			return LegalOf(c, slug, lib.Terms, op), true
		}
	}
	return Page{}, false
}
