package mail

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

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

// SentTo lists the newest mails to an address (at most limit), newest
// first. It scans the mail collection (the embedded database finds
// documents fast only by _id), which a person looking one subscriber up
// can afford.
func (o *Outbox) SentTo(ctx context.Context, email string, limit int) ([]Sent, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	cur, err := o.mail.Find(ctx, bson.M{"to": email}, options.Find().SetProjection(bson.M{
		"to": 1, "template": 1, "subject": 1, "status": 1, "attempts": 1, "createdAt": 1, "sentAt": 1, "lastError": 1}))
	if err != nil {
		return nil, fmt.Errorf("mail to %s: %w", email, err)
	}
	var out []Sent
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("mail to %s: %w", email, err)
	}
	slices.SortFunc(out, func(a, b Sent) int { return b.CreatedAt.Compare(a.CreatedAt) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
