package prerender

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"glimpse/engine/ui"
)

// notDrawn lists the node types the prerenderer leaves to the renderer, each
// with the reason. An envelope holding one is served without markup, and the
// renderer draws it once it has loaded. The types drawn are drawers' keys.
var notDrawn = map[string]string{
	ui.NodeTypeRichText: "only the reading screens hold it and none is a first screen; drawing it would copy " +
		"the renderer's link rules (runtime/href.ts) into Go",
	ui.NodeTypeLoader: "it stands for work the app does once it runs (password safety's check, the unsubscribe " +
		"flow's waits); those screens are not first screens",
	ui.NodeTypeTextarea:   "only the unsubscribe review, the studio and experiments hold it, none a first screen",
	ui.NodeTypeChoiceList: "only checkout, the unsubscribe survey and experiments hold it, none a first screen",
	ui.NodeTypeRating: "only the unsubscribe review holds it; its stars' names need the renderer's " +
		"rating.star copy with {n} and {max}",
	ui.NodeTypeDialog: "a dialog lives in the envelope's overlays, never in the screen tree drawn here; " +
		"an envelope with one open at load is not drawn (Screen)",
	ui.NodeTypeSteps: "its page is the state at bind and focus moves when it changes; no screen uses it yet",
	ui.NodeTypeEmptyState: "only Analytics before a profile is connected and the dev mailbox hold it, " +
		"neither a first screen",
	ui.NodeTypeFileInput: "the chosen file is browser state and sending it needs the app; only Analytics " +
		"before a profile is connected holds it",
	ui.NodeTypeSplit:       "the studio's desk layout only (staff, not subscribers)",
	ui.NodeTypePreview:     "the studio only: it draws a tree from the state and posts on a timer",
	ui.NodeTypeImageChoice: "the studio only: it scrolls its checked option into view when it mounts",
	ui.NodeTypeNameList: "it reads its names from the server once shown; only the Analytics audience " +
		"dialogs (overlays) hold it",
}

// undecided lists what is wrong with the prerenderer's decision for the node
// types of the schema: a type in neither list, a type in both, a listed type
// the schema does not have, a type left out without a reason.
func undecided(types, drawn []string, skipped map[string]string) []string {
	var problems []string
	for _, kind := range types {
		isDrawn := slices.Contains(drawn, kind)
		reason, isSkipped := skipped[kind]
		switch {
		case isDrawn && isSkipped:
			problems = append(problems, fmt.Sprintf("node type %q is both drawn (drawers) and not drawn (notDrawn)", kind))
		case !isDrawn && !isSkipped:
			problems = append(problems, fmt.Sprintf("node type %q is neither drawn by the prerenderer (drawers, "+
				"prerender.go) nor left to the renderer with a reason (notDrawn, decision_test.go)", kind))
		case isSkipped && reason == "":
			problems = append(problems, fmt.Sprintf("node type %q is not drawn and no reason is given", kind))
		}
	}
	for _, kind := range slices.Concat(drawn, slices.Collect(maps.Keys(skipped))) {
		if !slices.Contains(types, kind) {
			problems = append(problems, fmt.Sprintf("%q is not a node type of schema.json", kind))
		}
	}
	slices.Sort(problems)
	return problems
}

// A node type added to schema.json must be drawn here or left to the
// renderer on purpose: until then this test fails, rather than the screens
// holding the new type silently losing their server-drawn first paint.
func TestEveryNodeTypeIsDecided(t *testing.T) {
	t.Parallel()
	for _, problem := range undecided(ui.NodeTypes, slices.Collect(maps.Keys(drawers)), notDrawn) {
		t.Error(problem)
	}
}

func TestUndecidedFindsEveryGap(t *testing.T) {
	t.Parallel()
	types := []string{"screen", "text", "dialog"}
	tests := []struct {
		name    string
		drawn   []string
		skipped map[string]string
		want    int
	}{
		{"every type decided", []string{"screen", "text"}, map[string]string{"dialog": "in overlays"}, 0},
		{"a type in neither list", []string{"screen"}, map[string]string{"dialog": "in overlays"}, 1},
		{"a type in both lists", []string{"screen", "text", "dialog"}, map[string]string{"dialog": "in overlays"}, 1},
		{"a skip without a reason", []string{"screen", "text"}, map[string]string{"dialog": ""}, 1},
		{"a drawn type the schema lacks", []string{"screen", "text", "gone"}, map[string]string{"dialog": "x"}, 1},
		{"a skipped type the schema lacks", []string{"screen", "text"}, map[string]string{"dialog": "x", "gone": "x"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := undecided(types, tt.drawn, tt.skipped); len(got) != tt.want {
				t.Errorf("undecided = %q, want %d problems", got, tt.want)
			}
		})
	}
}
