package library

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValidateFieldTable checks Validate against the field table itself:
// every text field takes exactly its limit and refuses one character more
// with the problem the studio words.
func TestValidateFieldTable(t *testing.T) {
	t.Parallel()
	valid := map[FieldFormat]string{FormatText: "x", FormatDate: "2025-01-31", FormatImage: "/static/a.png", FormatPart: "1"}
	items := map[string]string{KindNews: "launch", KindArticle: "topic/part", KindTopic: "topic",
		KindPage: "privacy", KindCopy: "default/signIn.headline"}
	for kind, slug := range items {
		base := map[string]string{}
		for _, f := range Fields(kind, slug) {
			if f.Required {
				base[f.Name] = valid[f.Format]
			}
		}
		if _, problems := Validate(kind, slug, base); len(problems) > 0 {
			t.Fatalf("%s %s with its required fields: %v", kind, slug, problems)
		}
		for _, f := range Fields(kind, slug) {
			if f.Format != FormatText {
				continue
			}
			with := func(v string) map[string]string {
				m := map[string]string{}
				for k, x := range base {
					m[k] = x
				}
				m[f.Name] = v
				return m
			}
			if _, problems := Validate(kind, slug, with(strings.Repeat("é", f.Max))); len(problems) > 0 {
				t.Errorf("%s %s at its limit of %d: %v", kind, f.Name, f.Max, problems)
			}
			_, problems := Validate(kind, slug, with(strings.Repeat("é", f.Max+1)))
			want := Problem{Code: ProblemTooLong, Args: map[string]string{ArgUnder: fmt.Sprint(f.Max + 1)}}
			if diff := cmp.Diff(want, problems[f.Name]); diff != "" {
				t.Errorf("%s %s over its limit (-want +got):\n%s", kind, f.Name, diff)
			}
		}
	}
	if got := len(Fields(KindPage, "insights")); got != 2 {
		t.Errorf("a page other than the legal ones has %d fields, want title and body", got)
	}
	// A field keeps its rule on a kind whose form does not show it.
	_, problems := Validate(KindNews, "launch", map[string]string{"title": "T", "date": "2025-01-31", "summary": "S",
		"body": "B", "part": "one"})
	if problems["part"].Code != ProblemPart {
		t.Errorf("a bad part on a news item: %v", problems)
	}
}
