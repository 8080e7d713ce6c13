package privacy

import (
	"strings"
	"time"

	"glimpse/engine/analysis"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/mail"
	"glimpse/engine/profile"
	"glimpse/engine/retention"
	"glimpse/engine/tracking"
)

// The export's documents are written for the person who asked for them:
// each file is one of the views below, whose JSON names are words a reader
// understands, and whose every field is explained in README.txt (fileDocs).
// Nothing internal goes in: no database keys or idempotency keys, no seeds
// or schedule keys, no payment method or customer references, no tokens;
// who at the company made a change is "support", never the staff member,
// and their free-text reasons stay out. A time that was never set is left
// out rather than written as the year 1.

// field is one documented field of a file: its JSON path (nested fields
// as "parent.child") and what it means.
type field struct {
	Name    string `json:"name"`
	Meaning string `json:"meaning"`
}

// accountView is account.json.
type accountView struct {
	AccountID string    `json:"accountId"`
	Email     string    `json:"email"`
	CreatedAt time.Time `json:"createdAt,omitzero"`
	Disabled  bool      `json:"disabled"`
}

var accountFields = []field{
	{"accountId", "The number of your account; support may ask for it."},
	{"email", "The address you sign in with."},
	{"createdAt", "When the account was created."},
	{"disabled", "true if the account has been blocked from signing in."},
}

func viewAccount(u auth.User) accountView {
	return accountView{AccountID: u.ID, Email: u.Email, CreatedAt: u.CreatedAt, Disabled: u.Disabled}
}

// planView is one entry of subscriptions.json and purchases.json.
type planView struct {
	SubscriptionID        string    `json:"subscriptionId"`
	Plan                  string    `json:"plan"`
	Status                string    `json:"status"`
	Price                 string    `json:"price"`
	Currency              string    `json:"currency"`
	Email                 string    `json:"email"`
	EarlierEmails         []string  `json:"earlierEmails,omitempty"`
	StartedAt             time.Time `json:"startedAt,omitzero"`
	PeriodStart           time.Time `json:"periodStart,omitzero"`
	PeriodEnd             time.Time `json:"periodEnd,omitzero"`
	EndsAtPeriodEnd       bool      `json:"endsAtPeriodEnd,omitempty"`
	CanceledAt            time.Time `json:"canceledAt,omitzero"`
	AccessEndsAt          time.Time `json:"accessEndsAt,omitzero"`
	ResumedAt             time.Time `json:"resumedAt,omitzero"`
	NextPlan              string    `json:"nextPlan,omitempty"`
	FailedPaymentAttempts int       `json:"failedPaymentAttempts,omitempty"`
	SuspendedForDispute   bool      `json:"suspendedForDispute,omitempty"`
	Card                  string    `json:"card,omitempty"`
	PaymentProvider       string    `json:"paymentProvider"`
	BoughtWithPlan        string    `json:"boughtWithPlan,omitempty"`
}

var planFields = []field{
	{"subscriptionId", "The number of the plan or purchase, as your receipts and our support name it."},
	{"plan", "What it is: the plan (Weekly Plan, Premium Plan…) or the purchase (PDF course, Profile report…)."},
	{"status", "active; canceled (it still gives access until accessEndsAt, and is not charged again); or expired (it has ended)."},
	{"price", "What each period costs (or what the purchase cost), in the currency below."},
	{"currency", "The currency of the price, as its three-letter code (USD is US dollars)."},
	{"email", "The address its mails and receipts go to."},
	{"earlierEmails", "Other addresses it was bought with or mailed to before."},
	{"startedAt", "When it was bought."},
	{"periodStart", "The start of the period paid for now (plans only)."},
	{"periodEnd", "The end of the period paid for now: the next charge, unless the plan is canceled (plans only)."},
	{"endsAtPeriodEnd", "true when the plan is canceled and ends at periodEnd instead of renewing."},
	{"canceledAt", "When it was canceled."},
	{"accessEndsAt", "When a canceled plan stops giving access, or when an ended one stopped."},
	{"resumedAt", "When a cancellation was last taken back."},
	{"nextPlan", "The plan it changes to at the next renewal, if you chose one."},
	{"failedPaymentAttempts", "How many times in a row the last renewal payment failed."},
	{"suspendedForDispute", "true while a payment for it is disputed with your bank: it gives no access until the dispute ends."},
	{"card", "The card that pays for it: the card network and the last four digits only."},
	{"paymentProvider", "Who takes the payments: stripe, or sandbox on a demo where no real money moves."},
	{"boughtWithPlan", "For a purchase: the subscriptionId of the plan it was bought with."},
}

// itemName names what a plan code sells, as a person reads it.
func itemName(code string) string {
	switch billing.FamilyOf(code) {
	case billing.FamilyPDFCourse:
		return "PDF course"
	case billing.FamilyProfileReport:
		return "Profile report"
	case billing.FamilyReelsPlaybook:
		return "Reels playbook"
	}
	return billing.Describe(code).Name
}

func viewPlan(s billing.Subscription) planView {
	v := planView{SubscriptionID: s.ID, Plan: itemName(s.PlanCode), Status: s.Status, Price: s.Price.String(),
		Currency: s.Price.Currency, Email: s.Email, StartedAt: s.StartedAt, PeriodStart: s.CurrentPeriodStart,
		PeriodEnd: s.CurrentPeriodEnd, EndsAtPeriodEnd: s.CancelAtPeriodEnd, FailedPaymentAttempts: s.FailedAttempts,
		SuspendedForDispute: s.Suspended, PaymentProvider: s.Provider, BoughtWithPlan: s.MainSubscriptionID}
	for _, e := range s.Emails {
		if e != "" && !strings.EqualFold(e, s.Email) {
			v.EarlierEmails = append(v.EarlierEmails, e)
		}
	}
	v.CanceledAt, v.AccessEndsAt, v.ResumedAt = deref(s.CanceledAt), deref(s.ExpiresAt), deref(s.ResumedAt)
	if s.NextPlanCode != "" {
		v.NextPlan = itemName(s.NextPlanCode)
	}
	if s.PaymentMethod.Last4 != "" {
		v.Card = brand.CardLabel(s.PaymentMethod.Brand, s.PaymentMethod.Last4)
	}
	return v
}

func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// changeView is one entry of subscription_history.json.
type changeView struct {
	SubscriptionID string    `json:"subscriptionId"`
	At             time.Time `json:"at,omitzero"`
	Change         string    `json:"change"`
	By             string    `json:"by"`
	From           string    `json:"from,omitempty"`
	To             string    `json:"to,omitempty"`
	Detail         string    `json:"detail,omitempty"`
}

var changeFields = []field{
	{"subscriptionId", "The plan or purchase that changed (see subscriptions.json and purchases.json)."},
	{"at", "When it changed."},
	{"change", "What happened: bought, account created, renewed, payment failed, canceled, ended, plan changed, extended, cancellation taken back, refunded, card changed…"},
	{"by", "Who or what made the change: you; checkout (your purchase); automatic renewal; the payment provider; a cancel link mailed to you; or support (our support team)."},
	{"from", "What it was before (a plan, a status or a date), where that applies."},
	{"to", "What it became, where that applies."},
	{"detail", "More about the change, such as the amount charged or refunded and the card used."},
}

// changeNames are the history's kinds as a person reads them.
var changeNames = map[string]string{
	billing.ChangeCreated: "bought", billing.ChangeFinalized: "account created", billing.ChangeRenewed: "renewed",
	billing.ChangePaymentFailed: "payment failed", billing.ChangeCanceled: "canceled", billing.ChangeExpired: "ended",
	billing.ChangePlanChanged: "plan changed", billing.ChangeExtended: "extended",
	billing.ChangeResumed: "cancellation taken back", billing.ChangeRefunded: "refunded",
	billing.ChangeDisputed: "payment disputed", billing.ChangeReinstated: "given back after the payment went through",
	"card_updated": "card changed",
}

// changedBy names who made a change without naming anyone at the company:
// a staff member is "support".
func changedBy(by string) string {
	switch {
	case strings.HasPrefix(by, "user:"), by == "purchase":
		return "you"
	case strings.HasPrefix(by, "staff:"):
		return "support"
	}
	switch by {
	case "checkout":
		return "checkout"
	case "renewal":
		return "automatic renewal"
	case "provider":
		return "payment provider"
	case "email-link":
		return "cancel link mailed to you"
	}
	return "Glimpse"
}

// viewChange is a history line for the person: plan codes named, the
// account id left out (it is the person's own, in account.json), and a
// refund's line keeps its amount only: the rest names the ledger's charge
// key and the reason support wrote, which are not for the export.
func viewChange(c billing.Change, userID string) changeView {
	v := changeView{SubscriptionID: c.SubscriptionID, At: c.At, By: changedBy(c.By), From: c.From, To: c.To, Detail: c.Detail}
	v.Change = changeNames[c.Kind]
	if v.Change == "" {
		v.Change = strings.ReplaceAll(c.Kind, "_", " ")
	}
	switch c.Kind {
	case billing.ChangeCreated, billing.ChangeRenewed, billing.ChangePlanChanged:
		v.From, v.To = planNameOr(c.From), planNameOr(c.To)
	case billing.ChangeFinalized:
		if c.To == userID {
			v.To = ""
		}
	case billing.ChangeRefunded:
		v.Detail, _, _ = strings.Cut(c.Detail, " of charge ")
		v.Detail, _, _ = strings.Cut(v.Detail, ":")
	}
	if strings.HasPrefix(c.By, "staff:") && c.Kind != billing.ChangeRefunded && c.Kind != billing.ChangeExtended {
		v.Detail = ""
	}
	return v
}

func planNameOr(code string) string {
	if code == "" {
		return ""
	}
	return itemName(code)
}

// chargeView is one entry of charges.json.
type chargeView struct {
	PaidFor          string       `json:"paidFor,omitempty"`
	Item             string       `json:"item,omitempty"`
	Amount           string       `json:"amount"`
	Currency         string       `json:"currency"`
	Status           string       `json:"status"`
	FailureReason    string       `json:"failureReason,omitempty"`
	ChargedAt        time.Time    `json:"chargedAt,omitzero"`
	PaymentProvider  string       `json:"paymentProvider"`
	PaymentReference string       `json:"paymentReference,omitempty"`
	PaidTwice        bool         `json:"paidTwice,omitempty"`
	MeantToBuy       string       `json:"meantToBuy,omitempty"`
	Refunds          []refundView `json:"refunds,omitempty"`
}

type refundView struct {
	Amount     string    `json:"amount"`
	Status     string    `json:"status"`
	RefundedAt time.Time `json:"refundedAt,omitzero"`
	Reference  string    `json:"reference,omitempty"`
}

var chargeFields = []field{
	{"paidFor", "The subscriptionId of the plan or purchase the payment was for."},
	{"item", "What it paid for."},
	{"amount", "How much was charged, in the currency below."},
	{"currency", "The currency, as its three-letter code (USD is US dollars)."},
	{"status", "succeeded (paid); failed (nothing was taken); refunded or partially_refunded; disputed, dispute_won or dispute_lost (a dispute with your bank)."},
	{"failureReason", "Why a payment failed, as the payment provider said it."},
	{"chargedAt", "When the payment was made or tried."},
	{"paymentProvider", "Who took the payment: stripe, or sandbox on a demo where no real money moves."},
	{"paymentReference", "The payment provider's reference for the payment: quote it to your bank or the provider."},
	{"paidTwice", "true for a second payment for something you already had: it was refunded at once."},
	{"meantToBuy", "For a payment made twice: what it was meant to buy."},
	{"refunds", "Money given back for this payment."},
	{"refunds.amount", "How much was given back."},
	{"refunds.status", "Whether the refund went through (succeeded), is on its way (pending) or failed."},
	{"refunds.refundedAt", "When the refund was made."},
	{"refunds.reference", "The payment provider's reference for the refund."},
}

func viewCharge(ch billing.Charge, items map[string]string, refunds []billing.Refund) chargeView {
	v := chargeView{PaidFor: ch.SubscriptionID, Item: items[ch.SubscriptionID], Amount: ch.Amount.String(),
		Currency: ch.Amount.Currency, Status: ch.Status, FailureReason: ch.Failure, ChargedAt: ch.CreatedAt,
		PaymentProvider: ch.Provider, PaymentReference: ch.Reference, PaidTwice: ch.Duplicate}
	if ch.PlanCode != "" {
		v.MeantToBuy = itemName(ch.PlanCode)
	}
	for _, r := range refunds {
		v.Refunds = append(v.Refunds, refundView{Amount: r.Amount.String(), Status: r.Status, RefundedAt: r.CreatedAt,
			Reference: r.Reference})
	}
	return v
}

// attemptView is one entry of cancel_attempts.json.
type attemptView struct {
	StartedAt      time.Time  `json:"startedAt,omitzero"`
	StartedFrom    string     `json:"startedFrom"`
	SubscriptionID string     `json:"subscriptionId"`
	Plan           string     `json:"plan"`
	Steps          []stepView `json:"steps"`
}

type stepView struct {
	At      time.Time `json:"at,omitzero"`
	Step    int       `json:"step"`
	What    string    `json:"what"`
	Reason  string    `json:"reason,omitempty"`
	Stars   int       `json:"stars,omitempty"`
	Review  string    `json:"review,omitempty"`
	Offer   string    `json:"offer,omitempty"`
	Outcome string    `json:"outcome,omitempty"`
	LeftBy  string    `json:"leftBy,omitempty"`
}

var attemptFields = []field{
	{"startedAt", "When you opened the cancellation flow."},
	{"startedFrom", "Where you opened it: the My plan screen, or a cancel link mailed to you."},
	{"subscriptionId", "The plan it was about."},
	{"plan", "That plan's name at the time."},
	{"steps", "What happened, in order."},
	{"steps.at", "When."},
	{"steps.step", "The number of the flow's page it happened on."},
	{"steps.what", "page shown; answer (what you answered); offer shown; offer accepted; or outcome (how it ended)."},
	{"steps.reason", "The reason you chose for leaving."},
	{"steps.stars", "The stars you gave (1 to 5)."},
	{"steps.review", "What you wrote."},
	{"steps.offer", "The offer shown or accepted: plan_change (a cheaper plan) or gift_month (a free month)."},
	{"steps.outcome", "How it ended: canceled; saved_plan_change or saved_gift_month (you took an offer); or never_mind (you stayed)."},
	{"steps.leftBy", "How you left without canceling: stay, keep, close or reason."},
}

var stepNames = map[string]string{
	retention.EventReached: "page shown", retention.EventAnswer: "answer", retention.EventOfferShown: "offer shown",
	retention.EventOfferAccepted: "offer accepted", retention.EventOutcome: "outcome",
}

func viewAttempt(a retention.Attempt, events []retention.Event) attemptView {
	from := "a cancel link mailed to you"
	if a.Entry != "link" {
		from = "the My plan screen"
	}
	v := attemptView{StartedAt: a.StartedAt, StartedFrom: from, SubscriptionID: a.SubscriptionID, Plan: planNameOr(a.PlanCode),
		Steps: []stepView{}}
	for _, e := range events {
		what := stepNames[e.Kind]
		if what == "" {
			what = strings.ReplaceAll(e.Kind, "_", " ")
		}
		v.Steps = append(v.Steps, stepView{At: e.At, Step: e.Step, What: what, Reason: e.Reason, Stars: e.Stars,
			Review: e.Review, Offer: e.Offer, Outcome: e.Outcome, LeftBy: e.Exit})
	}
	return v
}

// mailView is one entry of mails.json.
type mailView struct {
	To       string    `json:"to"`
	Kind     string    `json:"kind"`
	Subject  string    `json:"subject"`
	Status   string    `json:"status"`
	QueuedAt time.Time `json:"queuedAt,omitzero"`
	SentAt   time.Time `json:"sentAt,omitzero"`
}

var mailFields = []field{
	{"to", "The address it was sent to."},
	{"kind", "Which of our mails it is (receipt, purchase, password_reset, data_export…)."},
	{"subject", "Its subject line."},
	{"status", "queued (not sent yet), sent, or failed (it could not be delivered)."},
	{"queuedAt", "When it was written."},
	{"sentAt", "When it was sent; missing if it has not been."},
}

func viewMail(m mail.Mail) mailView {
	return mailView{To: m.To, Kind: m.Template, Subject: m.Subject, Status: m.Status, QueuedAt: m.CreatedAt, SentAt: m.SentAt}
}

// eventView is one entry of events.json.
type eventView struct {
	Name      string         `json:"name"`
	At        time.Time      `json:"at,omitzero"`
	Details   map[string]any `json:"details,omitempty"`
	Address   string         `json:"address,omitempty"`
	Browser   string         `json:"browser,omitempty"`
	KeptUntil time.Time      `json:"keptUntil,omitzero"`
}

var eventFields = []field{
	{"name", "What you did or saw (a screen opened, a button pressed…)."},
	{"at", "When."},
	{"details", "What the app noted with it, such as the screen or the button (the app's own names)."},
	{"address", "The web address (host) you used the app at."},
	{"browser", "Your browser, as it described itself."},
	{"keptUntil", "When the event is deleted."},
}

func viewEvent(e tracking.Event) eventView {
	return eventView{Name: e.Name, At: e.At, Details: e.Props, Address: e.Host, Browser: e.UserAgent, KeptUntil: e.ExpiresAt}
}

// exposureView is one entry of experiments.json.
type exposureView struct {
	Experiment string    `json:"experiment"`
	Variant    string    `json:"variant"`
	What       string    `json:"what"`
	At         time.Time `json:"at,omitzero"`
}

var exposureFields = []field{
	{"experiment", "The name of the experiment (a version of a page or a text we compare)."},
	{"variant", "The version you were shown."},
	{"what", "shown (you saw that version), or what you did after it: saved (kept your plan) or canceled."},
	{"at", "When."},
}

// profileView is instagram_profile.json.
type profileView struct {
	Connected    bool           `json:"connected"`
	Username     string         `json:"username,omitempty"`
	ConnectedVia string         `json:"connectedVia,omitempty"`
	Status       string         `json:"status,omitempty"`
	Problem      string         `json:"problem,omitempty"`
	NextUpdate   time.Time      `json:"nextUpdate,omitzero"`
	Snapshots    []snapshotItem `json:"snapshots,omitempty"`
	Analysis     *analysisView  `json:"analysis,omitempty"`
}

type snapshotItem struct {
	TakenAt               time.Time `json:"takenAt,omitzero"`
	Followers             *float64  `json:"followers,omitempty"`
	EngagementRatePercent *float64  `json:"engagementRatePercent,omitempty"`
}

type analysisView struct {
	SnapshotTakenAt time.Time               `json:"snapshotTakenAt,omitzero"`
	Engagement      engagementView          `json:"engagement"`
	MostLiked       []topPostView           `json:"mostLiked,omitempty"`
	MostCommented   []topPostView           `json:"mostCommented,omitempty"`
	Audience        map[string]audienceView `json:"audience,omitempty"`
}

type engagementView struct {
	RatePercent     float64 `json:"ratePercent"`
	Level           int     `json:"level"`
	Followers       int     `json:"followers"`
	PostsAnalysed   int     `json:"postsAnalysed"`
	TotalLikes      int     `json:"totalLikes"`
	TotalComments   int     `json:"totalComments"`
	AverageLikes    float64 `json:"averageLikes"`
	AverageComments float64 `json:"averageComments"`
}

type topPostView struct {
	PostID  string    `json:"postId"`
	TakenAt time.Time `json:"takenAt,omitzero"`
	Count   int       `json:"count"`
}

type audienceView struct {
	Count     int      `json:"count"`
	Usernames []string `json:"usernames"`
}

var profileFields = []field{
	{"connected", "Whether an Instagram profile is connected to your account."},
	{"username", "The Instagram username."},
	{"connectedVia", "How it was connected: Instagram login, an Instagram data export you uploaded, or the demo profile."},
	{"status", "The state of its analysis: pending, processing or completed."},
	{"problem", "Why the last update of the profile failed, if it did."},
	{"nextUpdate", "When the profile is next read from Instagram."},
	{"snapshots", "Each stored reading of the profile (its lists are in instagram_snapshots.json)."},
	{"snapshots.takenAt", "When it was read."},
	{"snapshots.followers", "How many followers it had."},
	{"snapshots.engagementRatePercent", "Its engagement rate then, in percent."},
	{"analysis", "The latest analysis, as the Analytics screen shows it."},
	{"analysis.snapshotTakenAt", "When the reading it analyses was taken."},
	{"analysis.engagement", "Engagement: likes and comments on your latest posts against your followers."},
	{"analysis.engagement.ratePercent", "(likes + comments) per post, divided by followers, in percent."},
	{"analysis.engagement.level", "1 (low) to 5 (high); 0 when there was not enough to go on."},
	{"analysis.engagement.followers", "The follower count the rate was worked out with."},
	{"analysis.engagement.postsAnalysed", "How many of your latest posts were analysed."},
	{"analysis.engagement.totalLikes", "Likes on those posts."},
	{"analysis.engagement.totalComments", "Comments on those posts."},
	{"analysis.engagement.averageLikes", "Likes per post."},
	{"analysis.engagement.averageComments", "Comments per post."},
	{"analysis.mostLiked", "Your most liked posts."},
	{"analysis.mostCommented", "Your most commented posts."},
	{"analysis.mostLiked.postId", "Instagram's id of the post."},
	{"analysis.mostLiked.takenAt", "When it was posted."},
	{"analysis.mostLiked.count", "Its likes."},
	{"analysis.mostCommented.postId", "Instagram's id of the post."},
	{"analysis.mostCommented.takenAt", "When it was posted."},
	{"analysis.mostCommented.count", "Its comments."},
	{"analysis.audience", "Groups of accounts: lostFollowers, newFollowers (since the reading before), friends (you follow each other), " +
		"fans (they follow you, you don't follow back), notFollowingBack, secretFans (commented without following) and " +
		"inactiveFollowers (did not comment). A group is missing when it could not be worked out (for example with no posts)."},
	{"analysis.audience.*", "One group, by its name above."},
	{"analysis.audience.*.count", "How many accounts are in the group."},
	{"analysis.audience.*.usernames", "The first usernames of the group."},
}

var profileSources = map[string]string{
	profile.SourceAPI: "Instagram login", profile.SourceExport: "an Instagram data export you uploaded",
	profile.SourceDemo: "the demo profile",
}

func viewProfile(p profile.Profile) profileView {
	if p.Source == "" {
		return profileView{}
	}
	v := profileView{Connected: true, Username: p.Username, ConnectedVia: profileSources[p.Source], Status: p.Status,
		Problem: p.Problem, NextUpdate: p.NextRefresh}
	for _, r := range p.Snapshots {
		item := snapshotItem{TakenAt: r.TakenAt}
		if r.HasFollowers {
			item.Followers = &r.Followers
		}
		if r.HasEngagement {
			item.EngagementRatePercent = &r.EngagementRate
		}
		v.Snapshots = append(v.Snapshots, item)
	}
	if r := p.Result; r != nil {
		e := r.Engagement
		a := &analysisView{SnapshotTakenAt: r.TakenAt, Engagement: engagementView{RatePercent: e.Rate, Level: e.Level,
			Followers: e.Followers, PostsAnalysed: e.PostsAnalysed, TotalLikes: e.TotalLikes, TotalComments: e.TotalComments,
			AverageLikes: e.AverageLikes, AverageComments: e.AverageComments},
			MostLiked: topPosts(r.MostLiked), MostCommented: topPosts(r.MostCommented), Audience: map[string]audienceView{}}
		for name, c := range map[string]analysis.Category{"lostFollowers": r.Audience.LostFollowers,
			"newFollowers": r.Audience.NewFollowers, "friends": r.Audience.Friends, "fans": r.Audience.Fans,
			"notFollowingBack": r.Audience.NotFollowingBack, "secretFans": r.Audience.SecretFans,
			"inactiveFollowers": r.Audience.InactiveFollowers} {
			if c.Count != nil {
				a.Audience[name] = audienceView{Count: *c.Count, Usernames: orEmpty(c.Usernames)}
			}
		}
		v.Analysis = a
	}
	return v
}

func topPosts(posts []analysis.TopPost) []topPostView {
	var out []topPostView
	for _, p := range posts {
		out = append(out, topPostView{PostID: p.ID, TakenAt: p.TakenAt, Count: p.Count})
	}
	return out
}

// snapshotView is one entry of instagram_snapshots.json.
type snapshotView struct {
	TakenAt       time.Time  `json:"takenAt,omitzero"`
	FollowerCount int        `json:"followerCount,omitempty"`
	Followers     []string   `json:"followers,omitempty"`
	Following     []string   `json:"following,omitempty"`
	Posts         []postView `json:"posts,omitempty"`
}

type postView struct {
	PostID     string    `json:"postId"`
	TakenAt    time.Time `json:"takenAt,omitzero"`
	Likes      int       `json:"likes"`
	Comments   int       `json:"comments"`
	PictureURL string    `json:"pictureUrl,omitempty"`
	Commenters []string  `json:"commenters,omitempty"`
}

var snapshotFields = []field{
	{"takenAt", "When the profile was read."},
	{"followerCount", "The follower count Instagram gave."},
	{"followers", "The usernames of your followers then."},
	{"following", "The usernames of the accounts you followed then."},
	{"posts", "Your posts then."},
	{"posts.postId", "Instagram's id of the post."},
	{"posts.takenAt", "When it was posted."},
	{"posts.likes", "Its likes."},
	{"posts.comments", "Its comments."},
	{"posts.pictureUrl", "Where Instagram served its picture."},
	{"posts.commenters", "The usernames of those who commented."},
}

func viewSnapshot(s analysis.Snapshot) snapshotView {
	v := snapshotView{TakenAt: s.TakenAt, FollowerCount: s.FollowerCount, Followers: s.Followers, Following: s.Following}
	for _, p := range s.Posts {
		v.Posts = append(v.Posts, postView{PostID: p.ID, TakenAt: p.TakenAt, Likes: p.Likes, Comments: p.Comments,
			PictureURL: p.PictureURL, Commenters: p.Commenters})
	}
	return v
}

// breachView is one entry of breach_checks.json.
type breachView struct {
	CheckedAt  time.Time `json:"checkedAt,omitzero"`
	Breaches   []string  `json:"breaches"`
	SampleData bool      `json:"sampleData,omitempty"`
}

var breachFields = []field{
	{"checkedAt", "When your address was last checked."},
	{"breaches", "The names of the known data breaches your address appears in (empty: none)."},
	{"sampleData", "true when the check used the built-in sample list instead of a live breach service (a demo)."},
}
