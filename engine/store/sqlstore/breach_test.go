package sqlstore_test

import (
	"testing"

	"glimpse/engine/breach"
	"glimpse/engine/breach/breachtest"
	"glimpse/engine/store/sqlstore"
)

func TestBreachRecordsContract(t *testing.T) {
	breachtest.Run(t, func(t *testing.T) breach.Records { return sqlstore.NewBreachRecords(openDB(t)) },
		breachtest.Options{Atomic: true})
}
