// Package library holds what subscribers read: articles, news, lessons and
// legal pages, and the Markdown subset editors write them in.
package library

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
// Links are kept only for https, mailto and app paths (see safeHref).
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
			if href, ok := safeHref(string(c.Destination)); ok {
				inner.href = href
			}
			out = appendSpans(out, w.inline(c, inner))
		case *ast.AutoLink:
			url := string(c.URL(w.src))
			inner := style
			if href, ok := safeHref(url); ok {
				inner.href = href
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

// safeHref returns the link target as a browser would read it, if it is one
// the schema allows: https, mailto, or a same-origin app path. Browsers parse
// URLs by the WHATWG URL standard: they strip leading and trailing C0
// controls and spaces, remove every tab and newline, and read a backslash as
// a slash. Judging the raw text instead would pass "/\t/evil.example", which
// a browser opens as //evil.example. The normalised target is what is sent,
// so the renderer sees exactly what was judged.
func safeHref(raw string) (string, bool) {
	h := strings.TrimFunc(raw, func(r rune) bool { return r <= ' ' })
	h = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(h)
	if strings.IndexFunc(h, func(r rune) bool { return r < ' ' || r == 0x7f || r == ' ' || strings.ContainsRune("<>\"", r) }) >= 0 {
		return "", false
	}
	scheme, rest, hasScheme := strings.Cut(h, ":")
	switch {
	case hasScheme && strings.EqualFold(scheme, "https"):
		// https is a special scheme, so its backslashes are slashes.
		rest = strings.ReplaceAll(rest, `\`, "/")
		host, ok := strings.CutPrefix(rest, "//")
		if !ok || host == "" || host[0] == '/' {
			return "", false
		}
		return "https://" + host, true
	case hasScheme && strings.EqualFold(scheme, "mailto"):
		return "mailto:" + rest, true
	case strings.HasPrefix(h, "/") || strings.HasPrefix(h, `\`):
		// The page is served over a special scheme, so a relative
		// reference's backslashes are slashes too.
		p := strings.ReplaceAll(h, `\`, "/")
		if strings.HasPrefix(p, "//") || hasEncodedSlashPrefix(p[1:]) {
			return "", false
		}
		return p, true
	}
	return "", false
}

// hasEncodedSlashPrefix reports a path continuing with an encoded slash or
// backslash ("/%2f/host"): harmless to a browser, but a decoding router or
// proxy would turn it into "//host".
func hasEncodedSlashPrefix(p string) bool {
	if len(p) < 3 || p[0] != '%' {
		return false
	}
	code := strings.ToLower(p[1:3])
	return code == "2f" || code == "5c"
}
