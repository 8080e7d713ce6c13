package screens

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"glimpse/content"
	"glimpse/engine/analysis"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/ui"
)

// TestHomeAnalyticsCard checks the card that leads to Analytics in each
// state of the profile: the first card on the dashboard, the whole card one
// target, saying the engagement once there is a result.
func TestHomeAnalyticsCard(t *testing.T) {
	t.Parallel()
	seed, err := brand.ReadShipped(content.Brands)
	if err != nil {
		t.Fatal(err)
	}
	reg := brand.NewRegistry(nil)
	reg.Set(seed)
	b := reg.Get(brand.DefaultKey)
	c := Context{Brand: b, Copy: reg.Copy(b)}
	level := 3
	for _, tc := range []struct {
		name  string
		state HomeState
		want  *ui.Node
	}{
		{"nothing connected", HomeState{Insights: InsightsIdle},
			ui.Text("body", "Analyse your Instagram account: your engagement rate, new and lost followers and secret fans.")},
		{"first analysis on its way", HomeState{Insights: InsightsProcessing},
			ui.Text("body", "Your analysis is on its way; your engagement rate shows here when it is ready.")},
		{"a result", HomeState{Insights: InsightsCompleted, Engagement: &analysis.Engagement{Rate: 3.2249, Level: 3, Status: analysis.LevelAverage}},
			&ui.Node{Type: "level_meter", Label: "Engagement rate", Level: &level, ValueLabel: "3.22%", Status: "Average"}},
		{"a result while the next analysis runs", HomeState{Insights: InsightsProcessing, Engagement: &analysis.Engagement{Rate: 3.2249, Level: 3, Status: analysis.LevelAverage}},
			&ui.Node{Type: "level_meter", Label: "Engagement rate", Level: &level, ValueLabel: "3.22%", Status: "Average"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.state.Plan = billing.Describe("glimpse_weekly_trial")
			card := Home(c, tc.state).Screen.Children[1].Children[0]
			want := ui.Card(ui.Navigate(PathAnalytics), ui.Text("heading", "Analytics"), tc.want)
			want.Tone, want.ActionLabel = "brand", "Analytics"
			if diff := cmp.Diff(want, card); diff != "" {
				t.Errorf("the dashboard's first card (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMenuLeadsToAnalytics checks the menu's first item.
func TestMenuLeadsToAnalytics(t *testing.T) {
	t.Parallel()
	seed, err := brand.ReadShipped(content.Brands)
	if err != nil {
		t.Fatal(err)
	}
	reg := brand.NewRegistry(nil)
	reg.Set(seed)
	b := reg.Get(brand.DefaultKey)
	menu := Home(Context{Brand: b, Copy: reg.Copy(b)}, HomeState{}).Overlays[MenuOverlay]
	if diff := cmp.Diff(ui.Link("Analytics", ui.Navigate(PathAnalytics)), menu.Children[0].Children[0]); diff != "" {
		t.Errorf("the menu's first item (-want +got):\n%s", diff)
	}
}
