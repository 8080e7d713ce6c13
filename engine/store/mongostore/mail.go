package mongostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/mail"
)

// mailsCollection holds the outbox, one document per mail by its key. The
// delivery finds due mail by status and next attempt time, the lookups by
// address read a recipient's mails newest first, the metrics count the
// queued mails and read the oldest, and the development mailbox reads the
// newest.
var mailsCollection = collection{name: "mails", indexes: []index{
	{name: "due", keys: bson.D{{Key: "status", Value: 1}, {Key: "nextAttemptAt", Value: 1}}},
	{name: "queued_by_creation", keys: bson.D{{Key: "status", Value: 1}, {Key: "createdAt", Value: 1}}},
	{name: "by_recipient", keys: bson.D{{Key: "recipient", Value: 1}, {Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}},
	{name: "by_creation", keys: bson.D{{Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}},
}}

type mailDoc struct {
	ID            string          `bson:"_id"`
	Recipient     string          `bson:"recipient,omitempty"` // absent for an unlisted mail
	To            string          `bson:"to"`
	Brand         string          `bson:"brand"`
	Template      string          `bson:"template"`
	Subject       string          `bson:"subject"`
	Text          string          `bson:"text"`
	HTML          string          `bson:"html,omitempty"`
	MessageID     string          `bson:"messageId"`
	Attachments   []attachmentDoc `bson:"attachments,omitempty"`
	Unlisted      bool            `bson:"unlisted,omitempty"`
	Status        string          `bson:"status"`
	Attempts      int             `bson:"attempts"`
	CreatedAt     time.Time       `bson:"createdAt"`
	NextAttemptAt *time.Time      `bson:"nextAttemptAt,omitempty"`
	SentAt        *time.Time      `bson:"sentAt,omitempty"`
	LastError     string          `bson:"lastError,omitempty"`
}

type attachmentDoc struct {
	Name        string `bson:"name"`
	ContentType string `bson:"contentType"`
	Data        []byte `bson:"data"`
}

func toMailDoc(m mail.Mail) mailDoc {
	d := mailDoc{ID: m.ID, Recipient: m.Recipient(), To: m.To, Brand: m.Brand, Template: m.Template, Subject: m.Subject,
		Text: m.Text, HTML: m.HTML, MessageID: m.MessageID, Unlisted: m.Unlisted, Status: m.Status, Attempts: m.Attempts,
		CreatedAt: m.CreatedAt, NextAttemptAt: timePtr(m.NextAttemptAt), SentAt: timePtr(m.SentAt), LastError: m.LastError}
	for _, a := range m.Attachments {
		d.Attachments = append(d.Attachments, attachmentDoc(a))
	}
	return d
}

func (d mailDoc) mail() mail.Mail {
	m := mail.Mail{ID: d.ID, To: d.To, Brand: d.Brand, Template: d.Template, Subject: d.Subject, Text: d.Text, HTML: d.HTML,
		MessageID: d.MessageID, Unlisted: d.Unlisted, Status: d.Status, Attempts: d.Attempts, CreatedAt: d.CreatedAt.UTC(),
		LastError: d.LastError}
	for _, a := range d.Attachments {
		m.Attachments = append(m.Attachments, mail.Attachment(a))
	}
	if d.NextAttemptAt != nil {
		m.NextAttemptAt = d.NextAttemptAt.UTC()
	}
	if d.SentAt != nil {
		m.SentAt = d.SentAt.UTC()
	}
	return m
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// Mails stores the outbox in MongoDB.
type Mails struct{ coll *mongo.Collection }

// NewMails returns the outbox's storage on db.
func NewMails(db *mongo.Database) *Mails {
	return &Mails{coll: db.Collection(mailsCollection.name)}
}

var _ mail.Mails = (*Mails)(nil)

// Insert stores the mails whose keys are new, in one unordered insertMany:
// a key taken fails alone (DuplicateKey), so a batch stopped halfway and
// sent again stores the rest.
func (s *Mails) Insert(ctx context.Context, mails []mail.Mail) (int, error) {
	docs := make([]any, len(mails))
	for i, m := range mails {
		docs[i] = toMailDoc(m)
	}
	taken, err := insertNew(ctx, s.coll, docs)
	if err != nil {
		return 0, fmt.Errorf("insert mails: %w", err)
	}
	n := 0
	for _, t := range taken {
		if !t {
			n++
		}
	}
	return n, nil
}

// Get returns the mail stored under key.
func (s *Mails) Get(ctx context.Context, key string) (mail.Mail, bool, error) {
	var d mailDoc
	err := s.coll.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return mail.Mail{}, false, nil
	}
	if err != nil {
		return mail.Mail{}, false, fmt.Errorf("mail %s: %w", key, err)
	}
	return d.mail(), true, nil
}

// GetMany returns the stored mails among keys.
func (s *Mails) GetMany(ctx context.Context, keys []string) ([]mail.Mail, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	return s.find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: keys}}}}, options.Find())
}

// Newest returns up to limit mails created by asOf, newest first.
func (s *Mails) Newest(ctx context.Context, asOf time.Time, limit int) ([]mail.Mail, error) {
	return s.find(ctx, bson.D{{Key: "createdAt", Value: bson.D{{Key: "$lte", Value: asOf}}}}, options.Find().SetSort(bson.D{{Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}).
		SetLimit(int64(limit)))
}

// To returns the mails listed under recipient, newest first.
func (s *Mails) To(ctx context.Context, recipient string, limit int) ([]mail.Mail, error) {
	opts := options.Find().SetSort(bson.D{{Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}})
	if limit > 0 {
		opts.SetLimit(int64(limit))
	}
	return s.find(ctx, bson.D{{Key: "recipient", Value: recipient}}, opts)
}

// ClaimDue finds up to n due mails, then claims each with a findOneAndUpdate
// filtered on its being still queued and due: MongoDB applies the filter and
// the change as one step, so one caller claims each. (FerretDB v1 does not:
// docs/store.md §1.)
func (s *Mails) ClaimDue(ctx context.Context, now time.Time, lease time.Duration, n int) ([]mail.Mail, error) {
	due := bson.D{{Key: "status", Value: mail.StatusQueued}, {Key: "nextAttemptAt", Value: bson.D{{Key: "$lte", Value: now}}}}
	docs, err := leaseEach[mailDoc](ctx, s.coll, due, bson.D{{Key: "nextAttemptAt", Value: 1}},
		bson.D{{Key: "$inc", Value: bson.D{{Key: "attempts", Value: 1}}},
			{Key: "$set", Value: bson.D{{Key: "nextAttemptAt", Value: now.Add(lease)}}}}, n, nil)
	out := make([]mail.Mail, len(docs))
	for i, d := range docs {
		out[i] = d.mail()
	}
	if err != nil {
		return out, fmt.Errorf("claim due mails: %w", err)
	}
	return out, nil
}

// Record stores an attempt's outcome, filtered on the claim (still queued,
// same attempt count).
func (s *Mails) Record(ctx context.Context, m mail.Mail) (bool, error) {
	set := bson.D{{Key: "status", Value: m.Status}, {Key: "lastError", Value: m.LastError}}
	var unset bson.D
	for _, f := range []struct {
		name string
		at   time.Time
	}{{"nextAttemptAt", m.NextAttemptAt}, {"sentAt", m.SentAt}} {
		if f.at.IsZero() {
			unset = append(unset, bson.E{Key: f.name, Value: ""})
		} else {
			set = append(set, bson.E{Key: f.name, Value: f.at})
		}
	}
	update := bson.D{{Key: "$set", Value: set}}
	if len(unset) > 0 {
		update = append(update, bson.E{Key: "$unset", Value: unset})
	}
	res, err := s.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: m.ID}, {Key: "status", Value: mail.StatusQueued},
		{Key: "attempts", Value: m.Attempts}}, update)
	if err != nil {
		return false, fmt.Errorf("record attempt of mail %s: %w", m.ID, err)
	}
	return res.MatchedCount == 1, nil
}

// Queued counts the queued mails and reads the earliest created.
func (s *Mails) Queued(ctx context.Context) (int, time.Time, error) {
	queued := bson.D{{Key: "status", Value: mail.StatusQueued}}
	n, err := s.coll.CountDocuments(ctx, queued)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("queued mails: %w", err)
	}
	if n == 0 {
		return 0, time.Time{}, nil
	}
	var d struct {
		CreatedAt time.Time `bson:"createdAt"`
	}
	err = s.coll.FindOne(ctx, queued, options.FindOne().SetSort(bson.D{{Key: "createdAt", Value: 1}}).
		SetProjection(bson.D{{Key: "createdAt", Value: 1}})).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return 0, time.Time{}, nil // sent meanwhile
	}
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("oldest queued mail: %w", err)
	}
	return int(n), d.CreatedAt.UTC(), nil
}

// Delete deletes the mails with these keys.
func (s *Mails) Delete(ctx context.Context, keys []string) (int64, error) {
	if len(keys) == 0 {
		return 0, nil
	}
	res, err := s.coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: keys}}}})
	if err != nil {
		return 0, fmt.Errorf("delete mails: %w", err)
	}
	return res.DeletedCount, nil
}

// DeleteDone deletes the mail with key unless it is queued: one deleteOne
// filtered on the status.
func (s *Mails) DeleteDone(ctx context.Context, key string) (bool, error) {
	res, err := s.coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: key}, {Key: "status", Value: bson.D{{Key: "$ne", Value: mail.StatusQueued}}}})
	if err != nil {
		return false, fmt.Errorf("delete mail %s: %w", key, err)
	}
	return res.DeletedCount == 1, nil
}

func (s *Mails) find(ctx context.Context, filter bson.D, opts *options.FindOptionsBuilder) ([]mail.Mail, error) {
	cur, err := s.coll.Find(ctx, filter, opts)
	if err != nil {
		return nil, fmt.Errorf("mails: %w", err)
	}
	var docs []mailDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("mails: %w", err)
	}
	out := make([]mail.Mail, len(docs))
	for i, d := range docs {
		out[i] = d.mail()
	}
	return out, nil
}
