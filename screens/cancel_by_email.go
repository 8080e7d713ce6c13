package screens

import "glimpse/engine/ui"

// The public cancel page a cancel-by-email link opens (not the in-app
// unsubscribe flow, which is unsubscribe.go).

// PathUnsubscription is the public cancel-subscription page the
// cancel-by-email link opens.
const PathUnsubscription = "/unsubscription"

// Unsubscription is the page as it arrives: a loader that posts the link's
// value (a POST, since canceling changes state) and is replaced by the
// outcome.
func Unsubscription(c Context) Page {
	s := ui.Screen("unsubscription", c.T("unsubscription.loading"), ui.Loader(c.T("unsubscription.loading"), true))
	s.Layout = "bare"
	s.OnLoad = ui.Call("unsubscription.cancel")
	return Page{Screen: s}
}

// UnsubscriptionResult is the outcome: canceled, or no subscriptions for
// the link (any failure reads so, as the spec says); always the support
// line.
func UnsubscriptionResult(c Context, canceled bool) Page {
	title, text := c.T("unsubscription.noneTitle"), c.T("unsubscription.noneText")
	if canceled {
		title, text = c.T("unsubscription.canceledTitle"), c.T("unsubscription.canceledText")
	}
	logo := ui.ImageOf(c.Brand.Logo)
	logo.Size = "md"
	heading := ui.Text("title", title)
	heading.Align = "center"
	heading.Live = "polite"
	body := ui.Text("body", text)
	body.Align = "center"
	name := ui.Text("heading", c.Brand.Name)
	name.Align = "center"
	tagline := ui.Text("caption", c.Brand.Tagline)
	tagline.Align = "center"
	support := ui.Link(c.T("unsubscription.support"), ui.OpenURL("mailto:"+c.Brand.SupportEmail, false))
	s := ui.Screen("unsubscription", title, ui.Stack("lg", heading, body, ui.Stack("xs", logo, name, tagline), support))
	s.Layout = "centered"
	return Page{Screen: s}
}
