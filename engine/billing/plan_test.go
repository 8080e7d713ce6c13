package billing

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	cases := map[string]Plan{
		"glimpse_premium_one_month":   {Name: "Premium Plan", Status: "Premium", Price: "$13.99", Period: "1 month"},
		"glimpse_x_gift_one_month_v2": {Name: "Gift Plan", Status: "Gift", Price: "$19.99", Period: "1 month"},
		"glimpse_3month_sale":         {Name: "3-Month Plan", Status: "Premium", Price: "$49", Period: "12 weeks"},
		"glimpse_weekly_trial":        {Name: "Weekly Plan", Status: "Trial", Price: "$1", Period: "week"},
		"":                            {Name: "Weekly Plan", Status: "Trial", Price: "$1", Period: "week"},
	}
	for code, want := range cases {
		if diff := cmp.Diff(want, Describe(code)); diff != "" {
			t.Errorf("Describe(%q) (-want +got):\n%s", code, diff)
		}
	}
}

func TestEntitlements(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	past := now.Add(-time.Hour)
	got := Entitlements([]Subscription{
		{PlanCode: "glimpse_x_pdf_course_sale", Bundle: "b", Status: "active"},
		{PlanCode: "glimpse_profile_report", Bundle: "b", Status: "active", ExpiresAt: &past},
		{PlanCode: "glimpse_reels_playbook", Bundle: "b", Status: "expired"},
		{PlanCode: "glimpse_gift_one_month", Bundle: "b", Status: "canceled"},
		// Another brand's purchase does not count on this one.
		{PlanCode: "_x_reels_playbook", Bundle: "x", Status: "active"},
	}, "b", now)
	want := map[Entitlement]bool{PDFCourse: true, GiftOneMonth: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Entitlements (-want +got):\n%s", diff)
	}
}
