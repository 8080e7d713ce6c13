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

// Unsubscription is the page as it arrives: a loader that posts the link's
// value (a POST, since canceling changes state) and is replaced by the
// outcome.
func Unsubscription(c Context) Page {
	s := ui.Screen("unsubscription", c.T("unsubscription.loading"), ui.Loader(c.T("unsubscription.loading"), true))
	s.Layout = "bare"
	s.OnLoad = ui.Call("unsubscription.cancel")
	return Page{Screen: s}
}

// UnsubscriptionResult is the outcome: canceled, with the day access ends
// when known, or no subscriptions for the link (any failure reads so, as
// the spec says); always the support line. One centred column: the brand's
// lockup once, then the outcome (issue #21).
func UnsubscriptionResult(c Context, canceled bool, accessEnds time.Time) Page {
	title, text := c.T("unsubscription.noneTitle"), c.T("unsubscription.noneText")
	if canceled {
		title, text = c.T("unsubscription.canceledTitle"), c.T("unsubscription.canceledText")
	}
	logo := ui.ImageOf(c.Brand.Logo)
	logo.Size = "md"
	heading := centered("title", title)
	heading.Live = "polite"
	var ends *ui.Node
	if canceled && !accessEnds.IsZero() {
		ends = centered("body", fill(c.T("unsubscription.accessEnds"), "{brand}", c.Brand.Name, "{date}", brand.Date(accessEnds)))
	}
	support := ui.Link(c.T("unsubscription.support"), ui.OpenURL("mailto:"+c.Brand.SupportEmail, false))
	column := ui.Stack("lg", logo, ui.Stack("sm", heading, centered("body", text), ends), support)
	column.Align = "center"
	s := ui.Screen("unsubscription", title, column)
	s.Layout = "centered"
	return Page{Screen: s}
}
