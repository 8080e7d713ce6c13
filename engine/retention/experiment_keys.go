package retention

import (
	"slices"
	"strconv"
	"strings"

	"glimpse/engine/experiment"
)

// ExperimentKeys are what an experiment may target, given every copy key a
// brand has: the flow's copy keys (experiment.CopyPrefix) in order, then the
// offer slots, the plan change and free month steps' and the one each
// survey reason but the first routes to (the first keeps the membership and
// routes to no offer).
func ExperimentKeys(copyKeys []string) []string {
	var keys []string
	for _, k := range copyKeys {
		if strings.HasPrefix(k, experiment.CopyPrefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	keys = append(keys, SlotStep(StepPlanChange), SlotStep(StepGiftMonth))
	for _, reason := range Reasons {
		if reason != ReasonKeep {
			keys = append(keys, SlotReason(reason))
		}
	}
	return keys
}

// StepOfCopyKey finds the step that shows a flow copy key:
// unsubscribe.step<N>.… is step N's, unsubscribe.reason.… the survey's.
func StepOfCopyKey(key string) (Step, bool) {
	if rest, ok := strings.CutPrefix(key, "unsubscribe.step"); ok {
		n, _, _ := strings.Cut(rest, ".")
		i, err := strconv.Atoi(n)
		if err == nil && Step(i).Valid() {
			return Step(i), true
		}
		return 0, false
	}
	if strings.HasPrefix(key, "unsubscribe.reason.") {
		return StepReason, true
	}
	return 0, false
}
