package mail

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Sent is what the support desk may see of a mail: what it was and whether
// it went, never its text, which holds links that act for the subscriber
// (an activation key, a cancel link).
type Sent struct {
	ID        string
	To        string
	Template  string
	Subject   string
	Status    string
	Attempts  int
	CreatedAt time.Time
	SentAt    time.Time
	LastError string
}

func sentOf(m Mail) Sent {
	return Sent{ID: m.ID, To: m.To, Template: m.Template, Subject: m.Subject, Status: m.Status, Attempts: m.Attempts,
		CreatedAt: m.CreatedAt, SentAt: m.SentAt, LastError: m.LastError}
}

// SentTo lists the newest mails to an address (at most limit), newest
// first, but the unlisted ones (Message.Unlisted).
func (o *Outbox) SentTo(ctx context.Context, email string, limit int) ([]Sent, error) {
	if limit <= 0 {
		return nil, nil
	}
	mails, err := o.mails.To(ctx, recipient(email), limit)
	if err != nil {
		return nil, fmt.Errorf("mail to %s: %w", recipient(email), err)
	}
	out := make([]Sent, len(mails))
	for i, m := range mails {
		out[i] = sentOf(m)
	}
	return out, nil
}

// Sent reads the mails with these keys, those that exist, in that order:
// the mails a caller finds through its own records (a charge's receipt).
func (o *Outbox) Sent(ctx context.Context, keys []string) ([]Sent, error) {
	mails, err := o.mails.GetMany(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("mail: read %d mails: %w", len(keys), err)
	}
	byKey := make(map[string]Mail, len(mails))
	for _, m := range mails {
		byKey[m.ID] = m
	}
	out := make([]Sent, 0, len(mails))
	for _, key := range keys {
		if m, ok := byKey[key]; ok {
			out = append(out, sentOf(m))
			delete(byKey, key)
		}
	}
	return out, nil
}

// To returns every mail stored for the given addresses, oldest first,
// without the HTML body and attachment data (a person's data export lists
// them; the text body says the same): the mails found under the addresses,
// and the unlisted ones the caller found through its own records (a
// renewal's receipt, through its charge), those that went to one of the
// addresses.
func (o *Outbox) To(ctx context.Context, addresses, unlisted []string) ([]Mail, error) {
	owners := make([]string, 0, len(addresses))
	var found []Mail
	for _, address := range addresses {
		owner := recipient(address)
		if slices.Contains(owners, owner) {
			continue
		}
		owners = append(owners, owner)
		mails, err := o.mails.To(ctx, owner, 0)
		if err != nil {
			return nil, fmt.Errorf("mail: to addresses: %w", err)
		}
		found = append(found, mails...)
	}
	if len(unlisted) > 0 {
		mails, err := o.mails.GetMany(ctx, unlisted)
		if err != nil {
			return nil, fmt.Errorf("mail: to addresses: %w", err)
		}
		for _, m := range mails {
			if slices.Contains(owners, recipient(m.To)) {
				found = append(found, m)
			}
		}
	}
	seen := map[string]bool{}
	out := make([]Mail, 0, len(found))
	for _, m := range found {
		if !seen[m.ID] {
			seen[m.ID] = true
			out = append(out, m.withoutBodies())
		}
	}
	slices.SortStableFunc(out, func(a, b Mail) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}
