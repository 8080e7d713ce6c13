package sqlstore_test

import (
	"testing"

	"glimpse/engine/billing"
	"glimpse/engine/billing/billingtest"
	"glimpse/engine/store/sqlstore"
)

func TestBillingLinksContract(t *testing.T) {
	billingtest.RunLinks(t, func(t *testing.T) billing.Store { return sqlstore.NewBilling(openDB(t)) }, billingtest.Options{Atomic: true})
}

func TestBillingReceiptsContract(t *testing.T) {
	billingtest.RunReceipts(t, func(t *testing.T) billing.Store { return sqlstore.NewBilling(openDB(t)) })
}

func TestBillingRefundsContract(t *testing.T) {
	billingtest.RunRefunds(t, func(t *testing.T) billing.Store { return sqlstore.NewBilling(openDB(t)) }, billingtest.Options{
		Atomic: true,
		Failing: func(t *testing.T, n int) (billing.Store, billing.Store) {
			db := openDB(t)
			return sqlstore.NewFailingBilling(db, n), sqlstore.NewBilling(db)
		},
	})
}

func TestBillingLedgerContract(t *testing.T) {
	billingtest.RunLedger(t, func(t *testing.T) billing.Store { return sqlstore.NewBilling(openDB(t)) }, billingtest.Options{
		Atomic: true,
		Failing: func(t *testing.T, n int) (billing.Store, billing.Store) {
			db := openDB(t)
			return sqlstore.NewFailingBilling(db, n), sqlstore.NewBilling(db)
		},
	})
}

func TestBillingOrdersContract(t *testing.T) {
	billingtest.RunOrders(t, func(t *testing.T) billing.Store { return sqlstore.NewBilling(openDB(t)) }, billingtest.Options{Atomic: true})
}

func TestBillingSandboxContract(t *testing.T) {
	billingtest.RunSandbox(t, func(t *testing.T) billing.SandboxRecords { return sqlstore.NewSandboxRecords(openDB(t)) })
}
