package storetest

import (
	"context"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// commandMonitor hands every command the shared MongoDB server is sent to
// the function watching its database (Watch).
func commandMonitor() *event.CommandMonitor {
	return &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
		if fn, ok := watchers.Load(e.DatabaseName); ok {
			fn.(func(string, bson.Raw))(e.CommandName, bson.Raw(e.Command))
		}
	}}
}

// watchers holds, by database name, the functions Watch registered.
var watchers sync.Map

// Watch calls fn with every command sent to db (a test's database) from now
// until the test ends: the MongoDB store's index-coverage check.
func Watch(tb testing.TB, db *mongo.Database, fn func(name string, cmd bson.Raw)) {
	watchers.Store(db.Name(), fn)
	tb.Cleanup(func() { watchers.Delete(db.Name()) })
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

var emptyDoc = func() bson.Raw { b, _ := bson.Marshal(bson.D{}); return b }()

func docOrEmpty(v bson.RawValue) bson.Raw {
	if d, ok := v.DocumentOK(); ok {
		return d
	}
	return emptyDoc
}
