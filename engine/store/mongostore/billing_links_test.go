package mongostore

import (
	"os"
	"testing"

	"glimpse/engine/billing"
	"glimpse/engine/billing/billingtest"
)

func TestBillingLinksContract(t *testing.T) {
	billingtest.RunLinks(t, func(t *testing.T) billing.Store { return NewBilling(openDB(t)) },
		billingtest.Options{Atomic: os.Getenv("GLIMPSE_TEST_MONGODB_URI") != ""})
}

func TestBillingReceiptsContract(t *testing.T) {
	billingtest.RunReceipts(t, func(t *testing.T) billing.Store { return NewBilling(openDB(t)) })
}

func TestBillingRefundsContract(t *testing.T) {
	billingtest.RunRefunds(t, func(t *testing.T) billing.Store { return NewBilling(openDB(t)) }, billingtest.Options{
		Atomic: os.Getenv("GLIMPSE_TEST_MONGODB_URI") != "",
		Failing: func(t *testing.T, n int) (billing.Store, billing.Store) {
			db := openDB(t)
			failing := NewBilling(db)
			failing.failAt = &failAfter{n: n}
			return failing, NewBilling(db)
		},
	})
}

func TestBillingLedgerContract(t *testing.T) {
	billingtest.RunLedger(t, func(t *testing.T) billing.Store { return NewBilling(openDB(t)) }, billingtest.Options{
		Atomic: os.Getenv("GLIMPSE_TEST_MONGODB_URI") != "",
		Failing: func(t *testing.T, n int) (billing.Store, billing.Store) {
			db := openDB(t)
			failing := NewBilling(db)
			failing.failAt = &failAfter{n: n}
			return failing, NewBilling(db)
		},
	})
}

func TestBillingOrdersContract(t *testing.T) {
	billingtest.RunOrders(t, func(t *testing.T) billing.Store { return NewBilling(openDB(t)) },
		billingtest.Options{Atomic: os.Getenv("GLIMPSE_TEST_MONGODB_URI") != ""})
}

func TestBillingSandboxContract(t *testing.T) {
	billingtest.RunSandbox(t, func(t *testing.T) billing.SandboxRecords { return NewSandboxRecords(openDB(t)) })
}
