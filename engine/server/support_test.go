package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"glimpse/engine/billing"
	"glimpse/engine/staff"
)

// deskPath is the desk open on an address.
func deskPath(email string) string { return "/studio/support?email=" + url.QueryEscape(email) }

// buyer makes a subscriber whose weekly plan pays with a sandbox card and
// who bought the Reels playbook on it, through billing.Purchase.
func (h *harness) buyer(email string) (userID, chargeID string) {
	h.t.Helper()
	ctx := context.Background()
	u, err := h.app.Auth.CreateUser(ctx, email, "correct-horse")
	if err != nil {
		h.t.Fatal(err)
	}
	main := billing.Subscription{ID: "sub-" + u.ID, UserID: u.ID, Email: u.Email, Bundle: "glimpse.web", Brand: "default",
		PlanCode: "glimpse_weekly_trial", Status: billing.StatusActive, MainPlan: true, Price: billing.USD(100), Provider: "sandbox",
		StartedAt: start.Add(-24 * time.Hour), CurrentPeriodStart: start.Add(-24 * time.Hour), CurrentPeriodEnd: start.Add(6 * 24 * time.Hour),
		DueAt:         start.Add(6 * 24 * time.Hour),
		PaymentMethod: billing.PaymentMethod{Provider: "sandbox", ID: "pm_sandbox_ok_buyer", Brand: "visa", Last4: "4242"}}
	if err := h.app.Billing.Put(ctx, main); err != nil {
		h.t.Fatal(err)
	}
	addOn, err := h.app.Billing.Purchase(ctx, billing.PurchaseRequest{UserID: u.ID, Email: u.Email, Main: main, Family: billing.FamilyReelsPlaybook})
	if err != nil {
		h.t.Fatal(err)
	}
	charges, err := h.app.Billing.ChargesFor(ctx, []string{addOn.ID})
	if err != nil || len(charges) != 1 {
		h.t.Fatalf("the add-on's charge: %v %v", charges, err)
	}
	return u.ID, charges[0].ID
}

// deskState is the desk's state as a screen request left it.
func deskState(r response) map[string]any {
	st, _ := r.body["state"].(map[string]any)
	desk, _ := st["desk"].(map[string]any)
	return desk
}

// Support actions and the desk's screen admit support staff and admins; an
// editor or a tester is refused with 403, and support is refused the
// editors' and testers' screens and actions in turn.
func TestSupportDeskGuard(t *testing.T) {
	t.Parallel()
	actions := map[string]map[string]any{
		"support.find":     {"query": "ann@example.com"},
		"support.refund":   {"refundCharge": "x", "refundKind": "full", "refundAmount": "", "refundReason": "Asked for it", "/desk/email": "ann@example.com", "/desk/key": "k"},
		"support.cancel":   {"cancelSubscription": "x", "cancelWhen": "now", "cancelReason": "Asked for it", "/desk/email": "ann@example.com", "/desk/key": "k"},
		"support.extend":   {"extendSubscription": "x", "extendDays": "3", "extendReason": "Asked for it", "/desk/email": "ann@example.com", "/desk/key": "k"},
		"support.resend":   {"resendWhat": "receipt:x", "resendReason": "Asked for it", "/desk/email": "ann@example.com", "/desk/key": "k"},
		"support.sign_out": {"signOutReason": "Asked for it", "/desk/email": "ann@example.com", "/desk/key": "k"},
	}
	for _, role := range []string{staff.RoleEditor, staff.RoleTester} {
		t.Run(role, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.buyer("ann@example.com")
			h.studioSignIn(role)
			if r := h.screen(deskPath("ann@example.com")); r.status != http.StatusForbidden ||
				formError(r) != "Only support staff and admins may use the support desk." {
				t.Errorf("%s at the desk: %d %s", role, r.status, r.raw)
			}
			for name, values := range actions {
				if r := h.actionAt(deskPath("ann@example.com"), name, values); r.status != http.StatusForbidden {
					t.Errorf("%s posting %s: %d %s", role, name, r.status, r.raw)
				}
			}
			if n := len(h.auditEntries()); n != 0 {
				t.Errorf("%d audit entries after refused actions", n)
			}
		})
	}
	t.Run("support", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		h.studioSignIn(staff.RoleSupport)
		if got := effects(h.screen("/studio")); len(got) != 1 || got[0]["to"] != "/studio/support" {
			t.Errorf("support at /studio: %v", got)
		}
		if id := screenID(h.screen("/studio/support")); id != "studio-support" {
			t.Errorf("support at the desk sees %q", id)
		}
		for _, path := range []string{"/studio/edit/news/carousels-are-back", "/studio/new/news", "/studio/copy/default",
			"/studio/preview/news/carousels-are-back", "/studio/experiments", "/studio/experiments/new"} {
			if r := h.screen(path); r.status != http.StatusForbidden {
				t.Errorf("support at %s: %d %s", path, r.status, r.raw)
			}
		}
		for name, values := range map[string]map[string]any{
			"studio.save":     item("news", "carousels-are-back", map[string]any{"title": "x"}),
			"studio.publish":  item("news", "carousels-are-back", map[string]any{"title": "x"}),
			"studio.preview":  {"/doc/kind": "news", "/doc/slug": "carousels-are-back", "/form": map[string]any{}},
			"experiment.save": experimentForm("E", "unsubscribe.step0.title", "", "1", "x", "1"),
		} {
			if r := h.action(name, values); r.status != http.StatusForbidden {
				t.Errorf("support posting %s: %d %s", name, r.status, r.raw)
			}
		}
	})
	t.Run("admin", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		h.studioSignIn(staff.RoleAdmin)
		if id := screenID(h.screen("/studio/support")); id != "studio-support" {
			t.Errorf("an admin at the desk sees %q", id)
		}
		if !strings.Contains(string(h.screen("/studio").raw), "/studio/support") {
			t.Error("the admin's studio home has no way to the desk")
		}
	})
	t.Run("signed out", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		if got := effects(h.screen("/studio/support")); len(got) != 1 || got[0]["to"] != "/studio" {
			t.Errorf("a visitor at the desk: %v", got)
		}
		h.screen("/studio")
		if r := h.actionAt("/studio/support", "support.refund", actions["support.refund"]); r.status != http.StatusUnauthorized {
			t.Errorf("a visitor refunding: %d %s", r.status, r.raw)
		}
	})
}

// auditEntries reads the audit log as the desk does.
func (h *harness) auditEntries() []string {
	h.t.Helper()
	entries, err := h.app.Support.Audit(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Staff+" "+e.Action+" "+e.Subscriber+" "+e.Target+" "+e.Outcome+" "+e.Reason)
	}
	return out
}

// Support finds a subscriber, refunds their add-on with a reason, and the
// add-on is no longer theirs; the desk shows the refund in the audit log.
// A refund without a reason is refused under the reason's input and does
// nothing. The desk shows nothing secret.
func TestSupportRefundsAnAddOn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	userID, chargeID := h.buyer("ann@example.com")
	h.studioSignIn(staff.RoleSupport)
	// support.find is posted from the desk: the form check composes it.
	res := h.actionAt("/studio/support", "support.find", map[string]any{"query": "Ann@Example.com"})
	if got := effects(res); len(got) != 1 || got[0]["to"] != deskPath("ann@example.com") {
		t.Fatalf("find: %d %s", res.status, res.raw)
	}
	desk := h.screen(deskPath("ann@example.com"))
	if screenID(desk) != "studio-support" || !strings.Contains(string(desk.raw), chargeID) {
		t.Fatalf("the desk does not show the charge %s: %s", chargeID, desk.raw)
	}
	user, err := h.app.Auth.UserByEmail(context.Background(), "ann@example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{user.PasswordHash, "pm_sandbox_ok_buyer", "passwordHash", "argon2"} {
		if strings.Contains(string(desk.raw), secret) {
			t.Errorf("the desk shows %q", secret)
		}
	}
	key, _ := deskState(desk)["key"].(string)
	values := map[string]any{"refundCharge": chargeID, "refundKind": "full", "refundAmount": "", "refundReason": "",
		"/desk/email": "ann@example.com", "/desk/key": key}
	if r := h.actionAt(deskPath("ann@example.com"), "support.refund", values); r.status != http.StatusUnprocessableEntity ||
		fieldErrors(r)["refundReason"] != "Say why." {
		t.Fatalf("a refund without a reason: %d %s", r.status, r.raw)
	}
	values["refundReason"] = "hi"
	if r := h.actionAt(deskPath("ann@example.com"), "support.refund", values); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("a refund with a two-letter reason: %d %s", r.status, r.raw)
	}
	// Full or partial is a choice: an amount left empty refunds nothing.
	values["refundReason"] = "Bought it by mistake, asked by mail"
	values["refundKind"] = ""
	if r := h.actionAt(deskPath("ann@example.com"), "support.refund", values); r.status != http.StatusUnprocessableEntity ||
		fieldErrors(r)["refundKind"] == "" {
		t.Fatalf("a refund neither full nor partial: %d %s", r.status, r.raw)
	}
	values["refundKind"] = "part"
	if r := h.actionAt(deskPath("ann@example.com"), "support.refund", values); r.status != http.StatusUnprocessableEntity ||
		fieldErrors(r)["refundAmount"] == "" {
		t.Fatalf("a partial refund with no amount: %d %s", r.status, r.raw)
	}
	if n := len(h.auditEntries()); n != 0 {
		t.Fatalf("%d audit entries after refused requests", n)
	}
	values["refundKind"] = "full"
	r := h.actionAt(deskPath("ann@example.com"), "support.refund", values)
	if got := effects(r); r.status != http.StatusOK || len(got) != 2 || got[0]["type"] != "close_overlay" ||
		got[1]["type"] != "replace" || got[1]["to"] != deskPath("ann@example.com")+"&done=refund" {
		t.Fatalf("refund: %d %s", r.status, r.raw)
	}
	// The desk it goes back to says what was done.
	if done := h.screen(deskPath("ann@example.com") + "&done=refund"); !strings.Contains(string(done.raw), "Refunded $") {
		t.Fatalf("no confirmation of the refund: %s", done.raw)
	}
	subs, err := h.app.Billing.ForUser(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	if ent := billing.Entitlements(subs, "glimpse.web", h.clock.Now()); ent[billing.ReelsPlaybook] {
		t.Fatal("the refunded playbook is still the subscriber's")
	}
	audit := h.auditEntries()
	want := "support@glimpse.example refund ann@example.com " + chargeID + " done Bought it by mistake, asked by mail"
	if len(audit) != 1 || audit[0] != want {
		t.Fatalf("audit log %q, want [%q]", audit, want)
	}
	after := h.screen(deskPath("ann@example.com"))
	if !strings.Contains(string(after.raw), "Bought it by mistake, asked by mail") {
		t.Errorf("the desk does not show the audit entry: %s", after.raw)
	}
	// The same request again (a second click on the old view): the desk
	// has nothing left to refund, and nothing more is refunded.
	if r := h.actionAt(deskPath("ann@example.com"), "support.refund", values); r.status != http.StatusUnprocessableEntity {
		t.Fatalf("the same refund again: %d %s", r.status, r.raw)
	}
	refunds, _ := h.app.Billing.RefundsOf(context.Background(), chargeID)
	if len(refunds) != 1 {
		t.Fatalf("%d refunds after the same request twice", len(refunds))
	}
}

// Five clicks on one refund sent together make one refund.
func TestSupportRefundClickedTogetherRefundsOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	_, chargeID := h.buyer("ann@example.com")
	h.studioSignIn(staff.RoleSupport)
	desk := h.screen(deskPath("ann@example.com"))
	key, _ := deskState(desk)["key"].(string)
	values := map[string]any{"refundCharge": chargeID, "refundKind": "part", "refundAmount": "5", "refundReason": "Goodwill for a late report",
		"/desk/email": "ann@example.com", "/desk/key": key}
	var wg sync.WaitGroup
	statuses := make([]int, 5)
	for i := range statuses {
		req := h.request(deskPath("ann@example.com"), "support.refund", values)
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := h.srv.App().Test(req, fiber.TestConfig{Timeout: time.Minute, FailOnTimeout: true})
			if err != nil {
				t.Error(err)
				return
			}
			_ = res.Body.Close()
			statuses[i] = res.StatusCode
		}()
	}
	wg.Wait()
	for i, s := range statuses {
		if s != http.StatusOK {
			t.Errorf("click %d: %d", i, s)
		}
	}
	refunds, err := h.app.Billing.RefundsOf(context.Background(), chargeID)
	if err != nil || len(refunds) != 1 || refunds[0].Amount != billing.USD(500) {
		t.Fatalf("refunds after five clicks: %+v %v", refunds, err)
	}
}

// The other actions: cancel at period end and now, extend, resend a
// receipt, sign out everywhere; each leaves its audit entry.
func TestSupportActions(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	userID, chargeID := h.buyer("ann@example.com")
	ctx := context.Background()
	if _, err := h.app.Auth.SignIn(ctx, "ann@example.com", "correct-horse", "1.2.3.4", "glimpse.web"); err != nil {
		t.Fatal(err)
	}
	h.studioSignIn(staff.RoleSupport)
	path := deskPath("ann@example.com")
	post := func(name string, values map[string]any) {
		t.Helper()
		key, _ := deskState(h.screen(path))["key"].(string)
		values["/desk/email"], values["/desk/key"] = "ann@example.com", key
		if r := h.actionAt(path, name, values); r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", name, r.status, r.raw)
		}
		h.clock.Advance(time.Minute)
	}
	mainID := "sub-" + userID
	// Someone else's subscription is not the subscriber's to act on.
	other, _ := h.buyer("bob@example.com")
	key, _ := deskState(h.screen(path))["key"].(string)
	r := h.actionAt(path, "support.extend", map[string]any{"extendSubscription": "sub-" + other, "extendDays": "7",
		"extendReason": "Trying another's plan", "/desk/email": "ann@example.com", "/desk/key": key})
	if r.status != http.StatusNotFound {
		t.Errorf("extending another subscriber's plan: %d %s", r.status, r.raw)
	}
	post("support.extend", map[string]any{"extendSubscription": mainID, "extendDays": "7", "extendReason": "Outage last week"})
	sub, _ := h.app.Billing.Subscription(ctx, mainID)
	if want := start.Add(13 * 24 * time.Hour); !sub.CurrentPeriodEnd.Equal(want) || !sub.DueAt.Equal(want) {
		t.Fatalf("extended to %v (due %v), want %v", sub.CurrentPeriodEnd, sub.DueAt, want)
	}
	post("support.resend", map[string]any{"resendWhat": "receipt:" + chargeID, "resendReason": "Lost the receipt"})
	mails, _ := h.app.Outbox.SentTo(ctx, "ann@example.com", 10)
	receipts := 0
	for _, m := range mails {
		if m.Template == "receipt" {
			receipts++
		}
	}
	if receipts != 2 {
		t.Fatalf("%d receipts in the outbox, want the purchase's and the resent one", receipts)
	}
	post("support.sign_out", map[string]any{"signOutReason": "Lost their phone"})
	sessions, err := h.app.Auth.Sessions(ctx, userID)
	if err != nil || len(sessions) == 0 {
		t.Fatalf("sessions after sign out everywhere: %v %v", sessions, err)
	}
	for _, s := range sessions {
		if !s.Ended {
			t.Fatalf("a session not ended by sign out everywhere: %+v", s)
		}
	}
	post("support.cancel", map[string]any{"cancelSubscription": mainID, "cancelWhen": "period_end", "cancelReason": "Asked by mail"})
	if sub, _ := h.app.Billing.Subscription(ctx, mainID); sub.Status != billing.StatusCanceled || !sub.Authorises("glimpse.web", h.clock.Now()) {
		t.Fatalf("canceled at period end: %+v", sub)
	}
	post("support.cancel", map[string]any{"cancelSubscription": mainID, "cancelWhen": "now", "cancelReason": "Asked to end at once"})
	if sub, _ := h.app.Billing.Subscription(ctx, mainID); sub.Authorises("glimpse.web", h.clock.Now()) {
		t.Fatalf("canceled now, still authorises: %+v", sub)
	}
	audit := h.auditEntries()
	if len(audit) != 5 {
		t.Fatalf("audit log %q", audit)
	}
	for i, action := range []string{"cancel_now", "cancel_at_period_end", "sign_out_everywhere", "resend_receipt", "extend"} {
		if !strings.Contains(audit[i], " "+action+" ") || !strings.Contains(audit[i], " done ") {
			t.Errorf("audit entry %d = %q, want %s done", i, audit[i], action)
		}
	}
}
