package sqlstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"glimpse/engine/store/sqlite"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/support"
	"glimpse/engine/support/supporttest"
)

func TestSupportAuditContract(t *testing.T) {
	supporttest.Run(t, func(t *testing.T) support.AuditLog { return sqlstore.NewSupportAudit(openDB(t)) })
}

// The audit log cannot be edited: the table's triggers refuse an UPDATE or
// a DELETE sent by anyone, not only by the store (which sends neither).
func TestTheAuditTableRefusesChanges(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	log := sqlstore.NewSupportAudit(db)
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	if err := log.Append(ctx, support.Entry{ID: support.EntryID(at), At: at, Staff: "sue@glimpse.test",
		Action: support.ActionRefund, Subscriber: "ann@example.com", Reason: "Asked", Outcome: support.OutcomeDone}); err != nil {
		t.Fatal(err)
	}
	for _, change := range []string{
		`UPDATE support_audit SET doc = '{}' WHERE subscriber = 'ann@example.com'`,
		`DELETE FROM support_audit WHERE subscriber = 'ann@example.com'`,
	} {
		err := db.Update(ctx, func(tx *sqlite.Tx) error {
			_, err := tx.ExecContext(ctx, change)
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "cannot be edited") {
			t.Errorf("%s: %v, want it refused", change, err)
		}
	}
	if got, err := log.NewestOf(ctx, "ann@example.com", 10); err != nil || len(got) != 1 || got[0].Reason != "Asked" {
		t.Fatalf("the entry after the refused changes: %+v, %v", got, err)
	}
}
