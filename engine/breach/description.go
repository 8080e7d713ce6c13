package breach

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// rawTextElements are those whose content the HTML tokenizer returns as one
// raw text token up to the matching end tag, even when the start tag is
// written self-closing ("<script/>"). None of it is prose.
var rawTextElements = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Textarea: true, atom.Title: true,
	atom.Iframe: true, atom.Noembed: true, atom.Noframes: true, atom.Noscript: true,
	atom.Xmp: true, atom.Plaintext: true,
}

// hiddenElements hold markup that is not prose either, but is tokenized as
// ordinary nested tags.
var hiddenElements = map[atom.Atom]bool{
	atom.Template: true, atom.Svg: true, atom.Math: true, atom.Object: true,
	atom.Head: true, atom.Select: true,
}

// inlineElements sit inside a word or sentence ("<em>not</em>", a link), so
// removing them must not add a space; every other tag separates words.
var inlineElements = map[atom.Atom]bool{
	atom.A: true, atom.Abbr: true, atom.B: true, atom.Code: true, atom.Em: true,
	atom.I: true, atom.Mark: true, atom.S: true, atom.Small: true, atom.Span: true,
	atom.Strong: true, atom.Sub: true, atom.Sup: true, atom.U: true,
}

// maxPasses bounds the re-reading of text whose decoded entities formed new
// tags. Each pass shortens such text, so the bound is never reached on HIBP's
// descriptions; it only stops a crafted input from costing much.
const maxPasses = 8

// PlainText reduces an HTML fragment, such as HIBP's breach Description, to
// one line of plain text: tags are removed, a link becomes its text, entities
// are decoded, the content of script-like elements is dropped and whitespace
// is collapsed. When decoded entities spell new markup ("&lt;b&gt;") that is
// removed too, so the result never contains a tag. It is still text, to be
// escaped wherever it is written into HTML, as React does.
//
// It uses the HTML5 tokenizer rather than a regular expression, so comments,
// unclosed tags and attributes containing ">" are read as a browser reads
// them.
func PlainText(fragment string) string {
	text := textOf(fragment)
	for pass := 1; hasMarkup(text); pass++ {
		if pass == maxPasses {
			return strings.NewReplacer("<", "", ">", "").Replace(text)
		}
		text = textOf(text)
	}
	return text
}

// textOf is one pass of PlainText.
func textOf(fragment string) string {
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(fragment))
	hidden := 0 // depth inside raw-text and hidden elements
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			// io.EOF: a reader over a string fails no other way.
			return collapse(b.String())
		case html.TextToken:
			if hidden == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch {
			case tt == html.EndTagToken && (rawTextElements[a] || hiddenElements[a]):
				hidden = max(hidden-1, 0)
			case rawTextElements[a], tt == html.StartTagToken && hiddenElements[a]:
				hidden++
			}
			if !inlineElements[a] {
				b.WriteByte(' ')
			}
		}
	}
}

// hasMarkup reports whether the tokenizer finds anything but text in s: a
// tag, a comment or a doctype.
func hasMarkup(s string) bool {
	if !strings.Contains(s, "<") {
		return false
	}
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return false
		case html.TextToken:
		default:
			return true
		}
	}
}

// collapse turns every run of whitespace into one space, trims the ends and
// drops control and invisible formatting characters and invalid UTF-8, which
// have no place in a sentence shown to a person.
func collapse(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToValidUTF8(s, "") {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
		case unicode.IsControl(r), r == utf8.RuneError, unicode.Is(unicode.Cf, r):
			continue
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}
