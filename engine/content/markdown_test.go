package content

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

func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"# a\n\n*b* **c** [d](https://e.example)", "- x\n  - y\n\n> q", "<div>x</div>", "[a](/b)", "`x`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		assertValid(t, Markdown(src))
	})
}
