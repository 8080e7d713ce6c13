package screens

import (
	"time"

	"glimpse/engine/brand"
	"glimpse/engine/ui"
)

// The public cancel page a cancel-by-email link opens (not the in-app
// unsubscribe flow, which is unsubscribe.go).

// PathUnsubscription is the public cancel-subscription page the
// cancel-by-email link opens.
const PathUnsubscription = "/unsubscription"

// UnsubscriptionForm is the id of the page's form that asks for a cancel
// link by address.
const UnsubscriptionForm = "unsubscription"

// Actions of the public cancel page.
const (
	// ActionCancelFromLink is the one tap that cancels (a POST with the
	// link's value in the page's path).
	ActionCancelFromLink = "unsubscription.cancel"
	// ActionAskCancelLink mails a cancel link to the address typed.
	ActionAskCancelLink = "unsubscription.ask"
)

// What the public cancel page shows (UnsubscriptionState.Outcome).
const (
	// UnsubscriptionAsk is the page without a link (or with an expired or
	// used one): an email field that asks for a cancel link.
	UnsubscriptionAsk = ""
	// UnsubscriptionConfirm is a live link: one button cancels. Opening
	// the page cancels nothing (mail scanners open links).
	UnsubscriptionConfirm = "confirm"
	// UnsubscriptionCanceled is the tap's outcome: canceled now.
	UnsubscriptionCanceled = "canceled"
	// UnsubscriptionAlreadyCanceled is a link whose plan is canceled
	// already (by this link's tap or otherwise).
	UnsubscriptionAlreadyCanceled = "already-canceled"
	// UnsubscriptionNone is a link that names no plan (an unknown link, or
	// an address with none): it says so, and the form asks again.
	UnsubscriptionNone = "none"
)

// UnsubscriptionState is what the public cancel page shows.
type UnsubscriptionState struct {
	Outcome string
	// AccessEnds is the day access ends (confirm: if canceled now;
	// canceled, already canceled: as canceled); zero when not known.
	AccessEnds time.Time
	// Spent says the page's link has expired or was used (ask).
	Spent bool
	// SentTo is the address a cancel link was just asked for (ask): the
	// page then says what happens, the same for any address.
	SentTo string
}

// Unsubscription is the public cancel page reached without a link: a form
// that asks for one.
func Unsubscription(c Context) Page { return UnsubscriptionFor(c, UnsubscriptionState{}) }

// UnsubscriptionFor is the public cancel page in each of its states (issue
// #32 item 10). Every state is one centred column: the brand's lockup
// once, the outcome, and the support line (issue #21).
func UnsubscriptionFor(c Context, st UnsubscriptionState) Page {
	var title, text string
	var body []*ui.Node
	ends := func(key string) *ui.Node {
		if st.AccessEnds.IsZero() {
			return nil
		}
		return centered("body", fill(c.T(key), "{brand}", c.Brand.Name, "{date}", brand.Date(st.AccessEnds)))
	}
	switch st.Outcome {
	case UnsubscriptionConfirm:
		title, text = c.T("unsubscription.confirmTitle"), c.T("unsubscription.confirmText")
		body = append(body, ends("unsubscription.confirmEnds"),
			ui.Button(c.T("unsubscription.confirm"), "primary", ui.Call(ActionCancelFromLink)))
	case UnsubscriptionCanceled:
		title, text = c.T("unsubscription.canceledTitle"), c.T("unsubscription.canceledText")
		body = append(body, ends("unsubscription.accessEnds"))
	case UnsubscriptionAlreadyCanceled:
		title, text = c.T("unsubscription.alreadyTitle"), c.T("unsubscription.alreadyText")
		body = append(body, ends("unsubscription.accessEnds"))
	case UnsubscriptionNone:
		title, text = c.T("unsubscription.noneTitle"), c.T("unsubscription.noneText")
		body = append(body, askForm(c))
	default:
		title, text = c.T("unsubscription.askTitle"), c.T("unsubscription.askText")
		switch {
		case st.SentTo != "":
			title, text = c.T("unsubscription.sentTitle"), fill(c.T("unsubscription.sentText"), "{email}", st.SentTo, "{brand}", c.Brand.Name)
		case st.Spent:
			body = append(body, &ui.Node{Type: "banner", Tone: "info", Text: c.T("unsubscription.linkSpent")}, askForm(c))
		default:
			body = append(body, askForm(c))
		}
	}
	logo := ui.ImageOf(c.Brand.Logo)
	logo.Size = "md"
	heading := centered("title", title)
	heading.Live = "polite"
	support := ui.Link(c.T("unsubscription.support"), ui.OpenURL("mailto:"+c.Brand.SupportEmail, false))
	column := ui.Stack("lg", logo, ui.Stack("sm", append([]*ui.Node{heading, centered("body", text)}, body...)...), support)
	column.Align = "center"
	s := ui.Screen("unsubscription", title, column)
	s.Layout = "centered"
	return Page{Screen: s, State: map[string]any{"form": map[string]any{"email": st.SentTo}}}
}

// askForm asks for a cancel link by address.
func askForm(c Context) *ui.Node {
	submit := ui.Submit(ActionAskCancelLink, UnsubscriptionForm)
	email := ui.TextInput("email", "email", c.T("unsubscription.emailLabel"), c.T("unsubscription.emailPlaceholder"),
		ui.Email(c.T("unsubscription.wrongEmail")))
	email.Autocomplete = "email"
	return ui.Form(UnsubscriptionForm, submit, email, ui.FormError(UnsubscriptionForm),
		ui.Button(c.T("unsubscription.send"), "primary", submit))
}
