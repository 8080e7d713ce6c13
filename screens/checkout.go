package screens

import (
	"glimpse/engine/billing"
	"glimpse/engine/ui"
	"net/url"
)

// Paths of the checkout.
const (
	PathCheckout     = "/checkout"
	PathCheckoutDone = "/checkout/done"
	PathUpdateCard   = "/checkout/card"
	// PathConfirmPayment is the page a renewal's confirmation mail links
	// to (billing.PathCheckoutConfirm).
	PathConfirmPayment = billing.PathCheckoutConfirm
)

// CheckoutForm is the id of the checkout's form.
const CheckoutForm = "checkout"

// CheckoutState is what the checkout offers.
type CheckoutState struct {
	Plans []billing.PlanSpec
	// Key is this checkout's idempotency key: a second submit of the same
	// page charges nothing more.
	Key string
	// Email pre-fills the address (a signed-in person buying again).
	Email string
	// Sandbox says no money is taken, and names the test card.
	Sandbox bool
	// Plan is the plan chosen before (the hosted page's "← Back"); ""
	// chooses the first.
	Plan string
}

// Checkout is the public checkout: pick a plan and give an email, then pay
// on the payment provider's page (the card is never typed here). What the
// plan costs and how it renews is said before the button.
func Checkout(c Context, st CheckoutState) Page {
	options := make([]ui.Option, 0, len(st.Plans))
	for _, p := range st.Plans {
		d := billing.Describe(p.Code)
		options = append(options, ui.Option{Value: p.Code, Label: d.Name,
			Description: fill(c.T("checkout.every"), "{price}", d.Price, "{period}", d.Period)})
	}
	plans := &ui.Node{Type: "choice_list", ID: "plan", Bind: "/form/plan", Label: c.T("checkout.planLabel"),
		Options: options, Rules: []ui.Rule{ui.Required(c.T("checkout.planRequired"))}}
	pay := &ui.Action{Type: "submit", Name: "checkout.pay", Form: CheckoutForm, Include: []string{"/checkoutKey"}}
	form := ui.Form(CheckoutForm, pay,
		plans,
		ui.TextInput("email", "email", c.T("checkout.emailLabel"), c.T("checkout.emailPlaceholder"),
			ui.Email(c.T("checkout.wrongEmail"))),
		ui.Text("caption", c.T("checkout.renewal")),
		ui.FormError(CheckoutForm),
		ui.Button(c.T("checkout.pay"), "primary", pay),
	)
	form.Children[1].Autocomplete = "email"
	logo := ui.ImageOf(c.Brand.Logo)
	logo.Size = "md"
	title := ui.Text("title", c.T("checkout.title"))
	title.Align = "center"
	headline := ui.Text("body", c.T("checkout.headline"))
	headline.Align = "center"
	var sandbox *ui.Node
	if st.Sandbox {
		sandbox = &ui.Node{Type: "banner", Tone: "info", Text: c.T("checkout.sandbox")}
	}
	screen := ui.Screen("checkout", c.T("checkout.title"), ui.Stack("lg", logo, title, headline, sandbox, form,
		ui.Text("caption", c.T("checkout.secure")),
		ui.Link(c.T("checkout.haveAccount"), ui.Navigate(PathSignIn)),
	))
	screen.Layout = "centered"
	screen.Footer = footer(c)
	first := ""
	if len(st.Plans) > 0 {
		first = st.Plans[0].Code
	}
	for _, p := range st.Plans {
		if p.Code == st.Plan {
			first = p.Code
		}
	}
	return Page{Screen: screen, State: map[string]any{
		"form":        map[string]any{"plan": first, "email": st.Email},
		"checkoutKey": st.Key,
	}}
}

// OrderState is what the page after the provider's page knows of the
// order: only what the provider's verified events made of it.
type OrderState struct {
	Found  bool
	Kind   string // billing.OrderPlan, OrderAddOn, OrderCard, OrderRenewal
	Status string // billing.OrderPending, OrderProcessing, OrderPaid, OrderFailed, OrderExpired, OrderRefunded
	Email  string // masked
	// Return is the add-on family a card update interrupted the purchase
	// of: the page leads back to it.
	Return string
	// What a paid plan bought: its name, price and period, and the day it
	// renews ("" once canceled).
	Plan, Price, Period, RenewsOn string
	// AccountReady is a paid plan whose account exists: the page offers
	// sign-in.
	AccountReady bool
	// Fixable is a paid plan with no account yet, bought less than a day
	// ago: the page offers to send the mail again or to another address.
	Fixable bool
	// Sent says the mail was just sent again, to Email.
	Sent bool
}

// Actions of the done page of a paid plan.
const (
	ActionResendPurchaseMail = "checkout.resend_mail"
	ActionChangePurchaseMail = "checkout.change_email"
)

// CheckoutEmailForm is the done page's form that corrects the address.
const CheckoutEmailForm = "checkout-email"

// orderPollMS is how often the page looks again while the payment is being
// confirmed.
const orderPollMS = 2000

// CheckoutDone is the page the provider's hosted page sends the buyer back
// to. It never grants anything: while the provider's event has not settled
// the order it says so and looks again every two seconds; paid, it says what
// comes next (for a new buyer, the link in their email); failed, it offers
// to try again.
func CheckoutDone(c Context, st OrderState) Page {
	center := func(n *ui.Node) *ui.Node {
		n.Align = "center"
		return n
	}
	var (
		title, text *ui.Node
		next        *ui.Node
		image       = ui.Image("/static/illustrations/mail-sent.svg", "")
		onLoad      *ui.Action
		done        = c.T("checkout.done.title")
	)
	switch {
	case !st.Found:
		title, image = center(ui.Text("title", c.T("checkout.done.missing"))), nil
		next = ui.Button(c.T("checkout.done.signIn"), "secondary", ui.Navigate(PathSignIn))
	case st.Status == billing.OrderFailed || st.Status == billing.OrderExpired:
		done = c.T("checkout.done.failed.title")
		title, image = center(ui.Text("title", done)), nil
		text = center(ui.Text("body", c.T("checkout.done.failed.text")))
		if st.Status == billing.OrderExpired {
			done = c.T("checkout.done.expired.title")
			title = center(ui.Text("title", done))
			text = center(ui.Text("body", c.T("checkout.done.expired.text")))
		}
		next = ui.Button(c.T("checkout.done.retry"), "primary", ui.Navigate(PathCheckout))
		if st.Kind != billing.OrderPlan {
			next = ui.Button(c.T("checkout.done.dashboard"), "primary", ui.Navigate(PathDashboard))
		}
	case st.Status == billing.OrderRefunded:
		// Paid for what the buyer already had, and given back at once.
		done = c.T("checkout.done.refunded.title")
		title, image = center(ui.Text("title", done)), nil
		text = center(ui.Text("body", fill(c.T("checkout.done.refunded.text"), "{email}", st.Email)))
		next = ui.Button(c.T("checkout.done.signIn"), "primary", ui.Navigate(PathSignIn))
		if st.Kind != billing.OrderPlan {
			text = center(ui.Text("body", c.T("checkout.done.refunded.addonText")))
			next = ui.Button(c.T("checkout.done.dashboard"), "primary", ui.Navigate(PathDashboard))
		}
	case st.Status != billing.OrderPaid:
		done = c.T("checkout.done.pending.title")
		title, image = center(ui.Text("title", done)), nil
		text = center(ui.Text("body", c.T("checkout.done.pending.text")))
		next = ui.Loader(c.T("checkout.done.pending.title"), false)
		onLoad = ui.After(orderPollMS, ui.Refresh())
	case st.Kind == billing.OrderPlan:
		title = center(ui.Text("title", done))
		text, next = paidPlan(c, st)
	default:
		key := "checkout.done." + st.Kind
		if st.Kind == billing.OrderCard {
			done = c.T(key + ".title")
		}
		title, image = center(ui.Text("title", done)), nil
		text = center(ui.Text("body", c.T(key+".text")))
		next = ui.Button(c.T("checkout.done.dashboard"), "primary", ui.Navigate(PathDashboard))
		if st.Kind == billing.OrderCard && st.Return != "" {
			text = center(ui.Text("body", c.T("checkout.done.card.returnText")))
			next = ui.Button(c.T("checkout.done.card.return"), "primary", ui.Navigate(PathMyPlan+"&buy="+url.QueryEscape(st.Return)))
		}
	}
	title.Live = "polite" // read out when a look again changes it
	screen := ui.Screen("checkout-done", done, ui.Stack("lg", image, title, text, next))
	screen.Layout = "centered"
	screen.Footer = footer(c)
	screen.OnLoad = onLoad
	page := Page{Screen: screen}
	if st.Fixable && st.Status == billing.OrderPaid && st.Kind == billing.OrderPlan {
		page.State = map[string]any{"form": map[string]any{"email": ""}}
	}
	return page
}

// paidPlan is the done page of a plan just bought (#32 item 12): what was
// bought and when it renews, where the mail with the link to create the
// account went, and, until the account exists, the mail again or to a
// corrected address. The buyer cannot sign in before creating the account,
// so sign-in is offered only once it exists.
func paidPlan(c Context, st OrderState) (text, next *ui.Node) {
	bought := ""
	if st.Plan != "" {
		key := "checkout.done.bought"
		if st.RenewsOn == "" {
			key = "checkout.done.boughtEnded"
		}
		bought = fill(c.T(key), "{plan}", st.Plan, "{price}", st.Price, "{period}", st.Period, "{date}", st.RenewsOn)
	}
	mailText := fill(c.T("checkout.done.text"), "{email}", st.Email)
	var sent *ui.Node
	if st.Sent {
		sent = &ui.Node{Type: "banner", Tone: "positive", Text: fill(c.T("checkout.done.sentAgain"), "{email}", st.Email)}
	}
	text = ui.Stack("sm", ui.If(bought != "", centered("body", bought)), centered("body", mailText), sent)
	switch {
	case st.AccountReady:
		return text, ui.Stack("sm", centered("body", c.T("checkout.done.accountReady")),
			ui.Button(c.T("checkout.done.signIn"), "primary", ui.Navigate(PathSignIn)))
	case st.Fixable:
		change := ui.Submit(ActionChangePurchaseMail, CheckoutEmailForm)
		email := ui.TextInput("email", "email", c.T("checkout.done.newEmailLabel"), c.T("checkout.emailPlaceholder"),
			ui.Required(c.T("checkout.wrongEmail")), ui.Email(c.T("checkout.wrongEmail")))
		email.Autocomplete = "email"
		return text, ui.Stack("lg",
			ui.Stack("sm", centered("caption", c.T("checkout.done.notThere")),
				ui.Button(c.T("checkout.done.resend"), "secondary", ui.Call(ActionResendPurchaseMail))),
			ui.Form(CheckoutEmailForm, change, centered("caption", c.T("checkout.done.wrongAddress")), email,
				ui.FormError(CheckoutEmailForm), ui.Button(c.T("checkout.done.changeEmail"), "secondary", change)))
	}
	// A day on, the access page sends a new link to the plan's address.
	return text, ui.Link(c.T("checkout.done.askLink"), ui.Navigate(PathAccessRecovery))
}

// UpdateCard is where a subscriber replaces the card of their plan (after a
// failed renewal, say): the new card is typed on the payment provider's
// page, and a due retry then runs at once.
func UpdateCard(c Context, subscriptionID, current, back string) Page {
	body := []*ui.Node{
		ui.Text("body", c.T("updateCard.text")),
		ui.If(current != "", ui.Text("caption", fill(c.T("plan.paymentMethod"), "{card}", current))),
		ui.Button(c.T("updateCard.save"), "primary", ui.Call("plan.update_card", "/subscription", "/return")),
		ui.Text("caption", c.T("checkout.secure")),
	}
	screen := ui.Screen("update-card", c.T("updateCard.title"),
		SubPage(c, "update-card", c.T("updateCard.title"), ui.Navigate(PathDashboard), body...))
	return Page{Screen: screen, State: map[string]any{"subscription": subscriptionID, "return": back}}
}

// ConfirmState is a renewal waiting for its subscriber to authenticate.
type ConfirmState struct {
	Found  bool
	Closed bool // paid meanwhile, renewed with another card, or out of date
	Token  string
	Plan   string
	Price  string
}

// ConfirmPayment is the page a renewal's confirmation mail links to: the
// bank asked for the subscriber (3-D Secure), who goes on to the provider's
// page to authenticate and pay.
func ConfirmPayment(c Context, st ConfirmState) Page {
	title := ui.Text("title", c.T("confirm.title"))
	title.Align = "center"
	var body []*ui.Node
	switch {
	case !st.Found:
		body = []*ui.Node{ui.Text("body", c.T("confirm.missing"))}
	case st.Closed:
		body = []*ui.Node{ui.Text("body", c.T("confirm.closed")),
			ui.Button(c.T("checkout.done.dashboard"), "secondary", ui.Navigate(PathDashboard))}
	default:
		body = []*ui.Node{
			ui.Text("body", fill(c.T("confirm.text"), "{plan}", st.Plan, "{price}", st.Price)),
			ui.Button(c.T("confirm.button"), "primary", ui.Call("checkout.confirm", "/token")),
			ui.Text("caption", c.T("checkout.secure")),
		}
	}
	screen := ui.Screen("confirm-payment", c.T("confirm.title"), ui.Stack("lg", append([]*ui.Node{title}, body...)...))
	screen.Layout = "centered"
	screen.Footer = footer(c)
	page := Page{Screen: screen}
	if st.Token != "" {
		page.State = map[string]any{"token": st.Token}
	}
	return page
}
