package sqlstore_test

import (
	"testing"

	"glimpse/engine/billing"
	"glimpse/engine/billing/billingtest"
	"glimpse/engine/store/sqlstore"
)

func TestBillingLookupContract(t *testing.T) {
	billingtest.RunLookup(t, func(t *testing.T) billing.Store { return sqlstore.NewBilling(openDB(t)) })
}
