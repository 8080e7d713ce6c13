package mongostore

import (
	"testing"

	"glimpse/engine/retention"
	"glimpse/engine/retention/retentiontest"
)

func TestAttemptsContract(t *testing.T) {
	retentiontest.Run(t, func(t *testing.T) retention.Attempts { return NewAttempts(openDB(t)) })
}
