package server

import "testing"

// A name or path given twice is refused when the server is built, so a
// feature's row can never silently replace another's.
func TestTablesRefuseDuplicates(t *testing.T) {
	t.Parallel()
	if _, err := newActionTable([]actionRow{{name: "a.one"}, {name: "a.two"}, {name: "a.one"}}); err == nil {
		t.Error("an action listed twice was accepted")
	}
	if _, err := newRouteTable([]route{{path: "/x"}, {path: "/y/*"}, {path: "/x"}}); err == nil {
		t.Error("a route listed twice was accepted")
	}
	table, err := newActionTable([]actionRow{{name: "a.one"}, {name: "a.two"}})
	if err != nil || len(table) != 2 {
		t.Fatalf("distinct actions: %v, %d rows", err, len(table))
	}
}

// The server's own tables have no duplicate (New would fail), and every
// action has a handler or an upload.
func TestServerTablesAreWhole(t *testing.T) {
	t.Parallel()
	s := &Server{}
	actions, err := s.actionTable()
	if err != nil {
		t.Fatal(err)
	}
	for name, spec := range actions {
		if (spec.handle == nil) == (spec.upload == nil) || (spec.handle != nil && spec.newRequest == nil) {
			t.Errorf("%s: needs a handler and a request, or an upload", name)
		}
	}
	if _, err := s.routeTable(); err != nil {
		t.Fatal(err)
	}
}
