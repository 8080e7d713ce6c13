package billing

import (
	"fmt"
	"strings"
	"time"

	"glimpse/engine"
)

// Money is an amount in a currency's minor units (cents), so no price is
// ever a float.
type Money struct {
	Amount   int64  `bson:"amount" json:"amount"`
	Currency string `bson:"currency" json:"currency"`
}

// USD returns an amount of US cents.
func USD(cents int64) Money { return Money{Amount: cents, Currency: "USD"} }

// String writes the amount as the screens show prices: "$1", "$13.99".
func (m Money) String() string {
	sign := ""
	if m.Currency == "USD" {
		sign = "$"
	}
	whole, cents := m.Amount/100, m.Amount%100
	if cents == 0 {
		return fmt.Sprintf("%s%d", sign, whole)
	}
	return fmt.Sprintf("%s%d.%02d", sign, whole, cents)
}

// Interval is a billing period: Count weeks or months.
type Interval struct {
	Unit  string `bson:"unit" json:"unit"` // "week" or "month"
	Count int    `bson:"count" json:"count"`
}

// After returns t moved on by one period. Months follow the calendar (Jan 31
// plus a month is Mar 3, as time.AddDate normalises); the catalogue's monthly
// plans start on the day they were bought, so the drift is the calendar's.
func (i Interval) After(t time.Time) time.Time {
	if i.Unit == "month" {
		return t.AddDate(0, i.Count, 0)
	}
	return t.AddDate(0, 0, 7*i.Count)
}

// Kinds of plan.
const (
	KindMain  = "main"  // a subscription that authorises (renews every period)
	KindAddOn = "addon" // a one-time purchase that adds an entitlement
)

// Families of plan codes. A family name is a substring of every code in it,
// which is how the spec matches codes (Describe, Entitlements).
const (
	FamilyWeekly          = "weekly_trial"
	FamilyPremiumOneMonth = "premium_one_month"
	FamilyThreeMonth      = "3month"
	FamilyGiftOneMonth    = "gift_one_month"
	FamilyPDFCourse       = "pdf_course"
	FamilyProfileReport   = "profile_report"
	FamilyReelsPlaybook   = "reels_playbook"
)

// PlanSpec is one sellable plan of the catalogue.
type PlanSpec struct {
	Code   string
	Family string
	Brand  string // brand key: "default", "_x_" or "_y_"
	Kind   string
	Price  Money
	// FullPrice and Discount are the crossed-out price and the saving the
	// offer cards show; zero when there is none.
	FullPrice Money
	Discount  int // percent
	// Period is the billing period of a main plan; zero for add-ons.
	Period Interval
	// Sale marks a discounted variant, sold only through an offer.
	Sale bool
}

// Recurring reports whether the plan renews.
func (p PlanSpec) Recurring() bool { return p.Period.Count > 0 }

// Catalogue holds the plans of every brand.
type Catalogue struct {
	plans map[string]PlanSpec
	order []string
}

// brandPrefix is how a brand marks its plan codes: the default brand's codes
// start "glimpse_", a partner's with its key ("_x_"), so brand.FromPlanCode
// finds the brand in any code.
func brandPrefix(brandKey string) string {
	if brandKey == "" || brandKey == "default" {
		return "glimpse_"
	}
	return brandKey
}

// DefaultCatalogue is the spec's catalogue: the plan table's four main plans
// and the three add-ons, in every brand, and the sale variants.
func DefaultCatalogue() *Catalogue {
	c := &Catalogue{plans: map[string]PlanSpec{}}
	week, month, twelveWeeks := Interval{"week", 1}, Interval{"month", 1}, Interval{"week", 12}
	for _, b := range []string{"default", "_x_", "_y_"} {
		p := brandPrefix(b)
		for _, s := range []PlanSpec{
			{Family: FamilyWeekly, Kind: KindMain, Price: USD(100), Period: week},
			{Family: FamilyPremiumOneMonth, Kind: KindMain, Price: USD(1399), Period: month},
			{Family: FamilyThreeMonth, Kind: KindMain, Price: USD(4900), Period: twelveWeeks},
			{Family: FamilyGiftOneMonth, Kind: KindMain, Price: USD(1999), Period: month},
			{Family: FamilyPDFCourse, Kind: KindAddOn, Price: USD(1999), FullPrice: USD(2999), Discount: 33},
			{Family: FamilyProfileReport, Kind: KindAddOn, Price: USD(2899), FullPrice: USD(6999), Discount: 57},
			{Family: FamilyReelsPlaybook, Kind: KindAddOn, Price: USD(2899), FullPrice: USD(6999), Discount: 57},
			// The retention flow's plan change: premium monthly at the
			// offer's price, shown against its full price.
			{Family: FamilyPremiumOneMonth, Kind: KindMain, Price: USD(1399), FullPrice: USD(13999), Discount: 90, Period: month, Sale: true},
		} {
			s.Brand = b
			s.Code = p + s.Family
			if s.Sale {
				s.Code += "_sale"
			}
			c.add(s)
		}
	}
	return c
}

func (c *Catalogue) add(p PlanSpec) {
	c.plans[p.Code] = p
	c.order = append(c.order, p.Code)
}

// ErrUnknownPlan is a plan code the catalogue does not sell.
var ErrUnknownPlan = engine.Errorf(engine.CodeInvalid, "This plan is not available.")

// Plan returns the plan with code.
func (c *Catalogue) Plan(code string) (PlanSpec, error) {
	p, ok := c.plans[code]
	if !ok {
		return PlanSpec{}, ErrUnknownPlan
	}
	return p, nil
}

// ForBrand returns a brand's plans of a kind in catalogue order, without
// sale variants.
func (c *Catalogue) ForBrand(brandKey, kind string) []PlanSpec {
	var out []PlanSpec
	for _, code := range c.order {
		p := c.plans[code]
		if p.Brand == brandKey && p.Kind == kind && !p.Sale {
			out = append(out, p)
		}
	}
	return out
}

// Find returns a brand's plan of a family (the regular one, not a sale).
func (c *Catalogue) Find(brandKey, family string) (PlanSpec, error) {
	p, ok := c.plans[brandPrefix(brandKey)+family]
	if !ok {
		return PlanSpec{}, ErrUnknownPlan
	}
	return p, nil
}

// SaleOf returns the sale variant of a family for a brand.
func (c *Catalogue) SaleOf(brandKey, family string) (PlanSpec, error) {
	p, ok := c.plans[brandPrefix(brandKey)+family+"_sale"]
	if !ok {
		return PlanSpec{}, ErrUnknownPlan
	}
	return p, nil
}

// FamilyOf returns the family a plan code belongs to, by the spec's
// substring rule; unknown codes read as the weekly trial, as Describe does.
func FamilyOf(code string) string {
	for _, f := range []string{FamilyPDFCourse, FamilyProfileReport, FamilyReelsPlaybook,
		FamilyPremiumOneMonth, FamilyGiftOneMonth, FamilyThreeMonth} {
		if strings.Contains(code, f) {
			return f
		}
	}
	return FamilyWeekly
}
