package sqlstore_test

import (
	"testing"

	"glimpse/engine/retention"
	"glimpse/engine/retention/retentiontest"
	"glimpse/engine/store/sqlstore"
)

func TestAttemptsContract(t *testing.T) {
	retentiontest.Run(t, func(t *testing.T) retention.Attempts { return sqlstore.NewAttempts(openDB(t)) })
}
