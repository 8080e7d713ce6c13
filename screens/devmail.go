package screens

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"glimpse/engine/ui"
)

// PathDevMail is the development mailbox: the outbox, shown only on a
// plain-http server that turned it on (GLIMPSE_DEV_MAILBOX).
const PathDevMail = "/dev/mail"

// DevMailItem is one mail in the dev mailbox.
type DevMailItem struct {
	ID, To, Subject, Status string
	// Time is when it was queued, already formatted.
	Time        string
	Attempts    int
	LastError   string
	Text        string   // the plain-text body, as sent
	Attachments []string // attachment names
}

// DevMailPath is the dev mailbox path of one mail. Mail ids are keys like
// "password-reset:<hash>"; escaping rarely changes them.
func DevMailPath(id string) string { return PathDevMail + "/" + url.PathEscape(id) }

func devMailTone(status string) string {
	switch status {
	case "sent":
		return "positive"
	case "failed":
		return "danger"
	}
	return "info"
}

// DevMailbox lists the outbox, newest first.
func DevMailbox(c Context, mails []DevMailItem) Page {
	children := []*ui.Node{ui.Text("body", c.T("devMail.intro"))}
	if len(mails) == 0 {
		children = append(children, &ui.Node{Type: "empty_state", Title: c.T("devMail.empty"), Icon: "mail"})
	} else {
		rows := make([]*ui.Node, 0, len(mails))
		for _, m := range mails {
			rows = append(rows, &ui.Node{Type: "list_item", Title: m.Subject, Subtitle: m.To + " · " + m.Time,
				Trailing: ui.Badge(c.T("devMail.status."+m.Status), devMailTone(m.Status)),
				Action:   ui.Navigate(DevMailPath(m.ID))})
		}
		list := ui.List(true, rows...)
		list.Label = c.T("devMail.title")
		children = append(children, list)
	}
	s := ui.Screen("dev-mail", c.T("devMail.title"), ui.Stack("md", children...))
	s.Header = &ui.Node{Type: "header", Title: c.T("devMail.title")}
	return Page{Screen: s}
}

// linkPattern finds web addresses in a text body.
var linkPattern = regexp.MustCompile(`https?://[^\s<>"]+`)

// DevMailMessage shows one mail: subject, recipient, status, the text body
// and every link in it as a real link. A link to origin (the app's own base
// URL) navigates inside the app, so a newcomer can click through to, say,
// /access-recovery?id=…; any other opens in a new window. A nil mail is the
// "not found" page.
func DevMailMessage(c Context, m *DevMailItem, origin string) Page {
	back := ui.Navigate(PathDevMail)
	if m == nil {
		s := SubPage(c, "dev-mail-message", c.T("devMail.title"), back,
			&ui.Node{Type: "empty_state", Title: c.T("devMail.notFound"), Icon: "mail",
				Action: ui.Navigate(PathDevMail), ActionLabel: c.T("devMail.back")})
		return Page{Screen: s}
	}
	status := ui.Row("sm", ui.Badge(c.T("devMail.status."+m.Status), devMailTone(m.Status)),
		ui.Text("caption", c.T("devMail.attempts")+": "+strconv.Itoa(m.Attempts)))
	children := []*ui.Node{
		ui.Text("heading", m.Subject),
		ui.Text("caption", c.T("devMail.to")+": "+m.To),
		ui.Text("caption", c.T("devMail.time")+": "+m.Time),
		status,
	}
	if m.LastError != "" {
		children = append(children, ui.Text("caption", c.T("devMail.lastError")+": "+m.LastError))
	}
	if links := linkPattern.FindAllString(m.Text, -1); len(links) > 0 {
		nodes := []*ui.Node{ui.Text("subheading", c.T("devMail.links"))}
		seen := map[string]bool{}
		for _, l := range links {
			if seen[l] {
				continue
			}
			seen[l] = true
			if origin != "" && strings.HasPrefix(l, origin+"/") {
				path := strings.TrimPrefix(l, origin)
				nodes = append(nodes, ui.Link(path, ui.Navigate(path)))
			} else if strings.HasPrefix(l, "https://") {
				nodes = append(nodes, ui.Link(l, ui.OpenURL(l, true)))
			} else {
				nodes = append(nodes, ui.Text("caption", l)) // the app opens only https addresses
			}
		}
		children = append(children, ui.Stack("sm", nodes...))
	}
	body := []*ui.Node{ui.Text("subheading", c.T("devMail.body"))}
	for _, p := range strings.Split(strings.TrimSpace(m.Text), "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			body = append(body, ui.Text("body", p))
		}
	}
	children = append(children, ui.Card(nil, ui.Stack("sm", body...)))
	if len(m.Attachments) > 0 {
		children = append(children, ui.Text("caption", c.T("devMail.attachments")+": "+strings.Join(m.Attachments, ", ")))
	}
	s := SubPage(c, "dev-mail-message", m.Subject, back, ui.Stack("md", children...))
	return Page{Screen: s}
}
