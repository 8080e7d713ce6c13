package sqlstore_test

import (
	"testing"

	"glimpse/engine/billing"
	"glimpse/engine/billing/billingtest"
	"glimpse/engine/store/sqlstore"
)

func TestBillingContract(t *testing.T) {
	billingtest.Run(t, func(t *testing.T) billing.Store { return sqlstore.NewBilling(openDB(t)) }, billingtest.Options{
		Atomic: true,
		Failing: func(t *testing.T, n int) (billing.Store, billing.Store) {
			db := openDB(t)
			return sqlstore.NewFailingBilling(db, n), sqlstore.NewBilling(db)
		},
	})
}
