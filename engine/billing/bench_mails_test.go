package billing_test

import (
	"testing"

	"glimpse/engine/billing"
	"glimpse/engine/mail"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/store/storetest"
)

func init() {
	billing.NewBenchMails = func(tb testing.TB) mail.Mails { return sqlstore.NewMails(storetest.OpenSQL(tb)) }
}
