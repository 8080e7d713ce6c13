// Package billing knows plans: how a plan code reads to a person and which
// add-ons (entitlements) a person's subscriptions give. The payment engine
// (checkout, renewals, cancellations) builds on it.
package billing

import (
	"strings"
	"time"
)

// Plan is how a main plan is shown to a person.
type Plan struct {
	Name   string // e.g. "Weekly Plan"
	Status string // e.g. "Trial"
	Price  string // e.g. "$1"
	Period string // e.g. "week"
}

// Describe reads a plan code as the spec's plan table says: the code is
// matched by substring, and anything unknown is the weekly trial.
func Describe(planCode string) Plan {
	switch {
	case strings.Contains(planCode, "premium_one_month"):
		return Plan{Name: "Premium Plan", Status: "Premium", Price: "$13.99", Period: "1 month"}
	case strings.Contains(planCode, "gift_one_month"):
		return Plan{Name: "Gift Plan", Status: "Gift", Price: "$19.99", Period: "1 month"}
	case strings.Contains(planCode, "3month"):
		return Plan{Name: "3-Month Plan", Status: "Premium", Price: "$49", Period: "12 weeks"}
	default:
		return Plan{Name: "Weekly Plan", Status: "Trial", Price: "$1", Period: "week"}
	}
}

// Entitlement is an add-on or tier a person may own.
type Entitlement string

// The entitlements, each owned through a plan code of its family.
const (
	PDFCourse       Entitlement = "pdf_course"
	ProfileReport   Entitlement = "profile_report"
	ReelsPlaybook   Entitlement = "reels_playbook"
	PremiumOneMonth Entitlement = "premium_one_month"
	GiftOneMonth    Entitlement = "gift_one_month"
)

// AddOns are the one-time add-ons My Plan offers, in its order, each with
// the family it is sold as and the entitlement it gives.
var AddOns = []struct {
	Family      string
	Entitlement Entitlement
}{{FamilyProfileReport, ProfileReport}, {FamilyPDFCourse, PDFCourse}, {FamilyReelsPlaybook, ReelsPlaybook}}

// Entitlements returns the entitlements that non-expired subscriptions on
// bundle give: a partner brand's purchase does not unlock this brand. Each
// family's code carries its family name, with brand markers (_x_, _y_) and
// sale variants around it, so a substring match covers them all.
func Entitlements(subs []Subscription, bundle string, now time.Time) map[Entitlement]bool {
	out := map[Entitlement]bool{}
	for _, sub := range subs {
		if sub.Bundle != bundle || sub.Expired(now) || sub.Suspended {
			continue
		}
		for _, e := range []Entitlement{PDFCourse, ProfileReport, ReelsPlaybook, PremiumOneMonth, GiftOneMonth} {
			if strings.Contains(sub.PlanCode, string(e)) {
				out[e] = true
			}
		}
	}
	return out
}
