package screens

import (
	"strconv"
	"strings"

	"glimpse/engine/ui"
)

// Breach check outcomes shown by the password-safety screen.
const (
	BreachPending     = "pending"      // not checked yet: the screen asks for the check itself
	BreachCompromised = "compromised"  // checked, breaches found
	BreachClean       = "clean"        // checked, none found (a 404 counts)
	BreachRateLimited = "rate_limited" // the service said 429: try later
	BreachFailed      = "failed"       // any other failure
)

// BreachCheckAction is the server action that runs (or re-runs) the check.
const BreachCheckAction = "breach.check"

// BreachView is one breached site as the screen shows it.
type BreachView struct {
	Title string
	// Logo is the breached site's logo: a path of ours or the breach
	// service's logo host (allowed by the CSP), "" for none.
	Logo        string
	Domain      string
	Date        string // formatted, e.g. "March 2019"
	DataClasses []string
	Description string
}

// PasswordSafetyState is what the password-safety screen shows.
type PasswordSafetyState struct {
	Email    string
	Outcome  string
	Breaches []BreachView
	// CheckedAt is the formatted time of the stored result, "" when none.
	CheckedAt string
	// Sample marks results from the bundled sample dataset (no HIBP key).
	Sample bool
	// CanRecheck offers 'Check again' (a stored result old enough).
	CanRecheck bool
	// Notice is BreachRateLimited or BreachFailed when a re-check was
	// refused and the stored result is shown instead.
	Notice string
}

// PasswordSafety is the breach check screen: the red 'EMAIL COMPROMISED!'
// state with the breached sites, the green 'No breached accounts' state, the
// error states, or, before the first check, a loader that starts the check.
func PasswordSafety(c Context, s PasswordSafetyState) Page {
	var body []*ui.Node
	switch s.Outcome {
	case BreachPending:
		body = append(body, ui.Loader(c.T("breach.checking"), false))
	case BreachCompromised:
		banner := &ui.Node{Type: "banner", Tone: "danger", Title: c.T("breach.compromised"),
			Text: strings.NewReplacer("{email}", s.Email, "{count}", strconv.Itoa(len(s.Breaches))).Replace(withCountKept(c.T("breach.compromisedText")))}
		body = append(body, banner, ui.Text("heading", c.T("breach.sitesHeading")))
		cards := make([]*ui.Node, 0, len(s.Breaches))
		for _, b := range s.Breaches {
			cards = append(cards, breachCard(c, b))
		}
		list := ui.List(false, cards...)
		list.Label = c.T("breach.sitesHeading")
		body = append(body, list, ui.Text("body", c.T("breach.advice")))
	case BreachClean:
		body = append(body, &ui.Node{Type: "banner", Tone: "positive", Title: c.T("breach.clean"),
			Text: strings.ReplaceAll(c.T("breach.cleanText"), "{email}", s.Email)})
	case BreachRateLimited:
		body = append(body, errorLine(c.T("breach.rateLimited")), retryButton(c))
	default:
		body = append(body, errorLine(c.T("breach.failed")), retryButton(c))
	}
	switch s.Notice {
	case BreachRateLimited:
		body = append(body, errorLine(c.T("breach.rateLimited")))
	case BreachFailed:
		body = append(body, errorLine(c.T("breach.failed")))
	}
	if s.CheckedAt != "" {
		body = append(body, ui.Text("caption", strings.ReplaceAll(c.T("breach.checkedAt"), "{when}", s.CheckedAt)))
	}
	if s.CanRecheck {
		body = append(body, ui.Button(c.T("breach.checkAgain"), "secondary", ui.Call(BreachCheckAction)))
	}
	if s.Sample {
		note := ui.Text("caption", c.T("breach.sampleNote"))
		note.Tone = "warning"
		body = append(body, note)
	}
	intro := ui.Text("body", c.T("breach.intro"))
	screen := SubPage(c, "password-safety", c.T("breach.title"), nil, ui.Stack("md", append([]*ui.Node{intro}, body...)...))
	page := Page{Screen: screen}
	if s.Outcome == BreachPending {
		// The screen arrives at once and then asks for the check, so a slow
		// breach service never holds up the page.
		page.Screen.OnLoad = ui.Call(BreachCheckAction)
	}
	return page
}

func breachCard(c Context, b BreachView) *ui.Node {
	badges := make([]*ui.Node, 0, len(b.DataClasses))
	for _, d := range b.DataClasses {
		badges = append(badges, ui.Badge(d, "danger"))
	}
	meta := b.Domain
	if b.Date != "" {
		meta = strings.TrimPrefix(meta+" · "+strings.ReplaceAll(c.T("breach.date"), "{date}", b.Date), " · ")
	}
	row := ui.Row("xs", badges...)
	row.Wrap = true
	title := ui.Text("subheading", b.Title)
	if b.Logo != "" {
		logo := ui.Image(b.Logo, "")
		logo.Size = "sm"
		title = ui.Row("sm", logo, title)
		title.Align = "center"
	}
	children := []*ui.Node{title, ui.If(meta != "", ui.Text("caption", meta)), ui.If(len(badges) > 0, row)}
	if b.Description != "" {
		children = append(children, ui.Text("body", b.Description))
	}
	return ui.Card(nil, children...)
}

func errorLine(text string) *ui.Node {
	t := ui.Text("body", text)
	t.Tone, t.Live = "danger", "polite"
	return t
}

func retryButton(c Context) *ui.Node {
	return ui.Button(c.T("breach.retry"), "primary", ui.Call(BreachCheckAction))
}

// withCountKept joins the copy's {count} to the word before it with a
// no-break space, so that a line never ends just before the number and
// leaves it alone on the next (issue #21), whatever the editors' words.
func withCountKept(copy string) string {
	return strings.ReplaceAll(copy, " {count}", "\u00a0{count}")
}
