package mail

import (
	"context"
	"fmt"
)

// EraseTo deletes every mail stored for the given addresses (To), sent or
// not, except the mail whose key is keep (the last mail of an account being
// deleted, still to go out). It returns how many mails went. A rerun after
// a failure finds what is left and deletes it.
func (o *Outbox) EraseTo(ctx context.Context, addresses, unlisted []string, keep string) (int, error) {
	mails, err := o.To(ctx, addresses, unlisted)
	if err != nil {
		return 0, err
	}
	keys := make([]string, 0, len(mails))
	for _, m := range mails {
		if m.ID != keep {
			keys = append(keys, m.ID)
		}
	}
	if len(keys) == 0 {
		return 0, nil
	}
	n, err := o.mails.Delete(ctx, keys)
	if err != nil {
		return 0, fmt.Errorf("mail: erase %d mails: %w", len(keys), err)
	}
	return int(n), nil
}

// Erase deletes one mail by key once it is no longer queued (sent, or
// given up), and reports whether it did; a mail still to go out is left.
func (o *Outbox) Erase(ctx context.Context, key string) (bool, error) {
	ok, err := o.mails.DeleteDone(ctx, key)
	if err != nil {
		return false, fmt.Errorf("mail: erase %q: %w", key, err)
	}
	return ok, nil
}
