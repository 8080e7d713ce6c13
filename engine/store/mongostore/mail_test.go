package mongostore

import (
	"os"
	"testing"

	"glimpse/engine/mail"
	"glimpse/engine/mail/mailtest"
)

// The workers-together subtest needs MongoDB's atomic findOneAndUpdate,
// which FerretDB v1 (the default test server) lacks (docs/store.md §1).
func TestMailsContract(t *testing.T) {
	mailtest.Run(t, func(t *testing.T) mail.Mails { return NewMails(openDB(t)) },
		mailtest.Options{Atomic: os.Getenv("GLIMPSE_TEST_MONGODB_URI") != ""})
}
