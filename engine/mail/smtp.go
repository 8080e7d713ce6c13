package mail

import (
	"bytes"
	"context"
	"fmt"
	netmail "net/mail"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// TLS policies of SMTPConfig.TLS.
const (
	TLSMandatory     = "mandatory"     // STARTTLS or fail
	TLSOpportunistic = "opportunistic" // STARTTLS when the server offers it
	TLSNone          = "none"          // plain text, for a local catcher
)

// SMTPConfig is where and how mail is submitted.
type SMTPConfig struct {
	Host     string
	Port     int // 587 when zero
	Username string
	Password string
	From     string // "Name <address>"
	TLS      string // TLSMandatory, TLSOpportunistic (default) or TLSNone
	// Timeout bounds dialling and each SMTP command; 15 s when zero.
	Timeout time.Duration
	// HELO is the name the client greets with; the From address's domain
	// when empty (many servers refuse a HELO name that is not a domain).
	HELO string
}

type smtpSender struct{ cfg SMTPConfig }

// NewSMTPSender returns a Sender that submits each mail over its own SMTP
// connection with github.com/wneessen/go-mail.
func NewSMTPSender(cfg SMTPConfig) Sender {
	if cfg.Port == 0 {
		cfg.Port = 587
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 15 * time.Second
	}
	if cfg.HELO == "" {
		cfg.HELO = "localhost"
		if a, err := netmail.ParseAddress(cfg.From); err == nil {
			if _, domain, ok := strings.Cut(a.Address, "@"); ok {
				cfg.HELO = domain
			}
		}
	}
	return smtpSender{cfg: cfg}
}

// Send builds the MIME message (text with an HTML alternative, the
// attachments, the Message-ID from the key) and submits it.
func (s smtpSender) Send(ctx context.Context, m Mail) error {
	msg := gomail.NewMsg()
	if err := msg.From(s.cfg.From); err != nil {
		return fmt.Errorf("smtp: from %q: %w", s.cfg.From, err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("smtp: to: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(m.MessageID)
	msg.SetDate()
	msg.SetGenHeader("Auto-Submitted", "auto-generated")
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	for _, a := range m.Attachments {
		ct := a.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		msg.AttachReadSeeker(a.Name, bytes.NewReader(a.Data), gomail.WithFileContentType(gomail.ContentType(ct)))
	}
	policy := gomail.TLSOpportunistic
	switch s.cfg.TLS {
	case TLSMandatory:
		policy = gomail.TLSMandatory
	case TLSNone:
		policy = gomail.NoTLS
	}
	opts := []gomail.Option{gomail.WithPort(s.cfg.Port), gomail.WithTLSPolicy(policy),
		gomail.WithTimeout(s.cfg.Timeout), gomail.WithHELO(s.cfg.HELO)}
	if s.cfg.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(s.cfg.Username), gomail.WithPassword(s.cfg.Password))
	}
	c, err := gomail.NewClient(s.cfg.Host, opts...)
	if err != nil {
		return fmt.Errorf("smtp: client: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("smtp: send to %s:%d: %w", s.cfg.Host, s.cfg.Port, err)
	}
	return nil
}
