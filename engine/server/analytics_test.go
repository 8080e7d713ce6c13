package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDashboardCardFollowsTheAnalysis checks that the dashboard's Analytics
// card changes once the subscriber's profile is analysed, although the
// dashboard's page is kept: the analysis is part of the page's key.
func TestDashboardCardFollowsTheAnalysis(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	u := h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	firstCard := func() map[string]any {
		t.Helper()
		res, body := h.rawScreen("/dashboard")
		if res.StatusCode != http.StatusOK {
			t.Fatalf("dashboard: %d %s", res.StatusCode, body)
		}
		var env struct {
			Screen struct {
				Children []struct {
					Children []map[string]any `json:"children"`
				} `json:"children"`
			} `json:"screen"`
		}
		if err := json.Unmarshal(body, &env); err != nil {
			t.Fatal(err)
		}
		return env.Screen.Children[1].Children[0]
	}
	card := firstCard()
	if diff := cmp.Diff(map[string]any{"type": "navigate", "to": "/dashboard/analytics"}, card["action"]); diff != "" {
		t.Errorf("the first card's action (-want +got):\n%s", diff)
	}
	invite := card["children"].([]any)[1].(map[string]any)
	if invite["type"] != "text" {
		t.Fatalf("before any analysis the card invites to one; got %v", card)
	}
	if again := firstCard(); !cmp.Equal(card, again) {
		t.Fatalf("the kept page changed by itself:\n%v\n%v", card, again)
	}

	if err := h.app.Profiles.SeedDemo(context.Background(), u.ID, 42); err != nil {
		t.Fatal(err)
	}
	meter := firstCard()["children"].([]any)[1].(map[string]any)
	if meter["type"] != "level_meter" || meter["label"] != "Engagement rate" || meter["valueLabel"] == "" || meter["status"] == "" {
		t.Errorf("after the analysis the card shows the engagement; got %v", meter)
	}
}
