package library_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine/library"
)

func TestWordDiffMarksWholeWords(t *testing.T) {
	eq := func(s string) library.DiffPart { return library.DiffPart{Op: library.DiffEqual, Text: s} }
	ins := func(s string) library.DiffPart { return library.DiffPart{Op: library.DiffInsert, Text: s} }
	del := func(s string) library.DiffPart { return library.DiffPart{Op: library.DiffDelete, Text: s} }
	for _, tc := range []struct {
		name, before, after string
		want                []library.DiffPart
	}{
		{"same", "Reels grow", "Reels grow", []library.DiffPart{eq("Reels grow")}},
		{"both empty", "", "", nil},
		{"from nothing", "", "New text", []library.DiffPart{ins("New text")}},
		{"to nothing", "Old text", "", []library.DiffPart{del("Old text")}},
		{"a word replaced", "Reels grow fast", "Reels grow slowly",
			[]library.DiffPart{eq("Reels grow "), del("fast"), ins("slowly")}},
		{"a word added", "Post daily", "Post twice daily",
			[]library.DiffPart{eq("Post "), ins("twice "), eq("daily")}},
		{"a word removed", "Post twice daily", "Post daily",
			[]library.DiffPart{eq("Post "), del("twice "), eq("daily")}},
		{"punctuation alone", "Hello, world", "Hello; world",
			[]library.DiffPart{eq("Hello"), del(","), ins(";"), eq(" world")}},
		{"an added line ends at the line's end", "Two words.", "Two words.\nThree.",
			[]library.DiffPart{eq("Two words."), ins("\nThree.")}},
		{"an added last sentence", "Post. Then rest.", "Post. Then rest. Then post.",
			[]library.DiffPart{eq("Post. Then rest."), ins(" Then post.")}},
		{"a word's letters are not split", "colour", "color", []library.DiffPart{del("colour"), ins("color")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := library.WordDiff(tc.before, tc.after)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("WordDiff(%q, %q) (-want +got):\n%s", tc.before, tc.after, diff)
			}
		})
	}
}

// TestWordDiffOfLongTextsFarApart takes the bounded path: two texts more
// than maxDiffEdits apart are still a correct (if coarse) diff.
func TestWordDiffOfLongTextsFarApart(t *testing.T) {
	a := strings.Repeat("alpha ", 3000)
	b := strings.Repeat("beta ", 3000)
	parts := library.WordDiff(a, b)
	if library.DiffSource(parts) != a || library.ApplyDiff(parts) != b {
		t.Fatal("the diff does not rebuild both texts")
	}
}

func FuzzWordDiff(f *testing.F) {
	for _, s := range [][2]string{{"", ""}, {"a b c", "a c"}, {"Reels grow fast.", "Reels grow, slowly!"},
		{"héllo wörld", "hello world"}, {"x\n\ny", "x\ny z"}, {"\xff bad", "bad \xfe"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, before, after string) {
		parts := library.WordDiff(before, after)
		if got := library.ApplyDiff(parts); got != after {
			t.Fatalf("applying the diff of %q to %q gives %q", before, after, got)
		}
		if got := library.DiffSource(parts); got != before {
			t.Fatalf("the diff's source is %q, want %q", got, before)
		}
		for i, p := range parts {
			if p.Text == "" || (i > 0 && parts[i-1].Op == p.Op) {
				t.Fatalf("part %d of %+v is empty or not merged", i, parts)
			}
		}
	})
}
