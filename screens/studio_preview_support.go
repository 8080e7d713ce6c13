package screens

import (
	"time"

	"glimpse/engine/billing"
	"glimpse/engine/mail"
	"glimpse/engine/support"
)

// The support desk as the copy editor draws its texts: a sample
// subscriber's dossier (a plan, an add-on, charges of every status, mails,
// attempts to cancel of each outcome, a profile and sign-ins), the desk
// after each action, the audit log and a search that finds nobody.

// copySampleDossier is the sample subscriber as the desk shows them.
func copySampleDossier() support.Dossier {
	at := time.Date(2026, 11, 23, 9, 12, 0, 0, time.UTC)
	end := at.AddDate(0, 0, 14)
	expired := at.Add(-24 * time.Hour)
	d := support.Dossier{
		Email:   copySampleEmail,
		Account: &support.Account{ID: "u_8f3k2", CreatedAt: at.AddDate(0, -2, 0)},
		Subscriptions: []support.SubscriptionLine{
			{ID: "sub_weekly", PlanCode: "glimpse_weekly_trial", Plan: "Weekly Plan", Status: "active", Brand: "default",
				Card: "Visa ••4242", Price: billing.USD(100), MainPlan: true, Counts: true, StartedAt: at, PeriodEnd: end,
				NextPlan: "Premium Plan", ExtendFrom: end, CancelAtPeriodEnd: true},
			{ID: "sub_playbook", PlanCode: "glimpse_reels_playbook", Plan: "Reels Playbook", Status: "active", Brand: "default",
				Price: billing.USD(2899), Counts: true, StartedAt: at},
			{ID: "sub_old", PlanCode: "glimpse_premium_one_month", Plan: "Premium Plan", Status: "expired", Brand: "default",
				Price: billing.USD(1399), StartedAt: at.AddDate(0, -2, 0), PeriodEnd: expired, ExpiresAt: &expired},
			{ID: "sub_gone", PlanCode: "glimpse_premium_one_month", Plan: "Premium Plan", Status: "canceled", Brand: "default",
				Price: billing.USD(1399), StartedAt: at.AddDate(0, -1, 0), PeriodEnd: expired, AwaitsAccount: true},
		},
		Mails: []mail.Sent{
			{ID: "m1", Template: "receipt", Subject: "Your receipt", Status: "sent", CreatedAt: at, SentAt: at.Add(time.Minute)},
			{ID: "m2", Template: "activation", Subject: "Create your account", Status: "queued", CreatedAt: at},
			{ID: "m3", Template: "canceled", Subject: "Your subscription is canceled", Status: "failed", CreatedAt: at},
		},
		Profile: &support.ProfileLine{Source: "instagram", Username: "jamie.rivera", Status: "completed", Snapshots: 12, HasToken: true},
		SignIns: []support.SignIn{{At: at, Until: at.Add(5 * time.Hour), Live: true, Device: "Chrome on Android", Place: "Germany"},
			{At: at.Add(-48 * time.Hour), Until: at.Add(-47 * time.Hour), Device: "Safari on iPhone"}},
	}
	for i, status := range []string{"succeeded", "partially_refunded", "refunded", "failed", "processing", "disputed", "dispute_won", "dispute_lost"} {
		line := support.ChargeLine{ID: "ch_" + status, SubscriptionID: "sub_weekly", What: "Weekly Plan", Status: status,
			Receipt: "GL-2026-00421" + string(rune('0'+i)), Card: "Visa ••4242", Amount: billing.USD(100), Refunded: billing.USD(0),
			Refundable: status == "succeeded" || status == "partially_refunded", CreatedAt: at.Add(-time.Duration(i) * 24 * time.Hour)}
		if status == "partially_refunded" {
			line.Refunded = billing.USD(50)
			for j, rs := range []string{billing.RefundSucceeded, billing.RefundPending, billing.RefundFailed} {
				line.Refunds = append(line.Refunds, billing.Refund{ID: line.ID + "#" + string(rune('1'+j)), ChargeID: line.ID,
					SubscriptionID: "sub_weekly", Seq: j + 1, Amount: billing.USD(50), Status: rs, CreatedAt: at})
			}
		}
		d.Charges = append(d.Charges, line)
	}
	// Attempts of each outcome, one left unanswered, and a run of three.
	for i, outcome := range []string{"saved_gift_month", "saved_plan_change", "never_mind", "canceled", "", ""} {
		repeats := 1
		if i == 5 {
			repeats = 3
		}
		d.Attempts = append(d.Attempts, support.AttemptLine{StartedAt: at, From: at.Add(-72 * time.Hour), Repeats: repeats, Plan: "Weekly Plan",
			Entry: "my_plan", Reason: "cutting_expenses", Stars: 4, Review: "Good app, too pricey for me now",
			OffersShown: []string{"gift_month"}, OffersAccepted: []string{"gift_month"}, Outcome: outcome})
	}
	for i, action := range []string{support.ActionExtend, support.ActionRefund, support.ActionCancelNow, support.ActionCancelAtEnd,
		support.ActionResendActivation, support.ActionResendReceipt, support.ActionSignOut} {
		d.Audit = append(d.Audit, support.Entry{ID: action, At: at.Add(-time.Duration(i) * time.Hour), Staff: "support@example.com",
			Action: action, Subscriber: copySampleEmail, Target: "sub_weekly", Reason: "Outage last week", Detail: "7 days",
			Outcome: support.OutcomeDone})
	}
	// Older entries that failed or are still running.
	for _, outcome := range []string{support.OutcomeFailed, support.OutcomeStarted} {
		d.Audit = append(d.Audit, support.Entry{ID: outcome, At: at.AddDate(0, 0, -3), Staff: "support@example.com",
			Action: support.ActionRefund, Subscriber: copySampleEmail, Target: "ch_succeeded", Reason: "Charged twice", Detail: "$1.00",
			Outcome: outcome})
	}
	return d
}

// copySampleDesk is the desk with the dossier open, after each action, the
// audit log and a search that finds nobody.
func copySampleDesk() []func(Context) Page {
	const staff = "support@example.com (support)"
	out := []func(Context) Page{}
	for _, done := range []string{"", support.ActionRefund, support.ActionCancelNow, support.ActionCancelAtEnd, support.ActionExtend,
		support.ActionResendActivation, support.ActionResendReceipt, support.ActionSignOut, "generic"} {
		out = append(out, func(c Context) Page {
			d := copySampleDossier()
			return SupportDesk(c, SupportState{Staff: staff, Email: d.Email, Dossier: &d, Key: "preview", Done: done})
		})
	}
	return append(out,
		// An account the subscriber cannot use, its plan suspended.
		func(c Context) Page {
			d := copySampleDossier()
			d.Account.Disabled = true
			d.Subscriptions[0].Suspended = true
			return SupportDesk(c, SupportState{Staff: staff, Email: d.Email, Dossier: &d, Key: "preview"})
		},
		// A plan bought, its account not created yet, nothing connected.
		func(c Context) Page {
			d := copySampleDossier()
			d.Account, d.Profile = nil, nil
			return SupportDesk(c, SupportState{Staff: staff, Email: d.Email, Dossier: &d, Key: "preview"})
		},
		func(c Context) Page {
			return SupportDesk(c, SupportState{Staff: "admin@example.com (admin)", Audit: copySampleDossier().Audit, Key: "preview", Admin: true})
		},
		func(c Context) Page {
			return SupportDesk(c, SupportState{Staff: staff, Email: "nobody@example.com", Key: "preview"})
		},
		func(c Context) Page {
			return SupportDesk(c, SupportState{Staff: staff, Query: "jamie", Key: "preview", Matches: []support.Match{
				{Email: copySampleEmail, Plans: []string{"Weekly Plan"}, Via: support.ViaEmail},
				{Email: "j.rivera@example.com", Plans: []string{"Premium Plan"}, Via: support.ViaCard},
				{Email: "jr@example.com", Plans: []string{"Weekly Plan"}, Via: support.ViaReceipt},
				{Email: "jamie@example.com", Plans: []string{"Weekly Plan"}, Via: support.ViaCharge},
				{Email: "rivera@example.com", Plans: []string{"Weekly Plan"}, Via: support.ViaInstagram, Username: "jamie.rivera"}}})
		})
}
