package mongostore

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine/store/storetest"
)

// The MongoDB stores' contract suites run against the test binary's shared
// server: the tests' FerretDB (glimpse-testdb, which proves the queries and
// the mappings, not MongoDB's atomicity) or the MongoDB at
// GLIMPSE_TEST_MONGODB_URI.
func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// openDB returns a database of the test's own with every declared
// collection and index. Every query the test sends is checked when it ends:
// the test fails on one whose filter and sort no declared index serves.
func openDB(t *testing.T) *mongo.Database {
	t.Helper()
	st := storetest.OpenMongo(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := Ensure(ctx, st); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]string{} // what was sent → why no index serves it ("" when one does)
	storetest.Watch(t, st.DB(), func(name string, cmd bson.Raw) {
		q, ok := storetest.QueryOf(name, cmd)
		if !ok {
			return
		}
		for _, f := range q.Filters {
			key := fmt.Sprintf("%s %s filter %s sort %s", q.Command, q.Collection, f, q.Sort)
			why := uncovered(q.Collection, f, q.Sort)
			if scanned, ok := walksIndex(q.Collection, f, q.Sort, cmd); ok {
				why = ""
			} else if scanned != "" {
				why = scanned
			}
			mu.Lock()
			seen[key] = why
			mu.Unlock()
		}
	})
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for q, why := range seen {
			if why != "" {
				t.Errorf("%s: %s", q, why)
			}
		}
	})
	return st.DB()
}

// uncovered says why no declared index of the collection serves a query's
// filter and sort, or "" when one does. An index serves a query when its
// keys begin with the filter's equality fields (in any order), continue with
// the sort's fields in order (all in the index's directions or all
// reversed), and then, if the filter has ranges, with a range field: the
// equality-sort-range order that lets MongoDB walk the index without a scan
// or an in-memory sort (https://www.mongodb.com/docs/manual/tutorial/equality-sort-range-guideline/).
// A filter on _id alone is served by the index every collection has.
func uncovered(collection string, filter, sort bson.Raw) string {
	eq, ranges, err := filterFields(filter)
	if err != nil {
		return err.Error()
	}
	sortKeys, err := keysOf(sort)
	if err != nil {
		return err.Error()
	}
	if slices.Contains(eq, "_id") && len(sortKeys) == 0 {
		return ""
	}
	if len(eq) == 0 && len(ranges) == 0 && len(sortKeys) == 0 {
		return "reads the whole collection"
	}
	// Every collection also has its index on _id (ranges and sorts on it).
	idIndex := index{name: "_id_", keys: bson.D{{Key: "_id", Value: 1}}}
	for _, idx := range append([]index{idIndex}, indexes(collection)...) {
		keys, err := keysOf(idx.keys)
		if err != nil {
			return err.Error()
		}
		if serves(keys, eq, ranges, sortKeys) {
			return ""
		}
	}
	return fmt.Sprintf("no declared index on %s serves equality %v, ranges %v, sort %v", collection, eq, ranges, sortKeys)
}

type indexKey struct {
	field string
	dir   int
}

func serves(keys []indexKey, eq, ranges []string, sort []indexKey) bool {
	if len(keys) < len(eq) {
		return false
	}
	for _, k := range keys[:len(eq)] {
		if !slices.Contains(eq, k.field) {
			return false
		}
	}
	rest := keys[len(eq):]
	if len(sort) > 0 {
		if len(rest) < len(sort) {
			return false
		}
		flip := 0
		for i, s := range sort {
			if rest[i].field != s.field {
				return false
			}
			f := s.dir * rest[i].dir
			if flip == 0 {
				flip = f
			} else if f != flip {
				return false
			}
		}
		rest = rest[len(sort):]
		if len(ranges) == 0 || slices.Contains(ranges, sort[0].field) {
			return true
		}
	}
	if len(ranges) == 0 {
		return len(eq) > 0 || len(sort) > 0
	}
	// A range on a field after the equality (and sort) prefix bounds the
	// walk; a range on any other field is checked on the documents found,
	// which is fine once an equality has narrowed them.
	if len(rest) > 0 && slices.Contains(ranges, rest[0].field) {
		return true
	}
	return len(eq) > 0
}

// walksIndex allows, narrowly, the one query no index bounds: an
// unanchored $regex on a field (Subscriptions.WithEmailContaining; MongoDB
// has no substring index). It is bounded only when the find is hinted to a
// declared index led by that field, sorted by the field and limited: then
// MongoDB walks that index's keys in order, tests the expression on each
// key without reading its document, and stops at the limit. ok reports
// such a query; why says what a $regex query lacks ("" when it has none).
func walksIndex(collection string, filter, sort bson.Raw, cmd bson.Raw) (why string, ok bool) {
	elems, err := filter.Elements()
	if err != nil {
		return err.Error(), false
	}
	field := ""
	for _, e := range elems {
		if doc, isDoc := e.Value().DocumentOK(); isDoc {
			if _, err := doc.LookupErr("$regex"); err == nil {
				if field != "" {
					return "a $regex on two fields", false
				}
				field = e.Key()
			}
		}
	}
	if field == "" {
		return "", false
	}
	sortKeys, err := keysOf(sort)
	if err != nil {
		return err.Error(), false
	}
	hint, _ := cmd.Lookup("hint").StringValueOK()
	limit, limited := cmd.Lookup("limit").AsInt64OK()
	if len(sortKeys) == 0 || sortKeys[0].field != field || !limited || limit < 1 {
		return fmt.Sprintf("a $regex on %s must be sorted by it and limited, to walk its index and stop", field), false
	}
	for _, idx := range indexes(collection) {
		if keys, err := keysOf(idx.keys); err == nil && idx.name == hint && keys[0].field == field {
			return "", true
		}
	}
	return fmt.Sprintf("a $regex on %s must be hinted to a declared index led by it (hint %q)", field, hint), false
}

// filterFields splits a filter's top-level fields into equalities and
// ranges. Only the shapes the stores send are understood; anything else is
// an error, so a new shape is looked at before it ships.
func filterFields(filter bson.Raw) (eq, ranges []string, err error) {
	elems, err := filter.Elements()
	if err != nil {
		return nil, nil, err
	}
	for _, e := range elems {
		key := e.Key()
		if strings.HasPrefix(key, "$") {
			return nil, nil, fmt.Errorf("filter operator %s is not understood by the coverage check", key)
		}
		doc, isDoc := e.Value().DocumentOK()
		if !isDoc {
			eq = append(eq, key)
			continue
		}
		ops, err := doc.Elements()
		if err != nil {
			return nil, nil, err
		}
		kind := ""
		for _, op := range ops {
			switch op.Key() {
			case "$eq", "$in":
				if kind == "" {
					kind = "eq"
				}
			case "$gt", "$gte", "$lt", "$lte":
				kind = "range"
			case "$ne", "$exists", "$nin", "$regex": // $regex: see walksIndex
				if kind == "" {
					kind = "residual"
				}
			default:
				return nil, nil, fmt.Errorf("operator %s on %s is not understood by the coverage check", op.Key(), key)
			}
		}
		switch kind {
		case "eq":
			eq = append(eq, key)
		case "range":
			ranges = append(ranges, key)
		}
	}
	return eq, ranges, nil
}

func keysOf(v any) ([]indexKey, error) {
	var d bson.D
	switch x := v.(type) {
	case bson.D:
		d = x
	case bson.Raw:
		if len(x) == 0 {
			return nil, nil
		}
		if err := bson.Unmarshal(x, &d); err != nil {
			return nil, err
		}
	}
	out := make([]indexKey, len(d))
	for i, e := range d {
		dir := 1
		switch n := e.Value.(type) {
		case int32:
			dir = int(n)
		case int64:
			dir = int(n)
		case int:
			dir = n
		case float64:
			dir = int(n)
		}
		out[i] = indexKey{field: e.Key, dir: dir}
	}
	return out, nil
}
