package server

import (
	"net"
	"strings"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine"
	"glimpse/engine/brand"
	"glimpse/engine/mail"
	"glimpse/screens"
)

// devMailboxOn reports whether the dev mailbox's screens are in the route
// table: the mailbox is on (GLIMPSE_DEV_MAILBOX on a plain-http server) and
// an outbox is wired; otherwise /dev/mail is any unknown path and serves as
// home. The mailbox needs no sign-in: a newcomer follows the mail's links
// from here, as they would from their inbox.
func (s *Server) devMailboxOn() bool {
	return s.DevMailbox && s.Mail != nil && !s.Config.SecureCookies()
}

// loopbackClient reports a client on this machine: the socket's peer is a
// loopback address and the request came through no proxy (a proxy on this
// machine forwarding for someone elsewhere says so in its headers).
func loopbackClient(c fiber.Ctx) bool {
	addr, ok := c.RequestCtx().RemoteAddr().(*net.TCPAddr)
	return ok && addr.IP.IsLoopback() && c.Get(fiber.HeaderXForwardedFor) == "" && c.Get("Forwarded") == ""
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
	return screens.DevMailbox(r.copy, items), nil
}

func (s *Server) devMailScreen(r *request) (screens.Page, error) {
	id := strings.TrimPrefix(r.path, screens.PathDevMail+"/")
	m, err := s.Mail.Get(r.fiber.Context(), id)
	if engine.IsNotFound(err) {
		return screens.DevMailMessage(r.copy, nil, s.Config.BaseURL), nil
	}
	if err != nil {
		return screens.Page{}, err
	}
	item := devMailItem(m)
	return screens.DevMailMessage(r.copy, &item, s.Config.BaseURL), nil
}

func devMailItem(m mail.Mail) screens.DevMailItem {
	it := screens.DevMailItem{ID: m.ID, To: m.To, Subject: m.Subject, Status: m.Status,
		Time: brand.DateTime(m.CreatedAt), Attempts: m.Attempts, LastError: m.LastError, Text: m.Text}
	for _, a := range m.Attachments {
		it.Attachments = append(it.Attachments, a.Name)
	}
	return it
}
