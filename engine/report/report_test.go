package report

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"glimpse/engine/pdftext"
)

func TestRender(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		report Report
		// minPages is the least number of pages the PDF must have.
		minPages int
		// lines are whole text lines expected on the page with that number.
		lines map[int][]string
		// contains are fragments expected somewhere in the text, for wrapped
		// paragraphs whose line breaks depend on the font.
		contains []string
		// absent are fragments that must not appear anywhere.
		absent []string
	}{
		{
			name:     "sample profile",
			report:   sampleReport(),
			minPages: 4,
			lines: map[int][]string{
				1: {"Glimpse", "Instagram profile report", "@ana.müller", "Generated 8 Mar 2026 12:30 UTC",
					"Source: Demo profile (generated sample data)", "3.12 %", "Level 4 of 5 · Above average",
					"Followers analysed", "12,959", "Posts analysed", "12", "385.0", "19.4", "4,620"},
				2: {"Follower count over time", "Engagement rate over time", "1 Mar", "8 Mar", "12,000", "Level 4 of 5 · Above average"},
				3: {"Audience", "Lost followers", "3", "New followers", "140", "Secret fans", "not available", "Your fans", "11,709", "Not following back", "0"},
			},
			contains: []string{
				"@jörg, @lena, @zoë",
				"@newt_19 and 120 more",
				"Needs the usernames of the people who commented",
				"Engagement rate = average (likes + comments) per post ÷ followers × 100",
				"Likes are never attributed to accounts",
				"1,204 likes", "1 like", "88 comments", "Posted 3 Mar 2026",
			},
			absent: []string{"@newu_20", "1 likes"},
		},
		{
			name:     "empty result",
			report:   Report{Brand: "Glimpse", Username: "nobody", GeneratedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
			minPages: 4,
			lines: map[int][]string{
				1: {"Instagram profile report", "@nobody", "Not enough data"},
				2: {"Follower count over time"},
				3: {"Lost followers", "not available"},
				4: {"Top posts", "None of the analysed posts has a like yet.", "None of the analysed posts has a comment yet."},
			},
			contains: []string{"No data yet"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pdf, err := Render(tt.report)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
				t.Fatalf("output starts with %q, want %%PDF-", pdf[:min(8, len(pdf))])
			}
			doc := parsePDF(t, pdf)
			if got := len(regexp.MustCompile(`/Type\s*/Page\b`).FindAll(pdf, -1)); got != len(doc.Pages) {
				t.Errorf("%d /Type /Page objects, but the page tree has %d kids", got, len(doc.Pages))
			}
			if len(doc.Pages) < tt.minPages {
				t.Fatalf("%d pages, want at least %d", len(doc.Pages), tt.minPages)
			}
			// Both fonts (regular and bold) are embedded as TrueType programs
			// and each has a ToUnicode map, which is what makes text extractable.
			if got := bytes.Count(pdf, []byte("/FontFile2")); got != 2 {
				t.Errorf("%d /FontFile2 entries, want 2 (regular and bold embedded)", got)
			}
			if got := bytes.Count(pdf, []byte("/ToUnicode")); got != 2 {
				t.Errorf("%d /ToUnicode entries, want 2", got)
			}
			for n, page := range doc.Pages {
				footer := fmt.Sprintf("Page %d of %d", n+1, len(doc.Pages))
				if !slices.Contains(page, footer) {
					t.Errorf("page %d has no footer %q", n+1, footer)
				}
			}
			for n, want := range tt.lines {
				for _, line := range want {
					if !slices.Contains(doc.Pages[n-1], line) {
						t.Errorf("page %d has no line %q; its lines are %q", n, line, doc.Pages[n-1])
					}
				}
			}
			all := doc.Joined()
			for _, fragment := range tt.contains {
				if !strings.Contains(all, fragment) {
					t.Errorf("text has no %q", fragment)
				}
			}
			for _, fragment := range tt.absent {
				if strings.Contains(all, fragment) {
					t.Errorf("text has %q, want it left out", fragment)
				}
			}
		})
	}
}

// TestRenderDeterministic checks that the same report gives the same bytes,
// so the only moving part is GeneratedAt, which becomes the creation date.
func TestRenderDeterministic(t *testing.T) {
	t.Parallel()
	first, err := Render(sampleReport())
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	second, err := Render(sampleReport())
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	if !bytes.Equal(first, second) {
		t.Error("two renders of the same report differ")
	}
	if want := "/CreationDate(D:20260308123000"; !bytes.Contains(first, []byte(want)) {
		t.Errorf("no %s in the document information", want)
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	tests := []struct{ got, want string }{
		{thousands(0), "0"},
		{thousands(999), "999"},
		{thousands(1000), "1,000"},
		{thousands(-1234567), "-1,234,567"},
		{decimal(12345.678, 1), "12,345.7"},
		{decimal(-0.001, 2), "0.00"},
		{percent(3.456), "3.46 %"},
		{plural(1, "like", "likes"), "1 like"},
		{plural(0, "like", "likes"), "0 likes"},
		{plural(2500, "comment", "comments"), "2,500 comments"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func BenchmarkRender(b *testing.B) {
	r := sampleReport()
	var size int
	for b.Loop() {
		pdf, err := Render(r)
		if err != nil {
			b.Fatal(err)
		}
		size = len(pdf)
	}
	b.ReportMetric(float64(size), "bytes/pdf")
}

// parsePDF reads back a PDF's text, failing the test if it cannot.
func parsePDF(t *testing.T, pdf []byte) pdftext.Text {
	t.Helper()
	text, err := pdftext.Extract(pdf)
	if err != nil {
		t.Fatal(err)
	}
	return text
}
