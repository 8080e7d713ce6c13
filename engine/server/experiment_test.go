package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"glimpse/engine/billing"
	"glimpse/engine/experiment"
	"glimpse/engine/staff"
)

func experimentForm(name, key string, values ...string) map[string]any {
	form := map[string]any{"/exp/id": "", "name": name, "kind": "copy", "key": key}
	for i := 0; i+1 < len(values); i += 2 {
		n := string(rune('0' + i/2))
		form["v"+n+"name"], form["v"+n+"value"], form["v"+n+"weight"] = "", values[i], values[i+1]
	}
	return form
}

// createExperiment saves a new experiment as the signed-in tester and
// returns its id.
func (h *harness) createExperiment(form map[string]any) string {
	h.t.Helper()
	res := h.action("experiment.save", form)
	to := replaced(h.t, res)
	id, ok := strings.CutPrefix(to, "/studio/experiments/edit/")
	if !ok {
		h.t.Fatalf("save went to %s", to)
	}
	return id
}

// Testers and admins run experiments; editors and subscribers cannot, and a
// tester cannot edit articles.
func TestExperimentRoles(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleTester)
	if id := screenID(h.screen("/studio/experiments")); id != "studio-experiments" {
		t.Fatalf("tester at /studio/experiments sees %q", id)
	}
	if !strings.Contains(string(h.screen("/studio").raw), "/studio/experiments") {
		t.Error("the studio home has no link to the experiments for a tester")
	}
	if id := screenID(h.screen("/studio/experiments/new")); id != "studio-experiment" {
		t.Fatalf("tester at new sees %q", id)
	}
	id := h.createExperiment(experimentForm("Headline", "unsubscribe.step0.title", "", "50", "Before you go…", "50"))
	if r := h.action("experiment.start", map[string]any{"/exp/id": id}); r.status != http.StatusOK {
		t.Fatalf("tester start: %d %s", r.status, r.raw)
	}
	if r := h.action("studio.save", item("news", "carousels-are-back", map[string]any{"title": "x"})); r.status != http.StatusForbidden {
		t.Errorf("a tester saved an article: %d %s", r.status, r.raw)
	}
	for _, path := range []string{"/studio/experiments/edit/" + id, "/studio/experiments/results/" + id} {
		if r := h.screen(path); screenID(r) != "studio-experiment" && screenID(r) != "studio-experiment-results" {
			t.Errorf("tester at %s: %d %s", path, r.status, r.raw)
		}
	}

	// An editor is sent back to the studio and refused every change.
	ed := newHarness(t)
	ed.studioSignIn(staff.RoleEditor)
	if strings.Contains(string(ed.screen("/studio").raw), "/studio/experiments") {
		t.Error("an editor's studio home links to the experiments")
	}
	for _, path := range []string{"/studio/experiments", "/studio/experiments/new", "/studio/experiments/results/x"} {
		if got := effects(ed.screen(path)); len(got) != 1 || got[0]["to"] != "/studio" {
			t.Errorf("editor at %s: %v", path, got)
		}
	}
	if r := ed.action("experiment.save", experimentForm("E", "unsubscribe.step0.title", "", "1", "x", "1")); r.status != http.StatusForbidden {
		t.Errorf("an editor saved an experiment: %d %s", r.status, r.raw)
	}
	if r := ed.action("experiment.start", map[string]any{"/exp/id": id}); r.status != http.StatusForbidden {
		t.Errorf("an editor started an experiment: %d %s", r.status, r.raw)
	}

	// A subscriber (no staff session) can do neither.
	sub := newHarness(t)
	sub.subscriber("ann@example.com", "correct-horse")
	sub.signIn("ann@example.com", "correct-horse")
	if got := effects(sub.screen("/studio/experiments")); len(got) != 1 || got[0]["to"] != "/studio" {
		t.Errorf("a subscriber at /studio/experiments: %v", got)
	}
	if r := sub.action("experiment.start", map[string]any{"/exp/id": id}); r.status != http.StatusUnauthorized {
		t.Errorf("a subscriber started an experiment: %d %s", r.status, r.raw)
	}
	if r := sub.action("studio.save", item("news", "carousels-are-back", map[string]any{"title": "x"})); r.status != http.StatusUnauthorized {
		t.Errorf("a subscriber saved an article: %d %s", r.status, r.raw)
	}
}

// A running copy experiment reaches the flow: the subscriber's step shows
// the variant's text, meta.experiments names it, and the exposure, the
// attempt and the outcome are counted once.
func TestExperimentReachesTheFlow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleTester)
	bad := h.action("experiment.save", experimentForm("", "signIn.title", "", "50", "", "x"))
	if bad.status != http.StatusUnprocessableEntity || fieldErrors(bad)["key"] == nil || fieldErrors(bad)["v1weight"] == nil {
		t.Fatalf("invalid form: %d %s", bad.status, bad.raw)
	}
	// Everyone gets variant B (weights 0 and 100).
	id := h.createExperiment(experimentForm("Step 0 title", "unsubscribe.step0.title", "", "0", "Wait, there is more for you", "100"))
	edit := h.screen("/studio/experiments/edit/" + id)
	if !strings.Contains(string(edit.raw), "Wait, there is more for you") {
		t.Errorf("the edit screen has no preview of variant B: %s", edit.raw)
	}
	before, _ := h.app.Content.Version(context.Background())
	if r := h.action("experiment.start", map[string]any{"/exp/id": id}); r.status != http.StatusOK {
		t.Fatalf("start: %d %s", r.status, r.raw)
	}
	// The start is published as a content version, which every instance's
	// content watch picks up (and reloads the experiments on).
	if after, _ := h.app.Content.Version(context.Background()); after <= before {
		t.Errorf("starting left the content version at %d", after)
	}
	sub := h.member("ann@example.com", billing.FamilyThreeMonth)
	attempt := h.startFlow()
	for range 2 {
		page := h.step(attempt, 0)
		if !strings.Contains(string(page.raw), "Wait, there is more for you") {
			t.Fatalf("step 0 does not show the variant: %s", page.raw)
		}
		meta := page.body["meta"].(map[string]any)
		exps, _ := meta["experiments"].([]any)
		if len(exps) != 1 || exps[0].(map[string]any)["key"] != id || exps[0].(map[string]any)["variant"] != "b" {
			t.Fatalf("meta.experiments = %v", meta["experiments"])
		}
	}
	h.step(attempt, 8)
	if r := h.actionAt(stepPath(attempt, 8), "unsubscribe.cancel", map[string]any{"/attempt": attempt}); r.status != http.StatusOK {
		t.Fatalf("cancel: %d %s", r.status, r.raw)
	}
	ctx := context.Background()
	e, err := h.app.Experiments.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.app.Experiments.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := h.app.Experiments.Results(ctx, e, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := res.Variants[1].Counts
	if b != (experiment.Counts{Attempts: 1, Exposures: 1, Cancels: 1}) || res.Variants[0].Counts != (experiment.Counts{}) {
		t.Errorf("counts: control %+v, B %+v (subscriber %s)", res.Variants[0].Counts, b, sub.UserID)
	}
	results := h.screen("/studio/experiments/results/" + id)
	if screenID(results) != "studio-experiment-results" {
		t.Fatalf("results: %s", results.raw)
	}
	// Pausing takes the variant away at once.
	if r := h.action("experiment.pause", map[string]any{"/exp/id": id}); r.status != http.StatusOK {
		t.Fatalf("pause: %d %s", r.status, r.raw)
	}
	h.member("bob@example.com", billing.FamilyThreeMonth)
	a2 := h.startFlow()
	if strings.Contains(string(h.step(a2, 0).raw), "Wait, there is more for you") {
		t.Error("a paused experiment still shows its variant")
	}
}
