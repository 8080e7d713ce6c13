package sqlstore_test

import (
	"testing"

	"glimpse/engine/staff"
	"glimpse/engine/staff/stafftest"
	"glimpse/engine/store/sqlstore"
)

func TestStaffAccountsContract(t *testing.T) {
	stafftest.Run(t, func(t *testing.T) staff.Accounts { return sqlstore.NewStaffAccounts(openDB(t)) },
		stafftest.Options{Atomic: true})
}
