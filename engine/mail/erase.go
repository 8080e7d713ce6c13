package mail

import (
	"context"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// To returns every mail stored for the given addresses, oldest first,
// without the HTML body and attachment data (a person's data export lists
// them; the text body says the same).
func (o *Outbox) To(ctx context.Context, addresses []string) ([]Mail, error) {
	if len(addresses) == 0 {
		return nil, nil
	}
	cur, err := o.mail.Find(ctx, bson.M{"to": bson.M{"$in": addresses}},
		options.Find().SetSort(bson.D{{Key: "createdAt", Value: 1}, {Key: "_id", Value: 1}}).
			SetProjection(bson.M{"attachments.data": 0, "html": 0}))
	if err != nil {
		return nil, fmt.Errorf("mail: to addresses: %w", err)
	}
	var out []Mail
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("mail: to addresses: %w", err)
	}
	return out, nil
}

// EraseTo deletes every mail stored for the given addresses, sent or not,
// with their queue entries and the addresses' lists, except the mail whose
// key is keep (the last mail of an account being deleted, still to go
// out). It finds them by _id: the mails on the addresses' lists, and the
// unlisted ones the caller found through its own records (a renewal's
// receipt, through its charge), deleted when they went to one of the
// addresses. It returns how many mails went.
func (o *Outbox) EraseTo(ctx context.Context, addresses, unlisted []string, keep string) (int, error) {
	keys := slices.Clone(unlisted)
	owners := make([]string, 0, len(addresses))
	for _, address := range addresses {
		owners = append(owners, recipient(address))
		listed, err := o.recipients.Refs(ctx, recipient(address))
		if err != nil {
			return 0, fmt.Errorf("mail: erase mails to an address: %w", err)
		}
		keys = append(keys, listed...)
	}
	n := 0
	seen := map[string]bool{keep: true}
	for _, key := range keys {
		if seen[key] {
			continue
		}
		seen[key] = true
		m, ok, err := o.sent(ctx, key)
		if err != nil {
			return n, err
		}
		if !ok || !slices.Contains(owners, recipient(m.To)) {
			continue
		}
		if _, err := o.queue.DeleteOne(ctx, bson.M{"_id": key}); err != nil {
			return n, fmt.Errorf("mail: erase queue entry: %w", err)
		}
		if _, err := o.mail.DeleteOne(ctx, bson.M{"_id": key}); err != nil {
			return n, fmt.Errorf("mail: erase mail: %w", err)
		}
		n++
	}
	for _, owner := range owners {
		if err := o.recipients.Erase(ctx, owner); err != nil {
			return n, fmt.Errorf("mail: erase the list of mails to an address: %w", err)
		}
	}
	return n, nil
}

// Erase deletes one mail by key once it is no longer queued (sent, or
// given up), and reports whether it did; a mail still to go out is left.
func (o *Outbox) Erase(ctx context.Context, key string) (bool, error) {
	res, err := o.mail.DeleteOne(ctx, bson.M{"_id": key, "status": bson.M{"$ne": StatusQueued}})
	if err != nil {
		return false, fmt.Errorf("mail: erase %q: %w", key, err)
	}
	return res.DeletedCount > 0, nil
}
