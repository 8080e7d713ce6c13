package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"glimpse/engine/billing"
	"glimpse/screens"
)

// My Plan manages the plan as a customer portal does: Change plan lists the
// brand's plans with their prices and says when a change applies; a
// change is scheduled for the renewal and can be undone; both are mailed
// (billing's tests count the mails). An unknown plan is refused.
func TestMyPlanChangesAndKeepsThePlan(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	sub := h.member("ann@example.com", billing.FamilyWeekly)
	monthly, err := h.app.Billing.Catalogue().Find("default", billing.FamilyPremiumOneMonth)
	if err != nil {
		t.Fatal(err)
	}
	home := string(h.screen(screens.PathMyPlan).raw)
	for _, want := range []string{"Change plan", "Update card", `"id":"` + screens.ChangePlanOverlay + `"`, monthly.Price.String(), "nothing is charged now"} {
		if !strings.Contains(home, want) {
			t.Fatalf("My Plan lacks %q: %s", want, home)
		}
	}
	if r := h.actionAt(screens.PathMyPlan, "plan.change", map[string]any{"planCode": "no_such_plan"}); r.status != http.StatusConflict {
		t.Fatalf("an unknown plan: %d %s", r.status, r.raw)
	}
	r := h.actionAt(screens.PathMyPlan, "plan.change", map[string]any{"planCode": monthly.Code})
	if got := effects(r); r.status != http.StatusOK || len(got) != 2 || got[0]["type"] != "refresh" {
		t.Fatalf("change: %d %s", r.status, r.raw)
	}
	if got, _ := h.app.Billing.Subscription(ctx, sub.ID); got.NextPlanCode != monthly.Code || got.PlanCode != sub.PlanCode {
		t.Fatalf("after the change: plan %s, next %s", got.PlanCode, got.NextPlanCode)
	}
	h.clock.Advance(6 * time.Second) // past the session's cached subscriptions
	home = string(h.screen(screens.PathMyPlan).raw)
	if !strings.Contains(home, "Keep my Weekly Plan") || !strings.Contains(home, "Premium Plan") {
		t.Fatalf("My Plan with a change scheduled: %s", home)
	}
	if r := h.actionAt(screens.PathMyPlan, "plan.undo_change", nil); r.status != http.StatusOK {
		t.Fatalf("undo: %d %s", r.status, r.raw)
	}
	if got, _ := h.app.Billing.Subscription(ctx, sub.ID); got.NextPlanCode != "" {
		t.Fatalf("after undoing: next %s", got.NextPlanCode)
	}
}

// "Use another card" in the middle of buying an add-on comes back to that
// purchase once the card is saved, instead of ending on the dashboard.
func TestAnotherCardReturnsToThePurchase(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.member("bea@example.com", billing.FamilyWeekly)
	home := string(h.screen(screens.PathDashboard).raw)
	link := screens.PathUpdateCard + "?return=" + billing.FamilyReelsPlaybook
	if !strings.Contains(home, link) {
		t.Fatalf("the purchase's 'Use another card' does not say where to return: %s", home)
	}
	page := h.screen(link)
	if !strings.Contains(string(page.raw), `"return":"`+billing.FamilyReelsPlaybook+`"`) {
		t.Fatalf("the card page forgets the purchase: %s", page.raw)
	}
	if strings.Contains(string(h.screen(screens.PathUpdateCard+"?return=../../x").raw), `"return":"../../x"`) {
		t.Fatal("the card page keeps a return that is no add-on")
	}
	back := string(h.screen(screens.PathMyPlan + "&buy=" + billing.FamilyReelsPlaybook).raw)
	if !strings.Contains(back, `"open":["`+screens.MyPlanOverlay+`","`+screens.ConfirmOverlay(billing.FamilyReelsPlaybook)+`"]`) {
		t.Fatalf("the dashboard does not reopen the purchase: %s", back)
	}
}
