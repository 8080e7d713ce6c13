package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine/store"
)

// The query check (docs/store.md §10): every test binary that uses Main sees
// each query its tests make through the shared server (find, update,
// delete, findAndModify, count, aggregate, distinct), keeps one sample of
// each shape (the collection, the filter's fields and operators, the sort)
// with the code that sent it, and after the tests asks the embedded FerretDB
// for each shape's plan (the explain command). It fails on a shape that
// scans a collection that grows with subscribers. Nothing here lists the
// queries: a new query site is checked the first time a test runs it.

// Bounded lists the collections whose size does not grow with subscribers,
// with why; a scan of one is cheap at any scale. Every collection not
// listed is taken to grow.
var Bounded = map[string]string{
	"settings": "a few documents: the secret and the once-only start-up marks",
	"health":   "one document per app instance",
}

// Periodic lists scans of growing collections made by passes that run now
// and then off the request path (a sweep of what expired, the renewal pass,
// the profile refresh, start-up work done once), by collection and the
// filter field that drives them. FerretDB v1 pushes down no range, so such
// a pass cannot be on an index on the embedded store; each one is accepted
// here with its reason, and the check still fails on any other shape.
var Periodic = map[string]map[string]string{
	"claims": {"expiresAt": "the sweep deletes expired claims"},
}

// Rare lists the functions whose queries may scan a growing collection
// because they run rarely and off every request's path: the privacy
// sweeps. A query is excused when one of these
// is on its stack; a shape also sent from anywhere else is checked like any
// other (the check keeps watching an excused shape's senders).
var Rare = map[string]string{}

// queryShape is one kind of query: what the check plans.
type queryShape struct {
	kind, collection, filter, sort string
}

// querySample is one query of a shape, kept to be planned, with the code
// that sent it.
type querySample struct {
	filter, sort bson.Raw
	site         string
	fields       []string // the filter's top-level fields
	// rare is why every sender of the shape so far was a Rare function;
	// "" once any other sent it.
	rare string
}

var queries = struct {
	sync.Mutex
	on     bool
	shapes map[queryShape]querySample
}{on: true, shapes: map[queryShape]querySample{}}

// queryMonitor records the shape of every query the shared server is sent.
func queryMonitor() *event.CommandMonitor {
	return &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if fn, ok := watchers.Load(e.DatabaseName); ok {
			fn.(func(string, bson.Raw))(e.CommandName, bson.Raw(e.Command))
		}
		recordQuery(e.CommandName, bson.Raw(e.Command))
	}}
}

// Query is what a command asks of a collection: its filters (one per
// statement of an update or delete) and its sort.
type Query struct {
	Command, Collection string
	Filters             []bson.Raw
	Sort                bson.Raw
}

// QueryOf reads the query out of a command sent to the server: find, count,
// distinct, findAndModify, update, delete and an aggregate's leading $match.
// ok is false for any other command.
func QueryOf(name string, cmd bson.Raw) (q Query, ok bool) {
	coll, _ := cmd.Lookup(name).StringValueOK()
	var filters []bson.Raw
	var sort bson.Raw
	switch name {
	case "find":
		filters = append(filters, docOrEmpty(cmd.Lookup("filter")))
		sort = docOrEmpty(cmd.Lookup("sort"))
	case "count", "distinct":
		filters = append(filters, docOrEmpty(cmd.Lookup("query")))
	case "findAndModify":
		filters = append(filters, docOrEmpty(cmd.Lookup("query")))
		sort = docOrEmpty(cmd.Lookup("sort"))
	case "update", "delete":
		list := "updates"
		if name == "delete" {
			list = "deletes"
		}
		arr, ok := cmd.Lookup(list).ArrayOK()
		if !ok {
			return q, false
		}
		vals, _ := arr.Values()
		for _, v := range vals {
			if d, ok := v.DocumentOK(); ok {
				filters = append(filters, docOrEmpty(d.Lookup("q")))
			}
		}
	case "aggregate":
		arr, ok := cmd.Lookup("pipeline").ArrayOK()
		if !ok {
			return q, false
		}
		vals, _ := arr.Values()
		filter := bson.Raw(emptyDoc)
		if len(vals) > 0 {
			if d, ok := vals[0].DocumentOK(); ok {
				if m, ok := d.Lookup("$match").DocumentOK(); ok {
					filter = m
				}
			}
		}
		filters = append(filters, filter)
	default:
		return q, false
	}
	if coll == "" {
		return q, false
	}
	return Query{Command: name, Collection: coll, Filters: filters, Sort: sort}, true
}

// watchers holds, by database name, the functions Watch registered.
var watchers sync.Map

// Watch calls fn with every command sent to db (a test's database) from now
// until the test ends: the MongoDB store's index-coverage check.
func Watch(tb testing.TB, db *mongo.Database, fn func(name string, cmd bson.Raw)) {
	watchers.Store(db.Name(), fn)
	tb.Cleanup(func() { watchers.Delete(db.Name()) })
}

func recordQuery(name string, cmd bson.Raw) {
	q, ok := QueryOf(name, cmd)
	if !ok {
		return
	}
	coll, filters, sort := q.Collection, q.Filters, q.Sort
	queries.Lock()
	defer queries.Unlock()
	if !queries.on {
		return
	}
	site, rare := "", ""
	for _, f := range filters {
		s := queryShape{kind: name, collection: coll, filter: shapeOf(f), sort: shapeOf(sort)}
		prev, seen := queries.shapes[s]
		if seen && prev.rare == "" {
			continue
		}
		// Only a shape not seen yet, or seen only from rare jobs, costs a
		// walk of the stack.
		if site == "" {
			site, rare = callSite()
		}
		if strings.Contains(site, "_test.go:") {
			return // a test looking at what the code wrote, not the code's own query
		}
		if seen && rare != "" {
			continue
		}
		queries.shapes[s] = querySample{filter: f, sort: sort, site: site, fields: topFields(f), rare: rare}
	}
}

var emptyDoc = func() bson.Raw { b, _ := bson.Marshal(bson.D{}); return b }()

func docOrEmpty(v bson.RawValue) bson.Raw {
	if d, ok := v.DocumentOK(); ok {
		return d
	}
	return emptyDoc
}

// shapeOf writes a filter or sort with its values replaced by their types:
// {"userId": string}, {"dueAt": {"$lte": dateTime}}.
func shapeOf(d bson.Raw) string {
	elems, err := d.Elements()
	if err != nil {
		return "?"
	}
	parts := make([]string, 0, len(elems))
	for _, e := range elems {
		v := e.Value()
		var val string
		if sub, ok := v.DocumentOK(); ok {
			val = shapeOf(sub)
		} else {
			val = v.Type.String()
		}
		parts = append(parts, e.Key()+": "+val)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func topFields(d bson.Raw) []string {
	elems, _ := d.Elements()
	var out []string
	for _, e := range elems {
		out = append(out, e.Key())
	}
	return out
}

// callSite names the application function that sent the query (the first
// frame in glimpse's own code outside the store and its tests' helpers),
// and the reason from Rare of the first rare function on the stack, if any.
func callSite() (site, rare string) {
	pcs := make([]uintptr, 128)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	site = "?"
	for {
		f, more := frames.Next()
		if site == "?" && strings.HasPrefix(f.Function, "glimpse/") && !strings.HasPrefix(f.Function, "glimpse/engine/store") {
			site = fmt.Sprintf("%s (%s:%d)", f.Function, shortPath(f.File), f.Line)
		}
		if rare == "" {
			rare = rareReason(f.Function)
		}
		if rare == "" && strings.HasPrefix(f.Function, "glimpse/engine/store/mongostore.") {
			// FerretDB v1 plans no secondary index; the MongoDB stores'
			// queries are checked against their declared indexes by
			// mongostore's coverage test instead.
			rare = "a MongoDB store's query, checked by engine/store/mongostore's coverage test"
		}
		if !more || rare != "" && site != "?" {
			return site, rare
		}
	}
}

// rareReason is Rare's reason for function or a closure inside it.
func rareReason(function string) string {
	for name, reason := range Rare {
		if function == name || strings.HasPrefix(function, name+".") {
			return reason
		}
	}
	return ""
}

func shortPath(p string) string {
	if i := strings.Index(p, "/engine/"); i >= 0 {
		return p[i+1:]
	}
	if i := strings.Index(p, "/screens/"); i >= 0 {
		return p[i+1:]
	}
	return p
}

// checkQueries plans every recorded shape on the embedded server and
// returns what scans a growing collection (none: ""), and the number of
// shapes checked.
func checkQueries(s *store.Store) (failures string, checked int, err error) {
	queries.Lock()
	queries.on = false
	shapes := make([]queryShape, 0, len(queries.shapes))
	for sh := range queries.shapes {
		shapes = append(shapes, sh)
	}
	queries.Unlock()
	slices.SortFunc(shapes, func(a, b queryShape) int {
		return strings.Compare(a.collection+a.kind+a.filter+a.sort, b.collection+b.kind+b.filter+b.sort)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var b [6]byte
	_, _ = rand.Read(b[:])
	scratch := s.WithDatabase("querycheck_" + hex.EncodeToString(b[:]))
	defer func() { _ = scratch.DB().Drop(context.Background()) }()
	var out strings.Builder
	made := map[string]bool{}
	for _, sh := range shapes {
		if _, ok := Bounded[sh.collection]; ok {
			continue
		}
		queries.Lock()
		sample := queries.shapes[sh]
		queries.Unlock()
		if reason := periodicReason(sh.collection, sample.fields); reason != "" || sample.rare != "" {
			continue
		}
		checked++
		if !made[sh.collection] {
			if err := scratch.EnsureCollections(ctx, []store.CollectionSpec{{Name: sh.collection}}); err != nil {
				return "", checked, err
			}
			made[sh.collection] = true
		}
		plan, err := explainFind(ctx, scratch, sh.collection, sample.filter, sample.sort)
		if err != nil {
			return "", checked, fmt.Errorf("explain %s on %s: %w", sh.filter, sh.collection, err)
		}
		if !searchesByIndex(plan) {
			fmt.Fprintf(&out, "  %s %s filter %s sort %s\n    sent by %s\n    plan: %s\n",
				sh.kind, sh.collection, sh.filter, sh.sort, sample.site, strings.ReplaceAll(plan, "\n", "; "))
		}
	}
	return out.String(), checked, nil
}

// periodicReason is why a scan of collection by a filter on fields is
// accepted, or "" when it is not.
func periodicReason(collection string, fields []string) string {
	accepted := Periodic[collection]
	if len(fields) == 0 {
		return accepted[""]
	}
	for _, f := range fields {
		if r := accepted[f]; r != "" {
			return r
		}
	}
	return ""
}

// explainFind asks FerretDB for the SQLite plan of a find with filter and
// sort. FerretDB gives update, delete, findAndModify and count the same
// filter to the same query builder as find (handler/msg_update.go and the
// others call Collection.Query with it), so their plan is find's. A real
// find runs first so that the connection sees the index just made (see
// serverPlan in explain_test.go).
func explainFind(ctx context.Context, s *store.Store, coll string, filter, sort bson.Raw) (string, error) {
	if err := s.DB().Collection(coll).FindOne(ctx, filter).Err(); err != nil && !strings.Contains(err.Error(), "no documents") {
		return "", err
	}
	find := bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: filter}}
	if len(sort) > 5 {
		find = append(find, bson.E{Key: "sort", Value: sort})
	}
	var res struct {
		QueryPlanner struct {
			Plan []string `bson:"Plan"`
		} `bson:"queryPlanner"`
	}
	if err := s.DB().RunCommand(ctx, bson.D{{Key: "explain", Value: find}}).Decode(&res); err != nil {
		return "", err
	}
	return strings.Join(res.QueryPlanner.Plan, "\n"), nil
}

// searchesByIndex reports a plan that finds its rows through an index and
// scans nothing.
func searchesByIndex(plan string) bool {
	return !strings.Contains(plan, "SCAN") && strings.Contains(plan, "SEARCH") && strings.Contains(plan, "USING INDEX")
}
