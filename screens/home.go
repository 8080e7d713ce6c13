package screens

import (
	"fmt"

	"glimpse/engine/analysis"
	"glimpse/engine/billing"
	"glimpse/engine/ui"
)

// Overlay ids of the home screen.
const (
	MenuOverlay           = "menu"
	LogoutOverlay         = "logout"
	CoursePurchaseOverlay = "course-purchase"
	MyPlanOverlay         = "my-plan"
)

// HomeState is what the home screen shows for one subscriber.
type HomeState struct {
	Email       string
	Plan        billing.Plan
	Canceled    bool
	CourseOwned bool
	// Fetching, PeriodEnd, Next, Card and Offers are My Plan's (PlanState).
	Fetching  bool
	PeriodEnd string
	Next      *NextPlan
	Card      string
	Offers    []Offer
	Plans     []PlanChoice
	// Buy is an add-on family whose purchase the dashboard opens over My
	// Plan: the purchase a card update interrupted.
	Buy string
	// Insights is the profile's insights status (InsightsIdle…) and
	// Engagement its latest analysis's figures, nil before the first: the
	// Analytics card.
	Insights   string
	Engagement *analysis.Engagement
	// TrendTitle and HackTitle are the hero's two article links: the
	// articles' own titles, which editors change with the articles
	// (content/articles), so no date in them goes stale here (issue #21).
	TrendTitle string
	HackTitle  string
	// PlanOpen opens My Plan over the dashboard (PathMyPlan): where the
	// unsubscribe flow returns a person who started it there.
	PlanOpen bool
}

// PathMyPlan is the dashboard with My Plan open.
const PathMyPlan = PathDashboard + "?open=" + MyPlanOverlay

// Home is the dashboard: the fixed header with the menu, the blue area with
// the trend and hack links, the Analytics card and the six cards.
func Home(c Context, h HomeState) Page {
	screen := ui.Screen("home", c.T("home.title"),
		heroArea(c, h),
		ui.Stack("md",
			analyticsCard(c, h),
			homeCard(c, "insights", "home.insights", ui.Navigate(PathInsights)),
			homeCard(c, "secret-admirers", "home.admirers", ui.Navigate(PathArticles+"/secret-admirers")),
			homeCard(c, "detect-stalkers", "home.stalkers", ui.Navigate(PathArticles+"/detect-stalkers")),
			homeCard(c, "password-safety", "home.passwordSafety", ui.Navigate(PathPasswordSafety)),
			homeCard(c, "news", "home.news", ui.Navigate(PathNews)),
			courseCard(c, h.CourseOwned),
		),
	)
	screen.Layout = "page"
	screen.Header = &ui.Node{Type: "header", Logo: &c.Brand.Logo, Menu: MenuOverlay,
		MenuLabel: c.T("home.menu"), ElevateOnScroll: true}
	screen.Footer = footer(c)
	cancelAsk, cancelSent := CancelByEmail(c, h.Email)
	overlays := map[string]*ui.Node{
		MenuOverlay:           menu(c),
		LogoutOverlay:         logoutModal(c),
		CoursePurchaseOverlay: coursePurchase(c),
		MyPlanOverlay: MyPlan(c, PlanState{Email: h.Email, Plan: h.Plan, Canceled: h.Canceled, Fetching: h.Fetching,
			PeriodEnd: h.PeriodEnd, Next: h.Next, Card: h.Card, Offers: h.Offers, Plans: h.Plans}),
		CancelByEmailOverlay: cancelAsk,
		CancelSentOverlay:    cancelSent,
	}
	for id, d := range PurchaseConfirms(c, h.Offers, h.Card) {
		overlays[id] = d
	}
	var state map[string]any
	if !h.Canceled && h.PeriodEnd != "" {
		plan := PlanState{Email: h.Email, Plan: h.Plan, PeriodEnd: h.PeriodEnd, Next: h.Next, Plans: h.Plans}
		overlays[ResumedOverlay] = Resumed(c, plan)
		if len(h.Plans) > 1 {
			overlays[ChangePlanOverlay] = ChangePlan(c, plan)
			state = map[string]any{"form": map[string]any{"planCode": renewsAs(h.Plans)}}
		}
	}
	open := opened(h.PlanOpen, MyPlanOverlay)
	if h.PlanOpen && h.Buy != "" {
		// Back from replacing the card mid-purchase: the purchase again.
		if _, ok := overlays[ConfirmOverlay(h.Buy)]; ok {
			open = append(open, ConfirmOverlay(h.Buy))
		}
	}
	return Page{Screen: screen, Overlays: overlays, Open: open, State: state}
}

// opened is the overlays a page opens with: id when open, else none.
func opened(open bool, id string) []string {
	if !open {
		return nil
	}
	return []string{id}
}

func heroArea(c Context, h HomeState) *ui.Node {
	art := ui.Image("/static/home/hero.svg", "")
	art.Aspect = "wide"
	trend := ui.Link(h.TrendTitle, ui.Navigate(PathTopTrends))
	trend.Icon = "chevron"
	hack := ui.Link(h.HackTitle, ui.Navigate(PathTopHacks))
	hack.Icon = "chevron"
	hero := ui.Stack("md",
		ui.Text("title", c.T("home.heroTitle")),
		ui.Text("body", c.T("home.heroText")),
		art,
		ui.List(true, trend, hack),
	)
	hero.Tone = "brand"
	hero.Padded = true
	return hero
}

func homeCard(c Context, image, key string, action *ui.Action) *ui.Node {
	card := ui.Card(action,
		ui.Text("heading", c.T(key+".title")),
		ui.Text("body", c.T(key+".text")),
	)
	card.Image = &ui.ImageRef{Src: "/static/home/" + image + ".svg", Alt: ""}
	card.ActionLabel = c.T(key + ".title")
	return card
}

// analyticsCard leads to Analytics, what the product sells: once there is a
// result it shows the engagement rate and its level, as the Analytics screen
// does; before, it says the analysis is on its way, or invites to start one.
func analyticsCard(c Context, h HomeState) *ui.Node {
	title := ui.Text("heading", c.T("home.analytics.title"))
	var card *ui.Node
	switch e := h.Engagement; {
	case e != nil:
		card = ui.Card(ui.Navigate(PathAnalytics), title, &ui.Node{Type: "level_meter", Label: c.T("analytics.engagementRate"),
			Level: &e.Level, ValueLabel: fmt.Sprintf("%.2f%%", e.Rate), Status: analysisText(c, e.Status, nil)})
	case h.Insights == InsightsPending || h.Insights == InsightsProcessing:
		card = ui.Card(ui.Navigate(PathAnalytics), title, ui.Text("body", c.T("home.analytics.pending")))
	default:
		card = ui.Card(ui.Navigate(PathAnalytics), title, ui.Text("body", c.T("home.analytics.invite")))
	}
	card.Tone = "brand"
	card.ActionLabel = c.T("home.analytics.title")
	return card
}

func courseCard(c Context, owned bool) *ui.Node {
	action := ui.OpenOverlay(CoursePurchaseOverlay)
	if owned {
		action = ui.Navigate(PathCourse)
	}
	card := homeCard(c, "course", "home.course", action)
	card.Children = append([]*ui.Node{ui.Badge(c.T("home.course.badge"), "brand")}, card.Children...)
	return card
}

func menu(c Context) *ui.Node {
	then := func(overlay string) *ui.Action {
		return ui.Sequence(ui.CloseOverlay(MenuOverlay), ui.OpenOverlay(overlay))
	}
	logout := ui.Link(c.T("menu.logOut"), then(LogoutOverlay))
	logout.Icon = "logout"
	d := ui.Dialog(MenuOverlay, "drawer", c.T("home.menu"), ui.List(true,
		ui.Link(c.T("menu.analytics"), ui.Navigate(PathAnalytics)),
		ui.Link(c.T("menu.insights"), ui.Navigate(PathInsights)),
		ui.Link(c.T("menu.admirers"), ui.Navigate(PathArticles+"/secret-admirers")),
		ui.Link(c.T("menu.stalkers"), ui.Navigate(PathArticles+"/detect-stalkers")),
		ui.Link(c.T("menu.passwordSafety"), ui.Navigate(PathPasswordSafety)),
		ui.Link(c.T("menu.privacyData"), ui.Navigate(PathPrivacyData)),
		ui.Link(c.T("menu.news"), ui.Navigate(PathNews)),
		ui.Link(c.T("menu.terms"), ui.OpenURL(PathTerms, true)),
		ui.Link(c.T("menu.privacy"), ui.OpenURL(PathPrivacy, true)),
		ui.Link(c.T("menu.myPlan"), then(MyPlanOverlay)),
		logout,
	))
	d.CloseLabel = c.T("home.closeMenu")
	return d
}

func logoutModal(c Context) *ui.Node {
	d := ui.Dialog(LogoutOverlay, "modal", c.T("logout.title"),
		ui.Stack("sm",
			ui.Button(c.T("logout.confirm"), "primary", ui.SignOut()),
			ui.Button(c.T("logout.cancel"), "secondary", ui.CloseOverlay(LogoutOverlay)),
		),
	)
	d.CloseLabel = c.T("dialog.close")
	return d
}

func coursePurchase(c Context) *ui.Node {
	full := ui.Text("caption", c.T("course.purchase.fullPrice"))
	full.Tone = "neutral"
	d := ui.Dialog(CoursePurchaseOverlay, "modal", c.T("course.purchase.title"),
		ui.Image("/static/home/course.svg", ""),
		ui.Text("body", c.T("course.purchase.text")),
		ui.Row("sm", ui.Text("heading", c.T("course.purchase.price")), full,
			ui.Badge(c.T("course.purchase.save"), "positive")),
		ui.Text("caption", c.T("course.purchase.oneTime")),
		// The confirmation says what is charged to which card.
		ui.Button(c.T("course.purchase.buy"), "primary",
			ui.Sequence(ui.CloseOverlay(CoursePurchaseOverlay), ui.OpenOverlay(ConfirmOverlay(billing.FamilyPDFCourse)))),
	)
	d.CloseLabel = c.T("dialog.close")
	return d
}
