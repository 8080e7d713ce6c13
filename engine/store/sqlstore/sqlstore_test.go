package sqlstore_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"glimpse/engine/mail"
	"glimpse/engine/mail/mailtest"
	"glimpse/engine/store/sqlite"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/tracking"
	"glimpse/engine/tracking/trackingtest"
)

// small names the tables whose size does not grow with subscribers, so a
// scan of one is cheap at any scale: the schema's versions, the experiments
// staff define (read whole into every instance's memory), the content version.
var small = map[string]bool{"schema_migrations": true, "experiments": true, "content_version": true,
	"breach_catalogue": true, // HIBP lists about 900 breaches
	// Erasures under way and the last mails of the last days' deletions, each
	// deleted when done: read whole by the privacy sweep.
	"privacy_erasures_pending": true, "privacy_farewells": true,
}

// openDB returns a new database of the test's own. Every statement the test
// sends through it is planned when the test ends (EXPLAIN QUERY PLAN), and
// the test fails on one that reads a growing table whole or sorts without an
// index: the embedded store's index-coverage check.
func openDB(t *testing.T) *sqlite.DB {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), sqlite.FileName), sqlite.SyncNever)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	db.Observe(func(q string) {
		mu.Lock()
		seen[q] = true
		mu.Unlock()
	})
	t.Cleanup(func() {
		db.Observe(nil)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for q := range seen {
			plan, err := db.Plan(ctx, q)
			if err != nil {
				t.Errorf("plan %q: %v", q, err)
				continue
			}
			if bad := sqlite.Unindexed(plan, small); len(bad) > 0 {
				t.Errorf("%s\n  is not served by an index: %v", q, bad)
			}
		}
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return db
}

func TestEventsContract(t *testing.T) {
	trackingtest.Run(t, func(t *testing.T) tracking.Events { return sqlstore.NewEvents(openDB(t)) })
}

func TestMailsContract(t *testing.T) {
	mailtest.Run(t, func(t *testing.T) mail.Mails { return sqlstore.NewMails(openDB(t)) }, mailtest.Options{Atomic: true})
}
