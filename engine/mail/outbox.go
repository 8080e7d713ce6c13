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

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine"
	"glimpse/engine/brand"
	"glimpse/engine/store"
)

// Collections: every mail ever queued, and the few still pending.
const (
	// MailCollection holds every mail, rendered, by its key.
	MailCollection = "mail"
	// QueueCollection holds one small entry per mail still to be sent, so
	// finding due mail scans only the pending few: on the embedded FerretDB
	// a filter on anything but _id scans the whole collection.
	QueueCollection = "mail_queue"
)

// Status of a stored mail.
const (
	StatusQueued = "queued"
	StatusSent   = "sent"
	StatusFailed = "failed"
)

// Message is one mail to send. Enqueueing a Key twice sends it once (the
// outbox _id is the key).
type Message struct {
	Key         string            // idempotency key, e.g. "password-reset:<tokenhash>"
	To          string            // the recipient's address
	Brand       string            // brand key: "default", "_x_", "_y_"
	Template    string            // one of the Template* constants
	Data        map[string]string // values the template uses
	Attachments []Attachment      // optional, e.g. the profile report PDF
	// Unlisted leaves the mail off its recipient's list of mails (lookup.go):
	// its sender finds it through a record of its own (a renewal's receipt,
	// through its charge: the renewal pass mails hundreds at a time, where
	// a list would cost each a search), or no list may keep its address
	// (the mail saying an account is deleted, sent after the account's
	// lists are erased).
	Unlisted bool
}

// Attachment is a file sent with a mail.
type Attachment struct {
	Name        string `bson:"name"`
	ContentType string `bson:"contentType"`
	Data        []byte `bson:"data"`
}

// Mail is a stored mail: rendered at enqueue time, so what the dev mailbox
// shows is exactly what is sent.
type Mail struct {
	ID            string       `bson:"_id"` // the message's Key
	To            string       `bson:"to"`
	Brand         string       `bson:"brand"`
	Template      string       `bson:"template"`
	Subject       string       `bson:"subject"`
	Text          string       `bson:"text"`
	HTML          string       `bson:"html"`
	MessageID     string       `bson:"messageId"` // without the angle brackets
	Attachments   []Attachment `bson:"attachments,omitempty"`
	Status        string       `bson:"status"`
	Attempts      int          `bson:"attempts"`
	CreatedAt     time.Time    `bson:"createdAt"`
	NextAttemptAt time.Time    `bson:"nextAttemptAt,omitempty"`
	SentAt        time.Time    `bson:"sentAt,omitempty"`
	LastError     string       `bson:"lastError,omitempty"`
}

// queueEntry is a pending mail: due is when its next attempt may start and
// attempt is that attempt's number (0 for the first).
type queueEntry struct {
	ID      string    `bson:"_id"`
	Due     time.Time `bson:"due"`
	Attempt int       `bson:"attempt"`
}

// Outbox stores mail and delivers it.
type Outbox struct {
	mail  *mongo.Collection
	queue *mongo.Collection
	// recipients lists each address's mails (lookup.go).
	recipients *store.Lists
	claims     *store.Claims
	claimsC    *mongo.Collection
	clock      engine.Clock
	logger     *slog.Logger
	copy       func(brandKey string) brand.Copy
	baseURL    string
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
	owner  string
}

// Collections declares the outbox's collections for EnsureCollections. They
// need no index beyond _id: lookups are by _id (an address's mails through
// its list) and the queue stays small.
func Collections() map[string][]mongo.IndexModel {
	return map[string][]mongo.IndexModel{MailCollection: nil, QueueCollection: nil, RecipientsCollection: nil}
}

// NewOutbox returns the outbox kept in db. copy gives a brand's copy table;
// baseURL makes relative links in Data absolute.
func NewOutbox(db *mongo.Database, clock engine.Clock, logger *slog.Logger, copy func(brandKey string) brand.Copy, baseURL string) *Outbox {
	baseURL = strings.TrimRight(baseURL, "/")
	domain := "glimpse.invalid"
	if u, err := url.Parse(baseURL); err == nil && u.Hostname() != "" {
		domain = u.Hostname()
	}
	return &Outbox{mail: db.Collection(MailCollection), queue: db.Collection(QueueCollection),
		recipients: store.NewLists(db, RecipientsCollection),
		claims:     store.NewClaims(db), claimsC: db.Collection(store.ClaimsCollection),
		clock: clock, logger: logger, copy: copy, baseURL: baseURL, domain: domain, owner: engine.NewToken()}
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
	return o.enqueue(ctx, m, true)
}

// enqueue is Enqueue, the message put on its recipient's list first when
// list is set (EnqueueMany listed it already).
func (o *Outbox) enqueue(ctx context.Context, m Message, list bool) error {
	if m.Key == "" || m.To == "" {
		return engine.Errorf(engine.CodeInvalid, "mail: a message needs a key and a recipient")
	}
	r, err := o.render(m)
	if err != nil {
		return err
	}
	now := o.clock.Now()
	doc := Mail{ID: m.Key, To: m.To, Brand: m.Brand, Template: m.Template, Subject: r.Subject, Text: r.Text,
		HTML: r.HTML, MessageID: MessageID(m.Key, o.domain), Attachments: m.Attachments,
		Status: StatusQueued, CreatedAt: now, NextAttemptAt: now}
	if list {
		if err := o.list(ctx, m); err != nil {
			return err
		}
	}
	_, err = o.mail.InsertOne(ctx, doc)
	switch {
	case store.IsDuplicateKey(err):
		// Queued before. If that enqueue stopped between its two inserts,
		// the mail is still queued with no queue entry: add it back. An
		// entry for a mail sent meanwhile is dropped by the delivery.
		var old Mail
		if err := o.mail.FindOne(ctx, bson.M{"_id": m.Key}, options.FindOne().SetProjection(bson.M{"status": 1, "attempts": 1})).Decode(&old); err != nil {
			return fmt.Errorf("mail: read %q: %w", m.Key, err)
		}
		if old.Status != StatusQueued {
			return nil
		}
		doc.Attempts = old.Attempts
	case err != nil:
		return fmt.Errorf("mail: store %q: %w", m.Key, err)
	}
	_, err = o.queue.InsertOne(ctx, queueEntry{ID: m.Key, Due: now, Attempt: doc.Attempts})
	if err != nil && !store.IsDuplicateKey(err) {
		return fmt.Errorf("mail: queue %q: %w", m.Key, err)
	}
	return nil
}

// EnqueueMany queues msgs as Enqueue queues each, in two unordered
// insertMany commands (the mails, then their queue entries) rather than two
// inserts a mail: a renewal pass mails a receipt for every renewal. A mail
// whose key is taken goes Enqueue's way, which leaves one sent as it was and
// re-queues one stopped between its inserts. A message that cannot be
// rendered is left out; every error is returned, joined. Receipts are not
// listed under their recipients (Listed); any other message is, one by one.
func (o *Outbox) EnqueueMany(ctx context.Context, msgs []Message) error {
	now := o.clock.Now()
	var errs []error
	docs := make([]any, 0, len(msgs))
	kept := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Key == "" || m.To == "" {
			errs = append(errs, engine.Errorf(engine.CodeInvalid, "mail: a message needs a key and a recipient"))
			continue
		}
		r, err := o.render(m)
		if err == nil {
			err = o.list(ctx, m)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		docs = append(docs, Mail{ID: m.Key, To: m.To, Brand: m.Brand, Template: m.Template, Subject: r.Subject, Text: r.Text,
			HTML: r.HTML, MessageID: MessageID(m.Key, o.domain), Attachments: m.Attachments,
			Status: StatusQueued, CreatedAt: now, NextAttemptAt: now})
		kept = append(kept, m)
	}
	if len(docs) == 0 {
		return errors.Join(errs...)
	}
	refused, err := store.InsertNew(ctx, o.mail, docs)
	if err != nil {
		return errors.Join(append(errs, fmt.Errorf("mail: store %d mails: %w", len(docs), err))...)
	}
	entries := make([]any, 0, len(kept))
	for i, m := range kept {
		if refused[i] {
			if err := o.enqueue(ctx, m, false); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		entries = append(entries, queueEntry{ID: m.Key, Due: now})
	}
	if len(entries) > 0 {
		// An entry there already is the same entry: the mail is queued.
		if _, err := store.InsertNew(ctx, o.queue, entries); err != nil {
			errs = append(errs, fmt.Errorf("mail: queue %d mails: %w", len(entries), err))
		}
	}
	return errors.Join(errs...)
}

// List returns up to limit mails, newest first, without attachment data.
func (o *Outbox) List(ctx context.Context, limit int) ([]Mail, error) {
	if limit <= 0 {
		limit = 50
	}
	cur, err := o.mail.Find(ctx, bson.M{}, options.Find().SetSort(bson.D{{Key: "createdAt", Value: -1}, {Key: "_id", Value: 1}}).
		SetLimit(int64(limit)).SetProjection(bson.M{"attachments.data": 0, "html": 0}))
	if err != nil {
		return nil, fmt.Errorf("mail: list: %w", err)
	}
	var out []Mail
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("mail: list: %w", err)
	}
	return out, nil
}

// Get returns one mail by id (its key); a CodeNotFound error when missing.
func (o *Outbox) Get(ctx context.Context, id string) (Mail, error) {
	var m Mail
	err := o.mail.FindOne(ctx, bson.M{"_id": id}).Decode(&m)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return Mail{}, engine.Errorf(engine.CodeNotFound, "There is no mail with this id.")
	}
	if err != nil {
		return Mail{}, fmt.Errorf("mail: get %q: %w", id, err)
	}
	return m, nil
}

// Has reports whether a mail with this key was ever queued (sent or not):
// a sender that must mail something once, whichever of several paths gets
// there first, asks before doing the work of making the mail.
func (o *Outbox) Has(ctx context.Context, key string) (bool, error) {
	err := o.mail.FindOne(ctx, bson.M{"_id": key}, options.FindOne().SetProjection(bson.M{"_id": 1})).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("mail: find %q: %w", key, err)
	}
	return true, nil
}

// MessageID derives a mail's Message-ID (without angle brackets) from its
// key, so every attempt of one mail carries the same id and a receiver can
// drop a copy sent twice.
func MessageID(key, domain string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:16]) + "@" + domain
}
