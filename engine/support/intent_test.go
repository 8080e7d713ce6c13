package support

import "testing"

// An intent its outcome closes is left out of what the log shows; one with
// no outcome (the process died after acting) stays, shown as unfinished.
func TestClosedIntentsAreFoldedIntoTheirOutcome(t *testing.T) {
	entries := []Entry{
		{ID: "3", Action: ActionRefund, Outcome: OutcomeDone, Intent: "1"},
		{ID: "2", Action: ActionExtend, Outcome: OutcomeStarted},
		{ID: "1", Action: ActionRefund, Outcome: OutcomeStarted},
	}
	got := closedIntents(entries)
	if len(got) != 2 || got[0].ID != "3" || got[1].ID != "2" || got[1].Outcome != OutcomeStarted {
		t.Fatalf("shown: %+v", got)
	}
}
