package screens

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"glimpse/content"
	"glimpse/engine/analysis"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/library"
	"glimpse/engine/retention"
	"glimpse/engine/ui"
)

var update = flag.Bool("update", false, "rewrite the golden files in fixtures/screens")

// payloadBudget caps a screen's uncompressed size, so growth is a decision.
const payloadBudget = 40 << 10

// goldenCase is one screen in one state; every case is composed for every
// brand.
type goldenCase struct {
	name    string
	compose func(c Context) Page
}

// goldenTrend and goldenHack are the hero's article titles (the articles' own).
const (
	goldenTrend = "Top 7 Instagram Trends Shaping 2026"
	goldenHack  = "Top 5 Instagram Algorithm Hacks to Grow in 2026"
)

func goldenCases() []goldenCase {
	return append([]goldenCase{
		{"sign-in", func(c Context) Page { return SignIn(c, "/checkout?quiz=true&page=SUBSCRIPTION") }},
		{"home__weekly", func(c Context) Page {
			return Home(c, HomeState{TrendTitle: goldenTrend, HackTitle: goldenHack, Email: "demo@example.com", Plan: billing.Describe("glimpse_weekly_trial"),
				PeriodEnd: "Nov 29, 2026", Card: "Visa ••4242", Offers: goldenOffers(false), Plans: goldenPlans(false)})
		}},
		{"home__plan-change", func(c Context) Page {
			return Home(c, HomeState{TrendTitle: goldenTrend, HackTitle: goldenHack, Email: "demo@example.com", Plan: billing.Describe("glimpse_weekly_trial"),
				PeriodEnd: "Dec 2, 2026", Card: "Visa ••4242", Offers: goldenOffers(false),
				Next: &NextPlan{Name: "Premium Plan", Price: "$13.99", Period: "1 month", From: "Dec 2, 2026"}, Plans: goldenPlans(true)})
		}},
		{"home__fetching-plans", func(c Context) Page {
			return Home(c, HomeState{TrendTitle: goldenTrend, HackTitle: goldenHack, Email: "demo@example.com", Plan: billing.Describe("glimpse_weekly_trial"),
				Fetching: true, PeriodEnd: "Nov 29, 2026", Card: "Visa ••4242", Offers: goldenOffers(false)})
		}},
		{"home__report-pending", func(c Context) Page {
			return Home(c, HomeState{TrendTitle: goldenTrend, HackTitle: goldenHack, Email: "ann@example.com", Plan: billing.Describe("glimpse_weekly_trial"),
				PeriodEnd: "Nov 29, 2026", Card: "Visa ••4242", Offers: pendingOffers(false), Insights: InsightsIdle})
		}},
		{"home__course-owner-canceled", func(c Context) Page {
			return Home(c, HomeState{TrendTitle: goldenTrend, HackTitle: goldenHack, Email: "ann@example.com", Plan: billing.Describe("glimpse_premium_one_month"),
				Canceled: true, CourseOwned: true, PeriodEnd: "Dec 2, 2026", Offers: goldenOffers(true)})
		}},
		{"checkout", func(c Context) Page {
			return Checkout(c, CheckoutState{Plans: billing.DefaultCatalogue().ForBrand(c.Brand.Key, billing.KindMain),
				Key: "checkout-key", Sandbox: true})
		}},
		{"checkout-done", func(c Context) Page {
			return CheckoutDone(c, OrderState{Found: true, Kind: billing.OrderPlan, Status: billing.OrderPaid, Email: "a•••@example.com",
				Plan: "Weekly Plan", Price: "$1", Period: "week", RenewsOn: "Nov 8, 2026", Fixable: true})
		}},
		{"checkout-done__sent-again", func(c Context) Page {
			return CheckoutDone(c, OrderState{Found: true, Kind: billing.OrderPlan, Status: billing.OrderPaid, Email: "a•••@example.com",
				Plan: "Weekly Plan", Price: "$1", Period: "week", RenewsOn: "Nov 8, 2026", Fixable: true, Sent: true})
		}},
		{"checkout-done__account-ready", func(c Context) Page {
			return CheckoutDone(c, OrderState{Found: true, Kind: billing.OrderPlan, Status: billing.OrderPaid, Email: "a•••@example.com",
				Plan: "Weekly Plan", Price: "$1", Period: "week", RenewsOn: "Nov 8, 2026", AccountReady: true})
		}},
		{"checkout-done__a-day-later", func(c Context) Page {
			return CheckoutDone(c, OrderState{Found: true, Kind: billing.OrderPlan, Status: billing.OrderPaid, Email: "a•••@example.com",
				Plan: "Weekly Plan", Price: "$1", Period: "week", RenewsOn: "Nov 8, 2026"})
		}},
		{"checkout-done__pending", func(c Context) Page {
			return CheckoutDone(c, OrderState{Found: true, Kind: billing.OrderPlan, Status: billing.OrderPending})
		}},
		{"checkout-done__failed", func(c Context) Page {
			return CheckoutDone(c, OrderState{Found: true, Kind: billing.OrderPlan, Status: billing.OrderFailed})
		}},
		{"checkout-done__expired", func(c Context) Page {
			return CheckoutDone(c, OrderState{Found: true, Kind: billing.OrderPlan, Status: billing.OrderExpired})
		}},
		{"checkout-done__refunded", func(c Context) Page {
			return CheckoutDone(c, OrderState{Found: true, Kind: billing.OrderPlan, Status: billing.OrderRefunded, Email: "a•••@example.com"})
		}},
		{"checkout-done__card", func(c Context) Page {
			return CheckoutDone(c, OrderState{Found: true, Kind: billing.OrderCard, Status: billing.OrderPaid})
		}},
		{"checkout-done__card-mid-purchase", func(c Context) Page {
			return CheckoutDone(c, OrderState{Found: true, Kind: billing.OrderCard, Status: billing.OrderPaid, Return: billing.FamilyReelsPlaybook})
		}},
		{"checkout-done__unknown", func(c Context) Page { return CheckoutDone(c, OrderState{}) }},
		{"confirm-payment", func(c Context) Page {
			return ConfirmPayment(c, ConfirmState{Found: true, Token: "t", Plan: "Weekly Plan", Price: "$1.00"})
		}},
		{"confirm-payment__closed", func(c Context) Page { return ConfirmPayment(c, ConfirmState{Found: true, Closed: true}) }},
		{"update-card", func(c Context) Page { return UpdateCard(c, "sub_1", "Visa ••0341", "") }},
		{"unsubscription", Unsubscription},
		{"unsubscription__sent", func(c Context) Page {
			return UnsubscriptionFor(c, UnsubscriptionState{SentTo: "ann@example.com"})
		}},
		{"unsubscription__spent", func(c Context) Page { return UnsubscriptionFor(c, UnsubscriptionState{Spent: true}) }},
		{"unsubscription__confirm", func(c Context) Page {
			return UnsubscriptionFor(c, UnsubscriptionState{Outcome: UnsubscriptionConfirm, AccessEnds: time.Date(2026, 12, 24, 9, 30, 0, 0, time.UTC)})
		}},
		{"unsubscription__canceled", func(c Context) Page {
			return UnsubscriptionFor(c, UnsubscriptionState{Outcome: UnsubscriptionCanceled, AccessEnds: time.Date(2026, 12, 24, 9, 30, 0, 0, time.UTC)})
		}},
		{"unsubscription__already-canceled", func(c Context) Page {
			return UnsubscriptionFor(c, UnsubscriptionState{Outcome: UnsubscriptionAlreadyCanceled, AccessEnds: time.Date(2026, 12, 24, 9, 30, 0, 0, time.UTC)})
		}},
		{"unsubscription__none", func(c Context) Page { return UnsubscriptionFor(c, UnsubscriptionState{Outcome: UnsubscriptionNone}) }},
		{"password-safety__pending", func(c Context) Page {
			return PasswordSafety(c, PasswordSafetyState{Email: "demo@example.com", Outcome: BreachPending})
		}},
		{"password-safety__compromised", func(c Context) Page {
			return PasswordSafety(c, PasswordSafetyState{Email: "demo@example.com", Outcome: BreachCompromised,
				CheckedAt: "Nov 1, 2026, 12:00 UTC", Sample: true, Breaches: []BreachView{
					{Title: "Pixelgram Photo Prints (sample)", Logo: "/static/breaches/PixelgramPrints.svg", Domain: "pixelgram.example", Date: "March 2019",
						DataClasses: []string{"Email addresses", "Passwords"}, Description: "Sample breach."},
					{Title: "Quietnote", Domain: "", Date: "", DataClasses: nil},
				}})
		}},
		{"password-safety__clean", func(c Context) Page {
			return PasswordSafety(c, PasswordSafetyState{Email: "clean@example.com", Outcome: BreachClean,
				CheckedAt: "Nov 1, 2026, 12:00 UTC", CanRecheck: true})
		}},
		{"password-safety__rate-limited", func(c Context) Page {
			return PasswordSafety(c, PasswordSafetyState{Email: "demo@example.com", Outcome: BreachRateLimited})
		}},
		{"password-safety__failed", func(c Context) Page {
			return PasswordSafety(c, PasswordSafetyState{Email: "demo@example.com", Outcome: BreachFailed})
		}},
		{"analytics__idle", func(c Context) Page { return Analytics(c, AnalyticsState{Status: InsightsIdle}) }},
		{"analytics__pending", func(c Context) Page { return Analytics(c, AnalyticsState{Status: InsightsPending}) }},
		{"analytics__idle-report-pending", func(c Context) Page {
			return Analytics(c, AnalyticsState{Status: InsightsIdle, ReportPending: true})
		}},
		{"analytics__processing", func(c Context) Page { return Analytics(c, AnalyticsState{Status: InsightsProcessing}) }},
		{"analytics__idle-connect-denied", func(c Context) Page {
			return Analytics(c, AnalyticsState{Status: InsightsIdle, ConnectURL: "/instagram/connect", CanUpload: true,
				Notice: "You did not allow the connection, so nothing was connected."})
		}},
		{"analytics__completed", func(c Context) Page {
			r := goldenAnalysis()
			day := time.Date(2026, 10, 29, 12, 0, 0, 0, time.UTC)
			return Analytics(c, AnalyticsState{Status: InsightsCompleted, Result: &r, Source: "Demo profile", ReportURL: "/reports/profile.pdf",
				Pictures:   map[string]string{"p1": "/static/posts/demo-1.svg"},
				Followers:  []analysis.Point{{At: day, Value: 12700}, {At: day.Add(24 * time.Hour), Value: 12790}, {At: day.Add(48 * time.Hour), Value: 12840}},
				Engagement: []analysis.Point{{At: day, Value: 2.3}, {At: day.Add(48 * time.Hour), Value: 2.4125}}})
		}},
		{"insights", func(c Context) Page {
			lib := goldenLibrary()
			return Insights(c, lib.Insights, &lib.News[0])
		}},
		{"top-trends", func(c Context) Page { return ReadingArticle(c, "top-trends", goldenLibrary().Trends) }},
		{"top-hacks", func(c Context) Page { return ReadingArticle(c, "top-hacks", goldenLibrary().Hacks) }},
		{"topic__secret-admirers", func(c Context) Page { return TopicPage(c, goldenLibrary().Topics["secret-admirers"]) }},
		{"topic__detect-stalkers", func(c Context) Page { return TopicPage(c, goldenLibrary().Topics["detect-stalkers"]) }},
		{"article__secret-admirers-1", func(c Context) Page {
			t := goldenLibrary().Topics["secret-admirers"]
			return TopicArticle(c, t, t.Parts[0])
		}},
		{"news", func(c Context) Page { return NewsList(c, goldenLibrary().News) }},
		{"news-post", func(c Context) Page { return NewsPost(c, &goldenLibrary().News[0]) }},
		{"news-post__unknown", func(c Context) Page { return NewsPost(c, nil) }},
		{"course", func(c Context) Page {
			return Course(c, []LessonView{
				{Number: 1, Title: "Crafting the Perfect Bio", Subtitle: "Turn the first thing visitors read into a reason to follow.",
					Image: "/static/lessons/lesson-01.svg", PDF: "/course/lessons/lesson-01.pdf"},
				{Number: 2, Title: "Profile Picture and Highlights That Build Trust", Subtitle: "Look recognisable at a glance.",
					Image: "/static/lessons/lesson-02.svg", PDF: "/course/lessons/lesson-02.pdf"},
			})
		}},
		{"billing", func(c Context) Page {
			return BillingHistory(c, []HistoryLineView{
				{Date: "Nov 9, 2026", Item: "Weekly Plan", Amount: "$1", Status: billing.HistoryFailed},
				{Date: "Nov 3, 2026", Item: "Profile report", Amount: "$28.99", Status: billing.HistoryRefunded, Receipt: "7F3K-9QX2-M4AB",
					Refunded: "$28.99", RefundedOn: "Nov 4, 2026"},
				{Date: "Nov 2, 2026", Item: "Weekly Plan", Amount: "$1", Status: billing.HistoryPaid, Receipt: "0C1D-2E3F-4G5H"},
			})
		}},
		{"billing__empty", func(c Context) Page { return BillingHistory(c, nil) }},
		{"receipt__just-bought", func(c Context) Page {
			return Receipt(c, &ReceiptState{Number: "7F3K-9QX2-M4AB", Item: "Instagram PRO course", Kind: billing.ReceiptAddOn,
				Family: billing.FamilyPDFCourse, Amount: "$19.99", Date: "Nov 3, 2026", Card: "Visa ••4242", Status: billing.HistoryPaid,
				Operator: "Example Operator Ltd", Email: "demo@example.com", JustBought: true})
		}},
		{"receipt__just-bought-report-pending", func(c Context) Page {
			return Receipt(c, &ReceiptState{Number: "7F3K-9QX2-M4AB", Item: "Profile report", Kind: billing.ReceiptAddOn,
				Family: billing.FamilyProfileReport, Amount: "$28.99", Date: "Nov 3, 2026", Card: "Visa ••4242", Status: billing.HistoryPaid,
				Operator: "Example Operator Ltd", Email: "ann@example.com", JustBought: true, ReportPending: true})
		}},
		{"receipt__renewal-refunded", func(c Context) Page {
			return Receipt(c, &ReceiptState{Number: "0C1D-2E3F-4G5H", Item: "Weekly Plan", Kind: billing.ReceiptRenewal,
				Amount: "$1", Date: "Nov 9, 2026", Card: "Mastercard ••4444", Status: billing.HistoryRefunded, Operator: "Example Operator Ltd",
				Period: "Nov 9, 2026 – Nov 16, 2026", Refunded: "$1 on Nov 10, 2026"})
		}},
		{"receipt__unknown", func(c Context) Page { return Receipt(c, nil) }},
		{"studio-sign-in", StudioSignIn},
		{"studio-home", func(c Context) Page {
			return StudioHome(c, "ed@glimpse.example (editor)", map[string][]StudioItem{
				"news": {{Kind: "news", Slug: "carousels-are-back", Title: "Carousels Are Back", Status: "published", Pending: true}},
				"page": {{Kind: "page", Slug: "insights", Title: "Tips & Insights", Status: "published"}},
			})
		}},
		{"studio-home__by-date", func(c Context) Page {
			at := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)
			return StudioHomeView(c, "ed@glimpse.example (editor)", []StudioItem{
				{Kind: "news", Slug: "carousels-are-back", Title: "Carousels Are Back", Status: "published", Pending: true, UpdatedAt: at, By: "ed@glimpse.example"},
				{Kind: "page", Slug: "insights", Title: "Tips & Insights", Status: "published", UpdatedAt: at.Add(-time.Hour)},
			}, StudioHomeQuery{Sort: StudioSortDate, Q: "a"})
		}},
		{"studio-home__by-editor", func(c Context) Page {
			at := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)
			return StudioHomeView(c, "ed@glimpse.example (editor)", []StudioItem{
				{Kind: "news", Slug: "carousels-are-back", Title: "Carousels Are Back", Status: "published", UpdatedAt: at, By: "ed@glimpse.example"},
				{Kind: "page", Slug: "insights", Title: "Tips & Insights", Status: "published"},
			}, StudioHomeQuery{Sort: StudioSortEditor})
		}},
		{"studio-copy-edit__sign-in", func(c Context) Page {
			return StudioNewCopy(c, "default/signIn.submit", c.T("signIn.submit"), true,
				StudioCopyTarget{BrandKey: "default", BrandName: c.Brand.Name}, CopyPreview(c, "signIn.submit", "Let me in", CopySample{PeriodEnd: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)}))
		}},
		{"studio-copy-edit__step", func(c Context) Page {
			return StudioNewCopy(c, "default/unsubscribe.step3.title", c.T("unsubscribe.step3.title"), true,
				StudioCopyTarget{BrandKey: "default", BrandName: c.Brand.Name}, CopyPreview(c, "unsubscribe.step3.title", "A kinder price", CopySample{PeriodEnd: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)}))
		}},
		{"studio-copy-edit__alone", func(c Context) Page {
			return StudioNewCopy(c, "default/mail.welcome.subject", "Welcome", true,
				StudioCopyTarget{BrandKey: "default", BrandName: c.Brand.Name}, CopyPreview(c, "mail.welcome.subject", "Welcome", CopySample{PeriodEnd: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)}))
		}},
		{"studio-copy-missing", func(c Context) Page { return StudioCopyMissing(c, "default", "no.such.key") }},
		{"studio-edit", func(c Context) Page {
			picture := "/static/news/carousels-are-back.svg"
			return StudioEdit(c, StudioEditState{Kind: "news", Slug: "carousels-are-back", Title: "Carousels Are Back",
				Status: "published", CanEdit: true, Fields: []StudioField{{Name: "title", Label: "Title"}, {Name: "body", Label: "Text", Multiline: true},
					{Name: "image", Label: "Image path", Picture: true}},
				Values:   map[string]string{"title": "Carousels Are Back", "body": "Hello", "image": picture},
				Pictures: []ui.Option{{Value: picture, Label: picture, Image: &ui.ImageRef{Src: picture}}},
				Preview:  ui.Stack("md", ui.Text("title", "Carousels Are Back")),
				Revisions: []StudioRevision{{N: 2, Action: "save", By: "ed@glimpse.example", At: "Nov 1, 2026 12:00 UTC", Changed: []string{"title"}},
					{N: 1, Action: "seed", By: "seed", At: "Nov 1, 2026 09:00 UTC"}}})
		}},
		{"studio-edit__read-only", func(c Context) Page {
			return StudioEdit(c, StudioEditState{Kind: "news", Slug: "carousels-are-back", Title: "Carousels Are Back",
				Status: "draft", Fields: []StudioField{{Name: "title", Label: "Title"}, {Name: "body", Label: "Text", Multiline: true}},
				Values: map[string]string{"title": "Carousels Are Back", "body": "Hello"}})
		}},
		{"studio-new", func(c Context) Page {
			return StudioEdit(c, StudioEditState{Kind: "news", New: true, CanEdit: true,
				Fields: []StudioField{{Name: "title", Label: "Title"}, {Name: "body", Label: "Text", Multiline: true}}, Values: map[string]string{}})
		}},
		{"studio-copy", func(c Context) Page {
			return StudioCopy(c, "_x_", []StudioBrand{{"_x_", "Profilio"}, {"_y_", "Followly"}, {"default", "Glimpse"}}, []StudioItem{
				{Kind: "copy", Slug: "_x_/signIn.headline", Title: "Analyze your Instagram account and gain valuable insights"}}, "")
		}},
		{"dev-mail", func(c Context) Page { return DevMailbox(c, goldenMail()) }},
		{"dev-mail__empty", func(c Context) Page { return DevMailbox(c, nil) }},
		{"dev-mail-message", func(c Context) Page {
			m := goldenMail()[0]
			return DevMailMessage(c, &m, "http://127.0.0.1:8080")
		}},
		{"dev-mail-message__not-found", func(c Context) Page { return DevMailMessage(c, nil, "http://127.0.0.1:8080") }},
		{"privacy", func(c Context) Page {
			l := goldenLibrary().Privacy
			return LegalPage(c, "privacy", l, l.Render(map[string]string{"operator_name": "Ana Example",
				"operator_address": "Rua Exemplo 1, São Paulo, Brazil", "support_email": c.Brand.SupportEmail, "product_name": c.Brand.Name,
				"tax_years": "10"}))
		}},
		{"privacy-data", func(c Context) Page { return PrivacyData(c, PrivacyDataState{Email: "ana@example.com"}) }},
		{"privacy-data__preparing", func(c Context) Page {
			return PrivacyData(c, PrivacyDataState{Email: "ana@example.com", Export: ExportPreparing, InstagramConnected: true, Instagram: "ana.bakes"})
		}},
		{"privacy-data__ready", func(c Context) Page {
			return PrivacyData(c, PrivacyDataState{Email: "ana@example.com", Export: ExportReady, ExportReadyAt: "Nov 25, 2026, 18:10 UTC",
				ExportExpires: "Dec 2, 2026", ExportSize: "6 kB"})
		}},
		{"privacy-data__failed", func(c Context) Page {
			return PrivacyData(c, PrivacyDataState{Email: "ana@example.com", Export: ExportFailed})
		}},
		{"delete-account", func(c Context) Page {
			return DeleteAccount(c, DeleteAccountState{Email: "ana@example.com", Plan: "Weekly Plan", TaxYears: 10})
		}},
		{"account-deleted", func(c Context) Page { return AccountDeleted(c) }},
		{"deletion-status", func(c Context) Page {
			return DeletionStatus(c, DeletionStatusState{Found: true, Code: "0123456789abcdef0123456789abcdef", Status: "completed", Date: "Nov 25, 2026"})
		}},
		{"deletion-status__unknown", func(c Context) Page { return DeletionStatus(c, DeletionStatusState{}) }},
		{"terms", func(c Context) Page {
			l := goldenLibrary().Terms
			return LegalPage(c, "terms", l, l.Render(map[string]string{"operator_name": "Ana Example",
				"operator_address": "Rua Exemplo 1, São Paulo, Brazil", "support_email": c.Brand.SupportEmail, "product_name": c.Brand.Name}))
		}},
		{"password-recovery", func(c Context) Page { return PasswordRecovery(c, ResetState{}) }},
		{"password-recovery__new-password", func(c Context) Page { return PasswordRecovery(c, ResetState{Token: "reset-token"}) }},
		{"password-recovery__link-invalid", func(c Context) Page { return PasswordRecovery(c, ResetState{LinkInvalid: true}) }},
		{"access-recovery", func(c Context) Page { return AccessRecovery(c, "") }},
		{"access-recovery__sent", func(c Context) Page { return AccessRecovery(c, "ann@example.com") }},
		{"create-account", func(c Context) Page {
			return CreateAccount(c, CreateAccountState{Key: "k3y", Email: "ann@example.com"})
		}},
		{"create-account__email-in-use", func(c Context) Page {
			return CreateAccount(c, CreateAccountState{Key: "k3y", Email: "ann@example.com", EmailInUse: true})
		}},
		{"create-account__link-invalid", func(c Context) Page {
			return CreateAccount(c, CreateAccountState{Key: "k3y", Problem: CreateAccountLinkInvalid})
		}},
		{"create-account__no-subscription", func(c Context) Page {
			return CreateAccount(c, CreateAccountState{Key: "k3y", Problem: CreateAccountNoSubscription})
		}},
		{"create-account__ready", func(c Context) Page {
			return CreateAccount(c, CreateAccountState{Email: "ann@example.com", Ready: true})
		}},
	}, append(append(append(unsubscribeGoldenCases(), experimentGoldenCases()...), variantGoldenCases()...), supportGoldenCases()...)...)
}

// variantGoldenCases are unsubscribe steps as two variants of an experiment
// show them: the variant's text layered over the brand's copy with
// brand.Copy.Layered, as the server's experimentContext does, and step 3
// when an offer experiment puts the free month there.
func variantGoldenCases() []goldenCase {
	layered := func(key, text string, step retention.Step) func(c Context) Page {
		return func(c Context) Page {
			c.Copy = c.Copy.Layered(map[string]string{key: text}, nil)
			return UnsubscribeStep(c, goldenUnsubscribe(billing.FamilyWeekly, step))
		}
	}
	return []goldenCase{
		{"unsubscribe-variant__0-benefits-a", layered("unsubscribe.step0.title", "Before you go, look at what you keep", retention.StepBenefits)},
		{"unsubscribe-variant__0-benefits-b", layered("unsubscribe.step0.title", "Wait, there is more for you", retention.StepBenefits)},
		{"unsubscribe-variant__7-gift-month-a", layered("unsubscribe.step7.offer", "A month on the house", retention.StepGiftMonth)},
		{"unsubscribe-variant__7-gift-month-b", layered("unsubscribe.step7.offer", "Stay one more month for free", retention.StepGiftMonth)},
		{"unsubscribe-variant__3-offer-gift-month", func(c Context) Page {
			st := goldenUnsubscribe(billing.FamilyWeekly, retention.StepPlanChange)
			st.Situation.Offers = map[string]string{retention.SlotStep(retention.StepPlanChange): retention.OfferGiftMonth}
			return UnsubscribeStep(c, st)
		}},
	}
}

var goldenLibrary = sync.OnceValue(func() *library.Library {
	lib, err := library.Load(content.Library)
	if err != nil {
		panic(err)
	}
	return lib
})

// goldenAnalysis is a small hand-made analysis: every figure of the screen,
// one group without data.
func goldenAnalysis() analysis.Result {
	at := time.Date(2026, 10, 31, 12, 0, 0, 0, time.UTC)
	count := func(n int) *int { return &n }
	return analysis.Result{TakenAt: at, NextUpdate: at.Add(24 * time.Hour),
		Engagement: analysis.Engagement{Rate: 2.4125, Level: 3, Status: "Average", Followers: 12840,
			PostsAnalysed: 12, TotalLikes: 3512, TotalComments: 204, AverageLikes: 292.67, AverageComments: 17},
		MostLiked:     []analysis.TopPost{{ID: "p1", TakenAt: at.Add(-48 * time.Hour), Count: 1}, {ID: "p2", TakenAt: at.Add(-72 * time.Hour), Count: 1204}},
		MostCommented: []analysis.TopPost{{ID: "p2", TakenAt: at.Add(-72 * time.Hour), Count: 98}},
		Audience: analysis.Audience{
			LostFollowers:     analysis.Category{Count: count(12), Usernames: []string{"ana.travels", "bo_bakes"}, Basis: "Compared with your followers on 30 Oct 2026."},
			NewFollowers:      analysis.Category{Count: count(0), Usernames: []string{}, Basis: "Compared with your followers on 30 Oct 2026."},
			Friends:           analysis.Category{Count: count(1500), Usernames: []string{"cy.runs"}, Basis: "You follow each other."},
			Fans:              analysis.Category{Count: count(11340), Usernames: []string{"dee.draws"}, Basis: "They follow you; you don't follow them."},
			SecretFans:        analysis.Category{Basis: "Needs the usernames of the people who commented on your posts, which the data source does not give."},
			InactiveFollowers: analysis.Category{Count: count(12001), Usernames: []string{"eli"}, Basis: "No comment on your 12 latest posts."},
		}}
}

func brands(t *testing.T) (*brand.Registry, []brand.Brand) {
	t.Helper()
	seed, err := brand.ReadShipped(content.Brands)
	if err != nil {
		t.Fatal(err)
	}
	r := brand.NewRegistry(nil)
	r.Set(seed)
	return r, seed
}

// shippedContext composes screens for the default brand with the shipped
// copy.
func shippedContext(t *testing.T) Context {
	t.Helper()
	reg, _ := brands(t)
	b := reg.Get(brand.DefaultKey)
	return Context{Brand: b, Copy: reg.Copy(b)}
}

// copyKey matches a string that is a copy key left unresolved.
var copyKey = regexp.MustCompile(`^[a-z][a-zA-Z]*(\.[a-zA-Z]+)+$`)

// goldenDir holds the golden screens; the renderer's fixture test and the
// encoder's byte test read them too.
var goldenDir = filepath.Join("..", "fixtures", "screens")

// TestGoldenScreens composes every case for every brand and checks each
// against the schema, the payload budget and unresolved copy. The default
// brand's envelope is kept as a golden file for every case; a partner brand's
// only when it differs from the default's in more than meta.brand, so most
// partner screens (same copy, same layout) do not repeat the default's. The
// set of files is checked exactly: a partner file that is no longer needed,
// or a file no case writes, fails the test, and -update rewrites, adds and
// deletes until the directory is what the cases describe.
func TestGoldenScreens(t *testing.T) {
	t.Parallel()
	reg, seed := brands(t)
	cases := goldenCases()
	var (
		mu    sync.Mutex
		known = map[string]bool{} // every case and brand's file name, kept or not
		// complete counts the cases that decided all their files.
		complete int
	)
	// Cleanup runs after the parallel subtests, when every case has said
	// which files it needs.
	t.Cleanup(func() {
		// A filtered (-run) or aborted run knows only part of the set and
		// must not judge, let alone delete, the rest.
		if complete != len(cases) {
			return
		}
		entries, err := os.ReadDir(goldenDir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			// A known name was already kept or refused by its case.
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || known[e.Name()] {
				continue
			}
			if *update {
				if err := os.Remove(filepath.Join(goldenDir, e.Name())); err != nil {
					t.Error(err)
				}
				continue
			}
			t.Errorf("%s is written by no golden case and brand (run go test ./screens -run TestGoldenScreens -update to delete it)", e.Name())
		}
	})
	for _, gc := range cases {
		t.Run(gc.name, func(t *testing.T) {
			t.Parallel()
			envs := make(map[string][]byte, len(seed))
			for _, b := range seed {
				envs[b.Key] = composeGolden(t, reg, b, gc)
			}
			base, ok := envs[brand.DefaultKey]
			if !ok {
				t.Fatalf("no %q brand among the shipped brands", brand.DefaultKey)
			}
			baseDoc := withoutBrand(t, base)
			for _, b := range seed {
				name := gc.name + "__" + b.Key + ".json"
				needed := b.Key == brand.DefaultKey || !cmp.Equal(withoutBrand(t, envs[b.Key]), baseDoc)
				checkGolden(t, name, envs[b.Key], needed)
				mu.Lock()
				known[name] = true
				mu.Unlock()
			}
			mu.Lock()
			complete++
			mu.Unlock()
		})
	}
}

// composeGolden composes one case for one brand as the server would send it,
// and checks what holds for every brand whether or not its file is kept.
func composeGolden(t *testing.T, reg *brand.Registry, b brand.Brand, gc goldenCase) []byte {
	t.Helper()
	name := gc.name + "__" + b.Key
	page := gc.compose(Context{Brand: b, Copy: reg.Copy(b)})
	env := page.Envelope(ui.Meta{ServerNow: "2026-11-01T12:00:00Z", TraceID: "golden",
		Brand: b.UI(), CSRF: "golden-csrf", Version: "golden"})
	got, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if err := ui.ValidateEnvelope(got); err != nil {
		t.Fatalf("%s breaks the schema: %v", name, err)
	}
	if len(got) > payloadBudget {
		t.Errorf("%s is %d bytes, over the %d budget", name, len(got), payloadBudget)
	}
	if !strings.HasPrefix(gc.name, "studio-copy") { // the copy editor lists keys by name
		assertCopyResolved(t, env)
	}
	return got
}

// withoutBrand decodes an envelope and drops meta.brand, the part every
// brand's envelope has of its own, leaving what decides whether a partner
// brand needs a golden file.
func withoutBrand(t *testing.T, envelope []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(envelope, &doc); err != nil {
		t.Fatal(err)
	}
	meta, ok := doc["meta"].(map[string]any)
	if !ok {
		t.Fatal("envelope without meta")
	}
	delete(meta, "brand")
	return doc
}

// checkGolden compares got with the golden file name when it is needed, and
// fails when an unneeded one exists; with -update it writes or deletes it.
func checkGolden(t *testing.T, name string, got []byte, needed bool) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if needed {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if !needed {
		switch {
		case err == nil:
			t.Errorf("%s differs from the default brand's only in meta.brand and is no longer needed (run go test ./screens -run TestGoldenScreens -update to delete it)", name)
		case !errors.Is(err, fs.ErrNotExist):
			t.Error(err)
		}
		return
	}
	if err != nil {
		t.Errorf("%v (run go test ./screens -run TestGoldenScreens -update to create it)", err)
		return
	}
	var wantDoc, gotDoc any
	if err := json.Unmarshal(want, &wantDoc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := json.Unmarshal(got, &gotDoc); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantDoc, gotDoc); diff != "" {
		t.Errorf("%s differs from its golden file (-want +got; run with -update if intended):\n%s", name, diff)
	}
}

// assertCopyResolved fails when a screen shows a copy key instead of text,
// which is what Copy.T returns for a key no brand defines.
func assertCopyResolved(t *testing.T, env ui.Envelope) {
	t.Helper()
	b, _ := json.Marshal(env)
	var doc any
	_ = json.Unmarshal(b, &doc)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if k == "action" || k == "event" || k == "key" || k == "id" || k == "form" {
					continue // identifiers, not copy
				}
				walk(path+"/"+k, c)
			}
		case []any:
			for _, c := range x {
				walk(path+"/*", c)
			}
		case string:
			if copyKey.MatchString(x) && path != "/meta/brand/key" {
				t.Errorf("unresolved copy key %q at %s", x, path)
			}
		}
	}
	walk("", doc)
}

func TestDashboardPayloadCompressesWell(t *testing.T) {
	t.Parallel()
	reg, _ := brands(t)
	b := reg.Get(brand.DefaultKey)
	page := Home(Context{Brand: b, Copy: reg.Copy(b)}, HomeState{Plan: billing.Describe("")})
	raw, _ := json.Marshal(page.Envelope(ui.Meta{ServerNow: "2026-11-01T12:00:00Z", Brand: b.UI()}))
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(raw)
	_ = zw.Close()
	if buf.Len() > 6<<10 {
		t.Errorf("dashboard gzip is %d bytes, over 6 KiB", buf.Len())
	}
}

func BenchmarkComposeDashboard(b *testing.B) {
	seed, err := brand.ReadShipped(content.Brands)
	if err != nil {
		b.Fatal(err)
	}
	reg := brand.NewRegistry(nil)
	reg.Set(seed)
	br := reg.Get(brand.DefaultKey)
	ctx := Context{Brand: br, Copy: reg.Copy(br)}
	state := HomeState{TrendTitle: goldenTrend, HackTitle: goldenHack, Email: "demo@example.com", Plan: billing.Describe("glimpse_weekly_trial")}
	meta := ui.Meta{ServerNow: "2026-11-01T12:00:00Z", Brand: br.UI(), CSRF: "x"}
	b.ReportAllocs()
	for b.Loop() {
		env := Home(ctx, state).Envelope(meta)
		if _, err := env.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}

// goldenOffers are My Plan's three add-ons, all owned or none.
func goldenOffers(owned bool) []Offer {
	cat := billing.DefaultCatalogue()
	var out []Offer
	for _, f := range []string{billing.FamilyProfileReport, billing.FamilyPDFCourse, billing.FamilyReelsPlaybook} {
		p, _ := cat.Find("default", f)
		out = append(out, Offer{Family: f, Price: p.Price, FullPrice: p.FullPrice, Discount: p.Discount, Owned: owned})
	}
	return out
}

// BenchmarkComposeUnsubscribeStepWithExperiment composes step 0 with a
// running experiment's text layered over the copy, as the server does for
// a subscriber in a variant; compare with BenchmarkComposeDashboard (the
// issue's budget: a step with an experiment active within the dashboard's).
func BenchmarkComposeUnsubscribeStepWithExperiment(b *testing.B) {
	seed, err := brand.ReadShipped(content.Brands)
	if err != nil {
		b.Fatal(err)
	}
	reg := brand.NewRegistry(nil)
	reg.Set(seed)
	br := reg.Get(brand.DefaultKey)
	meta := ui.Meta{ServerNow: "2026-11-01T12:00:00Z", Brand: br.UI(), CSRF: "x"}
	st := goldenUnsubscribe(billing.FamilyWeekly, retention.StepBenefits)
	b.ReportAllocs()
	for b.Loop() {
		ctx := Context{Brand: br, Copy: reg.Copy(br).Layered(map[string]string{"unsubscribe.step0.title": "Wait, there is more for you"}, nil)}
		env := UnsubscribeStep(ctx, st).Envelope(meta)
		if _, err := env.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}

// goldenPlans are the default brand's plans as My Plan's Change plan lists
// them, on the weekly plan (a change to the monthly one scheduled, or not).
func goldenPlans(monthlyNext bool) []PlanChoice {
	return []PlanChoice{
		{Code: "glimpse_weekly_trial", Name: "Weekly Plan", Price: "$1", Period: "week", Current: true},
		{Code: "glimpse_premium_one_month", Name: "Premium Plan", Price: "$13.99", Period: "1 month", Next: monthlyNext},
		{Code: "glimpse_3month", Name: "3-Month Plan", Price: "$49", Period: "12 weeks"},
	}
}
