package library

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine/ui"
)

func TestMarkdownSubset(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src string
		want      []ui.RichBlock
	}{
		{"paragraph with emphasis", "Grow **fast** and *well*.", []ui.RichBlock{{Kind: "paragraph", Spans: []ui.Span{
			{Text: "Grow "}, {Text: "fast", Strong: true}, {Text: " and "}, {Text: "well", Em: true}, {Text: "."}}}}},
		{"headings clamp to 2..4", "# Title\n\n###### Deep", []ui.RichBlock{
			{Kind: "heading", Level: 2, Spans: []ui.Span{{Text: "Title"}}},
			{Kind: "heading", Level: 4, Spans: []ui.Span{{Text: "Deep"}}}}},
		{"lists", "1. One\n2. **Two**\n\n- a\n- b", []ui.RichBlock{
			{Kind: "list", Ordered: true, Items: [][]ui.Span{{{Text: "One"}}, {{Text: "Two", Strong: true}}}},
			{Kind: "list", Items: [][]ui.Span{{{Text: "a"}}, {{Text: "b"}}}}}},
		{"safe links kept", "[help](https://help.example) [home](/dashboard) [mail](mailto:a@b.example)", []ui.RichBlock{
			{Kind: "paragraph", Spans: []ui.Span{{Text: "help", Href: "https://help.example"}, {Text: " "},
				{Text: "home", Href: "/dashboard"}, {Text: " "}, {Text: "mail", Href: "mailto:a@b.example"}}}}},
		{"unsafe links lose their target", "[x](javascript:alert(1)) [y](//evil.example) [z](http://plain.example)", []ui.RichBlock{
			{Kind: "paragraph", Spans: []ui.Span{{Text: "x y z"}}}}},
		{"raw html dropped", "<script>alert(1)</script>\n\nHi <b>there</b>", []ui.RichBlock{
			{Kind: "paragraph", Spans: []ui.Span{{Text: "Hi there"}}}}},
		{"soft breaks become spaces", "one\ntwo", []ui.RichBlock{{Kind: "paragraph", Spans: []ui.Span{{Text: "one two"}}}}},
		{"code becomes text", "Use `#reels`.\n\n```\nplain\n```", []ui.RichBlock{
			{Kind: "paragraph", Spans: []ui.Span{{Text: "Use #reels."}}},
			{Kind: "paragraph", Spans: []ui.Span{{Text: "plain"}}}}},
		{"empty", "", []ui.RichBlock{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Markdown(tc.src)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			assertValid(t, got)
		})
	}
}

// assertValid checks blocks against the screen schema as a rich_text node.
func assertValid(t *testing.T, blocks []ui.RichBlock) {
	t.Helper()
	if err := ui.ValidateNode(&ui.Node{Type: "rich_text", Blocks: blocks}); err != nil {
		b, _ := json.Marshal(blocks)
		t.Fatalf("blocks break the schema: %v\n%s", err, b)
	}
}

// TestHostileLinksBecomeText: link targets are read the way a browser's URL
// parser reads them (leading and trailing controls and spaces stripped, tabs
// and newlines removed, a backslash taken as a slash), so nothing a browser
// would open as another origin or a script keeps its link.
func TestHostileLinksBecomeText(t *testing.T) {
	t.Parallel()
	hostile := []string{
		"[x](</\t/evil.example>)",
		"[x](</\t\t/evil.example>)",
		"[x](</\n/evil.example>)",
		"[x](</\\\\evil.example>)",
		"[x](<\\\\\\\\evil.example>)",
		"[x](<\\\\/evil.example>)",
		"[x](<//evil.example>)",
		"[x](< //evil.example>)",
		"[x](<\t//evil.example>)",
		"[x](<\x01//evil.example>)",
		"[x](</%2f/evil.example>)",
		"[x](</%2F%2Fevil.example>)",
		"[x](</%5cevil.example>)",
		"[x](<JaVaScRiPt:alert(1)>)",
		"[x](<java\tscript:alert(1)>)",
		"[x](<\x01javascript:alert(1)>)",
		"[x](< javascript:alert(1)>)",
		"<JAVASCRIPT:alert(1)>",
		"[x](<data:text/html,x>)",
		"[x](<http://plain.example>)",
		"[x](<https:evil.example>)",
		"[x](<https:///evil.example>)",
		"[x](<https://>)",
	}
	for _, src := range hostile {
		for _, b := range Markdown(src) {
			for _, sp := range b.Spans {
				if sp.Href != "" {
					t.Errorf("%q kept a link to %q", src, sp.Href)
				}
			}
		}
	}
	kept := map[string]string{
		"[x](</dashboard/news>)":        "/dashboard/news",
		"[x](</dash\tboard>)":           "/dashboard",
		"[x](<\t/dashboard >)":          "/dashboard",
		"[x](<HTTPS://help.example/a>)": "https://help.example/a",
		"[x](<https:\\\\help.example>)": "https://help.example",
		"[x](<MailTo:a@b.example>)":     "mailto:a@b.example",
		"[x](</a\\b>)":                  "/a/b",
	}
	for src, want := range kept {
		got := Markdown(src)
		if len(got) != 1 || len(got[0].Spans) != 1 || got[0].Spans[0].Href != want {
			t.Errorf("%q: got %+v, want one link to %q", src, got, want)
		}
		assertValid(t, got)
	}
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"# a\n\n*b* **c** [d](https://e.example)", "- x\n  - y\n\n> q", "<div>x</div>", "[a](/b)", "`x`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		assertValid(t, Markdown(src))
	})
}
