package billing

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine/store"
)

// Change exposes the service's compare-and-swap loop to the external tests
// that build the service on a store (package billing_test).
func (s *Service) Change(ctx context.Context, id string, rule func(Subscription) (Subscription, Effects, bool, error)) (Subscription, error) {
	return s.change(ctx, id, rule)
}

// storeOf returns billing's storage on a test's store, as the application
// opens it (engine/app/stores.go). The external test package sets it (it
// may import the stores, which import billing).
var storeOf func(st *store.Store) Store

// SetTestStores sets how the package's own tests open billing's storage.
func SetTestStores(open func(st *store.Store) Store) { storeOf = open }

// sandboxOf returns the sandbox's books on a test's store, as the
// application opens them; set by the external test package, as storeOf.
var sandboxOf func(st *store.Store) SandboxRecords

// SetTestSandbox sets how the package's own tests open the sandbox's books.
func SetTestSandbox(open func(st *store.Store) SandboxRecords) { sandboxOf = open }

// countRecords counts a table's rows matching where (SQLite), or its
// collection's documents matching filter (MongoDB), on the engine the
// test's store has: the sandbox's books are in one or the other.
func countRecords(tb testing.TB, st *store.Store, table, where string, filter bson.M, args ...any) int64 {
	tb.Helper()
	n, err := countRows(st, table, where, filter, args...)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

func countRows(st *store.Store, table, where string, filter bson.M, args ...any) (int64, error) {
	ctx := context.Background()
	if db := st.SQL(); db != nil {
		query := "SELECT count(*) FROM " + table
		if where != "" {
			query += " WHERE " + where
		}
		var n int64
		err := db.Reader().QueryRowContext(ctx, query, args...).Scan(&n)
		return n, err
	}
	return st.DB().Collection(table).CountDocuments(ctx, filter)
}

// succeededSandboxCharges is the sandbox's records of the charges it took
// (the where and filter of countRecords).
const succeededSandboxCharges = "json_extract(doc, '$.status') = 'succeeded'"

var succeededSandboxFilter = bson.M{"status": "succeeded"}

// sandboxChargeKeys returns the keys of the charges the sandbox took.
func sandboxChargeKeys(tb testing.TB, st *store.Store) []string {
	tb.Helper()
	ctx := context.Background()
	var keys []string
	if db := st.SQL(); db != nil {
		rows, err := db.Reader().QueryContext(ctx, "SELECT key FROM sandbox_charges WHERE "+succeededSandboxCharges)
		if err != nil {
			tb.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				tb.Fatal(err)
			}
			keys = append(keys, k)
		}
		if err := rows.Err(); err != nil {
			tb.Fatal(err)
		}
		return keys
	}
	cur, err := st.DB().Collection("sandbox_charges").Find(ctx, succeededSandboxFilter)
	if err != nil {
		tb.Fatal(err)
	}
	var docs []struct {
		Key string `bson:"key"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		tb.Fatal(err)
	}
	for _, d := range docs {
		keys = append(keys, d.Key)
	}
	return keys
}
