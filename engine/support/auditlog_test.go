package support_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"glimpse/engine/store/sqlstore"
	"glimpse/engine/store/storetest"
	"glimpse/engine/support"
)

// TestAuditPagesAreNewestFirstAndFull: the newest page reaches back across
// months and stops at its limit, newest first; a subscriber's page has only
// their entries; intents closed by their outcomes are folded away and the
// page is still full.
func TestAuditPagesAreNewestFirstAndFull(t *testing.T) {
	ctx := context.Background()
	log := sqlstore.NewSupportAudit(storetest.OpenSQL(t))
	now := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	at := []time.Time{
		time.Date(2026, 9, 30, 23, 0, 0, 0, time.UTC),
		time.Date(2026, 10, 2, 9, 0, 0, 0, time.UTC),
		time.Date(2026, 10, 31, 23, 59, 0, 0, time.UTC),
		time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 3, 8, 0, 0, 0, time.UTC),
	}
	for i, when := range at {
		who := "ann@example.com"
		if i%2 == 1 {
			who = "bob@example.com"
		}
		// Each action writes its intent, then its outcome naming it.
		intent, err := support.AppendAt(ctx, log, support.Entry{At: when, Staff: "sue@glimpse.test", Action: support.ActionRefund,
			Subscriber: who, Reason: fmt.Sprint("reason ", i), Outcome: support.OutcomeStarted})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := support.AppendAt(ctx, log, support.Entry{At: when.Add(time.Second), Staff: "sue@glimpse.test",
			Action: support.ActionRefund, Subscriber: who, Reason: fmt.Sprint("reason ", i), Outcome: support.OutcomeDone,
			Intent: intent}); err != nil {
			t.Fatal(err)
		}
	}
	// An intent with no outcome (the process died after acting) is shown.
	if _, err := support.AppendAt(ctx, log, support.Entry{At: now.Add(-time.Minute), Staff: "sue@glimpse.test",
		Action: support.ActionExtend, Subscriber: "ann@example.com", Reason: "unfinished", Outcome: support.OutcomeStarted}); err != nil {
		t.Fatal(err)
	}
	page := func(es []support.Entry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Reason+" "+e.Outcome)
		}
		return out
	}
	for _, tc := range []struct {
		subscriber string
		limit      int
		want       []string
	}{
		{"", 3, []string{"unfinished started", "reason 4 done", "reason 3 done"}},
		{"", 50, []string{"unfinished started", "reason 4 done", "reason 3 done", "reason 2 done", "reason 1 done", "reason 0 done"}},
		{"bob@example.com", 50, []string{"reason 3 done", "reason 1 done"}},
		{"ann@example.com", 2, []string{"unfinished started", "reason 4 done"}},
	} {
		got, err := support.NewestPage(ctx, log, now, tc.subscriber, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(page(got)) != fmt.Sprint(tc.want) {
			t.Errorf("page %q of %d: %v, want %v", tc.subscriber, tc.limit, page(got), tc.want)
		}
	}
}
