package screens

import (
	"slices"
	"strconv"
	"strings"

	"glimpse/engine/library"
	"glimpse/engine/ui"
)

// PathStudioRevision is the page of one revision: /studio/revision/<n>/<kind>/<slug>,
// the number first since a slug may hold a slash (an article's, a copy
// key's).
const PathStudioRevision = "/studio/revision/"

// StudioAgainstParam, set to StudioAgainstDraft, compares a revision with
// the current draft instead of the revision before it.
const (
	StudioAgainstParam = "against"
	StudioAgainstDraft = "draft"
)

// StudioRevisionPath is the address of revision n of an item.
func StudioRevisionPath(kind, slug string, n int) string {
	return PathStudioRevision + strconv.Itoa(n) + "/" + kind + "/" + slug
}

// ParseStudioRevisionPath reads the revision number, kind and slug of a
// revision page's path; ok is false for one that names none.
func ParseStudioRevisionPath(path string) (n int, kind, slug string, ok bool) {
	rest, found := strings.CutPrefix(path, PathStudioRevision)
	if !found {
		return 0, "", "", false
	}
	num, rest, _ := strings.Cut(rest, "/")
	kind, slug, _ = strings.Cut(rest, "/")
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || kind == "" || slug == "" || strconv.Itoa(n) != num {
		return 0, "", "", false
	}
	return n, kind, slug, true
}

// StudioRevisionView shows revision n of d whole and read-only, each field
// with what changed marked against the revision before it (or, againstDraft,
// against the current draft: what a restore would change), and asks before
// restoring it. ok is false when d keeps no revision n.
func StudioRevisionView(c Context, d library.Doc, n int, againstDraft, canEdit bool) (Page, bool) {
	i := slices.IndexFunc(d.Revisions, func(r library.Revision) bool { return r.N == n })
	if i < 0 {
		return Page{}, false
	}
	rev := d.Revisions[i]
	var before, after map[string]string
	compared := c.T("studio.revisionView.againstNone")
	switch {
	case againstDraft:
		// What a restore would do: the draft now, becoming this revision.
		before, after = d.Draft, rev.Fields
		compared = c.T("studio.revisionView.againstDraft")
	case i > 0:
		before, after = d.Revisions[i-1].Fields, rev.Fields
		compared = strings.ReplaceAll(c.T("studio.revisionView.againstPrevious"), "{n}", strconv.Itoa(d.Revisions[i-1].N))
	default:
		after = rev.Fields
	}
	line := strings.NewReplacer("{action}", rev.Action, "{by}", rev.By, "{at}", rev.At.UTC().Format(studioTimeLayout)).
		Replace(c.T("studio.revisionView.line"))
	path := StudioRevisionPath(d.Kind, d.Slug, n)
	var switcher *ui.Node
	if againstDraft {
		switcher = ui.Link(c.T("studio.revisionView.showPrevious"), ui.Navigate(path))
	} else {
		switcher = ui.Link(c.T("studio.revisionView.showDraft"), ui.Navigate(path+"?"+StudioAgainstParam+"="+StudioAgainstDraft))
	}
	children := []*ui.Node{ui.Text("caption", line), ui.Text("body", compared), switcher}
	for _, name := range revisionFieldNames(c, d.Kind, d.Slug, before, after) {
		label := c.T("studio.field." + name)
		if d.Kind == library.KindCopy {
			label = c.T("studio.field.copy")
		}
		children = append(children, ui.Text("heading", label))
		old, now := before[name], after[name]
		switch {
		case before == nil || old == now:
			if now == "" {
				children = append(children, ui.Text("caption", c.T("studio.revisionView.empty")))
				continue
			}
			children = append(children, &ui.Node{Type: ui.NodeTypeRichText, Blocks: diffBlocks([]library.DiffPart{{Op: library.DiffEqual, Text: now}})})
		default:
			children = append(children, &ui.Node{Type: ui.NodeTypeRichText, Blocks: diffBlocks(library.WordDiff(old, now))})
		}
	}
	page := Page{State: map[string]any{"doc": map[string]any{"kind": d.Kind, "slug": d.Slug}, "restore": n}}
	if canEdit {
		restore := ui.Call("studio.restore", "/doc/kind", "/doc/slug", "/restore")
		page.Overlays = map[string]*ui.Node{StudioConfirmRestore: studioConfirm(c, StudioConfirmRestore,
			c.T("studio.confirmRestoreTitle"), c.T("studio.confirmRestoreText"), c.T("studio.restore"), restore)}
		children = append(children, ui.Button(c.T("studio.revisionView.restore"), "primary", ui.OpenOverlay(StudioConfirmRestore)))
	}
	title := strings.NewReplacer("{n}", strconv.Itoa(n), "{title}", studioTitle(d)).Replace(c.T("studio.revisionView.title"))
	scr := SubPage(c, "studio-revision", title, ui.Navigate(PathStudioEdit+d.Kind+"/"+d.Slug), ui.Stack("md", children...))
	scr.Width = "wide"
	page.Screen = scr
	return page, true
}

// studioTimeLayout is how the studio writes a moment: in UTC, named.
const studioTimeLayout = "Jan 2, 2006 15:04 UTC"

// revisionFieldNames are the fields to show: the kind's in form order,
// then any other either side holds, by name.
func revisionFieldNames(_ Context, kind, slug string, before, after map[string]string) []string {
	var names []string
	for _, f := range library.Fields(kind, slug) {
		names = append(names, f.Name)
	}
	var extra []string
	for _, m := range []map[string]string{before, after} {
		for k := range m {
			if !slices.Contains(names, k) && !slices.Contains(extra, k) {
				extra = append(extra, k)
			}
		}
	}
	slices.Sort(extra)
	return append(names, extra...)
}

// diffBlocks lays a word diff out as paragraphs, one per line of the text,
// its added and removed runs marked (ui.Span Ins and Del).
func diffBlocks(parts []library.DiffPart) []ui.RichBlock {
	blocks := []ui.RichBlock{{Kind: "paragraph"}}
	for _, p := range parts {
		for j, piece := range strings.Split(p.Text, "\n") {
			if j > 0 {
				blocks = append(blocks, ui.RichBlock{Kind: "paragraph"})
			}
			if piece == "" {
				continue
			}
			last := &blocks[len(blocks)-1]
			last.Spans = append(last.Spans, ui.Span{Text: piece, Ins: p.Op == library.DiffInsert, Del: p.Op == library.DiffDelete})
		}
	}
	// An empty line is a paragraph break, not a paragraph of its own.
	out := blocks[:0]
	for _, b := range blocks {
		if len(b.Spans) > 0 {
			out = append(out, b)
		}
	}
	return out
}
