package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"glimpse/engine/billing"
	"glimpse/engine/staff"
)

// Opening the flow twice, and reloading its first page, is one attempt
// and one exposure: the second open resumes the attempt (retention's
// ResumeWithin) and the exposure is a mark stored once.
func TestOpeningTheFlowTwiceIsOneAttempt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleTester)
	id := h.startExperiment(experimentForm("Headline", "unsubscribe.step0.title", "", "50", "Before you go…", "50"))
	h.member("twice@example.com", billing.FamilyThreeMonth)
	first := h.startFlow()
	h.step(first, 0)
	h.step(first, 0) // a reload
	second := h.startFlow()
	if second != first {
		t.Errorf("opening the flow again started attempt %s, not %s", second, first)
	}
	h.step(second, 0)
	ctx := context.Background()
	if err := h.app.Experiments.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	e, _ := h.app.Experiments.Get(ctx, id)
	res, err := h.app.Experiments.Results(ctx, e, 0)
	if err != nil {
		t.Fatal(err)
	}
	var attempts, exposures int64
	for _, v := range res.Variants {
		attempts += v.Attempts
		exposures += v.Exposures
	}
	if attempts != 1 || exposures != 1 {
		t.Errorf("two opens and two reloads counted %d attempts and %d exposures, want 1 and 1", attempts, exposures)
	}
}

// Each outcome brings its revenue over the 30-day save window into the
// results: staying on a 12-week $49 plan 30/84 × $49 = $17.50, taking the
// $13.99 monthly plan change $13.99, the free month nothing, a cancel
// nothing.
func TestOutcomesCarryTheirRevenue(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.studioSignIn(staff.RoleTester)
	// Everyone in the control of step 3's slot: the plan change.
	id := h.startExperiment(offerForm("Step 3 offer", "offer.step3", "", "100", "gift_month", "0"))
	outcomes := []func(attempt string){
		func(a string) { // stays at step 3
			h.step(a, 3)
			h.actionAt(stepPath(a, 3), "unsubscribe.leave", map[string]any{"/attempt": a, "/step": 3, "/exit": "stay"})
		},
		func(a string) { // takes the plan change
			h.step(a, 3)
			if to := replaced(t, h.actionAt(stepPath(a, 3), "unsubscribe.change_plan", map[string]any{"/attempt": a})); !strings.Contains(to, "updated") {
				t.Fatalf("change: %s", to)
			}
		},
		func(a string) { // cancels
			h.step(a, 3)
			if r := h.actionAt(stepPath(a, 8), "unsubscribe.cancel", map[string]any{"/attempt": a}); r.status != http.StatusOK {
				t.Fatalf("cancel: %d %s", r.status, r.raw)
			}
		},
	}
	for i, do := range outcomes {
		h.member("rev"+string(rune('a'+i))+"@example.com", billing.FamilyThreeMonth)
		do(h.startFlow())
	}
	ctx := context.Background()
	if err := h.app.Experiments.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	e, _ := h.app.Experiments.Get(ctx, id)
	res, err := h.app.Experiments.Results(ctx, e, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Variants[0].Counts
	if c.Exposures != 3 || c.Held() != 2 || c.Cancels != 1 {
		t.Fatalf("counts %+v", c)
	}
	if c.Revenue != 1750+1399 || c.RevenueSq != 1750*1750+1399*1399 {
		t.Errorf("revenue %d (squares %d), want 1750 + 1399", c.Revenue, c.RevenueSq)
	}
	page := string(h.screen("/studio/experiments/results/" + id).raw)
	for _, want := range []string{"$10.50", "Retained revenue per attempt"} {
		if !strings.Contains(page, want) {
			t.Errorf("the results page lacks %q", want)
		}
	}
}
