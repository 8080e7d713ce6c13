package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/mail"
	"glimpse/engine/retention"
	"glimpse/screens"
)

// member signs in a subscriber of a main plan of family on the default
// brand, with a sandbox card and a period ending in five days.
func (h *harness) member(email, family string) billing.Subscription {
	h.t.Helper()
	ctx := context.Background()
	u, err := h.app.Auth.CreateUser(ctx, email, "correct-horse")
	if err != nil {
		h.t.Fatal(err)
	}
	plan, err := h.app.Billing.Catalogue().Find("default", family)
	if err != nil {
		h.t.Fatal(err)
	}
	started := start.Add(-48 * time.Hour)
	end := start.Add(5 * 24 * time.Hour)
	sub := billing.Subscription{ID: "sub-" + u.ID, UserID: u.ID, Email: email, Bundle: "glimpse.web", Brand: "default",
		PlanCode: plan.Code, Status: billing.StatusActive, MainPlan: true, Price: plan.Price, Provider: "sandbox",
		StartedAt: started, CurrentPeriodStart: started, CurrentPeriodEnd: end, DueAt: end,
		PaymentMethod: billing.PaymentMethod{Provider: "sandbox", ID: "pm_sandbox_ok_t", Brand: "visa", Last4: "4242"}}
	if err := h.app.Billing.Put(ctx, sub); err != nil {
		h.t.Fatal(err)
	}
	if r := h.signIn(email, "correct-horse"); r.status != http.StatusOK {
		h.t.Fatalf("sign in: %d %v", r.status, r.body)
	}
	return sub
}

// replaced is where a result's replace (or navigate) effect goes.
func replaced(t testing.TB, r response) string {
	t.Helper()
	for _, e := range effects(r) {
		if e["type"] == "replace" || e["type"] == "navigate" {
			return e["to"].(string)
		}
	}
	t.Fatalf("no replace in %d %s", r.status, r.raw)
	return ""
}

// startFlow opens the flow from My Plan and returns the attempt id.
func (h *harness) startFlow() string {
	h.t.Helper()
	to := replaced(h.t, h.screen("/dashboard/unsubscribe?entry=my_plan"))
	u, _ := url.Parse(to)
	if u.Path != "/dashboard/unsubscribe/0" || u.Query().Get("attempt") == "" {
		h.t.Fatalf("start: %s", to)
	}
	return u.Query().Get("attempt")
}

func stepPath(attempt string, s int) string {
	return "/dashboard/unsubscribe/" + string(rune('0'+s)) + "?attempt=" + attempt
}

// step fetches a step and checks that it is the open full-screen dialog.
func (h *harness) step(attempt string, s int) response {
	h.t.Helper()
	r := h.screen(stepPath(attempt, s))
	ov, _ := r.body["overlays"].(map[string]any)
	if r.status != http.StatusOK || ov["unsubscribe"] == nil {
		h.t.Fatalf("step %d: %d %s", s, r.status, r.raw)
	}
	return r
}

func (h *harness) summary(attempt, userID string) retention.Summary {
	h.t.Helper()
	a, err := h.app.Retention.Get(context.Background(), attempt, userID)
	if err != nil {
		h.t.Fatal(err)
	}
	s, err := h.app.Retention.Summary(context.Background(), a)
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

func TestUnsubscribeSignedOutGetsSignIn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, p := range []string{"/dashboard/unsubscribe", "/dashboard/unsubscribe/8?attempt=x", "/dashboard?unsubscription=true"} {
		if to := replaced(t, h.screen(p)); to != "/sign-in" {
			t.Errorf("%s → %s", p, to)
		}
	}
	h.screen("/sign-in")
	if r := h.actionAt("/dashboard", "unsubscribe.cancel", map[string]any{"/attempt": "x"}); r.status != http.StatusForbidden ||
		formError(r) != "Cant find subscription id or firebase uid" {
		t.Fatalf("cancel signed out: %d %s", r.status, r.raw)
	}
}

func TestUnsubscribeQueryOpensTheFlowAndClosingReturns(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sub := h.member("ann@example.com", billing.FamilyWeekly)
	to := replaced(t, h.screen("/dashboard/analytics?unsubscription=true"))
	if to != "/dashboard/unsubscribe?entry=link&from=%2Fdashboard%2Fanalytics" {
		t.Fatalf("?unsubscription=true → %s", to)
	}
	first := replaced(t, h.screen(to))
	u, _ := url.Parse(first)
	attempt := u.Query().Get("attempt")
	h.step(attempt, 0)
	r := h.actionAt(stepPath(attempt, 0), "unsubscribe.leave", map[string]any{"/attempt": attempt, "/step": 0, "/exit": "stay"})
	if replaced(t, r) != "/dashboard/analytics" {
		t.Fatalf("stay: %s", r.raw)
	}
	s := h.summary(attempt, sub.UserID)
	if s.Outcome != retention.OutcomeStayed || s.Exit != "stay" || s.Entry != "link" || len(s.Reached) != 1 {
		t.Fatalf("summary: %+v", s)
	}
	// The way back is an app path only: anything else returns to the dashboard.
	for _, from := range []string{"//evil.example/x", "https://evil.example/", "/\\evil.example", "/dashboard/unsubscribe/8"} {
		u, _ := url.Parse(replaced(t, h.screen("/dashboard/unsubscribe?from="+url.QueryEscape(from))))
		a := u.Query().Get("attempt")
		r := h.actionAt(stepPath(a, 0), "unsubscribe.leave", map[string]any{"/attempt": a, "/step": 0, "/exit": "close"})
		if to := replaced(t, r); to != "/dashboard" {
			t.Errorf("from %q leaves to %q", from, to)
		}
	}
	// Someone else's attempt (or a made-up one) starts afresh.
	if to := replaced(t, h.screen(stepPath("nope", 2))); to != "/dashboard/unsubscribe" {
		t.Fatalf("unknown attempt → %s", to)
	}
}

// The whole way to the final cancel for a weekly plan, with the survey's
// and the review's validation, and the free month declined.
func TestUnsubscribeToTheFinalCancel(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	sub := h.member("ann@example.com", billing.FamilyWeekly)
	attempt := h.startFlow()
	s1 := h.step(attempt, 1)
	if !strings.Contains(string(s1.raw), `"type":"after","ms":2500`) {
		t.Fatalf("please-wait: %s", s1.raw)
	}
	for _, s := range []int{2, 4, 5} {
		h.step(attempt, s)
	}
	at := stepPath(attempt, 5)
	if r := h.actionAt(at, "unsubscribe.reason", map[string]any{"/attempt": attempt, "reason": ""}); r.status != http.StatusUnprocessableEntity ||
		fieldErrors(r)["reason"] != "Please choose a reason" {
		t.Fatalf("no reason: %d %s", r.status, r.raw)
	}
	if to := replaced(t, h.actionAt(at, "unsubscribe.reason", map[string]any{"/attempt": attempt, "reason": "cutting_expenses"})); to != stepPath(attempt, 6) {
		t.Fatalf("reason → %s", to)
	}
	h.step(attempt, 6)
	at = stepPath(attempt, 6)
	if r := h.actionAt(at, "unsubscribe.review", map[string]any{"/attempt": attempt, "stars": nil, "review": "   "}); r.status != http.StatusUnprocessableEntity ||
		fieldErrors(r)["review"] == nil {
		t.Fatalf("empty review: %d %s", r.status, r.raw)
	}
	if r := h.actionAt(at, "unsubscribe.review", map[string]any{"/attempt": attempt, "stars": 9, "review": "x"}); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("nine stars: %d %s", r.status, r.raw)
	}
	if to := replaced(t, h.actionAt(at, "unsubscribe.review", map[string]any{"/attempt": attempt, "stars": 2, "review": "Too pricey"})); to != stepPath(attempt, 7) {
		t.Fatalf("review → %s", to)
	}
	h.step(attempt, 7)
	h.step(attempt, 8)
	r := h.actionAt(stepPath(attempt, 8), "unsubscribe.cancel", map[string]any{"/attempt": attempt})
	if r.status != http.StatusOK || replaced(t, r) != "/dashboard/unsubscribe/canceled?attempt="+attempt {
		t.Fatalf("cancel: %d %s", r.status, r.raw)
	}
	got, _ := h.app.Billing.Subscription(ctx, sub.ID)
	if got.Status != billing.StatusCanceled {
		t.Fatalf("status %s", got.Status)
	}
	done := h.screen("/dashboard/unsubscribe/canceled?attempt=" + attempt)
	if !strings.Contains(string(done.raw), "Your membership has been canceled") || !strings.Contains(string(done.raw), "Back to home page") {
		t.Fatalf("canceled page: %s", done.raw)
	}
	s := h.summary(attempt, sub.UserID)
	if s.Outcome != retention.OutcomeCanceled || s.Reason != "cutting_expenses" || s.Stars != 2 || s.Review != "Too pricey" ||
		len(s.Reached) != 7 || len(s.OffersShown) != 1 || len(s.OffersAccepted) != 0 {
		t.Fatalf("summary: %+v", s)
	}
	// The flow opened again on a canceled plan shows that it is canceled.
	again := replaced(t, h.screen("/dashboard/unsubscribe"))
	if !strings.HasPrefix(again, "/dashboard/unsubscribe/canceled?") {
		t.Fatalf("reopened: %s", again)
	}
}

// Click to cancel: step 0 straight to the final cancel.
func TestUnsubscribeDirectCancelFromStep0(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sub := h.member("ann@example.com", billing.FamilyThreeMonth)
	attempt := h.startFlow()
	if !strings.Contains(string(h.step(attempt, 0).raw), `"to":"`+stepPath(attempt, 8)+`"`) {
		t.Fatal("no click-to-cancel link on step 0")
	}
	h.step(attempt, 8)
	if r := h.actionAt(stepPath(attempt, 8), "unsubscribe.cancel", map[string]any{"/attempt": attempt}); r.status != http.StatusOK {
		t.Fatalf("cancel: %d %s", r.status, r.raw)
	}
	got, _ := h.app.Billing.Subscription(context.Background(), sub.ID)
	if got.Status != billing.StatusCanceled {
		t.Fatalf("status %s", got.Status)
	}
}

// The plan change is taken once, and applies from the next period.
func TestUnsubscribePlanChangeOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	sub := h.member("ann@example.com", billing.FamilyWeekly)
	attempt := h.startFlow()
	page := h.step(attempt, 3)
	for _, want := range []string{"$13.99 a month", "Full price $139.99", "90% off", "100% money-back guarantee"} {
		if !strings.Contains(string(page.raw), want) {
			t.Fatalf("step 3 lacks %q: %s", want, page.raw)
		}
	}
	for range 2 {
		r := h.actionAt(stepPath(attempt, 3), "unsubscribe.change_plan", map[string]any{"/attempt": attempt})
		if replaced(t, r) != "/dashboard/unsubscribe/updated?attempt="+attempt {
			t.Fatalf("change: %s", r.raw)
		}
	}
	got, _ := h.app.Billing.Subscription(ctx, sub.ID)
	if got.NextPlanCode != "glimpse_premium_one_month_sale" || got.PlanCode != sub.PlanCode || !got.CurrentPeriodEnd.Equal(sub.CurrentPeriodEnd) {
		t.Fatalf("after the change: %+v", got)
	}
	hist, _ := h.app.Billing.History(ctx, sub.ID)
	n := 0
	for _, c := range hist {
		if c.Kind == billing.ChangePlanChanged {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d plan_changed lines", n)
	}
	done := h.screen("/dashboard/unsubscribe/updated?attempt=" + attempt)
	if !strings.Contains(string(done.raw), "Your plan has been successfully updated!") || !strings.Contains(string(done.raw), "Great!") {
		t.Fatalf("updated page: %s", done.raw)
	}
	if s := h.summary(attempt, sub.UserID); s.Outcome != retention.OutcomePlanChanged || s.OffersAccepted[0] != retention.OfferPlanChange {
		t.Fatalf("summary: %+v", s)
	}
	// My Plan says what happens next (it still read only 'Weekly Plan ·
	// $1 every week · Renews on …').
	h.clock.Advance(6 * time.Second) // past the session's cached subscriptions
	next := "From " + brand.Date(sub.CurrentPeriodEnd) + ": Premium Plan, $13.99 every 1 month"
	if home := h.screen("/dashboard"); !strings.Contains(string(home.raw), next) {
		t.Fatalf("My Plan lacks %q: %s", next, home.raw)
	}
	// A premium one-month holder is not offered it: step 3 gives way to 4.
	h2 := newHarness(t)
	h2.member("bob@example.com", billing.FamilyPremiumOneMonth)
	a2 := h2.startFlow()
	if to := replaced(t, h2.screen(stepPath(a2, 3))); to != stepPath(a2, 4) {
		t.Fatalf("premium at step 3 → %s", to)
	}
}

// The free month is added once per attempt, and offered once per
// subscription.
func TestUnsubscribeGiftMonthOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	sub := h.member("ann@example.com", billing.FamilyThreeMonth)
	attempt := h.startFlow()
	if !strings.Contains(string(h.step(attempt, 7).raw), "Get my free month") {
		t.Fatal("no free month offer")
	}
	for range 2 {
		r := h.actionAt(stepPath(attempt, 7), "unsubscribe.gift_month", map[string]any{"/attempt": attempt})
		if replaced(t, r) != "/dashboard/unsubscribe/gift-added?attempt="+attempt {
			t.Fatalf("gift: %s", r.raw)
		}
	}
	got, _ := h.app.Billing.Subscription(ctx, sub.ID)
	want := sub.CurrentPeriodEnd.AddDate(0, 1, 0)
	if !got.CurrentPeriodEnd.Equal(want) || !got.DueAt.Equal(want) {
		t.Fatalf("period end %v due %v, want %v", got.CurrentPeriodEnd, got.DueAt, want)
	}
	if !strings.Contains(string(h.screen("/dashboard/unsubscribe/gift-added?attempt="+attempt).raw), "Your free month has been added!") {
		t.Fatal("no gift page")
	}
	// A later attempt skips the offer: back from 8 is the review, 7 gives way to 8.
	a2 := h.startFlow()
	if to := replaced(t, h.screen(stepPath(a2, 7))); to != stepPath(a2, 8) {
		t.Fatalf("second attempt at 7 → %s", to)
	}
	if r := h.actionAt(stepPath(a2, 8), "unsubscribe.gift_month", map[string]any{"/attempt": a2}); r.status != http.StatusConflict {
		t.Fatalf("second gift: %d %s", r.status, r.raw)
	}
	got, _ = h.app.Billing.Subscription(ctx, sub.ID)
	if !got.CurrentPeriodEnd.Equal(want) {
		t.Fatal("a second month was added")
	}
}

// Ten gift_month actions sent together, each from its own attempt, add one
// month between them (the landed binary added three: the once per
// subscription rule was a read of the history in the handler).
func TestUnsubscribeGiftMonthOncePerSubscriptionUnderConcurrency(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	sub := h.member("ann@example.com", billing.FamilyWeekly)
	const n = 10
	attempts := make([]string, n)
	for i := range attempts {
		attempts[i] = h.startFlow()
		// Closed, so that the next opening is a new attempt (the offer
		// stays reachable by the attempt's link).
		if r := h.actionAt(stepPath(attempts[i], 0), "unsubscribe.leave", map[string]any{"/attempt": attempts[i], "/step": 0, "/exit": "close"}); r.status != http.StatusOK {
			t.Fatalf("leave: %d %s", r.status, r.raw)
		}
	}
	requests := make([]*http.Request, n)
	for i, a := range attempts {
		requests[i] = h.request(stepPath(a, 7), "unsubscribe.gift_month", map[string]any{"/attempt": a})
	}
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i, req := range requests {
		wg.Go(func() {
			res, err := h.srv.App().Test(req, fiber.TestConfig{Timeout: time.Minute, FailOnTimeout: true})
			if err != nil {
				t.Error(err)
				return
			}
			res.Body.Close()
			statuses[i] = res.StatusCode
		})
	}
	wg.Wait()
	ok, refused := 0, 0
	for _, st := range statuses {
		switch st {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
			refused++
		}
	}
	if ok != 1 || refused != n-1 {
		t.Fatalf("statuses %v: want one 200 and %d 409", statuses, n-1)
	}
	got, _ := h.app.Billing.Subscription(ctx, sub.ID)
	if want := sub.CurrentPeriodEnd.AddDate(0, 1, 0); !got.CurrentPeriodEnd.Equal(want) {
		t.Fatalf("period end %v, want %v", got.CurrentPeriodEnd, want)
	}
	history, _ := h.app.Billing.History(ctx, sub.ID)
	extended := 0
	for _, c := range history {
		if c.Kind == billing.ChangeExtended {
			extended++
		}
	}
	if extended != 1 {
		t.Fatalf("%d extended lines, want 1", extended)
	}
}

// Opening the flow's page twice, one after the other or together (a
// reload, a second tab), is one attempt (and so one attempt in the
// experiments' counts: Flow.Start counts only an attempt it started); once
// it has an outcome, opening the flow again is a new attempt (issue #34).
func TestUnsubscribeOpenedTwiceIsOneAttempt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.member("ann@example.com", billing.FamilyWeekly)
	first := h.startFlow()
	const n = 6
	got := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req := httptest.NewRequest(http.MethodGet, "/ui/screen?path="+url.QueryEscape("/dashboard/unsubscribe?entry=my_plan"), nil)
			req.Header.Set("X-SDUI-Version", "1")
			res, err := h.srv.App().Test(h.withSession(req), fiber.TestConfig{Timeout: time.Minute, FailOnTimeout: true})
			if err != nil {
				t.Error(err)
				return
			}
			defer res.Body.Close()
			r := response{status: res.StatusCode}
			if err := json.NewDecoder(res.Body).Decode(&r.body); err != nil {
				t.Error(err)
				return
			}
			u, _ := url.Parse(replaced(t, r))
			got[i] = u.Query().Get("attempt")
		})
	}
	wg.Wait()
	for i, a := range got {
		if a != first {
			t.Fatalf("opening %d went to attempt %q, want the open attempt %s", i, a, first)
		}
	}
	h.step(first, 0)
	if r := h.actionAt(stepPath(first, 0), "unsubscribe.leave", map[string]any{"/attempt": first, "/step": 0, "/exit": "stay"}); r.status != http.StatusOK {
		t.Fatalf("leave: %d %s", r.status, r.raw)
	}
	if again := h.startFlow(); again == first {
		t.Fatal("opening the flow after the attempt ended resumed it")
	}
}

// The survey's first answer keeps the membership and closes the flow; a
// gift-plan holder's final step goes back to the review.
func TestUnsubscribeKeepReasonAndGiftHolder(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sub := h.member("ann@example.com", billing.FamilyGiftOneMonth)
	attempt := h.startFlow()
	h.step(attempt, 5)
	if to := replaced(t, h.actionAt(stepPath(attempt, 5), "unsubscribe.reason", map[string]any{"/attempt": attempt, "reason": "keep_membership"})); to != "/dashboard" {
		t.Fatalf("keep → %s", to)
	}
	if s := h.summary(attempt, sub.UserID); s.Outcome != retention.OutcomeStayed || s.Exit != "reason" {
		t.Fatalf("summary: %+v", s)
	}
	if !strings.Contains(string(h.step(attempt, 8).raw), `"to":"`+stepPath(attempt, 6)+`"`) {
		t.Fatal("the gift holder's back arrow is not the review")
	}
	if to := replaced(t, h.actionAt(stepPath(attempt, 6), "unsubscribe.review", map[string]any{"/attempt": attempt, "review": "ok"})); to != stepPath(attempt, 8) {
		t.Fatalf("gift holder's review → %s", to)
	}
}

// My Plan resumes a plan canceled at period end (it could not be taken
// back before its end).
func TestMyPlanResumesACanceledPlan(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := context.Background()
	sub := h.member("ann@example.com", billing.FamilyWeekly)
	if _, err := h.app.Billing.Cancel(ctx, sub.ID, "user:"+sub.UserID); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(6 * time.Second) // past the session's cached subscriptions
	if home := h.screen("/dashboard"); !strings.Contains(string(home.raw), "Resume my plan") {
		t.Fatalf("My Plan of a canceled plan offers no resume: %s", home.raw)
	}
	r := h.actionAt("/dashboard", "plan.resume", nil)
	if r.status != http.StatusOK || !strings.Contains(string(r.raw), `"id":"`+screens.ResumedOverlay+`"`) {
		t.Fatalf("resume does not say on screen what resumed: %d %s", r.status, r.raw)
	}
	got, _ := h.app.Billing.Subscription(ctx, sub.ID)
	if got.Status != billing.StatusActive || got.ExpiresAt != nil {
		t.Fatalf("after resuming: %+v", got)
	}
	h.clock.Advance(6 * time.Second)
	if home := h.screen("/dashboard"); strings.Contains(string(home.raw), "Resume my plan") || !strings.Contains(string(home.raw), "Renews on") ||
		!strings.Contains(string(home.raw), "Your plan is active again") {
		t.Fatalf("My Plan after resuming: %s", home.raw)
	}
	mails, err := h.app.Outbox.To(ctx, []string{sub.Email}, nil)
	if err != nil {
		t.Fatal(err)
	}
	resumed := 0
	for _, m := range mails {
		if m.Template == mail.TemplateResumed {
			resumed++
		}
	}
	if resumed != 1 {
		t.Fatalf("%d mails confirm the resume", resumed)
	}
}
