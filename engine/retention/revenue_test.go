package retention

import (
	"testing"

	"glimpse/engine/billing"
)

// A save's revenue over the experiments' 30-day window, net of the offer:
// the catalogue's plans valued per 30 days, the free month and a cancel at
// nothing.
func TestSaveRevenue(t *testing.T) {
	cat := billing.DefaultCatalogue()
	plan := func(family string) billing.PlanSpec {
		p, err := cat.Find("default", family)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	sale, err := cat.SaleOf("default", billing.FamilyPremiumOneMonth)
	if err != nil {
		t.Fatal(err)
	}
	view := func(family string) View {
		p := plan(family)
		return View{Subscription: billing.Subscription{PlanCode: p.Code, Price: p.Price}, Sale: sale}
	}
	for _, c := range []struct {
		family, outcome string
		want            int64
	}{
		{billing.FamilyWeekly, OutcomeStayed, 429},           // $1 a week: 100 × 30/7 = 428.6
		{billing.FamilyThreeMonth, OutcomeStayed, 1750},      // $49 per 12 weeks: 4900 × 30/84
		{billing.FamilyPremiumOneMonth, OutcomeStayed, 1399}, // $13.99 a month
		{billing.FamilyGiftOneMonth, OutcomeStayed, 1999},
		{billing.FamilyThreeMonth, OutcomePlanChanged, 1399}, // the sale plan's $13.99 from the next period
		{billing.FamilyWeekly, OutcomePlanChanged, 1399},
		{billing.FamilyThreeMonth, OutcomeGiftMonth, 0}, // the free month covers the window
		{billing.FamilyThreeMonth, OutcomeCanceled, 0},
	} {
		if got := saveRevenue(cat, view(c.family), c.outcome); got != c.want {
			t.Errorf("%s, %s: %d, want %d", c.family, c.outcome, got, c.want)
		}
	}
	// A plan the catalogue does not know is valued at its price a month;
	// an add-on (no period) brings nothing more in.
	if got := saveRevenue(cat, View{Subscription: billing.Subscription{PlanCode: "legacy", Price: billing.USD(999)}}, OutcomeStayed); got != 999 {
		t.Errorf("unknown plan: %d", got)
	}
	if got := perWindow(1999, billing.Interval{}); got != 0 {
		t.Errorf("add-on: %d", got)
	}
}
