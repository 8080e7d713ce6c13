package mail

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"glimpse/engine/store"
)

// RecipientsCollection lists each address's mails: "<address>#0", "#1", …
// each naming a mail's key (store.Lists), so the support desk reads the
// mails to one subscriber by _id. A filter on "to" scans every mail ever
// sent on the embedded database (docs/store.md §10).
const RecipientsCollection = "mail_by_recipient"

// listedMarker marks, in the settings collection, that the mails stored
// before the recipient lists existed are listed.
const listedMarker = "mail-recipients-listed"

// Sent is what the support desk may see of a mail: what it was and whether
// it went, never its text, which holds links that act for the subscriber
// (an activation key, a cancel link).
type Sent struct {
	ID        string    `bson:"_id"`
	To        string    `bson:"to"`
	Template  string    `bson:"template"`
	Subject   string    `bson:"subject"`
	Status    string    `bson:"status"`
	Attempts  int       `bson:"attempts"`
	CreatedAt time.Time `bson:"createdAt"`
	SentAt    time.Time `bson:"sentAt,omitempty"`
	LastError string    `bson:"lastError,omitempty"`
}

var sentFields = options.FindOne().SetProjection(bson.M{
	"to": 1, "template": 1, "subject": 1, "status": 1, "attempts": 1, "createdAt": 1, "sentAt": 1, "lastError": 1})

// recipient is the owner of an address's list: the address as mail is
// stored to it.
func recipient(address string) string { return strings.ToLower(strings.TrimSpace(address)) }

// list puts m's key on its recipient's list before the mail is written (a
// crash in between leaves a slot readers skip), unless m is Unlisted.
func (o *Outbox) list(ctx context.Context, m Message) error {
	if m.Unlisted {
		return nil
	}
	if err := o.recipients.Append(ctx, recipient(m.To), m.Key); err != nil {
		return fmt.Errorf("mail: list %q: %w", m.Key, err)
	}
	return nil
}

// SentTo lists the newest mails on an address's list (at most limit),
// newest first: its slots read from the last back, each mail by _id. A
// slot whose mail is missing (erased, or its enqueue stopped before the
// mail was written) or is to another address is skipped, and a mail on
// the list twice is listed once.
func (o *Outbox) SentTo(ctx context.Context, email string, limit int) ([]Sent, error) {
	owner := recipient(email)
	n, err := o.recipients.Len(ctx, owner)
	if err != nil {
		return nil, fmt.Errorf("mail to %s: %w", owner, err)
	}
	var out []Sent
	seen := map[string]bool{}
	for n--; n >= 0 && len(out) < limit; n-- {
		key, ok, err := o.recipients.At(ctx, owner, n)
		if err != nil {
			return nil, fmt.Errorf("mail to %s: %w", owner, err)
		}
		if !ok || seen[key] {
			continue
		}
		seen[key] = true
		m, ok, err := o.sent(ctx, key)
		if err != nil {
			return nil, err
		}
		if ok && recipient(m.To) == owner {
			out = append(out, m)
		}
	}
	// Slots are taken in the order mails are queued, which two senders at
	// once may swap.
	slices.SortStableFunc(out, func(a, b Sent) int { return b.CreatedAt.Compare(a.CreatedAt) })
	return out, nil
}

// Sent reads the mails with these keys, those that exist, in that order:
// the mails a caller finds through its own records (a charge's receipt).
func (o *Outbox) Sent(ctx context.Context, keys []string) ([]Sent, error) {
	out := make([]Sent, 0, len(keys))
	for _, key := range keys {
		m, ok, err := o.sent(ctx, key)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, m)
		}
	}
	return out, nil
}

func (o *Outbox) sent(ctx context.Context, key string) (Sent, bool, error) {
	var m Sent
	err := o.mail.FindOne(ctx, bson.M{"_id": key}, sentFields).Decode(&m)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return Sent{}, false, nil
	}
	if err != nil {
		return Sent{}, false, fmt.Errorf("mail: read %q: %w", key, err)
	}
	return m, true, nil
}

// ListExisting puts every mail stored before the recipient lists existed
// on its recipient's list, oldest first (but the account-deleted mails,
// which no list may keep), once per database (a mark in the settings
// collection): it reads the mail collection whole, so it runs at start,
// before the app serves, and never again.
func ListExisting(ctx context.Context, db *mongo.Database, settings string) error {
	return store.OncePerDatabase(ctx, db, settings, listedMarker, func(ctx context.Context) error {
		cur, err := db.Collection(MailCollection).Find(ctx, bson.M{},
			options.Find().SetProjection(bson.M{"to": 1, "template": 1, "createdAt": 1}))
		if err != nil {
			return fmt.Errorf("list existing mail: %w", err)
		}
		var mails []Sent
		if err := cur.All(ctx, &mails); err != nil {
			return fmt.Errorf("list existing mail: %w", err)
		}
		slices.SortStableFunc(mails, func(a, b Sent) int { return a.CreatedAt.Compare(b.CreatedAt) })
		byRecipient := map[string][]string{}
		var owners []string
		for _, m := range mails {
			if m.Template == TemplateAccountErased || m.To == "" {
				continue
			}
			owner := recipient(m.To)
			if byRecipient[owner] == nil {
				owners = append(owners, owner)
			}
			byRecipient[owner] = append(byRecipient[owner], m.ID)
		}
		return store.NewLists(db, RecipientsCollection).SeedLists(ctx, owners, byRecipient)
	})
}

// MarkListed records that every mail is on its recipient's list, for a
// writer that listed them itself (the scale seed).
func MarkListed(ctx context.Context, db *mongo.Database, settings string) error {
	return store.MarkDone(ctx, db, settings, listedMarker)
}
