package server_test

import (
	"context"
	"net/http"
	"testing"
)

// The spec's event calls are kept in the events collection with who sent
// them; the no-subscription modal's sww_modal log is one of them.
func TestTrackedEventsAreStored(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	u := h.subscriber("ann@example.com", "correct-horse")
	h.signIn("ann@example.com", "correct-horse")
	r := h.action("event.track", map[string]any{"event": "cancel_click", "props": map[string]any{"source": "my_plan"}})
	if r.status != http.StatusOK {
		t.Fatalf("track: %d %v", r.status, r.body)
	}
	got, err := h.app.Events.Recent(context.Background(), "cancel_click", 5)
	if err != nil || len(got) != 1 {
		t.Fatalf("events %+v %v", got, err)
	}
	e := got[0]
	if e.UserID != u.ID || e.SubscriptionID != "sub-"+u.ID || e.Project == "" || e.Props["source"] != "my_plan" || e.Host == "" {
		t.Fatalf("event %+v", e)
	}
}
