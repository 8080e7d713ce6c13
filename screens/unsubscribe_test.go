package screens

import (
	"strconv"
	"strings"
	"testing"

	"glimpse/engine/billing"
	"glimpse/engine/retention"
	"glimpse/engine/ui"
)

// goldenUnsubscribe is a weekly subscriber's attempt at a step.
func goldenUnsubscribe(family string, step retention.Step) UnsubscribeState {
	codes := map[string]string{billing.FamilyWeekly: "glimpse_weekly_trial", billing.FamilyPremiumOneMonth: "glimpse_premium_one_month",
		billing.FamilyGiftOneMonth: "glimpse_gift_one_month", billing.FamilyThreeMonth: "glimpse_3month"}
	sale, _ := billing.DefaultCatalogue().SaleOf("default", billing.FamilyPremiumOneMonth)
	return UnsubscribeState{Attempt: "att1", Step: step, Situation: retention.Situation{Family: family},
		Return: PathDashboard, Email: "demo@example.com", Plan: billing.Describe(codes[family]),
		PeriodEnd: "Nov 29, 2026", GiftEnd: "Dec 29, 2026", Sale: sale}
}

// unsubscribeGoldenCases are the flow's golden screens: every step of a
// weekly subscriber, the steps whose moves differ for other plans, and the
// three outcome pages.
func unsubscribeGoldenCases() []goldenCase {
	var cases []goldenCase
	for _, s := range retention.Steps {
		cases = append(cases, goldenCase{"unsubscribe__" + strconv.Itoa(int(s.Step)) + "-" + strings.ReplaceAll(s.Name, "_", "-"),
			func(c Context) Page { return UnsubscribeStep(c, goldenUnsubscribe(billing.FamilyWeekly, s.Step)) }})
	}
	return append(cases,
		goldenCase{"unsubscribe__2-plan-premium", func(c Context) Page {
			return UnsubscribeStep(c, goldenUnsubscribe(billing.FamilyPremiumOneMonth, retention.StepPlan))
		}},
		goldenCase{"unsubscribe__5-reason-premium-answered", func(c Context) Page {
			st := goldenUnsubscribe(billing.FamilyPremiumOneMonth, retention.StepReason)
			st.Reason = "other"
			return UnsubscribeStep(c, st)
		}},
		goldenCase{"unsubscribe__6-review-answered", func(c Context) Page {
			st := goldenUnsubscribe(billing.FamilyThreeMonth, retention.StepReview)
			st.Stars, st.Review = 4, "Good, but I have no time."
			return UnsubscribeStep(c, st)
		}},
		goldenCase{"unsubscribe__8-cancel-with-a-change-scheduled", func(c Context) Page {
			st := goldenUnsubscribe(billing.FamilyWeekly, retention.StepCancel)
			st.Next = "Premium Plan"
			return UnsubscribeStep(c, st)
		}},
		goldenCase{"unsubscribe__8-cancel-gift", func(c Context) Page {
			return UnsubscribeStep(c, goldenUnsubscribe(billing.FamilyGiftOneMonth, retention.StepCancel))
		}},
		goldenCase{"unsubscribe__updated", func(c Context) Page {
			st := goldenUnsubscribe(billing.FamilyWeekly, retention.StepPlanChange)
			st.Result = UnsubscribeUpdated
			return UnsubscribeStep(c, st)
		}},
		goldenCase{"unsubscribe__gift-added", func(c Context) Page {
			st := goldenUnsubscribe(billing.FamilyWeekly, retention.StepGiftMonth)
			st.Result, st.PeriodEnd = UnsubscribeGifted, "Dec 29, 2026"
			return UnsubscribeStep(c, st)
		}},
		goldenCase{"unsubscribe__canceled", func(c Context) Page {
			st := goldenUnsubscribe(billing.FamilyWeekly, retention.StepCancel)
			st.Result = UnsubscribeCanceled
			return UnsubscribeStep(c, st)
		}},
	)
}

func unsubscribeCtx(t *testing.T) Context {
	t.Helper()
	reg, bs := brands(t)
	return Context{Brand: bs[0], Copy: reg.Copy(bs[0])}
}

// find returns the first node for which match holds, in the page's dialog.
func findNode(root *ui.Node, match func(*ui.Node) bool) *ui.Node {
	var found *ui.Node
	root.Walk(func(n *ui.Node) bool {
		if found == nil && match(n) {
			found = n
		}
		return found == nil
	})
	return found
}

func byLabel(label string) func(*ui.Node) bool {
	return func(n *ui.Node) bool { return n.Label == label }
}

// Every step but the last has the plain click-to-cancel link to step 8.
func TestUnsubscribeClickToCancelOnEveryStep(t *testing.T) {
	c := unsubscribeCtx(t)
	for _, s := range retention.Steps {
		page := UnsubscribeStep(c, goldenUnsubscribe(billing.FamilyWeekly, s.Step))
		d := page.Overlays[UnsubscribeOverlay]
		if d == nil || d.Presentation != "fullscreen" || len(page.Open) != 1 || page.Open[0] != UnsubscribeOverlay {
			t.Fatalf("step %d: not an open full-screen dialog", s.Step)
		}
		link := findNode(d, byLabel(c.T("unsubscribe.cancelNow")))
		if s.Step == retention.StepCancel {
			if link != nil {
				t.Errorf("the final step links to itself")
			}
			continue
		}
		if link == nil || link.Type != "link" || link.Action.Type != "navigate" || link.Action.To != UnsubscribeStepPath("att1", retention.StepCancel) {
			t.Errorf("step %d: click-to-cancel = %+v", s.Step, link)
		}
	}
}

func TestUnsubscribePleaseWaitAdvancesAfter2500ms(t *testing.T) {
	page := UnsubscribeStep(unsubscribeCtx(t), goldenUnsubscribe(billing.FamilyWeekly, retention.StepPleaseWait))
	on := page.Screen.OnLoad
	if on == nil || on.Type != "after" || *on.MS != 2500 || on.Then.Type != "replace" ||
		on.Then.To != UnsubscribeStepPath("att1", retention.StepPlan) {
		t.Fatalf("onLoad = %+v", on)
	}
}

// The survey's Continue waits for a reason; the review's for some text, and
// the stars are optional.
func TestUnsubscribeSurveyAndReviewValidation(t *testing.T) {
	c := unsubscribeCtx(t)
	page := UnsubscribeStep(c, goldenUnsubscribe(billing.FamilyWeekly, retention.StepReason))
	d := page.Overlays[UnsubscribeOverlay]
	choices := findNode(d, func(n *ui.Node) bool { return n.Type == "choice_list" })
	if len(choices.Options) != 8 || choices.Options[0].Label != "Forget it - I want to keep my membership" || choices.Options[7].Label != "Other" {
		t.Fatalf("reasons: %+v", choices.Options)
	}
	cont := findNode(d, byLabel(c.T("unsubscribe.step5.continue")))
	if cont.DisabledWhen.Eval(page.State) != true {
		t.Fatal("Continue enabled with no reason")
	}
	page.State["reason"] = "other"
	if cont.DisabledWhen.Eval(page.State) {
		t.Fatal("Continue disabled with a reason")
	}
	inputs, ok := ui.FindForm("unsubscribe.reason", d)
	if !ok || len(ui.CheckForm(inputs, map[string]any{"reason": ""}, page.State)) != 1 {
		t.Fatal("the reason is not required")
	}

	page = UnsubscribeStep(c, goldenUnsubscribe(billing.FamilyWeekly, retention.StepReview))
	d = page.Overlays[UnsubscribeOverlay]
	cont = findNode(d, byLabel(c.T("unsubscribe.step6.continue")))
	if !cont.DisabledWhen.Eval(page.State) {
		t.Fatal("Continue enabled with an empty review")
	}
	page.State["review"] = "Too pricey"
	if cont.DisabledWhen.Eval(page.State) {
		t.Fatal("Continue disabled with a review and no stars")
	}
	inputs, _ = ui.FindForm("unsubscribe.review", d)
	if errs := ui.CheckForm(inputs, map[string]any{"stars": nil, "review": "ok"}, page.State); len(errs) != 0 {
		t.Fatalf("stars are optional: %v", errs)
	}
	if errs := ui.CheckForm(inputs, map[string]any{"stars": 5, "review": ""}, page.State); errs["review"] == "" {
		t.Fatalf("an empty review passed: %v", errs)
	}
}

// The final step keeps the cancel-by-email path (issue #10) as a secondary
// way, and its back arrow follows the plan.
func TestUnsubscribeFinalStep(t *testing.T) {
	c := unsubscribeCtx(t)
	page := UnsubscribeStep(c, goldenUnsubscribe(billing.FamilyWeekly, retention.StepCancel))
	if page.Overlays[CancelByEmailOverlay] == nil || page.Overlays[CancelSentOverlay] == nil {
		t.Fatal("no cancel-by-email modal")
	}
	link := findNode(page.Overlays[UnsubscribeOverlay], byLabel(c.T("unsubscribe.step8.byEmail")))
	if link == nil || link.Action.Type != "open_overlay" || link.Action.ID != CancelByEmailOverlay {
		t.Fatalf("cancel by email: %+v", link)
	}
	back := findNode(page.Overlays[UnsubscribeOverlay], byLabel(c.T("unsubscribe.back")))
	if back.Action.To != UnsubscribeStepPath("att1", retention.StepGiftMonth) {
		t.Fatalf("back = %s", back.Action.To)
	}
	page = UnsubscribeStep(c, goldenUnsubscribe(billing.FamilyGiftOneMonth, retention.StepCancel))
	back = findNode(page.Overlays[UnsubscribeOverlay], byLabel(c.T("unsubscribe.back")))
	if back.Action.To != UnsubscribeStepPath("att1", retention.StepReview) {
		t.Fatalf("gift holder's back = %s", back.Action.To)
	}
	page = UnsubscribeStep(c, UnsubscribeState{Attempt: "att1", Step: retention.StepCancel, Result: UnsubscribeCanceled})
	contact := findNode(page.Overlays[UnsubscribeOverlay], byLabel(c.T("unsubscribe.step8.contact")))
	if contact.Action.URL != "mailto:"+c.Brand.SupportEmail {
		t.Fatalf("contact = %+v", contact.Action)
	}
}

// A subscriber with a plan change scheduled is told at the cancel step that
// the change goes with the cancel; a canceled plan has none to tell of.
func TestTheCancelStepSaysAScheduledChangeGoes(t *testing.T) {
	v := retention.View{Subscription: billing.Subscription{Status: billing.StatusActive, PlanCode: "glimpse_weekly_trial",
		NextPlanCode: "glimpse_premium_one_month"}}
	if st := UnsubscribeStateOf(v, "ann@example.com"); st.Next != "Premium Plan" {
		t.Fatalf("next = %q", st.Next)
	}
	v.Subscription.Status = billing.StatusCanceled
	if st := UnsubscribeStateOf(v, "ann@example.com"); st.Next != "" {
		t.Fatalf("a canceled plan's next = %q", st.Next)
	}
}
