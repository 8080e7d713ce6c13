package screens

import (
	"testing"
	"time"

	"glimpse/content"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/mail"
	"glimpse/engine/support"
	"glimpse/engine/ui"
)

func goldenDossier() support.Dossier {
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	end := at.AddDate(0, 0, 7)
	return support.Dossier{
		Email:   "demo@example.com",
		Account: &support.Account{ID: "demo-subscriber", CreatedAt: at.Add(-time.Hour)},
		Subscriptions: []support.SubscriptionLine{
			{ID: "add_1", PlanCode: "glimpse_reels_playbook", Plan: "Reels Playbook", Status: "active", Brand: "default",
				Price: billing.USD(2899), Counts: true, StartedAt: at},
			{ID: "demo-weekly", PlanCode: "glimpse_weekly_trial", Plan: "Weekly Plan", Status: "active", Brand: "default",
				Card: "Visa ••4242", Price: billing.USD(100), MainPlan: true, Counts: true, StartedAt: at, PeriodEnd: end,
				NextPlan: "Monthly Plan", ExtendFrom: end},
		},
		Charges: []support.ChargeLine{
			{ID: "purchase:demo-subscriber:glimpse_reels_playbook", SubscriptionID: "add_1", What: "Reels Playbook",
				Status: "succeeded", Amount: billing.USD(2899), Refunded: billing.USD(0), Refundable: true, CreatedAt: at,
				Receipt: "KAYY-SDRR-SN4N", Card: "Visa ••4242"},
		},
		Mails: []mail.Sent{{ID: "receipt:add_1", Template: "receipt", Subject: "Your receipt", Status: "sent", CreatedAt: at, SentAt: at.Add(time.Minute)}},
		Attempts: []support.AttemptLine{
			{StartedAt: at.Add(48 * time.Hour), From: at.Add(-10 * 24 * time.Hour), Repeats: 12, Plan: "Weekly Plan", Entry: "my_plan"},
			{StartedAt: at, From: at, Repeats: 1, Plan: "Weekly Plan", Entry: "my_plan", Reason: "cutting_expenses", Stars: 4,
				Review: "Nice", OffersShown: []string{"gift_month"}, OffersAccepted: []string{"gift_month"}, Outcome: "saved_gift_month"}},
		Profile: &support.ProfileLine{Source: "demo", Username: "glimpse_demo", Status: "completed", Snapshots: 12},
		SignIns: []support.SignIn{{At: at, Until: at.Add(5 * time.Hour), Live: true, Device: "Chrome on Android", Place: "Germany"}},
		Audit: []support.Entry{{ID: "1", At: at, Staff: "support@example.com", Action: support.ActionExtend, Subscriber: "demo@example.com",
			Target: "demo-weekly", Reason: "Outage last week", Detail: "7 days", Outcome: support.OutcomeDone}},
	}
}

func supportGoldenCases() []goldenCase {
	return []goldenCase{
		{"studio-support", func(c Context) Page {
			d := goldenDossier()
			return SupportDesk(c, SupportState{Staff: "support@example.com (support)", Email: d.Email, Dossier: &d, Key: "desk-key"})
		}},
		{"studio-support__matches", func(c Context) Page {
			d := goldenDossier()
			return SupportDesk(c, SupportState{Staff: "support@example.com (support)", Query: "dem", Email: d.Email, Dossier: &d, Key: "desk-key",
				Done: support.ActionExtend, Matches: []support.Match{
					{Email: "dembo@example.com", Plans: []string{"Monthly Plan"}, Via: support.ViaEmail},
					{Email: "demo@example.com", Plans: []string{"Weekly Plan", "Reels playbook"}, Via: support.ViaEmail},
					{Email: "rita@example.com", Plans: []string{"Weekly Plan"}, Via: support.ViaInstagram, Username: "demo.rita"},
					{Email: "ted@demo.example", Plans: []string{"Weekly Plan"}, Via: support.ViaEmailPart, Part: "dem"}}})
		}},
		{"studio-support__audit", func(c Context) Page {
			return SupportDesk(c, SupportState{Staff: "admin@example.com (admin)", Audit: goldenDossier().Audit, Key: "desk-key", Admin: true})
		}},
		{"studio-support__not-found", func(c Context) Page {
			return SupportDesk(c, SupportState{Staff: "support@example.com (support)", Email: "nobody@example.com", Key: "desk-key"})
		}},
	}
}

// Every action dialog on the desk asks for a reason, with the rules the
// desk checks again: required, MinReason to MaxReason characters.
func TestEveryDeskActionAsksAReason(t *testing.T) {
	t.Parallel()
	d := goldenDossier()
	seed, err := brand.ReadShipped(content.Brands)
	if err != nil {
		t.Fatal(err)
	}
	reg := brand.NewRegistry(nil)
	reg.Set(seed)
	b := reg.Get(brand.DefaultKey)
	p := SupportDesk(Context{Brand: b, Copy: reg.Copy(b)}, SupportState{Staff: "s", Email: d.Email, Dossier: &d, Key: "k"})
	for _, id := range []string{SupportRefund, SupportCancel, SupportExtend, SupportResend, SupportSignOut} {
		dialog, ok := p.Overlays[id]
		if !ok {
			t.Errorf("no %s dialog", id)
			continue
		}
		reasons := 0
		dialog.Walk(func(n *ui.Node) bool {
			if n.Type == "textarea" {
				kinds := map[string]bool{}
				for _, r := range n.Rules {
					kinds[r.Kind] = true
				}
				if kinds[ui.RuleKindRequired] && kinds[ui.RuleKindMinLength] && kinds[ui.RuleKindMaxLength] {
					reasons++
				}
			}
			return true
		})
		if reasons != 1 {
			t.Errorf("the %s dialog has %d checked reasons, want 1", id, reasons)
		}
	}
}
