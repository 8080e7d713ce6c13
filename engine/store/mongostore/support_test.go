package mongostore

import (
	"testing"

	"glimpse/engine/support"
	"glimpse/engine/support/supporttest"
)

func TestSupportAuditContract(t *testing.T) {
	supporttest.Run(t, func(t *testing.T) support.AuditLog { return NewSupportAudit(openDB(t)) })
}
