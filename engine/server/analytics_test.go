package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine/analysis"
	"glimpse/screens"
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

// The audience endpoint answers a signed-in subscriber's group a page at a
// time, in natural order, and refuses the signed-out, malformed pages and
// groups the data cannot list.
func TestAudiencePages(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	get := func(query string) response {
		req := httptest.NewRequest(http.MethodGet, screens.PathAudience+"?"+query, nil)
		req.Header.Set("X-SDUI-Version", "1")
		return h.do(req)
	}
	if res := get("group=fans"); res.status != http.StatusUnauthorized {
		t.Fatalf("signed out: %d %s", res.status, res.raw)
	}
	u := h.subscriber("fans@example.com", "secret-pass")
	h.signIn("fans@example.com", "secret-pass")
	if res := get("group=fans"); res.status != http.StatusNotFound {
		t.Fatalf("before any analysis: %d %s", res.status, res.raw)
	}
	if err := h.app.Profiles.SeedDemo(context.Background(), u.ID, 42); err != nil {
		t.Fatal(err)
	}
	res := get("group=fans&limit=50")
	if res.status != http.StatusOK || res.header.Get("Cache-Control") != "private, no-store" {
		t.Fatalf("fans: %d %v %s", res.status, res.header, res.raw)
	}
	names, _ := res.body["names"].([]any)
	total, _ := res.body["total"].(float64)
	if len(names) != 50 || total <= 50 || res.body["next"] != float64(50) {
		t.Fatalf("first page: %d names of %v, next %v", len(names), total, res.body["next"])
	}
	for i := 1; i < len(names); i++ {
		if analysis.CompareNatural(names[i-1].(string), names[i].(string)) > 0 {
			t.Fatalf("%v before %v", names[i-1], names[i])
		}
	}
	one := names[7].(string)
	found := get("group=fans&q=" + url.QueryEscape(one))
	if hits, _ := found.body["names"].([]any); found.status != http.StatusOK || len(hits) == 0 || !slices.Contains(hits, any(one)) {
		t.Fatalf("search %q: %d %s", one, found.status, found.raw)
	}
	for _, bad := range []string{"group=", "group=fans&limit=0", "group=fans&limit=500", "group=fans&offset=-1", "group=fans&offset=x",
		"group=fans&q=" + strings.Repeat("a", 65), "group=" + strings.Repeat("g", 40)} {
		if res := get(bad); res.status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s", bad, res.status, res.raw)
		}
	}
	if res := get("group=everyone"); res.status != http.StatusNotFound {
		t.Errorf("an unknown group: %d %s", res.status, res.raw)
	}
}
