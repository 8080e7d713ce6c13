package screens

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/content"
	"glimpse/engine/analysis"
	"glimpse/engine/brand"
)

// codedAnalysis is a result as the analysis package makes it now: codes with
// args, not sentences. The earlier snapshot is of 1 March, the current one of
// 2 March; two posts are analysed and their commenters are known.
func codedAnalysis() analysis.Result {
	day := func(d int) time.Time { return time.Date(2026, 3, d, 9, 0, 0, 0, time.UTC) }
	return analysis.Analyse(analysis.Input{
		Previous: &analysis.Snapshot{TakenAt: day(1), Followers: []string{"ana", "bo"}},
		Current: analysis.Snapshot{TakenAt: day(2), FollowerCount: 20,
			Followers: []string{"bo", "cy"}, Following: []string{"bo", "dee"},
			Posts: []analysis.Post{
				{ID: "p1", TakenAt: day(2), Likes: 3, Comments: 1, Commenters: []string{"eve"}},
				{ID: "p2", TakenAt: day(1), Likes: 1},
			}},
	})
}

// analyticsJSON composes the completed Analytics screen for brand key under
// the shipped brands with overrides as editors' published copy, and returns
// the screen and overlays as JSON.
func analyticsJSON(t *testing.T, key string, overrides map[string]map[string]string, s AnalyticsState) string {
	t.Helper()
	seed, err := brand.ReadShipped(content.Brands)
	if err != nil {
		t.Fatal(err)
	}
	reg := brand.NewRegistry(nil)
	reg.Set(seed)
	reg.SetOverrides(overrides)
	b := reg.Get(key)
	if b.Key != key {
		t.Fatalf("no brand %q", key)
	}
	page := Analytics(Context{Brand: b, Copy: reg.Copy(b)}, s)
	out, err := json.Marshal(struct {
		Screen   any
		Overlays any
	}{page.Screen, page.Overlays})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func completed(r analysis.Result) AnalyticsState {
	return AnalyticsState{Status: InsightsCompleted, Result: &r}
}

func TestAnalyticsWordsCodesInTheDefaultCopy(t *testing.T) {
	t.Parallel()
	s := completed(codedAnalysis())
	s.Notice = string(analysis.ProblemRefreshFailed)
	got := analyticsJSON(t, brand.DefaultKey, nil, s)
	for _, want := range []string{
		"Followers on 1 Mar 2026 who no longer follow you on 2 Mar 2026.",
		"Followers on 2 Mar 2026 who did not follow you on 1 Mar 2026.",
		"Accounts that follow you and that you follow, on 2 Mar 2026.",
		"Accounts that commented on any of your latest 2 posts but don't follow you.",
		`"status":"Above average"`, // (4 likes + 1 comment) / 2 posts / 20 followers = 12.5 %: level 4 under 1k
		"The last update failed; we will try again within the hour.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the default brand's Analytics screen lacks %q", want)
		}
	}
	if strings.Contains(got, "analysis.") {
		t.Errorf("an analysis code reached the screen unworded:\n%s", got)
	}
}

func TestAnalyticsPartnerCopyRewordsAnalysis(t *testing.T) {
	t.Parallel()
	overrides := map[string]map[string]string{"_x_": {
		"analysis.basis.lostFollowers": "Seguidores el {then} que ya no te siguen el {now}.",
		"analysis.level.4":             "Por encima de la media",
	}}
	got := analyticsJSON(t, "_x_", overrides, completed(codedAnalysis()))
	for _, want := range []string{"Seguidores el 1 Mar 2026 que ya no te siguen el 2 Mar 2026.", `"status":"Por encima de la media"`} {
		if !strings.Contains(got, want) {
			t.Errorf("the partner's Analytics screen lacks its own %q", want)
		}
	}
	if strings.Contains(got, "who no longer follow you") || strings.Contains(got, "Above average") {
		t.Error("the partner's Analytics screen still shows the default English for an overridden code")
	}
	// A code the partner did not override falls back to the default copy.
	if !strings.Contains(got, "Accounts that follow you and that you follow, on 2 Mar 2026.") {
		t.Error("a code the partner did not override lost its default copy")
	}
	// The default brand is untouched by the partner's copy.
	if def := analyticsJSON(t, brand.DefaultKey, overrides, completed(codedAnalysis())); !strings.Contains(def, "who no longer follow you") {
		t.Error("a partner's copy changed the default brand's screen")
	}
}

// Profiles stored before codes existed hold English sentences in the result
// and the problem; they show as they are rather than as blanks or keys.
func TestAnalyticsShowsStoredSentencesAsTheyAre(t *testing.T) {
	t.Parallel()
	r := codedAnalysis()
	r.Audience.LostFollowers.Basis, r.Audience.LostFollowers.Args = "Compared with your followers on 30 Oct 2026.", nil
	r.Engagement.Status = "Above average"
	s := completed(r)
	s.Notice = "The last update failed; we will try again within the hour."
	got := analyticsJSON(t, brand.DefaultKey, nil, s)
	for _, want := range []string{"Compared with your followers on 30 Oct 2026.", `"status":"Above average"`, s.Notice} {
		if !strings.Contains(got, want) {
			t.Errorf("a stored sentence is missing: %q", want)
		}
	}
}

// TestTrendChartsSayTheChangeInWords checks the caption under each chart:
// equal labels are no change, whatever tiny difference the line draws.
func TestTrendChartsSayTheChangeInWords(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name                  string
		followers, engagement []float64
		want                  []string
	}{
		{"equal labels", []float64{30120, 30120.4}, []float64{3.2201, 3.2249},
			[]string{"No change since Nov 20", "No change since Nov 20"}},
		{"a rise and a fall", []float64{30120, 29980, 30260}, []float64{3.22, 3.1},
			[]string{"Change since Nov 20: +140", "Change since Nov 20: −0.12 percentage points"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := completed(codedAnalysis())
			for i, v := range tc.followers {
				s.Followers = append(s.Followers, analysis.Point{At: day.Add(time.Duration(i) * 24 * time.Hour), Value: v})
			}
			for i, v := range tc.engagement {
				s.Engagement = append(s.Engagement, analysis.Point{At: day.Add(time.Duration(i) * 24 * time.Hour), Value: v})
			}
			var doc any
			if err := json.Unmarshal([]byte(analyticsJSON(t, brand.DefaultKey, nil, s)), &doc); err != nil {
				t.Fatal(err)
			}
			var got []string
			var walk func(v any)
			walk = func(v any) {
				switch x := v.(type) {
				case map[string]any:
					if children, ok := x["children"].([]any); ok && len(children) == 2 {
						if chart, ok := children[0].(map[string]any); ok && chart["type"] == "chart" {
							got = append(got, children[1].(map[string]any)["text"].(string))
							return
						}
					}
					for _, c := range x {
						walk(c)
					}
				case []any:
					for _, c := range x {
						walk(c)
					}
				}
			}
			walk(doc)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("chart captions (-want +got):\n%s", diff)
			}
		})
	}
}
