package screens

import (
	"maps"
	"slices"
	"time"

	"glimpse/engine/analysis"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/library"
	"glimpse/engine/ui"
)

// The sample subscriber's and editor's screens the copy editor draws texts
// on that show only with data: a subscriber's dashboard, plan, receipts and
// mails, and the studio's lists and editor with items in them. Every value
// is made up and looks like what the screen shows for real.

// copySampleHome is the dashboard of the sample subscriber: the weekly
// plan, the course not bought, the two hero articles.
func copySampleHome(c Context) Page {
	p := billing.Describe("")
	return Home(c, HomeState{Email: copySampleEmail, Plan: p, PeriodEnd: copySampleDate, Card: "Visa ••4242",
		Insights: InsightsIdle, TrendTitle: "Top trends of the week", HackTitle: "Five hacks for more reach"})
}

// copySamplePlans are My Plan's states: running with a change scheduled
// and add-ons on offer (owned and not), canceled, and fetching.
func copySamplePlans() []func(Context) Page {
	p := billing.Describe("")
	next := billing.Describe(billing.FamilyPremiumOneMonth)
	offers := []Offer{
		{Family: billing.FamilyPDFCourse, Price: billing.USD(999), FullPrice: billing.USD(1999), Discount: 50},
		{Family: billing.FamilyProfileReport, Price: billing.USD(499), Owned: true},
		{Family: billing.FamilyReelsPlaybook, Price: billing.USD(699), Pending: true},
	}
	plans := []PlanChoice{{Code: "weekly", Name: p.Name, Price: p.Price, Period: p.Period, Current: true},
		{Code: "premium", Name: next.Name, Price: next.Price, Period: next.Period, Next: true}}
	states := []PlanState{
		{Email: copySampleEmail, Plan: p, PeriodEnd: copySampleDate, Card: "Visa ••4242", Offers: offers, Plans: plans,
			Next: &NextPlan{Name: next.Name, Price: next.Price, Period: next.Period, From: copySampleDate}},
		{Email: copySampleEmail, Plan: p, PeriodEnd: copySampleDate, Card: "Visa ••4242", Offers: offers, Plans: plans[:1]},
		{Email: copySampleEmail, Plan: p, PeriodEnd: copySampleDate, Canceled: true},
		{Email: copySampleEmail, Fetching: true},
	}
	var out []func(Context) Page
	for _, st := range states {
		out = append(out, planPreview(func(c Context, _ PlanState) *ui.Node { return MyPlan(c, st) }),
			planPreview(func(c Context, _ PlanState) *ui.Node { return ChangePlan(c, st) }),
			func(c Context) Page {
				return Page{Screen: ui.Screen("plan", "", ui.Stack("md")), Overlays: PurchaseConfirms(c, st.Offers, st.Card)}
			},
			// The dialog "Resume my plan" answers with.
			func(c Context) Page {
				return Page{Screen: ui.Screen("plan", "", ui.Stack("md")), Overlays: map[string]*ui.Node{ResumedOverlay: Resumed(c, st)}}
			})
	}
	return out
}

// copySampleReceipts are a plan's receipt (refunded in part), an add-on
// just bought, and a report bought before the analysis.
func copySampleReceipts() []func(Context) Page {
	p := billing.Describe("")
	base := ReceiptState{Number: "GL-2026-004217", Item: p.Name, Kind: billing.ReceiptRenewal, Amount: p.Price,
		Date: copySampleDate, Card: "Visa ••4242", Status: billing.HistoryPaid, Period: "Nov 30 – " + copySampleDate,
		Operator: "Glimpse Apps Ltd", Email: copySampleEmail}
	refunded := base
	refunded.Status, refunded.Refunded = billing.HistoryRefunded, "$1.00 on "+copySampleDate
	addOn := base
	addOn.Kind, addOn.Family, addOn.Item, addOn.Period, addOn.JustBought = billing.ReceiptAddOn, billing.FamilyPDFCourse, "PDF course", "", true
	report := addOn
	report.Family, report.Item, report.ReportPending = billing.FamilyProfileReport, "Profile report", true
	var out []func(Context) Page
	for _, st := range []ReceiptState{base, refunded, addOn, report} {
		out = append(out, func(c Context) Page { return Receipt(c, &st) })
	}
	return out
}

// copySampleHistory is a billing history with a charge of every status.
func copySampleHistory(c Context) Page {
	p := billing.Describe("")
	var lines []HistoryLineView
	for i, status := range []string{billing.HistoryPaid, billing.HistoryRefunded, billing.HistoryPartiallyRefunded,
		billing.HistoryFailed, billing.HistoryPending, billing.HistoryDisputed} {
		l := HistoryLineView{Date: copySampleDate, Item: p.Name, Amount: p.Price, Status: status, Receipt: "GL-2026-00421" + string(rune('0'+i))}
		if status == billing.HistoryPartiallyRefunded {
			l.Refunded, l.RefundedOn = "$0.50", copySampleDate
		}
		if status == billing.HistoryFailed {
			l.Receipt = ""
		}
		lines = append(lines, l)
	}
	return BillingHistory(c, lines)
}

// copySampleMailbox is the dev mailbox with a mail of each status, and one
// mail that failed.
func copySampleMailbox() []func(Context) Page {
	mails := []DevMailItem{
		{ID: "m1", To: copySampleEmail, Subject: "Create your account", Status: "sent", Time: "Nov 30, 2026, 09:12 UTC", Attempts: 1},
		{ID: "m2", To: copySampleEmail, Subject: "Your receipt", Status: "queued", Time: "Nov 30, 2026, 09:13 UTC"},
		{ID: "m3", To: copySampleEmail, Subject: "Your profile report", Status: "failed", Time: "Nov 30, 2026, 09:14 UTC", Attempts: 5,
			LastError: "550 mailbox unavailable", Text: "Hello,\n\nhttps://glimpse.example/dashboard/analytics", Attachments: []string{"profile-report.pdf"}},
	}
	return []func(Context) Page{
		func(c Context) Page { return DevMailbox(c, mails) },
		func(c Context) Page { return DevMailMessage(c, &mails[2], "") },
		func(c Context) Page { return DevMailMessage(c, nil, "") },
	}
}

// copySampleStudio are the studio's lists and editor with items: the home
// in each sort and searched for nothing, the copy list and a search that
// finds nothing, a copy key that does not exist, and an article's editor
// with revisions and a scheduled publish.
func copySampleStudio() []func(Context) Page {
	at := time.Date(2026, 11, 30, 9, 12, 0, 0, time.UTC)
	items := []StudioItem{
		{Kind: library.KindArticle, Slug: "top-trends", Title: "Top trends of the week", Status: library.StatusPublished, Pending: true, UpdatedAt: at, By: "editor@example.com"},
		{Kind: library.KindNews, Slug: "new-reels", Title: "Reels get longer", Status: library.StatusDraft, UpdatedAt: at.Add(-time.Hour), By: "editor@example.com"},
		{Kind: library.KindPage, Slug: "privacy", Title: "Privacy policy", Status: "unpublished"},
		{Kind: library.KindTopic, Slug: "reach", Title: "Reach"},
	}
	brands := []StudioBrand{{Key: brand.DefaultKey, Name: "Glimpse"}, {Key: "_x_", Name: "Profilio"}}
	out := []func(Context) Page{}
	for _, q := range []StudioHomeQuery{{Sort: StudioSortKind}, {Sort: StudioSortDate}, {Q: "trends", Sort: StudioSortEditor}} {
		out = append(out, func(c Context) Page { return StudioHomeView(c, "editor@example.com", items, q) })
	}
	// The copy list with a key of each screen: every screen's heading, and
	// a tree small enough to redraw as the editor types. The studio's own
	// keys are left out, so none of them is "drawn" as a line of the list
	// rather than where the studio shows it.
	copyItems := func(c Context) []StudioItem {
		seen := map[string]bool{"studio": true, "experiments": true}
		var keys []string
		for _, k := range slices.Sorted(maps.Keys(c.Brand.Copy)) {
			if _, id, _ := copyScreenOf(c, k); !seen[id] {
				seen[id] = true
				keys = append(keys, k)
			}
		}
		return StudioCopyItems(c.Copy, brand.DefaultKey, keys)
	}
	out = append(out,
		func(c Context) Page { return StudioCopy(c, brand.DefaultKey, brands, copyItems(c), "") },
		func(c Context) Page { return StudioCopy(c, brand.DefaultKey, brands, nil, "zebra quartz") },
		func(c Context) Page { return StudioCopyMissing(c, brand.DefaultKey, "no.such.key") },
	)
	for _, kind := range studioKinds {
		out = append(out, func(c Context) Page {
			return StudioEdit(c, StudioEditState{Kind: kind, Slug: "top-trends", Title: "Top trends of the week",
				Status: library.StatusPublished, Pending: true, CanEdit: true, Fields: StudioFields(c, kind, "top-trends"),
				Values: map[string]string{"title": "Top trends of the week"},
				Revisions: []StudioRevision{{N: 2, Action: "save", By: "editor@example.com", At: "Nov 30, 2026, 09:12 UTC", Changed: []string{"title"}},
					{N: 1, Action: "publish", By: "editor@example.com", At: "Nov 29, 2026, 17:40 UTC", Changed: []string{"body"}}},
				CanSchedule: true, Now: at,
				Schedules: []StudioSchedule{{ID: "s1", Kind: kind, Slug: "top-trends", Title: "Top trends of the week", At: at.Add(24 * time.Hour), By: "editor@example.com"}},
				Preview:   ui.Stack("md", ui.Text("body", "Top trends of the week"))})
		})
	}
	return out
}

// copySampleAnalytics are Analytics before a profile is connected (with
// the upload and a refused connection), while it is analysed, and with a
// small made-up analysis of two snapshots and its charts.
func copySampleAnalytics() []func(Context) Page {
	day := func(d int) time.Time { return time.Date(2026, 11, d, 9, 0, 0, 0, time.UTC) }
	r := analysis.Analyse(analysis.Input{
		Previous: &analysis.Snapshot{TakenAt: day(28), Followers: []string{"ana.lopez", "bo.kim"}},
		Current: analysis.Snapshot{TakenAt: day(29), FollowerCount: 1240,
			Followers: []string{"bo.kim", "cy.meyer"}, Following: []string{"bo.kim", "dee.rossi"},
			Posts: []analysis.Post{
				{ID: "p1", TakenAt: day(29), Likes: 84, Comments: 6, Commenters: []string{"eve.hart"}},
				{ID: "p2", TakenAt: day(28), Likes: 41},
			}},
	})
	return []func(Context) Page{
		func(c Context) Page {
			return Analytics(c, AnalyticsState{Status: InsightsCompleted, Result: &r, Source: "Instagram", ReportURL: "/reports/profile.pdf",
				Pictures:   map[string]string{"p1": "/static/posts/demo-1.svg"},
				Followers:  []analysis.Point{{At: day(27), Value: 1200}, {At: day(28), Value: 1221}, {At: day(29), Value: 1240}},
				Engagement: []analysis.Point{{At: day(27), Value: 2.3}, {At: day(29), Value: 2.41}}})
		},
		func(c Context) Page {
			return Analytics(c, AnalyticsState{Status: InsightsIdle, ConnectURL: "/instagram/connect", CanUpload: true,
				Notice: c.T("instagram.denied")})
		},
		func(c Context) Page { return Analytics(c, AnalyticsState{Status: InsightsIdle, ReportPending: true}) },
		func(c Context) Page { return Analytics(c, AnalyticsState{Status: InsightsPending}) },
		func(c Context) Page { return Analytics(c, AnalyticsState{Status: InsightsProcessing}) },
	}
}
