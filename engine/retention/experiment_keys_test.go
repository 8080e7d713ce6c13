package retention

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExperimentKeys(t *testing.T) {
	t.Parallel()
	got := ExperimentKeys([]string{"unsubscribe.step3.title", "signIn.title", "unsubscribe.reason.2", "dashboard.title"})
	want := []string{"unsubscribe.reason.2", "unsubscribe.step3.title", "offer.step3", "offer.step7",
		"offer.reason.not_using_enough", "offer.reason.no_results", "offer.reason.priorities_changed",
		"offer.reason.only_trial", "offer.reason.cutting_expenses", "offer.reason.free_alternative", "offer.reason.other"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ExperimentKeys (-want +got):\n%s", diff)
	}
}

func TestStepOfCopyKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		key  string
		step Step
		ok   bool
	}{
		{"a step's key", "unsubscribe.step0.title", StepBenefits, true},
		{"the last step", "unsubscribe.step8.button", StepCancel, true},
		{"a step's key without a dot after the number", "unsubscribe.step7", StepGiftMonth, true},
		{"a reason shows on the survey", "unsubscribe.reason.3", StepReason, true},
		{"no such step", "unsubscribe.step9.title", 0, false},
		{"not a number", "unsubscribe.stepx.title", 0, false},
		{"another flow key", "unsubscribe.title", 0, false},
		{"not the flow", "signIn.title", 0, false},
		{"an offer slot", "offer.step3", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			step, ok := StepOfCopyKey(tc.key)
			if step != tc.step || ok != tc.ok {
				t.Errorf("StepOfCopyKey(%q) = %d, %v; want %d, %v", tc.key, step, ok, tc.step, tc.ok)
			}
		})
	}
}
