package screens

import (
	"net/url"
	"strconv"
	"strings"

	"glimpse/engine/billing"
	"glimpse/engine/ui"
)

// Overlay ids of My Plan and its cancel-by-email modals.
const (
	CancelByEmailOverlay = "cancel-by-email"
	CancelSentOverlay    = "cancel-sent"
	CancelByEmailForm    = "cancel-by-email"
)

// Offer is one add-on card of My Plan.
type Offer struct {
	Family    string // billing.FamilyPDFCourse, …
	Price     billing.Money
	FullPrice billing.Money
	Discount  int
	Owned     bool
	// Pending is the profile report before the profile's first analysis:
	// it is mailed once there is one, and the offer says so (report.go).
	Pending bool
}

// PlanState is what My Plan shows for one subscriber.
type PlanState struct {
	Email    string
	Plan     billing.Plan
	Canceled bool
	// Fetching is the spec's 'Fetching plans' window: the plan started
	// under 10 hours ago, and Cancel waits until it is over.
	Fetching bool
	// PeriodEnd is the renewal (or, once canceled, the end) date as shown.
	PeriodEnd string
	// Next, when set, is the plan taken from the next period on (a plan
	// change made in the unsubscribe flow): My Plan says what happens next.
	Next *NextPlan
	// Card is the payment method as shown ("Visa ••4242", brand.CardLabel); empty if none.
	Card   string
	Offers []Offer
	// Plans are the plans the subscription may renew as instead (the
	// brand's regular main plans), for Change plan; none while canceled.
	Plans []PlanChoice
}

// PlanChoice is a plan My Plan offers to change to, every value formatted.
type PlanChoice struct {
	Code, Name, Price, Period string
	// Current is the plan the subscription has now; Next the one scheduled.
	Current, Next bool
}

// My Plan's own dialogs and forms.
const (
	ChangePlanOverlay = "change-plan"
	changePlanForm    = "change-plan"
	undoChangeForm    = "undo-plan-change"
)

// resumePlanForm is My Plan's form that takes a cancel back.
const resumePlanForm = "resume-plan"

// NextPlan is a plan change scheduled for the next period, as shown.
type NextPlan struct {
	Name   string // "Premium Plan"
	Price  string // what it costs each period, "$13.99"
	Period string // "1 month"
	From   string // the date it starts, "Dec 2, 2026"
}

// purchaseAction names the action that buys an add-on family.
func purchaseAction(family string) string {
	switch family {
	case billing.FamilyPDFCourse:
		return "course.purchase"
	case billing.FamilyProfileReport:
		return "plan.buy_report"
	default:
		return "plan.buy_playbook"
	}
}

// ownedAction is what an owner's button does instead of buying.
func ownedAction(family string) *ui.Action {
	switch family {
	case billing.FamilyPDFCourse:
		return ui.Sequence(ui.CloseOverlay(MyPlanOverlay), ui.Navigate(PathCourse))
	case billing.FamilyProfileReport:
		return ui.Download(PathProfileReport, "profile-report.pdf")
	default:
		return ui.Download(PathReelsPlaybook, "reels-playbook.pdf")
	}
}

// Paths of the add-ons' downloads.
const (
	PathProfileReport = "/reports/profile.pdf"
	PathReelsPlaybook = "/reels-playbook.pdf"
)

func fill(s string, pairs ...string) string { return strings.NewReplacer(pairs...).Replace(s) }

// MyPlan is the full-screen My Plan dialog: the add-on offers, the active
// plan and the way to cancel it.
func MyPlan(c Context, p PlanState) *ui.Node {
	offers := make([]*ui.Node, 0, len(p.Offers))
	for _, o := range p.Offers {
		offers = append(offers, offerCard(c, o))
	}
	status := ui.Badge(p.Plan.Status, "brand")
	if p.Canceled {
		status = ui.Badge(c.T("plan.canceled"), "warning")
	}
	when := c.T("plan.renews")
	if p.Canceled {
		when = c.T("plan.ends")
	}
	var cancel *ui.Node
	switch {
	case p.Canceled:
		canceled := ui.Button(c.T("plan.canceledButton"), "secondary", ui.OpenOverlay(CancelByEmailOverlay))
		canceled.DisabledWhen = ui.Always(true)
		// Canceled, running until its period ends: it can be taken back.
		resume := ui.Submit("plan.resume", resumePlanForm)
		cancel = ui.Form(resumePlanForm, resume, canceled, ui.FormError(resumePlanForm),
			ui.Button(c.T("plan.resume"), "primary", resume))
	case p.Fetching:
		cancel = ui.Button(c.T("plan.fetching"), "secondary", ui.OpenOverlay(CancelByEmailOverlay))
		cancel.DisabledWhen = ui.Always(true)
	default:
		// The unsubscribe flow; its final step still offers the mailed link.
		cancel = ui.Button(c.T("plan.cancel"), "secondary", ui.Navigate(PathUnsubscribe+"?"+url.Values{"entry": {"my_plan"}, "from": {PathMyPlan}}.Encode()))
	}
	var manage []*ui.Node
	if !p.Canceled && len(p.Plans) > 1 {
		manage = append(manage, ui.Button(c.T("plan.change"), "secondary", ui.OpenOverlay(ChangePlanOverlay)))
	}
	if p.Next != nil && !p.Canceled {
		undo := ui.Submit("plan.undo_change", undoChangeForm)
		manage = append(manage, ui.Form(undoChangeForm, undo, ui.FormError(undoChangeForm),
			ui.Button(fill(c.T("plan.keepCurrent"), "{plan}", p.Plan.Name), "tertiary", undo)))
	}
	if p.Card != "" && !p.Canceled {
		manage = append(manage, ui.Button(c.T("plan.updateCard"), "tertiary", ui.Navigate(PathUpdateCard)))
	}
	active := ui.Card(nil, append([]*ui.Node{
		ui.Text("caption", c.T("plan.active")),
		ui.Row("sm", ui.Text("heading", p.Plan.Name), status),
		ui.Text("body", p.Plan.Price+" "+c.T("plan.every")+" "+p.Plan.Period),
		ui.If(p.PeriodEnd != "", ui.Text("caption", fill(when, "{date}", p.PeriodEnd))),
		nextPlan(c, p.Next),
		ui.If(p.Card != "", ui.Text("caption", fill(c.T("plan.paymentMethod"), "{card}", p.Card))),
		ui.Text("caption", p.Email),
		cancel,
	}, manage...)...)
	history := ui.Card(ui.Navigate(PathBilling),
		ui.Text("heading", c.T("plan.history")),
		ui.Text("body", c.T("plan.historyText")),
	)
	history.ActionLabel = c.T("plan.history")
	// The plan the subscriber has comes first, then what they paid, then
	// what else is on sale.
	d := ui.Dialog(MyPlanOverlay, "fullscreen", c.T("plan.title"),
		active,
		history,
		ui.Text("heading", fill(c.T("plan.offersTitle"), "{n}", strconv.Itoa(len(p.Offers)))),
		ui.Stack("md", offers...),
		ui.Button(c.T("plan.contact"), "tertiary", ui.OpenURL("mailto:"+c.Brand.SupportEmail, false)),
	)
	d.CloseLabel = c.T("dialog.close")
	return d
}

// nextPlan says which plan and price apply from the next period, or nil.
func nextPlan(c Context, next *NextPlan) *ui.Node {
	if next == nil {
		return nil
	}
	return ui.Text("caption", fill(c.T("plan.next"), "{date}", next.From, "{plan}", next.Name,
		"{price}", next.Price, "{period}", next.Period))
}

func offerCard(c Context, o Offer) *ui.Node {
	key := "plan.offer." + o.Family
	var action *ui.Node
	if o.Owned {
		action = ownedButton(c, o)
	} else {
		// Nothing is charged from here: the confirmation says what and
		// to which card first.
		action = ui.Button(fill(c.T("plan.buy"), "{price}", o.Price.String()), "primary", ui.OpenOverlay(ConfirmOverlay(o.Family)))
	}
	price := ui.Row("sm", ui.Text("heading", o.Price.String()))
	if o.FullPrice.Amount > 0 {
		full := ui.Text("caption", o.FullPrice.String())
		full.Tone = "neutral"
		price.Children = append(price.Children, full,
			ui.Badge(fill(c.T("plan.save"), "{n}", strconv.Itoa(o.Discount)), "positive"))
	}
	return ui.Card(nil,
		ui.Row("sm", ui.Text("heading", c.T(key+".title")), ui.If(o.Owned, ui.Badge(c.T("plan.purchased"), "positive"))),
		ui.Text("body", c.T(key+".text")),
		ui.If(!o.Owned, price),
		action,
	)
}

// ChangePlan is the dialog that schedules another plan from the next
// renewal: each plan with its price and how it compares with today's, and
// when the change applies; nothing is charged now.
func ChangePlan(c Context, p PlanState) *ui.Node {
	options := make([]ui.Option, 0, len(p.Plans))
	for _, pl := range p.Plans {
		o := ui.Option{Value: pl.Code, Label: pl.Name + " · " + pl.Price + " " + c.T("plan.every") + " " + pl.Period}
		switch {
		case pl.Current:
			o.Description = c.T("plan.changeCurrent")
		case pl.Next:
			o.Description = fill(c.T("plan.changeScheduled"), "{date}", p.PeriodEnd)
		default:
			o.Description = fill(c.T("plan.changeFrom"), "{date}", p.PeriodEnd)
		}
		options = append(options, o)
	}
	submit := ui.Submit("plan.change", changePlanForm)
	choice := &ui.Node{Type: "choice_list", ID: "planCode", Bind: "/form/planCode", Label: c.T("plan.changeLabel"), Options: options,
		Rules: []ui.Rule{ui.Required(c.T("plan.changeChoose"))}}
	d := ui.Dialog(ChangePlanOverlay, "modal", c.T("plan.changeTitle"),
		ui.Text("body", fill(c.T("plan.changeText"), "{date}", p.PeriodEnd, "{plan}", p.Plan.Name+" ("+p.Plan.Price+" "+c.T("plan.every")+" "+p.Plan.Period+")")),
		ui.Form(changePlanForm, submit, choice, ui.FormError(changePlanForm),
			ui.Button(c.T("plan.changeConfirm"), "primary", submit)),
		ui.Button(c.T("purchase.cancel"), "secondary", ui.CloseOverlay(ChangePlanOverlay)),
	)
	d.CloseLabel = c.T("dialog.close")
	return d
}

// renewsAs is the plan the Change plan dialog starts on: the one scheduled,
// else the one the subscription has.
func renewsAs(plans []PlanChoice) string {
	code := ""
	for _, pl := range plans {
		if pl.Next {
			return pl.Code
		}
		if pl.Current {
			code = pl.Code
		}
	}
	return code
}

// ResumedOverlay confirms on screen that a cancel was taken back.
const ResumedOverlay = "plan-resumed"

// Resumed is the dialog that follows "Resume my plan": what runs again, at
// what price, from when, and that a mail confirms it.
func Resumed(c Context, p PlanState) *ui.Node {
	d := ui.Dialog(ResumedOverlay, "modal", c.T("plan.resumedTitle"),
		ui.Text("body", fill(c.T("plan.resumedText"), "{plan}", p.Plan.Name, "{price}", p.Plan.Price,
			"{period}", p.Plan.Period, "{date}", p.PeriodEnd)),
		ui.Text("caption", fill(c.T("plan.resumedMail"), "{email}", p.Email)),
		ui.Button(c.T("cancelByEmail.ok"), "primary", ui.CloseOverlay(ResumedOverlay)),
	)
	d.CloseLabel = c.T("dialog.close")
	return d
}

// CancelByEmail is the modal My Plan's Cancel opens: it sends the
// confirmation mail, then gives way to the 'sent' modal, which has no close
// icon, only OK.
func CancelByEmail(c Context, email string) (ask, sent *ui.Node) {
	send := ui.Sequence(
		ui.Track("cancel_click", map[string]any{"source": "my_plan"}),
		ui.Submit("plan.cancel_request", CancelByEmailForm),
	)
	ask = ui.Dialog(CancelByEmailOverlay, "modal", c.T("cancelByEmail.title"),
		ui.Text("body", fill(c.T("cancelByEmail.text"), "{email}", email)),
		ui.Form(CancelByEmailForm, ui.Submit("plan.cancel_request", CancelByEmailForm),
			ui.FormError(CancelByEmailForm),
			ui.Button(c.T("cancelByEmail.send"), "primary", send),
		),
		ui.Button(c.T("cancelByEmail.keep"), "secondary", ui.CloseOverlay(CancelByEmailOverlay)),
	)
	ask.CloseLabel = c.T("dialog.close")
	sent = ui.Dialog(CancelSentOverlay, "modal", c.T("cancelByEmail.sentTitle"),
		ui.Text("body", fill(c.T("cancelByEmail.sentText"), "{email}", email)),
		ui.Text("caption", c.T("cancelByEmail.spam")),
		ui.Button(c.T("cancelByEmail.ok"), "primary", ui.CloseOverlay(CancelSentOverlay)),
	)
	sent.Dismissible = false
	return ask, sent
}

// ConfirmOverlay is the dialog that confirms buying an add-on family.
func ConfirmOverlay(family string) string { return "confirm-" + strings.ReplaceAll(family, "_", "-") }

// ConfirmForm is the form of that dialog, whose error says why a payment
// did not go through.
func ConfirmForm(family string) string { return "buy-" + strings.ReplaceAll(family, "_", "-") }

// PurchaseConfirms are the dialogs that confirm buying each add-on not owned
// yet: what it is, the price, and the card it is charged to ("Pay $28.99
// with Visa ••4242"); a payment that fails says so in the dialog, which
// leads to changing the card. card is the saved card as shown, "" if none.
func PurchaseConfirms(c Context, offers []Offer, card string) map[string]*ui.Node {
	out := make(map[string]*ui.Node, len(offers))
	for _, o := range offers {
		if o.Owned {
			continue
		}
		id, form := ConfirmOverlay(o.Family), ConfirmForm(o.Family)
		price := o.Price.String()
		pay, summary := fill(c.T("purchase.pay"), "{price}", price), fill(c.T("purchase.summaryNoCard"), "{price}", price)
		if card != "" {
			pay = fill(c.T("purchase.payWith"), "{price}", price, "{card}", card)
			summary = fill(c.T("purchase.summary"), "{price}", price, "{card}", card)
		}
		buy := ui.Submit(purchaseAction(o.Family), form)
		d := ui.Dialog(id, "modal", c.T("purchase.title"),
			ui.Text("heading", c.T("plan.offer."+o.Family+".title")),
			ui.Text("body", c.T("plan.offer."+o.Family+".text")),
			ui.If(o.Pending, ui.Text("body", c.T("purchase.pending."+o.Family))),
			ui.Text("body", summary),
			ui.Form(form, buy, ui.FormError(form), ui.Button(pay, "primary", buy)),
			ui.Button(c.T("purchase.cancel"), "secondary", ui.CloseOverlay(id)),
			ui.Link(c.T("purchase.changeCard"), ui.Navigate(PathUpdateCard+"?return="+url.QueryEscape(o.Family))),
		)
		d.CloseLabel = c.T("dialog.close")
		out[id] = d
	}
	return out
}
