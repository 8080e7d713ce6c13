package mail

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// To returns every mail stored for the given addresses, oldest first,
// without the HTML body and attachment data (a person's data export lists
// them; the text body says the same). It reads them by _id: the mails on
// the addresses' lists, and the unlisted ones the caller found through its
// own records (a renewal's receipt, through its charge), those that went
// to one of the addresses.
func (o *Outbox) To(ctx context.Context, addresses, unlisted []string) ([]Mail, error) {
	keys := slices.Clone(unlisted)
	owners := make([]string, 0, len(addresses))
	for _, address := range addresses {
		owners = append(owners, recipient(address))
		listed, err := o.recipients.Refs(ctx, recipient(address))
		if err != nil {
			return nil, fmt.Errorf("mail: to addresses: %w", err)
		}
		keys = append(keys, listed...)
	}
	var out []Mail
	seen := map[string]bool{}
	for _, key := range keys {
		if seen[key] {
			continue
		}
		seen[key] = true
		var m Mail
		err := o.mail.FindOne(ctx, bson.M{"_id": key}, withoutBodies).Decode(&m)
		if errors.Is(err, mongo.ErrNoDocuments) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("mail: to addresses: %w", err)
		}
		if slices.Contains(owners, recipient(m.To)) {
			out = append(out, m)
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

var withoutBodies = options.FindOne().SetProjection(bson.M{"attachments.data": 0, "html": 0})

// EraseTo deletes every mail stored for the given addresses (To), sent or
// not, with their queue entries and the addresses' lists, except the mail
// whose key is keep (the last mail of an account being deleted, still to go
// out). It returns how many mails went.
func (o *Outbox) EraseTo(ctx context.Context, addresses, unlisted []string, keep string) (int, error) {
	mails, err := o.To(ctx, addresses, unlisted)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range mails {
		if m.ID == keep {
			continue
		}
		if _, err := o.queue.DeleteOne(ctx, bson.M{"_id": m.ID}); err != nil {
			return n, fmt.Errorf("mail: erase queue entry: %w", err)
		}
		if _, err := o.mail.DeleteOne(ctx, bson.M{"_id": m.ID}); err != nil {
			return n, fmt.Errorf("mail: erase mail: %w", err)
		}
		n++
	}
	for _, address := range addresses {
		if err := o.recipients.Erase(ctx, recipient(address)); err != nil {
			return n, fmt.Errorf("mail: erase the list of mails to an address: %w", err)
		}
	}
	return n, nil
}

// Erase deletes one mail by key once it is no longer queued (sent, or
// given up), and reports whether it did; a mail still to go out is left.
func (o *Outbox) Erase(ctx context.Context, key string) (bool, error) {
	// Read, then deleted by _id alone (a delete whose filter adds the
	// status scans on the embedded store): a mail that is no longer queued
	// never is again.
	m, ok, err := o.sent(ctx, key)
	if err != nil || !ok || m.Status == StatusQueued {
		return false, err
	}
	res, err := o.mail.DeleteOne(ctx, bson.M{"_id": key})
	if err != nil {
		return false, fmt.Errorf("mail: erase %q: %w", key, err)
	}
	return res.DeletedCount > 0, nil
}
