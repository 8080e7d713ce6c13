package server_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"glimpse/engine/billing"
	"glimpse/engine/experiment"
	"glimpse/engine/staff"
)

// experimentForm is the experiment form's values as the renderer sends
// them: every variant row, those not given empty; values holds a value and
// a weight for each variant given.
func experimentForm(name, key string, values ...string) map[string]any {
	form := map[string]any{"/exp/id": "", "name": name, "kind": "copy", "key": key,
		"hypothesis": "A warmer text keeps more people", "metric": "save_rate", "holdout": ""}
	for i := range 4 {
		n := string(rune('0' + i))
		form["v"+n+"name"], form["v"+n+"value"], form["v"+n+"weight"] = "", "", ""
		if 2*i+1 < len(values) {
			form["v"+n+"value"], form["v"+n+"weight"] = values[2*i], values[2*i+1]
		}
	}
	return form
}

// saveExperiment posts the experiment form's values from the screen that
// shows it, whose rules check them: the experiment's edit screen, or the new
// experiment's.
func (h *harness) saveExperiment(form map[string]any) response {
	h.t.Helper()
	path := "/studio/experiments/new"
	if id, _ := form["/exp/id"].(string); id != "" {
		path = "/studio/experiments/edit/" + id
	}
	return h.actionAt(path, "experiment.save", form)
}

// createExperiment saves a new experiment as the signed-in tester and
// returns its id.
func (h *harness) createExperiment(form map[string]any) string {
	h.t.Helper()
	res := h.saveExperiment(form)
	to := replaced(h.t, res)
	id, ok := strings.CutPrefix(to, "/studio/experiments/edit/")
	if !ok {
		h.t.Fatalf("save went to %s", to)
	}
	return id
}

// startExperiment creates the experiment of form and starts it.
func (h *harness) startExperiment(form map[string]any) string {
	h.t.Helper()
	id := h.createExperiment(form)
	if r := h.action("experiment.start", map[string]any{"/exp/id": id}); r.status != http.StatusOK {
		h.t.Fatalf("start: %d %s", r.status, r.raw)
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
		if got := effects(ed.screen(path)); len(got) != 1 || got[0]["to"] != "/studio?from=experiments" {
			t.Errorf("editor at %s: %v", path, got)
		}
	}
	// …where the studio says why.
	if home := string(ed.screen("/studio?from=experiments").raw); !strings.Contains(home, "Only testers and admins can open the A/B experiments") {
		t.Errorf("the studio does not say why an editor was sent back: %s", home)
	}
	if home := string(ed.screen("/studio").raw); strings.Contains(home, "studio-turned-away") {
		t.Error("the studio's home explains a visit nobody made")
	}
	if r := ed.action("experiment.preview", map[string]any{"/form": map[string]any{"key": "unsubscribe.step0.title"}}); r.status != http.StatusForbidden {
		t.Errorf("an editor composed an experiment preview: %d %s", r.status, r.raw)
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
	// The form's rules first, in the words the screen shows; then the
	// experiment package's, in the same copy.
	bad := h.saveExperiment(experimentForm("", "signIn.title", "", "50", "", "x"))
	if diff := cmp.Diff(map[string]any{"name": "This field is required.", "v1weight": "A weight is a whole number (e.g. 50)."},
		fieldErrors(bad)); bad.status != http.StatusUnprocessableEntity || diff != "" {
		t.Fatalf("a form breaking its rules: %d, field errors (-want +got):\n%s", bad.status, diff)
	}
	bad = h.saveExperiment(experimentForm("Bad", "signIn.title", "", "50", "", ""))
	if diff := cmp.Diff(map[string]any{"key": "Choose a copy key of the unsubscribe flow (unsubscribe.…).",
		"v1value": "A variant needs its text (or offer id).", "v1weight": "A weight is a whole number (e.g. 50)."},
		fieldErrors(bad)); bad.status != http.StatusUnprocessableEntity || diff != "" {
		t.Fatalf("an invalid experiment: %d, field errors (-want +got):\n%s", bad.status, diff)
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

// offerForm is an offer experiment's form.
func offerForm(name, slot string, values ...string) map[string]any {
	form := experimentForm(name, slot, values...)
	form["kind"] = "offer"
	return form
}

// answer gives the survey's reason and a review, and returns where the
// review leads.
func (h *harness) answer(attempt, reason string) string {
	h.t.Helper()
	if to := replaced(h.t, h.actionAt(stepPath(attempt, 5), "unsubscribe.reason", map[string]any{"/attempt": attempt, "reason": reason})); to != stepPath(attempt, 6) {
		h.t.Fatalf("reason went to %s", to)
	}
	return replaced(h.t, h.actionAt(stepPath(attempt, 6), "unsubscribe.review", map[string]any{"/attempt": attempt, "stars": nil, "review": "ok"}))
}

// An offer experiment changes the flow: two subscribers in the two variants
// of step 3's slot are offered different things there, a reason's slot
// routes the review elsewhere, each shown offer counts one exposure; with
// no experiment the flow is the spec's.
func TestOfferExperimentChangesTheFlow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const planChange, giftMonth = `"unsubscribe.change_plan"`, `"unsubscribe.gift_month"`

	// No experiment: step 3 offers the plan change, 'other' leads to the
	// free month.
	h.member("none@example.com", billing.FamilyThreeMonth)
	a0 := h.startFlow()
	if raw := string(h.step(a0, 3).raw); !strings.Contains(raw, planChange) || strings.Contains(raw, giftMonth) {
		t.Fatalf("step 3 without an experiment: %s", raw)
	}
	if to := h.answer(a0, "other"); to != stepPath(a0, 7) {
		t.Fatalf("review without an experiment went to %s", to)
	}
	if raw := string(h.step(a0, 7).raw); !strings.Contains(raw, giftMonth) {
		t.Fatalf("step 7 without an experiment: %s", raw)
	}

	h.studioSignIn(staff.RoleTester)
	step3 := h.createExperiment(offerForm("Step 3 offer", "offer.step3", "", "50", "gift_month", "50"))
	route := h.createExperiment(offerForm("Other → plan change", "offer.reason.other", "", "0", "plan_change", "100"))
	for _, id := range []string{step3, route} {
		if r := h.action("experiment.start", map[string]any{"/exp/id": id}); r.status != http.StatusOK {
			t.Fatalf("start: %d %s", r.status, r.raw)
		}
	}
	ctx := context.Background()
	e, err := h.app.Experiments.Get(ctx, step3)
	if err != nil {
		t.Fatal(err)
	}
	// Subscribers until one lands in each variant (assignment is by id).
	got := map[string]string{} // variant → attempt
	for i := 0; len(got) < 2 && i < 40; i++ {
		sub := h.member("s"+string(rune('a'+i%26))+string(rune('a'+i/26))+"@example.com", billing.FamilyThreeMonth)
		v := e.Assign(sub.UserID).ID
		if got[v] != "" {
			continue
		}
		attempt := h.startFlow()
		got[v] = attempt
		raw := string(h.step(attempt, 3).raw)
		want, not := planChange, giftMonth
		if v == "b" {
			want, not = giftMonth, planChange
		}
		if !strings.Contains(raw, want) || strings.Contains(raw, not) {
			t.Fatalf("variant %s: step 3 shows %s", v, raw)
		}
		page := h.step(attempt, 3) // again: still one exposure
		if exps, _ := page.body["meta"].(map[string]any)["experiments"].([]any); len(exps) != 2 {
			t.Errorf("variant %s: meta.experiments = %v", v, exps)
		}
		// Every subscriber is routed by 'other' to step 3 (weights 0/100).
		if to := h.answer(attempt, "other"); to != stepPath(attempt, 3) {
			t.Fatalf("variant %s: 'other' went to %s", v, to)
		}
		if s := h.summary(attempt, sub.UserID); len(s.OffersShown) == 0 {
			t.Errorf("variant %s: no offer shown recorded: %+v", v, s)
		}
	}
	if len(got) < 2 {
		t.Fatalf("40 subscribers all in one variant: %v", got)
	}
	if err := h.app.Experiments.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := h.app.Experiments.Results(ctx, e, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Variants[0].Exposures != 1 || res.Variants[1].Exposures != 1 {
		t.Errorf("step 3 exposures: %+v / %+v", res.Variants[0].Counts, res.Variants[1].Counts)
	}
	re, _ := h.app.Experiments.Get(ctx, route)
	rres, err := h.app.Experiments.Results(ctx, re, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rres.Variants[1].Exposures != 2 {
		t.Errorf("routing exposures: %+v", rres.Variants[1].Counts)
	}
}

// The experiment form's live preview draws each variant, unsaved, in the
// step its key changes, with the step's buttons as buttons.
func TestExperimentLivePreview(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleTester)
	form := experimentForm("Headline", "unsubscribe.step0.title", "", "50", "Stay a little longer", "50")
	delete(form, "/exp/id")
	r := h.actionAt("/studio/experiments/new", "experiment.preview", map[string]any{"/form": form})
	if r.status != http.StatusOK {
		t.Fatalf("preview: %d %s", r.status, r.raw)
	}
	raw := string(r.raw)
	for _, want := range []string{`"path":"/preview"`, "Stay a little longer", "Before you go", `"type":"button","label":"Stay premium"`,
		`"label":"A"`, `"label":"B"`} {
		if !strings.Contains(raw, want) {
			t.Errorf("the preview lacks %s: %s", want, raw)
		}
	}
}

// A subscriber in the no-offer holdout of an offer experiment sees no
// offer anywhere: step 3 (their experiment's slot) moves on to step 4, the
// review leads straight to the final cancel where the free month would be,
// and step 7 asked for directly does too; they are exposed once, where the
// offer would have been, and counted under the holdout's arm.
func TestHoldoutSeesNoOfferAndCountsApart(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleTester)
	form := offerForm("Step 3 offer", "offer.step3", "", "50", "gift_month", "50")
	form["holdout"] = "20"
	id := h.startExperiment(form)
	ctx := context.Background()
	e, err := h.app.Experiments.Get(ctx, id)
	if err != nil || e.Holdout != 20 {
		t.Fatalf("stored holdout %d, %v", e.Holdout, err)
	}
	var userID string
	for i := 0; userID == "" && i < 200; i++ {
		sub := h.member("held"+strconv.Itoa(i)+"@example.com", billing.FamilyThreeMonth)
		if e.InHoldout(sub.UserID) {
			userID = sub.UserID
		}
	}
	if userID == "" {
		t.Fatal("nobody of 200 in a 20% holdout")
	}
	attempt := h.startFlow()
	if raw := string(h.step(attempt, 2).raw); !strings.Contains(raw, "/dashboard/unsubscribe/3?attempt=") {
		t.Fatalf("step 2's plan change does not ask for step 3: %s", raw)
	}
	if to := replaced(t, h.screen(stepPath(attempt, 3))); to != stepPath(attempt, 4) {
		t.Fatalf("the holdout's step 3 went to %s, want step 4", to)
	}
	if to := h.answer(attempt, "other"); to != stepPath(attempt, 8) {
		t.Fatalf("the holdout's review went to %s, want the final cancel", to)
	}
	if to := replaced(t, h.screen(stepPath(attempt, 7))); to != stepPath(attempt, 8) {
		t.Fatalf("the holdout's step 7 went to %s, want the final cancel", to)
	}
	if raw := string(h.step(attempt, 8).raw); strings.Contains(raw, `"unsubscribe.gift_month"`) || strings.Contains(raw, `"unsubscribe.change_plan"`) {
		t.Fatalf("the final cancel offers something: %s", raw)
	}
	if s := h.summary(attempt, userID); len(s.OffersShown) != 0 {
		t.Errorf("offers shown to the holdout: %v", s.OffersShown)
	}
	if err := h.app.Experiments.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := h.app.Experiments.Results(ctx, e, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Variants) != 3 || res.Variants[2].ID != experiment.HoldoutID {
		t.Fatalf("results arms: %+v", res.Variants)
	}
	want := experiment.Counts{Attempts: 1, Exposures: 1}
	if got := res.Variants[2].Counts; got != want || res.Variants[0].Exposures+res.Variants[1].Exposures != 0 {
		t.Errorf("holdout %+v (want %+v), variants %+v / %+v", got, want, res.Variants[0].Counts, res.Variants[1].Counts)
	}
	// The experiment's page lists the holdout among the arms.
	if raw := string(h.screen("/studio/experiments/edit/" + id).raw); !strings.Contains(raw, "Holdout (no offer) 20%") {
		t.Errorf("the experiment's page does not list the holdout: %s", raw)
	}
}

// The live preview of an offer experiment draws each arm's step for the
// sample subscriber, dated by the server's clock (a weekly plan bought on
// Nov 1 renews Nov 8; a free month moves that to Dec 8), and the holdout's
// card: the final cancel, with no offer.
func TestOfferLivePreviewHasDatesAndTheHoldout(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleTester)
	form := offerForm("Step 7 offer", "offer.step7", "", "50", "plan_change", "50")
	form["holdout"] = "10"
	delete(form, "/exp/id")
	r := h.actionAt("/studio/experiments/new", "experiment.preview", map[string]any{"/form": form})
	if r.status != http.StatusOK {
		t.Fatalf("preview: %d %s", r.status, r.raw)
	}
	raw := string(r.raw)
	for _, want := range []string{"your next payment moves to Dec 8, 2026.", `"label":"Holdout (no offer)"`, "$13.99",
		"You keep access until Nov 8, 2026."} {
		if !strings.Contains(raw, want) {
			t.Errorf("the preview lacks %q: %s", want, raw)
		}
	}
}

// A variant whose offer at a step is "none" is exposed where the control's
// offer shows (step 3 here, which it skips), not never: without that, its
// arm counted no one and every such experiment read as a sample ratio
// mismatch.
func TestNoOfferVariantIsExposedWhereTheOfferWouldShow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleTester)
	id := h.startExperiment(offerForm("Step 3: offer or nothing", "offer.step3", "", "50", "none", "50"))
	ctx := context.Background()
	e, err := h.app.Experiments.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i := 0; len(seen) < 2 && i < 40; i++ {
		sub := h.member("n"+string(rune('a'+i%26))+string(rune('a'+i/26))+"@example.com", billing.FamilyThreeMonth)
		v := e.Assign(sub.UserID).ID
		if seen[v] {
			continue
		}
		seen[v] = true
		attempt := h.startFlow()
		r := h.screen(stepPath(attempt, 3))
		if v == "b" && strings.Contains(string(r.raw), `"unsubscribe.change_plan"`) {
			t.Fatalf("the no-offer variant was offered the plan change: %s", r.raw)
		}
		h.screen(stepPath(attempt, 3)) // again: still one exposure
	}
	if len(seen) < 2 {
		t.Fatalf("40 subscribers all in one variant: %v", seen)
	}
	if err := h.app.Experiments.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := h.app.Experiments.Results(ctx, e, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Variants[0].Exposures != 1 || res.Variants[1].Exposures != 1 {
		t.Errorf("exposures: control %+v, no offer %+v; want one each", res.Variants[0].Counts, res.Variants[1].Counts)
	}
}
