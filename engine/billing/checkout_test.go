package billing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"
)

// signed makes a Stripe event body about object and signs it with
// stripe-go's own helper, as Stripe signs a delivery.
func signed(t *testing.T, secret, id, eventType string, at time.Time, object map[string]any) ([]byte, string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"id": id, "object": "event", "api_version": stripe.APIVersion,
		"created": at.Unix(), "type": eventType, "data": map[string]any{"object": object}})
	if err != nil {
		t.Fatal(err)
	}
	p := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: secret, Timestamp: at})
	return p.Payload, p.Header
}

// deliver sends a signed event to the service as Stripe's webhook does.
func (f fixture) deliver(t *testing.T, id, eventType string, at time.Time, object map[string]any) (StripeEventResult, error) {
	t.Helper()
	body, header := signed(t, testWebhookSecret, id, eventType, at, object)
	return f.svc.ReceiveStripeWebhook(context.Background(), body, header)
}

// paidOnSandbox pays a checkout's page with a card without delivering the
// event, so a test chooses when and how often it arrives.
func (f fixture) paidOnSandbox(t *testing.T, st CheckoutStart) (Order, map[string]any) {
	t.Helper()
	sb := f.svc.provider.(*Sandbox)
	if _, err := sb.pay(context.Background(), sessionOf(st), card(TestCardSucceeds), false); err != nil {
		t.Fatal(err)
	}
	order, err := f.svc.Order(context.Background(), st.OrderID)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := sb.SessionResult(context.Background(), order.Session)
	return order, map[string]any{"id": order.Session, "object": "checkout.session", "client_reference_id": order.ID,
		"payment_status": "paid", "payment_intent": res.PaymentIntent}
}

// The browser's return never grants: until the event, the order is pending
// and nothing exists. The event delivered several times at once makes one
// subscription, one ledger entry and one purchase mail.
func TestCheckoutFulfilsOnceFromDuplicatedEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	st := f.start(t, FamilyWeekly, "dup")
	order, session := f.paidOnSandbox(t, st)
	if o, _ := f.svc.Order(ctx, order.ID); o.Status != OrderPending {
		t.Fatalf("before the event: %s", o.Status)
	}
	if _, err := f.svc.Subscription(ctx, order.SubscriptionID); !errors.Is(err, ErrNoSubscription) {
		t.Fatalf("a subscription exists before the event: %v", err)
	}
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			// Two copies of each of three event ids, all at once.
			if _, err := f.deliver(t, "evt_dup_"+string(rune('a'+i%3)), "checkout.session.completed", f.clock.Now(), session); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if o, _ := f.svc.Order(ctx, order.ID); o.Status != OrderPaid {
		t.Fatalf("after the events: %s", o.Status)
	}
	sub, err := f.svc.Subscription(ctx, order.SubscriptionID)
	if err != nil || sub.Status != StatusActive || sub.PaymentMethod.Last4 != "4242" {
		t.Fatalf("subscription %+v, %v", sub, err)
	}
	if charges, err := f.svc.ChargesOf(ctx, []string{sub.ID}); err != nil || len(charges) != 1 {
		t.Fatalf("%d ledger entries (%v)", len(charges), err)
	}
	purchases := 0
	for _, k := range f.notices.kinds() {
		if k == NoticePurchase {
			purchases++
		}
	}
	if purchases < 1 {
		t.Fatal("no purchase mail")
	}
	res, err := f.deliver(t, "evt_dup_a", "checkout.session.completed", f.clock.Now(), session)
	if err != nil || !res.Duplicate {
		t.Fatalf("a known event id: %+v %v", res, err)
	}
}

// Events in any order: a refund and a dispute that arrive before the
// payment's own event (the ledger does not know the charge yet) are applied
// when the payment is fulfilled; a failure first settles the order as
// failed and a late success changes nothing.
func TestCheckoutEventsOutOfOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	at := f.clock.Now()

	refunded := f.start(t, FamilyWeekly, "refund-first")
	order, session := f.paidOnSandbox(t, refunded)
	pi := session["payment_intent"].(string)
	if _, err := f.deliver(t, "evt_refund_early", "charge.refunded", at.Add(2*time.Second), map[string]any{
		"id": "ch_1", "object": "charge", "refunded": true, "payment_intent": pi}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.deliver(t, "evt_paid_late", "checkout.session.completed", at.Add(time.Second), session); err != nil {
		t.Fatal(err)
	}
	if sub, _ := f.svc.Subscription(ctx, order.SubscriptionID); sub.Status != StatusExpired {
		t.Fatalf("a plan refunded before its payment event was fulfilled: %s", sub.Status)
	}
	if status, _ := f.svc.ChargeStatus(ctx, ChargeIDOf(order.ChargeKey)); status != ChargeRefunded {
		t.Fatalf("ledger: %s", status)
	}

	disputed := f.start(t, FamilyWeekly, "dispute-first")
	order, session = f.paidOnSandbox(t, disputed)
	if _, err := f.deliver(t, "evt_dispute_early", "charge.dispute.created", at.Add(2*time.Second), map[string]any{
		"id": "dp_1", "object": "dispute", "status": "needs_response", "payment_intent": session["payment_intent"]}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.deliver(t, "evt_paid_2", "checkout.session.completed", at.Add(time.Second), session); err != nil {
		t.Fatal(err)
	}
	if sub, _ := f.svc.Subscription(ctx, order.SubscriptionID); !sub.Suspended {
		t.Fatal("a plan disputed before its payment event is not suspended")
	}

	failed := f.start(t, FamilyWeekly, "failed-first")
	order, session = f.paidOnSandbox(t, failed)
	if _, err := f.deliver(t, "evt_failed", "checkout.session.async_payment_failed", at, session); err != nil {
		t.Fatal(err)
	}
	if _, err := f.deliver(t, "evt_completed_late", "checkout.session.completed", at, session); err != nil {
		t.Fatal(err)
	}
	if o, _ := f.svc.Order(ctx, order.ID); o.Status != OrderFailed {
		t.Fatalf("a failed order became %s", o.Status)
	}
	if _, err := f.svc.Subscription(ctx, order.SubscriptionID); !errors.Is(err, ErrNoSubscription) {
		t.Fatalf("a failed order made a subscription: %v", err)
	}

	// An event for an order we never made, or naming another order than
	// its session's, is acknowledged and does nothing.
	other := f.start(t, FamilyWeekly, "other")
	_, session = f.paidOnSandbox(t, other)
	session["client_reference_id"] = order.ID
	if res, err := f.deliver(t, "evt_wrong_order", "checkout.session.completed", at, session); err != nil || res.Status != "" {
		t.Fatalf("an event naming another order: %+v %v", res, err)
	}
}

func TestWebhookSignatureIsChecked(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	body, header := signed(t, "whsec_wrong", "evt_x", "checkout.session.completed", f.clock.Now(), map[string]any{"id": "cs_x"})
	if _, err := f.svc.ReceiveStripeWebhook(context.Background(), body, header); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("wrong secret: %v", err)
	}
	body, header = signed(t, testWebhookSecret, "evt_x", "checkout.session.completed", f.clock.Now().Add(-6*time.Minute), map[string]any{"id": "cs_x"})
	if _, err := f.svc.ReceiveStripeWebhook(context.Background(), body, header); !errors.Is(err, ErrSignatureTooOld) {
		t.Fatalf("six minutes old: %v", err)
	}
	body, header = signed(t, testWebhookSecret, "evt_x", "checkout.session.completed", f.clock.Now(), map[string]any{"id": "cs_x"})
	if _, err := f.svc.ReceiveStripeWebhook(context.Background(), append(body, ' '), header); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("a changed body: %v", err)
	}
	if _, err := f.svc.ReceiveStripeWebhook(context.Background(), body, ""); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("no signature: %v", err)
	}
}

// The sandbox's 3-D Secure card: the page asks for the bank's step; failed,
// the buyer is back at the card form; passed, the order is paid.
func TestSandboxThreeDSecure(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	st := f.start(t, FamilyWeekly, "3ds")
	page, err := f.pay(st, TestCardAuthenticate)
	if err != nil || page.Step != "authenticate" || page.Challenge.Last4 != "3184" {
		t.Fatalf("3-D Secure card: %+v %v", page, err)
	}
	step := func(name string) (SandboxPage, error) {
		return f.svc.PayOnSandbox(ctx, SandboxPayRequest{Session: sessionOf(st), Step: name})
	}
	if _, err := step("fail"); !errors.Is(err, ErrAuthenticationFailed) {
		t.Fatalf("failed authentication: %v", err)
	}
	if page, _ := f.svc.SandboxPage(ctx, sessionOf(st)); page.Step != "card" {
		t.Fatalf("after a failed authentication the page is at %s", page.Step)
	}
	if _, err := f.pay(st, TestCardAuthenticate); err != nil {
		t.Fatal(err)
	}
	if page, err := step("authenticate"); err != nil || page.Step != "complete" {
		t.Fatalf("authenticated: %+v %v", page, err)
	}
	order, _ := f.svc.Order(ctx, st.OrderID)
	if sub, err := f.svc.Subscription(ctx, order.SubscriptionID); err != nil || sub.PaymentMethod.Last4 != "3184" {
		t.Fatalf("subscription %+v %v", sub, err)
	}
}

// buyAuthenticated buys a weekly plan with the 3-D Secure card and links it
// to u1.
func (f fixture) buyAuthenticated(t *testing.T, key string) Subscription {
	t.Helper()
	ctx := context.Background()
	st := f.start(t, FamilyWeekly, key)
	if _, err := f.pay(st, TestCardAuthenticate); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.PayOnSandbox(ctx, SandboxPayRequest{Session: sessionOf(st), Step: "authenticate"}); err != nil {
		t.Fatal(err)
	}
	order, _ := f.svc.Order(ctx, st.OrderID)
	if err := f.svc.Finalize(ctx, order.SubscriptionID, "u1"); err != nil {
		t.Fatal(err)
	}
	sub, err := f.svc.Subscription(ctx, order.SubscriptionID)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// payWithSavedCard pays a hosted page with the buyer's saved card, passing
// the bank's 3-D Secure step.
func (f fixture) payWithSavedCard(t *testing.T, session string) {
	t.Helper()
	for _, step := range []string{"saved", "authenticate"} {
		if _, err := f.svc.PayOnSandbox(context.Background(), SandboxPayRequest{Session: session, Step: step}); err != nil {
			t.Fatalf("page %s, %s: %v", session, step, err)
		}
	}
}

// An add-on charged off-session on a card whose bank wants the buyer: the
// buyer is sent to the provider's page, authenticates with the saved card,
// and the add-on is made from the page's event.
func TestAddOnAuthenticationRequired(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	main := f.buyAuthenticated(t, "addon-3ds")
	_, err := f.svc.Purchase(ctx, PurchaseRequest{UserID: "u1", Email: main.Email, Main: main, Family: FamilyPDFCourse,
		Origin: "https://glimpse.example"})
	var need *AuthenticationNeeded
	if !errors.As(err, &need) || !errors.Is(err, ErrAuthenticationRequired) || !strings.HasPrefix(need.URL, PathSandboxPay) {
		t.Fatalf("purchase: %v", err)
	}
	subs, _ := f.svc.ForUser(ctx, "u1")
	if Entitlements(subs, "glimpse.web", f.clock.Now())[PDFCourse] {
		t.Fatal("entitled before authenticating")
	}
	session := strings.TrimPrefix(need.URL, PathSandboxPay)
	page, err := f.svc.PayOnSandbox(ctx, SandboxPayRequest{Session: session, Step: "saved"})
	if err != nil || page.Step != "authenticate" {
		t.Fatalf("the saved card: %+v %v", page, err)
	}
	if page, err = f.svc.PayOnSandbox(ctx, SandboxPayRequest{Session: session, Step: "authenticate"}); err != nil || page.Step != "complete" {
		t.Fatalf("authenticated: %+v %v", page, err)
	}
	subs, _ = f.svc.ForUser(ctx, "u1")
	if !Entitlements(subs, "glimpse.web", f.clock.Now())[PDFCourse] {
		t.Fatal("not entitled after paying on the page")
	}
	if _, err := f.svc.Purchase(ctx, PurchaseRequest{UserID: "u1", Email: main.Email, Main: main, Family: FamilyPDFCourse}); !errors.Is(err, ErrAlreadyOwned) {
		t.Fatalf("buying again: %v", err)
	}
}

// A renewal refused for authentication mails a link to confirm it; the
// retries go on meanwhile (each with its own link), and confirming on the
// provider's page renews the plan and closes the link.
func TestRenewalAuthenticationRequired(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buyAuthenticated(t, "renew-3ds")
	f.clock.Set(sub.CurrentPeriodEnd)
	if _, err := f.svc.RenewDue(ctx); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(sub.CurrentPeriodEnd.Add(24 * time.Hour))
	if _, err := f.svc.RenewDue(ctx); err != nil {
		t.Fatal(err)
	}
	var tokens []string
	for _, n := range f.notices.list {
		if n.Kind == NoticeConfirmPayment {
			tokens = append(tokens, n.Data["token"])
		}
	}
	got, _ := f.svc.Subscription(ctx, sub.ID)
	if len(tokens) != 2 || got.FailedAttempts != 2 || got.Status != StatusActive {
		t.Fatalf("%d confirmation mails, %d failed attempts (%s)", len(tokens), got.FailedAttempts, got.Status)
	}
	order, err := f.svc.Confirmation(ctx, tokens[1])
	if err != nil || order.Amount != sub.Price {
		t.Fatalf("confirmation: %+v %v", order, err)
	}
	st, err := f.svc.StartConfirmation(ctx, tokens[1], "https://glimpse.example")
	if err != nil {
		t.Fatal(err)
	}
	f.payWithSavedCard(t, sessionOf(st))
	got, _ = f.svc.Subscription(ctx, sub.ID)
	if got.FailedAttempts != 0 || !got.CurrentPeriodEnd.After(sub.CurrentPeriodEnd) || got.Status != StatusActive {
		t.Fatalf("after confirming: %+v", got)
	}
	if _, err := f.svc.Confirmation(ctx, tokens[0]); !errors.Is(err, ErrConfirmationClosed) {
		t.Fatalf("the older link after the renewal: %v", err)
	}
	if _, err := f.svc.Confirmation(ctx, "not-a-token"); !errors.Is(err, ErrNoOrder) {
		t.Fatalf("an unknown token: %v", err)
	}
}

// A card update is the provider's page in setup mode, for the plan's owner
// only; its event replaces the saved card.
func TestCardUpdateThroughTheHostedPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	main := f.buy(t, FamilyWeekly, TestCardSucceeds, "card-update")
	if err := f.svc.Finalize(ctx, main.ID, "u1"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.StartCardUpdate(ctx, CardUpdateRequest{SubscriptionID: main.ID, UserID: "u2"}); !errors.Is(err, ErrNoSubscription) {
		t.Fatalf("another user's plan: %v", err)
	}
	st, err := f.svc.StartCardUpdate(ctx, CardUpdateRequest{SubscriptionID: main.ID, UserID: "u1", Origin: "https://glimpse.example"})
	if err != nil {
		t.Fatal(err)
	}
	if page, _ := f.svc.SandboxPage(ctx, sessionOf(st)); page.Mode != SessionSetup {
		t.Fatalf("mode %s", page.Mode)
	}
	if _, err := f.pay(st, "5555555555554444"); err != nil {
		t.Fatal(err)
	}
	got, _ := f.svc.Subscription(ctx, main.ID)
	if got.PaymentMethod.Last4 != "4444" || got.PaymentMethod.Brand != "mastercard" {
		t.Fatalf("card %+v", got.PaymentMethod)
	}
}

// A success and a failure of one order delivered together settle it one
// way only: paid with its subscription, or failed with none (without the
// once-per-order outcome both ran, and a failed order held a plan).
func TestCheckoutOutcomeIsSettledOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	for i := range 6 {
		st := f.startAs(t, "ann+"+string(rune('a'+i))+"@example.com", FamilyWeekly, "race-"+string(rune('a'+i)))
		order, session := f.paidOnSandbox(t, st)
		var wg sync.WaitGroup
		for j, typ := range []string{"checkout.session.completed", "checkout.session.async_payment_failed",
			"checkout.session.async_payment_succeeded", "checkout.session.async_payment_failed"} {
			wg.Go(func() {
				if _, err := f.deliver(t, order.ID+"-"+string(rune('0'+j)), typ, f.clock.Now(), session); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		o, _ := f.svc.Order(ctx, order.ID)
		_, err := f.svc.Subscription(ctx, order.SubscriptionID)
		switch {
		case o.Status == OrderPaid && err == nil:
		case o.Status == OrderFailed && errors.Is(err, ErrNoSubscription):
		default:
			t.Fatalf("order %s settled %s with subscription error %v", order.ID, o.Status, err)
		}
	}
}

// A declined card then a good one on one hosted page: the PaymentIntent's
// failure (created first), its success, and the session's completion may
// arrive in any of six orders. In each, the plan ends active and the charge
// paid: a failure older than the success never ends anything.
func TestAnOlderFailureNeverEndsAPaidPlan(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	at := f.clock.Now()
	orders := [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for n, order := range orders {
		st := f.startAs(t, fmt.Sprintf("ann+%d@example.com", n), FamilyWeekly, fmt.Sprintf("declined-then-paid-%d", n))
		o, session := f.paidOnSandbox(t, st)
		intent := map[string]any{"id": session["payment_intent"], "object": "payment_intent",
			"metadata": map[string]string{StripeMetadataKey: o.ChargeKey, StripeOrderKey: o.ID}}
		events := []struct {
			id, typ string
			at      time.Time
			object  map[string]any
		}{
			{fmt.Sprintf("evt_failed_%d", n), "payment_intent.payment_failed", at.Add(-3 * time.Second), intent},
			{fmt.Sprintf("evt_completed_%d", n), "checkout.session.completed", at, session},
			{fmt.Sprintf("evt_succeeded_%d", n), "payment_intent.succeeded", at.Add(-time.Second), intent},
		}
		for _, i := range order {
			if _, err := f.deliver(t, events[i].id, events[i].typ, events[i].at, events[i].object); err != nil {
				t.Fatalf("order %v, %s: %v", order, events[i].typ, err)
			}
		}
		sub, err := f.svc.Subscription(ctx, o.SubscriptionID)
		if err != nil || sub.Status != StatusActive || sub.ExpiresAt != nil {
			t.Errorf("order %v: subscription %s expires %v, %v", order, sub.Status, sub.ExpiresAt, err)
		}
		if status, _ := f.svc.ChargeStatus(ctx, ChargeIDOf(o.ChargeKey)); status != ChargeSucceeded {
			t.Errorf("order %v: charge %s", order, status)
		}
		// Never ended on the way: no "access ends now", not even for a while.
		history, _ := f.svc.History(ctx, o.SubscriptionID)
		for _, c := range history {
			if c.Kind == ChangePaymentFailed || c.Kind == ChangeReinstated {
				t.Errorf("order %v: the paid plan was %s on the way", order, c.Kind)
			}
		}
	}
}

// A first purchase that a newer failure ended comes back when a still newer
// event says the payment succeeded after all.
func TestALaterSuccessReinstatesWhatAFailureEnded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	at := f.clock.Now()
	st := f.start(t, FamilyWeekly, "failed-then-succeeded")
	o, session := f.paidOnSandbox(t, st)
	intent := map[string]any{"id": session["payment_intent"], "object": "payment_intent",
		"metadata": map[string]string{StripeMetadataKey: o.ChargeKey}}
	if _, err := f.deliver(t, "evt_completed", "checkout.session.completed", at, session); err != nil {
		t.Fatal(err)
	}
	if _, err := f.deliver(t, "evt_failed", "payment_intent.payment_failed", at.Add(time.Second), intent); err != nil {
		t.Fatal(err)
	}
	if sub, _ := f.svc.Subscription(ctx, o.SubscriptionID); sub.Status != StatusExpired {
		t.Fatalf("a newer failure left the plan %s", sub.Status)
	}
	if _, err := f.deliver(t, "evt_succeeded", "payment_intent.succeeded", at.Add(2*time.Second), intent); err != nil {
		t.Fatal(err)
	}
	sub, err := f.svc.Subscription(ctx, o.SubscriptionID)
	if err != nil || sub.Status != StatusActive || sub.ExpiresAt != nil || !sub.DueAt.Equal(sub.CurrentPeriodEnd) {
		t.Fatalf("after a newer success: %+v, %v", sub, err)
	}
}
