package screens

import (
	"glimpse/engine/billing"
	"glimpse/engine/ui"
)

// Paths of the checkout.
const (
	PathCheckout     = "/checkout"
	PathCheckoutDone = "/checkout/done"
	PathUpdateCard   = "/checkout/card"
)

// Ids of the checkout's forms.
const (
	CheckoutForm   = "checkout"
	UpdateCardForm = "update-card"
)

// Card input patterns: what the renderer can check before the server runs
// the Luhn check and the expiry date, which it answers under the same
// inputs. Both are valid RE2 and JavaScript.
const (
	cardNumberPattern = `^[0-9][0-9 -]{10,21}[0-9]$`
	expiryPattern     = `^(0[1-9]|1[0-2]) ?/ ?([0-9]{2}|[0-9]{4})$`
	cvcPattern        = `^[0-9]{3,4}$`
)

// CheckoutState is what the checkout offers.
type CheckoutState struct {
	Plans []billing.PlanSpec
	// Key is this checkout's idempotency key: a second submit of the same
	// page charges nothing more.
	Key string
	// Email pre-fills the address (a signed-in person buying again).
	Email string
	// Sandbox says no money is taken, and shows the test card.
	Sandbox bool
}

// Checkout is the public checkout: pick a plan, give an email and a card,
// pay. What the plan costs and how it renews is said before the button.
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
		cardInputs(c),
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
	return Page{Screen: screen, State: map[string]any{
		"form":        map[string]any{"plan": first, "email": st.Email, "card": "", "expiry": "", "cvc": ""},
		"checkoutKey": st.Key,
	}}
}

// cardInputs are the card number, expiry and security code.
func cardInputs(c Context) *ui.Node {
	number := ui.TextInput("card", "text", c.T("checkout.cardLabel"), c.T("checkout.cardPlaceholder"),
		ui.Required(c.T("checkout.cardInvalid")), ui.Rule{Kind: "pattern", Value: cardNumberPattern, Message: c.T("checkout.cardInvalid")})
	number.Autocomplete = "cc-number"
	expiry := ui.TextInput("expiry", "text", c.T("checkout.expiryLabel"), c.T("checkout.expiryPlaceholder"),
		ui.Required(c.T("checkout.expiryInvalid")), ui.Rule{Kind: "pattern", Value: expiryPattern, Message: c.T("checkout.expiryInvalid")})
	expiry.Autocomplete = "cc-exp"
	cvc := ui.TextInput("cvc", "text", c.T("checkout.cvcLabel"), c.T("checkout.cvcPlaceholder"),
		ui.Required(c.T("checkout.cvcInvalid")), ui.Rule{Kind: "pattern", Value: cvcPattern, Message: c.T("checkout.cvcInvalid")})
	cvc.Autocomplete = "cc-csc"
	return ui.Stack("md", number, ui.Row("md", expiry, cvc))
}

// CheckoutDone is the page after a payment: the buyer's next step is the
// link in their email.
func CheckoutDone(c Context, maskedEmail string, found bool) Page {
	title := ui.Text("title", c.T("checkout.done.title"))
	title.Align = "center"
	text := ui.Text("body", fill(c.T("checkout.done.text"), "{email}", maskedEmail))
	text.Align = "center"
	if !found {
		title = ui.Text("title", c.T("checkout.done.missing"))
		title.Align = "center"
		text = nil
	}
	screen := ui.Screen("checkout-done", c.T("checkout.done.title"), ui.Stack("lg",
		ui.Image("/static/illustrations/mail-sent.svg", ""),
		title, text,
		ui.Button(c.T("checkout.done.signIn"), "secondary", ui.Navigate(PathSignIn)),
	))
	screen.Layout = "centered"
	screen.Footer = footer(c)
	return Page{Screen: screen}
}

// UpdateCard is where a subscriber whose renewal failed gives a new card;
// a due retry then runs at once.
func UpdateCard(c Context, subscriptionID, current string) Page {
	save := &ui.Action{Type: "submit", Name: "plan.update_card", Form: UpdateCardForm, Include: []string{"/subscription"}}
	form := ui.Form(UpdateCardForm, save, cardInputs(c), ui.FormError(UpdateCardForm),
		ui.Button(c.T("updateCard.save"), "primary", save))
	body := []*ui.Node{
		ui.Text("body", c.T("updateCard.text")),
		ui.If(current != "", ui.Text("caption", fill(c.T("plan.paymentMethod"), "{card}", current))),
		form,
	}
	screen := ui.Screen("update-card", c.T("updateCard.title"),
		SubPage(c, "update-card", c.T("updateCard.title"), ui.Navigate(PathDashboard), body...))
	return Page{Screen: screen, State: map[string]any{
		"form":         map[string]any{"card": "", "expiry": "", "cvc": ""},
		"subscription": subscriptionID,
	}}
}
