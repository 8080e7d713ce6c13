// Package mail is the outbox: mail is rendered and stored when a service
// enqueues it, and a delivery loop sends what is due over SMTP, each mail
// once even with several instances on one database (docs/mail.md).
package mail

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"glimpse/engine"
	"glimpse/engine/brand"
)

// Status of a stored mail.
const (
	StatusQueued = "queued"
	StatusSent   = "sent"
	StatusFailed = "failed"
)

// Message is one mail to send. Enqueueing a Key twice sends it once (the
// key is the stored mail's unique key).
type Message struct {
	Key         string            // idempotency key, e.g. "password-reset:<tokenhash>"
	To          string            // the recipient's address
	Brand       string            // brand key: "default", "_x_", "_y_"
	Template    string            // one of the Template* constants
	Data        map[string]string // values the template uses
	Attachments []Attachment      // optional, e.g. the profile report PDF
	// Unlisted leaves the mail out of its recipient's mails (SentTo, To by
	// address): its sender finds it through a record of its own (a
	// renewal's receipt, through its charge, which the support desk shows
	// with the charge), or no lookup by address may find it (the mail
	// saying an account is deleted, sent after the account's mails are
	// erased).
	Unlisted bool
}

// Attachment is a file sent with a mail.
type Attachment struct {
	Name        string
	ContentType string
	Data        []byte
}

// Mail is a stored mail: rendered at enqueue time, so what the dev mailbox
// shows is exactly what is sent.
type Mail struct {
	ID          string // the message's Key
	To          string
	Brand       string
	Template    string
	Subject     string
	Text        string
	HTML        string
	MessageID   string // without the angle brackets
	Attachments []Attachment
	Unlisted    bool // see Message.Unlisted
	Status      string
	// Attempts counts the attempts begun: a claim (Mails.ClaimDue) begins
	// one, so it also names the claim that may record the outcome.
	Attempts  int
	CreatedAt time.Time
	// NextAttemptAt is when a queued mail is next due: its next attempt's
	// time, or, while an attempt holds it, the end of that attempt's lease.
	NextAttemptAt time.Time
	SentAt        time.Time
	LastError     string
}

// Recipient is the address the mail is found under (SentTo, To), in the
// one spelling every lookup uses; "" for an unlisted mail.
func (m Mail) Recipient() string {
	if m.Unlisted {
		return ""
	}
	return recipient(m.To)
}

// recipient is an address as mail is found under it.
func recipient(address string) string { return strings.ToLower(strings.TrimSpace(address)) }

// Mails is what the outbox needs from storage: mails by their key (unique),
// by recipient, and the queued ones by when they fall due.
type Mails interface {
	// Insert stores the mails whose keys are new and leaves a mail already
	// stored under a key as it is (one key, one mail, however many callers
	// insert it at once); it says how many were new.
	Insert(ctx context.Context, mails []Mail) (int, error)
	// Get returns the mail stored under key; ok is false when there is none.
	Get(ctx context.Context, key string) (m Mail, ok bool, err error)
	// GetMany returns the stored mails among keys, in no particular order.
	GetMany(ctx context.Context, keys []string) ([]Mail, error)
	// Newest returns up to limit mails created at or before asOf, newest
	// first (CreatedAt, then key descending).
	Newest(ctx context.Context, asOf time.Time, limit int) ([]Mail, error)
	// To returns the mails whose Recipient is recipient, newest first (as
	// Newest), at most limit of them (all when limit <= 0).
	To(ctx context.Context, recipient string, limit int) ([]Mail, error)
	// ClaimDue claims up to n queued mails due by now, the earliest due
	// first, and returns them as claimed: each one's Attempts is one more and
	// its NextAttemptAt is now+lease, so it is due again only if its worker
	// has not recorded the attempt by then. Of any number of callers at
	// once, one claims each mail.
	ClaimDue(ctx context.Context, now time.Time, lease time.Duration, n int) ([]Mail, error)
	// Record stores an attempt's outcome (m's Status, NextAttemptAt, SentAt
	// and LastError) if m is still queued under the claim m was returned
	// with (Attempts unchanged); false when another claim took it since.
	Record(ctx context.Context, m Mail) (bool, error)
	// Queued says how many mails are queued and when the earliest queued of
	// them was created (zero when none is).
	Queued(ctx context.Context) (n int, oldest time.Time, err error)
	// Delete deletes the mails with these keys, whatever their status, and
	// says how many there were.
	Delete(ctx context.Context, keys []string) (int64, error)
	// DeleteDone deletes the mail with key unless it is queued, and says
	// whether it did.
	DeleteDone(ctx context.Context, key string) (bool, error)
}

// Outbox stores mail and delivers it.
type Outbox struct {
	mails   Mails
	clock   engine.Clock
	logger  *slog.Logger
	copy    func(brandKey string) brand.Copy
	baseURL string
	// origin gives a brand's public origin for its mails' links (nil, or
	// "": baseURL).
	origin func(brandKey string) string
	// sender names who a brand's mail comes from (nil: the mail's text
	// shows the {brand}, {operator} and {support} placeholders unfilled).
	sender func(brandKey string) From
	// demo says, in every mail, that the site is a public demo
	// (WithDemoNotice).
	demo   bool
	domain string
}

// NewOutbox returns the outbox kept in mails. copy gives a brand's copy
// table; baseURL makes relative links in Data absolute.
func NewOutbox(mails Mails, clock engine.Clock, logger *slog.Logger, copy func(brandKey string) brand.Copy, baseURL string) *Outbox {
	baseURL = strings.TrimRight(baseURL, "/")
	domain := "glimpse.invalid"
	if u, err := url.Parse(baseURL); err == nil && u.Hostname() != "" {
		domain = u.Hostname()
	}
	return &Outbox{mails: mails, clock: clock, logger: logger, copy: copy, baseURL: baseURL, domain: domain}
}

// WithOrigins makes each brand's relative links absolute on that brand's
// own origin (a partner brand's buyer must land on the partner's host,
// where their subscription's brand is served); origin answers "" for a
// brand that has none of its own, which then uses baseURL. It returns o.
func (o *Outbox) WithOrigins(origin func(brandKey string) string) *Outbox {
	o.origin = origin
	return o
}

// From is who a brand's mail is from, as its words name them: the brand
// the subscriber bought ("Profilio"), the business that sold it (the
// operator, from configuration) and where to write about it.
type From struct {
	Brand    string
	Operator string
	Support  string
}

// WithSenders names the sender of each brand's mail; every template may say
// {brand}, {operator} and {support}. It returns o.
func (o *Outbox) WithSenders(sender func(brandKey string) From) *Outbox {
	o.sender = sender
	return o
}

// WithDemoNotice makes every mail say, in its subject and first paragraph,
// that it comes from a public demo (the payment sandbox outside
// development: nothing is sold). It returns o.
func (o *Outbox) WithDemoNotice(on bool) *Outbox {
	o.demo = on
	return o
}

// linkBase is the origin m's relative links are made absolute on.
func (o *Outbox) linkBase(brandKey string) string {
	if o.origin != nil {
		if base := strings.TrimRight(o.origin(brandKey), "/"); base != "" {
			return base
		}
	}
	return o.baseURL
}

// Enqueue renders m and stores it for delivery. A key already queued (or
// already sent) is not queued again and returns nil.
func (o *Outbox) Enqueue(ctx context.Context, m Message) error {
	doc, err := o.compose(m, o.clock.Now())
	if err != nil {
		return err
	}
	if _, err := o.mails.Insert(ctx, []Mail{doc}); err != nil {
		return fmt.Errorf("mail: store %q: %w", m.Key, err)
	}
	return nil
}

// compose renders m into the mail stored for it, queued at now.
func (o *Outbox) compose(m Message, now time.Time) (Mail, error) {
	if m.Key == "" || m.To == "" {
		return Mail{}, engine.Errorf(engine.CodeInvalid, "mail: a message needs a key and a recipient")
	}
	r, err := o.render(m)
	if err != nil {
		return Mail{}, err
	}
	return Mail{ID: m.Key, To: m.To, Brand: m.Brand, Template: m.Template, Subject: r.Subject, Text: r.Text,
		HTML: r.HTML, MessageID: MessageID(m.Key, o.domain), Attachments: m.Attachments, Unlisted: m.Unlisted,
		Status: StatusQueued, CreatedAt: now, NextAttemptAt: now}, nil
}

// EnqueueMany queues msgs as Enqueue queues each, in one write rather than
// one a mail: a renewal pass mails a receipt for every renewal. A key
// already stored is left as it is. A message that cannot be rendered is
// left out; every error is returned, joined.
func (o *Outbox) EnqueueMany(ctx context.Context, msgs []Message) error {
	now := o.clock.Now()
	var errs []error
	docs := make([]Mail, 0, len(msgs))
	for _, m := range msgs {
		doc, err := o.compose(m, now)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		docs = append(docs, doc)
	}
	if len(docs) > 0 {
		if _, err := o.mails.Insert(ctx, docs); err != nil {
			errs = append(errs, fmt.Errorf("mail: store %d mails: %w", len(docs), err))
		}
	}
	return errors.Join(errs...)
}

// List returns up to limit mails, newest first, without attachment data
// and HTML bodies (the development mailbox).
func (o *Outbox) List(ctx context.Context, limit int) ([]Mail, error) {
	if limit <= 0 {
		limit = 50
	}
	out, err := o.mails.Newest(ctx, o.clock.Now(), limit)
	if err != nil {
		return nil, fmt.Errorf("mail: list: %w", err)
	}
	for i := range out {
		out[i] = out[i].withoutBodies()
	}
	return out, nil
}

// withoutBodies is m without its HTML body and attachments' bytes (the text
// body says the same).
func (m Mail) withoutBodies() Mail {
	m.HTML = ""
	if m.Attachments != nil {
		atts := make([]Attachment, len(m.Attachments))
		for i, a := range m.Attachments {
			atts[i] = Attachment{Name: a.Name, ContentType: a.ContentType}
		}
		m.Attachments = atts
	}
	return m
}

// Get returns one mail by id (its key); a CodeNotFound error when missing.
func (o *Outbox) Get(ctx context.Context, id string) (Mail, error) {
	m, ok, err := o.mails.Get(ctx, id)
	if err != nil {
		return Mail{}, fmt.Errorf("mail: get %q: %w", id, err)
	}
	if !ok {
		return Mail{}, engine.Errorf(engine.CodeNotFound, "There is no mail with this id.")
	}
	return m, nil
}

// Has reports whether a mail with this key was ever queued (sent or not):
// a sender that must mail something once, whichever of several paths gets
// there first, asks before doing the work of making the mail.
func (o *Outbox) Has(ctx context.Context, key string) (bool, error) {
	_, ok, err := o.mails.Get(ctx, key)
	if err != nil {
		return false, fmt.Errorf("mail: find %q: %w", key, err)
	}
	return ok, nil
}

// MessageID derives a mail's Message-ID (without angle brackets) from its
// key, so every attempt of one mail carries the same id and a receiver can
// drop a copy sent twice.
func MessageID(key, domain string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:16]) + "@" + domain
}
