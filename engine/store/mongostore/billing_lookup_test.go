package mongostore

import (
	"testing"

	"glimpse/engine/billing"
	"glimpse/engine/billing/billingtest"
)

func TestBillingLookupContract(t *testing.T) {
	billingtest.RunLookup(t, func(t *testing.T) billing.Store { return NewBilling(openDB(t)) })
}
