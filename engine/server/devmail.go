package server

import (
	"strings"

	"glimpse/engine"
	"glimpse/engine/brand"
	"glimpse/engine/mail"
	"glimpse/screens"
)

// devMailRoutes are the dev mailbox's screens, present only when the
// mailbox is on (GLIMPSE_DEV_MAILBOX on a plain-http server) and an outbox
// is wired; otherwise /dev/mail is any unknown path and serves as home.
// The mailbox needs no sign-in: a newcomer follows the mail's links from
// here, as they would from their inbox.
func (s *Server) devMailRoutes() []route {
	if !s.DevMailbox || s.Mail == nil || s.Config.SecureCookies() {
		return nil
	}
	return []route{
		{screens.PathDevMail, public, s.devMailboxScreen, nil},
		{screens.PathDevMail + "/*", public, s.devMailScreen, nil},
	}
}

// devMailListSize is how many mails the mailbox lists.
const devMailListSize = 100

func (s *Server) devMailboxScreen(r *request) (screens.Page, error) {
	mails, err := s.Mail.List(r.fiber.Context(), devMailListSize)
	if err != nil {
		return screens.Page{}, err
	}
	items := make([]screens.DevMailItem, 0, len(mails))
	for _, m := range mails {
		items = append(items, devMailItem(m))
	}
	return screens.DevMailbox(r.ctx, items), nil
}

func (s *Server) devMailScreen(r *request) (screens.Page, error) {
	id := strings.TrimPrefix(r.path, screens.PathDevMail+"/")
	m, err := s.Mail.Get(r.fiber.Context(), id)
	if engine.IsNotFound(err) {
		return screens.DevMailMessage(r.ctx, nil, s.Config.BaseURL), nil
	}
	if err != nil {
		return screens.Page{}, err
	}
	item := devMailItem(m)
	return screens.DevMailMessage(r.ctx, &item, s.Config.BaseURL), nil
}

func devMailItem(m mail.Mail) screens.DevMailItem {
	it := screens.DevMailItem{ID: m.ID, To: m.To, Subject: m.Subject, Status: m.Status,
		Time: brand.DateTime(m.CreatedAt), Attempts: m.Attempts, LastError: m.LastError, Text: m.Text}
	for _, a := range m.Attachments {
		it.Attachments = append(it.Attachments, a.Name)
	}
	return it
}
