// Package content holds what subscribers read: articles, news, lessons and
// legal pages, and the Markdown subset editors write them in.
package content

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"glimpse/engine/ui"
)

// markdown parses CommonMark; its AST is walked into our rich-text blocks, so
// nothing an editor writes reaches the browser as HTML.
var markdown = goldmark.New()

// maxMarkdown bounds the work done on one document.
const maxMarkdown = 256 << 10

// Markdown turns editor Markdown into rich-text blocks: headings (## to ####;
// a single # becomes ##, since the page title is the h1), paragraphs, lists
// and, inside them, bold, italics and links. Everything else is reduced to
// its text: raw HTML is dropped, code, quotes and images become plain text.
// Links are kept only for https, mailto and app paths.
func Markdown(src string) []ui.RichBlock {
	if len(src) > maxMarkdown {
		src = src[:maxMarkdown]
	}
	source := []byte(src)
	doc := markdown.Parser().Parse(text.NewReader(source))
	w := walker{src: source}
	blocks := []ui.RichBlock{}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		blocks = append(blocks, w.block(n)...)
	}
	return blocks
}

type walker struct{ src []byte }

func (w walker) block(n ast.Node) []ui.RichBlock {
	switch n := n.(type) {
	case *ast.Heading:
		level := min(max(n.Level, 2), 4)
		return nonEmpty(ui.RichBlock{Kind: "heading", Level: level, Spans: trimSpans(w.inline(n, span{}))})
	case *ast.Paragraph, *ast.TextBlock:
		return nonEmpty(ui.RichBlock{Kind: "paragraph", Spans: trimSpans(w.inline(n, span{}))})
	case *ast.List:
		items := [][]ui.Span{}
		for li := n.FirstChild(); li != nil; li = li.NextSibling() {
			var spans []ui.Span
			for c := li.FirstChild(); c != nil; c = c.NextSibling() {
				if len(spans) > 0 {
					spans = append(spans, ui.Span{Text: " "})
				}
				spans = appendSpans(spans, w.inline(c, span{}))
			}
			if spans = trimSpans(spans); len(spans) > 0 {
				items = append(items, spans)
			}
		}
		if len(items) == 0 {
			return nil
		}
		return []ui.RichBlock{{Kind: "list", Ordered: n.IsOrdered(), Items: items}}
	case *ast.Blockquote:
		var out []ui.RichBlock
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			out = append(out, w.block(c)...)
		}
		return out
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var b strings.Builder
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			b.Write(seg.Value(w.src))
		}
		return nonEmpty(ui.RichBlock{Kind: "paragraph", Spans: []ui.Span{{Text: strings.TrimSpace(b.String())}}})
	default:
		// Thematic breaks and raw HTML blocks carry nothing we show.
		return nil
	}
}

// span is the inline style in effect while walking.
type span struct {
	strong, em bool
	href       string
}

func (w walker) inline(n ast.Node, style span) []ui.Span {
	var out []ui.Span
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			out = appendText(out, style, string(c.Segment.Value(w.src)))
			if c.SoftLineBreak() || c.HardLineBreak() {
				out = appendText(out, style, " ")
			}
		case *ast.String:
			out = appendText(out, style, string(c.Value))
		case *ast.CodeSpan:
			var b bytes.Buffer
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if s, ok := t.(*ast.Text); ok {
					b.Write(s.Segment.Value(w.src))
				}
			}
			out = appendText(out, style, b.String())
		case *ast.Emphasis:
			inner := style
			if c.Level >= 2 {
				inner.strong = true
			} else {
				inner.em = true
			}
			out = appendSpans(out, w.inline(c, inner))
		case *ast.Link:
			inner := style
			if safeHref(string(c.Destination)) {
				inner.href = string(c.Destination)
			}
			out = appendSpans(out, w.inline(c, inner))
		case *ast.AutoLink:
			url := string(c.URL(w.src))
			inner := style
			if safeHref(url) {
				inner.href = url
			}
			out = appendText(out, inner, string(c.Label(w.src)))
		case *ast.Image:
			out = appendSpans(out, w.inline(c, style)) // its alt text
		case *ast.RawHTML:
			// Dropped: editors' HTML never reaches the page.
		default:
			out = appendSpans(out, w.inline(c, style))
		}
	}
	return out
}

func appendSpans(out, more []ui.Span) []ui.Span {
	for _, s := range more {
		out = appendText(out, span{strong: s.Strong, em: s.Em, href: s.Href}, s.Text)
	}
	return out
}

// appendText adds text in a style, merging with the previous span when the
// style is the same so the output stays small.
func appendText(out []ui.Span, style span, s string) []ui.Span {
	if s == "" {
		return out
	}
	if n := len(out); n > 0 {
		last := &out[n-1]
		if last.Strong == style.strong && last.Em == style.em && last.Href == style.href {
			last.Text += s
			return out
		}
	}
	return append(out, ui.Span{Text: s, Strong: style.strong, Em: style.em, Href: style.href})
}

func trimSpans(spans []ui.Span) []ui.Span {
	for len(spans) > 0 {
		first := &spans[0]
		first.Text = strings.TrimLeft(first.Text, " \t\n")
		if first.Text != "" {
			break
		}
		spans = spans[1:]
	}
	for len(spans) > 0 {
		last := &spans[len(spans)-1]
		last.Text = strings.TrimRight(last.Text, " \t\n")
		if last.Text != "" {
			break
		}
		spans = spans[:len(spans)-1]
	}
	return spans
}

func nonEmpty(b ui.RichBlock) []ui.RichBlock {
	if len(b.Spans) == 0 {
		return nil
	}
	return []ui.RichBlock{b}
}

// safeHref keeps links the schema allows: https, mailto, and app paths (not
// protocol-relative ones).
func safeHref(h string) bool {
	switch {
	case strings.HasPrefix(h, "https://"), strings.HasPrefix(h, "mailto:"):
		return !strings.ContainsAny(h, " \t\n<>\"")
	case strings.HasPrefix(h, "/"):
		return len(h) == 1 || (h[1] != '/' && h[1] != '\\')
	}
	return false
}
