package mongostore

import (
	"os"
	"testing"

	"glimpse/engine/billing"
	"glimpse/engine/billing/billingtest"
)

func TestBillingContract(t *testing.T) {
	billingtest.Run(t, func(t *testing.T) billing.Store { return NewBilling(openDB(t)) }, billingtest.Options{
		Atomic: os.Getenv("GLIMPSE_TEST_MONGODB_URI") != "",
		Failing: func(t *testing.T, n int) (billing.Store, billing.Store) {
			db := openDB(t)
			failing := NewBilling(db)
			failing.failAt = &failAfter{n: n}
			return failing, NewBilling(db)
		},
	})
}
