package mail_test

import (
	"context"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine/mail"
)

// BenchmarkFindDue compares the delivery's query, over the queue of pending
// mail, with the same question asked of the whole outbox, which the
// embedded FerretDB answers by scanning every stored mail (docs/mail.md).
func BenchmarkFindDue(b *testing.B) {
	e := newEnvTB(b)
	ctx := context.Background()
	const stored, pendingN = 5000, 10
	docs := make([]any, 0, stored)
	for i := range stored {
		docs = append(docs, bson.M{"_id": "old:" + strconv.Itoa(i), "to": "x@example.com", "status": mail.StatusSent,
			"createdAt": t0, "text": "a body of a few hundred bytes, as a rendered mail has", "html": string(make([]byte, 2000))})
	}
	if _, err := e.db.Collection(mail.MailCollection).InsertMany(ctx, docs); err != nil {
		b.Fatal(err)
	}
	for i := range pendingN {
		if err := e.box.Enqueue(ctx, reset("a@example.com", "new:"+strconv.Itoa(i))); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("queue", func(b *testing.B) {
		for b.Loop() {
			n, err := e.db.Collection(mail.QueueCollection).CountDocuments(ctx, bson.M{"due": bson.M{"$lte": t0}})
			if err != nil || n != pendingN {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("outbox-scan", func(b *testing.B) {
		for b.Loop() {
			n, err := e.db.Collection(mail.MailCollection).CountDocuments(ctx, bson.M{"status": mail.StatusQueued, "nextAttemptAt": bson.M{"$lte": t0}})
			if err != nil || n != pendingN {
				b.Fatal(n, err)
			}
		}
	})
}
