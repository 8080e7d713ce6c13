package store_test

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

// TestIDLookupUsesIndex fails when a find by `_id` on the embedded server
// scans the table, e.g. because a FerretDB upgrade changed the expression it
// queries and our index no longer matches it.
func TestIDLookupUsesIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.Open(t)
	if !s.Embedded() {
		t.Skip("EXPLAIN QUERY PLAN applies to the embedded server only")
	}
	insertItems(t, s.DB().Collection("items"), 100)
	if err := s.EnsureCollections(ctx, []store.CollectionSpec{{Name: "items"}}); err != nil {
		t.Fatalf("EnsureCollections: %v", err)
	}

	plan, err := s.ExplainIDLookup(ctx, "items")
	if err != nil {
		t.Fatalf("ExplainIDLookup: %v", err)
	}
	if !usesIndex(plan, "_id_expr") {
		t.Errorf("find by _id does not use the _id expression index; plan:\n%s", plan)
	}
}

// TestIDLookupScansWithoutIndex shows the check above can fail: without
// EnsureCollections, FerretDB's own index does not serve the lookup.
func TestIDLookupScansWithoutIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.Open(t)
	if !s.Embedded() {
		t.Skip("EXPLAIN QUERY PLAN applies to the embedded server only")
	}
	insertItems(t, s.DB().Collection("items"), 100)

	plan, err := s.ExplainIDLookup(ctx, "items")
	if err != nil {
		t.Fatalf("ExplainIDLookup: %v", err)
	}
	if usesIndex(plan, "") || !strings.Contains(plan, "SCAN") {
		t.Errorf("expected a table scan without our index; plan:\n%s", plan)
	}
}

// TestServerExplainUsesIndex asks FerretDB itself, through the explain
// command, for the plan of a find by `_id`. Unlike ExplainIDLookup, whose SQL
// is our copy of FerretDB's, this plan comes from FerretDB's own query
// builder, so it catches a change in FerretDB that our copy would hide.
func TestServerExplainUsesIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := storetest.Open(t)
	if !s.Embedded() {
		t.Skip("FerretDB's SQLite plan applies to the embedded server only")
	}
	insertItems(t, s.DB().Collection("items"), 100)
	insertItems(t, s.DB().Collection("bare"), 100)
	if err := s.EnsureCollections(ctx, []store.CollectionSpec{{Name: "items"}}); err != nil {
		t.Fatalf("EnsureCollections: %v", err)
	}

	for coll, want := range map[string]bool{"items": true, "bare": false} {
		plan := serverPlan(t, s, coll)
		if got := usesIndex(plan, "_id_expr"); got != want {
			t.Errorf("%s: uses _id expression index = %v, want %v; plan:\n%s", coll, got, want, plan)
		}
	}
}

// serverPlan returns the SQLite plan lines FerretDB reports for a find by _id.
//
// It runs a real find first. EXPLAIN QUERY PLAN executes no transaction, so
// SQLite does not notice on that connection that the schema changed (our
// index was added from another connection) and plans with the stale schema;
// a real query notices, reloads the schema and re-plans. Without the find,
// FerretDB reports a SCAN that its queries do not actually perform.
func serverPlan(t *testing.T, s *store.Store, coll string) string {
	t.Helper()
	err := s.DB().Collection(coll).FindOne(context.Background(), bson.D{{Key: "_id", Value: "id00042"}}).Err()
	if err != nil {
		t.Fatalf("find in %s: %v", coll, err)
	}
	cmd := bson.D{
		{Key: "explain", Value: bson.D{
			{Key: "find", Value: coll},
			{Key: "filter", Value: bson.D{{Key: "_id", Value: "id00042"}}},
		}},
	}
	var res struct {
		QueryPlanner struct {
			Plan []string `bson:"Plan"`
		} `bson:"queryPlanner"`
		FilterPushdown bool `bson:"filterPushdown"`
	}
	if err := s.DB().RunCommand(context.Background(), cmd).Decode(&res); err != nil {
		t.Fatalf("explain: %v", err)
	}
	if !res.FilterPushdown {
		t.Errorf("%s: FerretDB did not push the _id filter down to SQLite", coll)
	}
	return strings.Join(res.QueryPlanner.Plan, "\n")
}

// usesIndex reports whether the plan searches by an index whose name ends
// with suffix, and scans nothing.
func usesIndex(plan, suffix string) bool {
	return !strings.Contains(plan, "SCAN") &&
		strings.Contains(plan, "SEARCH") &&
		strings.Contains(plan, "USING INDEX") &&
		(suffix == "" || strings.Contains(plan, suffix))
}
