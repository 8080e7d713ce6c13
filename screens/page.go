// Package screens composes every screen, dialog and modal of Glimpse as a
// ui.Node tree. Screen functions are pure: everything they need is loaded
// before they are called, and they do no I/O, so golden tests are trivial.
package screens

import (
	"glimpse/engine/brand"
	"glimpse/engine/ui"
)

// Context is what every screen needs: the brand it is shown under and that
// brand's copy.
type Context struct {
	Brand brand.Brand
	Copy  brand.Copy
}

// T is shorthand for the brand's copy.
func (c Context) T(key string) string { return c.Copy.T(key) }

// Page is a composed screen with the overlays it can open and the initial
// state of its inputs; the server wraps it in an envelope.
type Page struct {
	Screen   *ui.Node
	Overlays map[string]*ui.Node
	Open     []string
	State    map[string]any
}

// Paths of the app's routes, shared by screens and the server's route table.
const (
	PathHome           = "/"
	PathSignIn         = "/sign-in"
	PathDashboard      = "/dashboard"
	PathInsights       = "/dashboard/insights"
	PathTopTrends      = "/dashboard/top-trends"
	PathTopHacks       = "/dashboard/top-hacks"
	PathNews           = "/dashboard/news"
	PathAnalytics      = "/dashboard/analytics"
	PathCourse         = "/dashboard/course"
	PathPasswordSafety = "/dashboard/password-safety"
	PathArticles       = "/dashboard/articles"
	PathPrivacy        = "/privacy"
	PathTerms          = "/terms-of-use"
	PathAccessRecovery = "/access-recovery"
)

// footer is the shared footer: the product name, the tagline and the legal
// links, which open in a new window.
func footer(c Context) *ui.Node {
	return &ui.Node{Type: "footer", Title: c.Brand.Name, Subtitle: c.Brand.Tagline, Children: []*ui.Node{
		ui.Link(c.T("footer.terms"), ui.OpenURL(PathTerms, true)),
		ui.Link(c.T("footer.privacy"), ui.OpenURL(PathPrivacy, true)),
	}}
}

// SubPage wraps content in the shared sub-page layout: a header with a back
// button (to the dashboard unless back says otherwise) and a title, and the
// footer.
func SubPage(c Context, id, title string, back *ui.Action, children ...*ui.Node) *ui.Node {
	if back == nil {
		back = ui.Navigate(PathDashboard)
	}
	s := ui.Screen(id, title, children...)
	s.Layout = "sub"
	s.Header = &ui.Node{Type: "header", Title: title, Back: back, BackLabel: c.T("subpage.back")}
	s.Footer = footer(c)
	return s
}

// WithDemoNotice is p with the public demo's notice first on its screen: a
// site running the payment sandbox outside development (a public demo)
// says on every page that nothing is sold and no card is charged. p's own
// screen is not changed.
func WithDemoNotice(c Context, p Page) Page {
	if p.Screen == nil {
		return p
	}
	screen := *p.Screen
	notice := &ui.Node{Type: ui.NodeTypeBanner, ID: "demo-notice", Tone: "warning", Title: c.T("demo.title"), Text: c.T("demo.text")}
	screen.Children = append([]*ui.Node{notice}, p.Screen.Children...)
	p.Screen = &screen
	return p
}

// Envelope wraps the page with its metadata.
func (p Page) Envelope(meta ui.Meta) ui.Envelope {
	return ui.Envelope{V: ui.SchemaVersion, Screen: p.Screen, Overlays: p.Overlays, Open: p.Open,
		State: p.State, Meta: meta}
}
