package screens

import (
	"encoding/json"
	"strings"
	"testing"

	"glimpse/engine/billing"
	"glimpse/engine/ui"
)

// pendingOffers are My Plan's add-ons for a subscriber whose profile is not
// analysed: the report says it is mailed once it is.
func pendingOffers(owned bool) []Offer {
	out := goldenOffers(owned)
	out[0].Pending = true
	return out
}

// downloadsReport finds anything under root that downloads the profile report.
func downloadsReport(root *ui.Node) bool {
	found := false
	root.Walk(func(n *ui.Node) bool {
		if n.Action != nil && strings.Contains(mustJSON(n.Action), PathProfileReport) {
			found = true
		}
		return !found
	})
	return found
}

func mustJSON(a *ui.Action) string {
	b, err := json.Marshal(a)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// allText is every text and title under root, joined.
func allText(root *ui.Node) string {
	var b strings.Builder
	root.Walk(func(n *ui.Node) bool {
		b.WriteString(n.Text + "\n" + n.Title + "\n" + n.Label + "\n")
		return true
	})
	return b.String()
}

// The report is sold, and shown, as what it is: made from the profile's
// analysis. Before paying, a subscriber with no analysed profile reads that
// it is mailed once the profile is analysed; an owner in that state is
// offered no download (it would fail) but told when it comes and led to
// Analytics; the receipt of the purchase says the same; Analytics says it
// to an owner waiting for the first analysis.
func TestProfileReportBeforeTheFirstAnalysis(t *testing.T) {
	t.Parallel()
	c := unsubscribeCtx(t)
	report := ConfirmOverlay(billing.FamilyProfileReport)

	sold := PurchaseConfirms(c, pendingOffers(false), "Visa ••4242")[report]
	if !strings.Contains(allText(sold), "we email it to you as soon as the analysis is ready") {
		t.Errorf("the confirmation does not say when the report comes:\n%s", allText(sold))
	}
	if !strings.Contains(allText(sold), "made from your profile's analysis") {
		t.Errorf("the confirmation does not say what the report is made from:\n%s", allText(sold))
	}
	analysed := PurchaseConfirms(c, goldenOffers(false), "Visa ••4242")[report]
	if strings.Contains(allText(analysed), "not been analysed") {
		t.Errorf("an analysed subscriber is told the profile is not analysed")
	}

	plan := MyPlan(c, PlanState{Email: "ann@example.com", Plan: billing.Describe("glimpse_weekly_trial"), Offers: pendingOffers(true)})
	if downloadsReport(plan) {
		t.Error("My Plan offers a report download with no analysis to make it from")
	}
	if !strings.Contains(allText(plan), "we email your report as soon as it is") ||
		findNode(plan, byLabel("Analyse my profile")) == nil {
		t.Errorf("My Plan does not say when the report comes or lead to Analytics:\n%s", allText(plan))
	}
	if owned := MyPlan(c, PlanState{Plan: billing.Describe("glimpse_weekly_trial"), Offers: goldenOffers(true)}); !downloadsReport(owned) {
		t.Error("an analysed owner is not offered the download")
	}

	receipt := Receipt(c, &ReceiptState{Number: "7F3K-9QX2-M4AB", Item: "Profile report", Kind: billing.ReceiptAddOn,
		Family: billing.FamilyProfileReport, Amount: "$28.99", Date: "Nov 3, 2026", Card: "Visa ••4242", Status: billing.HistoryPaid,
		Email: "ann@example.com", JustBought: true, ReportPending: true}).Screen
	if downloadsReport(receipt) {
		t.Error("the receipt offers a report download with no analysis to make it from")
	}
	if !strings.Contains(allText(receipt), "We email your report to ann@example.com as soon as it is") ||
		findNode(receipt, byLabel("Open Analytics")) == nil {
		t.Errorf("the receipt does not say when the report comes:\n%s", allText(receipt))
	}

	for _, status := range []string{InsightsIdle, InsightsPending} {
		page := Analytics(c, AnalyticsState{Status: status, ReportPending: true})
		if !strings.Contains(allText(page.Screen), "we email it to you as soon as this analysis is ready") {
			t.Errorf("%s: Analytics does not tell the owner when the report comes", status)
		}
	}
}
