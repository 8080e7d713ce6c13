package billing

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/billing/stripetest"

	"github.com/stripe/stripe-go/v85"
)

// recordedRequest is one call the Stripe client made.
type recordedRequest struct {
	Method, Path string
	Header       http.Header
	Form         url.Values
	Query        url.Values
}

// stripeRecorder is an http.RoundTripper that records every request and may
// replace stripe-mock's answer: stripe-mock checks the parameters against
// Stripe's spec but always answers with the same fixture (a PaymentIntent
// in requires_payment_method), so outcomes are set here.
type stripeRecorder struct {
	next http.RoundTripper
	mu   sync.Mutex
	reqs []recordedRequest
	// answer, when set, may return a replacement for the response to a
	// request that stripe-mock accepted (status 200).
	answer func(path string, body []byte) (status int, replaced []byte)
}

func (r *stripeRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	form, _ := url.ParseQuery(string(body))
	r.mu.Lock()
	r.reqs = append(r.reqs, recordedRequest{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Form: form,
		Query: req.URL.Query()})
	answer := r.answer
	r.mu.Unlock()
	res, err := r.next.RoundTrip(req)
	if err != nil || answer == nil || res.StatusCode != http.StatusOK {
		return res, err
	}
	got, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	status, replaced := answer(req.URL.Path, got)
	if replaced == nil {
		status, replaced = res.StatusCode, got
	}
	res.StatusCode = status
	res.Body = io.NopCloser(bytes.NewReader(replaced))
	res.ContentLength = int64(len(replaced))
	res.Header.Del("Content-Length")
	return res, nil
}

func (r *stripeRecorder) requests() []recordedRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recordedRequest(nil), r.reqs...)
}

func newStripeForTest(t *testing.T) (*Stripe, *stripeRecorder) {
	t.Helper()
	base := stripetest.StartMock(t)
	rec := &stripeRecorder{next: http.DefaultTransport}
	p, err := NewStripe(StripeConfig{SecretKey: stripetest.Key, APIBase: base,
		HTTPClient: &http.Client{Transport: rec, Timeout: 20 * time.Second},
		Clock:      engine.NewManualClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	return p, rec
}

// TestStripeStartSession checks the Checkout Sessions we create against
// stripe-mock, which refuses unknown or ill-typed parameters: a payment
// session saves the card for later charges and carries our ids; a setup
// session reuses the customer. No card data is sent: there is none.
func TestStripeStartSession(t *testing.T) {
	p, rec := newStripeForTest(t)
	ctx := context.Background()
	sess, err := p.StartSession(ctx, SessionRequest{Key: "session:co_1", OrderID: "co_1", Mode: SessionPayment,
		ChargeKey: "checkout:page-1", Amount: USD(1399), Description: "Premium Plan", Renews: "Renews every 1 month until you cancel.", Email: "ann@example.com",
		SuccessURL: "https://glimpse.example/checkout/done?order=co_1", CancelURL: "https://glimpse.example/checkout"})
	if err != nil {
		t.Fatalf("payment session: %v", err)
	}
	if !strings.HasPrefix(sess.ID, "cs_") {
		t.Fatalf("session = %+v", sess)
	}
	r := rec.requests()[0]
	if r.Method != http.MethodPost || r.Path != "/v1/checkout/sessions" || r.Header.Get("Idempotency-Key") != "session:co_1" {
		t.Fatalf("request = %s %s (key %q)", r.Method, r.Path, r.Header.Get("Idempotency-Key"))
	}
	want := map[string]string{"mode": "payment", "client_reference_id": "co_1", "customer_email": "ann@example.com",
		"customer_creation": "always", "success_url": "https://glimpse.example/checkout/done?order=co_1",
		"cancel_url": "https://glimpse.example/checkout", "payment_method_types[0]": "card",
		"metadata[glimpse_order]": "co_1", "line_items[0][quantity]": "1",
		"line_items[0][price_data][currency]": "usd", "line_items[0][price_data][unit_amount]": "1399",
		"line_items[0][price_data][product_data][name]":        "Premium Plan",
		"line_items[0][price_data][product_data][description]": "Renews every 1 month until you cancel.",
		"payment_intent_data[setup_future_usage]":              "off_session",
		"payment_intent_data[metadata][glimpse_key]":           "checkout:page-1",
		"payment_intent_data[metadata][glimpse_order]":         "co_1"}
	for k, v := range want {
		if r.Form.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, r.Form.Get(k), v)
		}
	}
	for k := range r.Form {
		if strings.Contains(k, "card[") || strings.Contains(k, "number") || strings.Contains(k, "cvc") {
			t.Errorf("card data sent: %s", k)
		}
	}
	if _, err := p.StartSession(ctx, SessionRequest{Key: "session:co_2", OrderID: "co_2", Mode: SessionSetup,
		Amount: USD(0), Description: "Weekly Plan", Saved: PaymentMethod{ID: "pm_1", Customer: "cus_1"},
		SuccessURL: "https://glimpse.example/checkout/done?order=co_2", CancelURL: "https://glimpse.example/checkout/card"}); err != nil {
		t.Fatalf("setup session: %v", err)
	}
	r = rec.requests()[1]
	for k, v := range map[string]string{"mode": "setup", "customer": "cus_1", "currency": "usd",
		"setup_intent_data[metadata][glimpse_order]": "co_2"} {
		if r.Form.Get(k) != v {
			t.Errorf("setup: %s = %q, want %q", k, r.Form.Get(k), v)
		}
	}
	if r.Form.Has("customer_email") || r.Form.Has("line_items[0][quantity]") {
		t.Errorf("setup form %v", r.Form)
	}
}

// paidSession answers a session read with a paid one, its PaymentIntent and
// card expanded, as Stripe answers after the buyer paid.
func paidSession(orderID, paymentStatus string) func(path string, body []byte) (int, []byte) {
	return func(path string, body []byte) (int, []byte) {
		if !strings.HasPrefix(path, "/v1/checkout/sessions/") {
			return 0, nil
		}
		var cs map[string]any
		if err := json.Unmarshal(body, &cs); err != nil {
			return 0, nil
		}
		cs["client_reference_id"], cs["mode"], cs["status"], cs["payment_status"] = orderID, "payment", "complete", paymentStatus
		cs["customer"] = "cus_paid"
		cs["payment_intent"] = map[string]any{"id": "pi_paid", "object": "payment_intent", "status": "succeeded",
			"payment_method": map[string]any{"id": "pm_paid", "object": "payment_method", "type": "card",
				"card": map[string]any{"brand": "visa", "last4": "4242"}}}
		out, _ := json.Marshal(cs)
		return http.StatusOK, out
	}
}

func TestStripeSessionResult(t *testing.T) {
	p, rec := newStripeForTest(t)
	rec.answer = paidSession("co_9", "paid")
	res, err := p.SessionResult(context.Background(), "cs_test_1")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Paid() || res.OrderID != "co_9" || res.PaymentIntent != "pi_paid" ||
		res.Method != (PaymentMethod{Provider: "stripe", ID: "pm_paid", Customer: "cus_paid", Brand: "visa", Last4: "4242"}) {
		t.Fatalf("result = %+v", res)
	}
	r := rec.requests()[0]
	if r.Method != http.MethodGet || r.Path != "/v1/checkout/sessions/cs_test_1" {
		t.Fatalf("request = %s %s", r.Method, r.Path)
	}
	if q := r.Query; q.Get("expand[0]") != "payment_intent.payment_method" || q.Get("expand[1]") != "setup_intent.payment_method" {
		t.Fatalf("expand = %v", q)
	}
}

// succeed turns stripe-mock's PaymentIntent fixture into a succeeded one.
func succeed(path string, body []byte) (int, []byte) {
	if path != "/v1/payment_intents" {
		return 0, nil
	}
	var pi map[string]any
	if err := json.Unmarshal(body, &pi); err != nil {
		return 0, nil
	}
	pi["status"] = "succeeded"
	out, _ := json.Marshal(pi)
	return http.StatusOK, out
}

// A later charge (a renewal, an add-on) is made off-session with the saved
// card, our key as the Idempotency-Key and in the metadata.
func TestStripeCharge(t *testing.T) {
	p, rec := newStripeForTest(t)
	rec.answer = succeed
	pm := PaymentMethod{Provider: "stripe", ID: "pm_123", Customer: "cus_123"}
	key := "renew:sub_1:1767000000:0"
	ch, err := p.Charge(context.Background(), ChargeRequest{Key: key, Method: pm, Amount: USD(1399),
		Description: "glimpse_premium_one_month"})
	if err != nil {
		t.Fatalf("Charge: %v", err)
	}
	if ch.Status != "succeeded" || !strings.HasPrefix(ch.Reference, "pi_") || ch.ID != key || ch.Amount != USD(1399) {
		t.Fatalf("charge = %+v", ch)
	}
	r := rec.requests()[0]
	if r.Method != http.MethodPost || r.Path != "/v1/payment_intents" || r.Header.Get("Idempotency-Key") != key {
		t.Fatalf("request = %s %s (key %q)", r.Method, r.Path, r.Header.Get("Idempotency-Key"))
	}
	want := map[string]string{"amount": "1399", "currency": "usd", "customer": "cus_123", "payment_method": "pm_123",
		"confirm": "true", "metadata[glimpse_key]": key, "payment_method_types[0]": "card",
		"description": "glimpse_premium_one_month", "off_session": "true"}
	for k, v := range want {
		if r.Form.Get(k) != v {
			t.Errorf("%s = %q, want %q (form %v)", k, r.Form.Get(k), v, r.Form)
		}
	}
}

// A bank that wants the buyer answers authentication_required: the charge
// is refused with ErrAuthenticationRequired, not as a plain decline.
func TestStripeChargeAuthenticationRequired(t *testing.T) {
	p, rec := newStripeForTest(t)
	rec.answer = func(path string, _ []byte) (int, []byte) {
		return http.StatusPaymentRequired, []byte(`{"error": {"type": "card_error", "code": "authentication_required",
			"decline_code": "authentication_required", "message": "Your card was declined. This transaction requires authentication.",
			"payment_intent": {"id": "pi_auth", "object": "payment_intent", "status": "requires_payment_method"}}}`)
	}
	ch, err := p.Charge(context.Background(), ChargeRequest{Key: "purchase:u1:course",
		Method: PaymentMethod{ID: "pm_1", Customer: "cus_1"}, Amount: USD(1999)})
	if !errors.Is(err, ErrAuthenticationRequired) || ch.Reference != "pi_auth" || ch.Status != "failed" {
		t.Fatalf("charge %+v, err %v", ch, err)
	}
}

func TestStripeChargeDeclined(t *testing.T) {
	p, rec := newStripeForTest(t)
	rec.answer = func(path string, _ []byte) (int, []byte) {
		return http.StatusPaymentRequired, []byte(`{"error": {"type": "card_error", "code": "card_declined",
			"decline_code": "insufficient_funds", "message": "Your card has insufficient funds.",
			"payment_intent": {"id": "pi_declined", "object": "payment_intent", "status": "requires_payment_method"}}}`)
	}
	ch, err := p.Charge(context.Background(), ChargeRequest{Key: "renew:sub_1:1:0",
		Method: PaymentMethod{ID: "pm_1", Customer: "cus_1"}, Amount: USD(100)})
	if !errors.Is(err, ErrCardDeclined) {
		t.Fatalf("err = %v, want ErrCardDeclined", err)
	}
	if ch.Status != "failed" || ch.Failure != "card_declined:insufficient_funds" || ch.Reference != "pi_declined" {
		t.Fatalf("charge = %+v", ch)
	}
}

func TestStripeChargeUnavailable(t *testing.T) {
	p, rec := newStripeForTest(t)
	rec.answer = func(path string, _ []byte) (int, []byte) {
		// A lock timeout: the one API error the library retries.
		return http.StatusTooManyRequests, []byte(`{"error": {"type": "invalid_request_error", "code": "lock_timeout"}}`)
	}
	_, err := p.Charge(context.Background(), ChargeRequest{Key: "k", Method: PaymentMethod{ID: "pm_1", Customer: "cus_1"}, Amount: USD(100)})
	if engine.ErrorCode(err) != engine.CodeUnavailable || errors.Is(err, ErrCardDeclined) {
		t.Fatalf("err = %v, want unavailable", err)
	}
	// The library retried with the same idempotency key.
	reqs := rec.requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests, want retries", len(reqs))
	}
	for _, r := range reqs {
		if r.Header.Get("Idempotency-Key") != "k" {
			t.Fatalf("retry with Idempotency-Key %q", r.Header.Get("Idempotency-Key"))
		}
	}
}

// TestStripeCheckout runs a whole checkout through the service on Stripe:
// the session is created (stripe-mock checks its parameters), nothing exists
// until Stripe's signed checkout.session.completed arrives, and then the
// subscription holds the card Stripe reports and the ledger the payment
// under its key with the PaymentIntent id.
func TestStripeCheckout(t *testing.T) {
	p, rec := newStripeForTest(t)
	f := newFixture(t)
	f.svc.provider = p
	ctx := context.Background()
	st := f.start(t, FamilyPremiumOneMonth, "page-1")
	order, err := f.svc.Order(ctx, st.OrderID)
	if err != nil || order.Status != OrderPending || order.Session == "" {
		t.Fatalf("order %+v, %v", order, err)
	}
	if _, err := f.svc.Subscription(ctx, order.SubscriptionID); !errors.Is(err, ErrNoSubscription) {
		t.Fatalf("a subscription exists before Stripe said it was paid: %v", err)
	}
	rec.answer = paidSession(order.ID, "paid")
	res, err := f.deliver(t, "evt_cs_1", "checkout.session.completed", f.clock.Now(),
		map[string]any{"id": order.Session, "object": "checkout.session", "client_reference_id": order.ID,
			"payment_status": "paid"})
	if err != nil || res.Order != order.ID || res.Status != OrderPaid {
		t.Fatalf("event: %+v %v", res, err)
	}
	sub, err := f.svc.Subscription(ctx, order.SubscriptionID)
	if err != nil || sub.Provider != "stripe" || sub.PaymentMethod.Customer != "cus_paid" || sub.PaymentMethod.Last4 != "4242" {
		t.Fatalf("subscription = %+v, %v", sub, err)
	}
	status, err := f.svc.ChargeStatus(ctx, ChargeIDOf("checkout:page-1"))
	if err != nil || status != "succeeded" {
		t.Fatalf("ledger status = %q, %v", status, err)
	}
	if id, _ := f.svc.ChargeIDByReference(ctx, "pi_paid"); id != ChargeIDOf("checkout:page-1") {
		t.Fatalf("ledger reference: %q", id)
	}
}

// Refunds and disputes change access (they only updated the ledger): a
// refunded add-on loses its entitlement, a disputed plan is suspended until
// the dispute is won, a plan refunded in full ends; an event older than the
// charge's newest changes nothing.
func TestRefundsAndDisputesChangeAccess(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	main := f.buy(t, FamilyWeekly, TestCardSucceeds, "k-refund")
	if err := f.svc.Finalize(ctx, main.ID, "u1"); err != nil {
		t.Fatal(err)
	}
	main, _ = f.svc.Subscription(ctx, main.ID)
	course, err := f.svc.Purchase(ctx, PurchaseRequest{UserID: "u1", Email: main.Email, Main: main, Family: FamilyPDFCourse})
	if err != nil {
		t.Fatal(err)
	}
	at := start
	event := func(id string, typ stripe.EventType, object string) {
		t.Helper()
		at = at.Add(time.Minute)
		ev := stripe.Event{ID: id, Type: typ, Created: at.Unix(), Data: &stripe.EventData{Raw: json.RawMessage(object)}}
		if _, err := f.svc.HandleStripeEvent(ctx, ev); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	entitled := func() map[Entitlement]bool {
		subs, _ := f.svc.ForUser(ctx, "u1")
		return Entitlements(subs, "glimpse.web", f.clock.Now())
	}
	authorised := func() bool {
		subs, _ := f.svc.ForUser(ctx, "u1")
		_, ok := MainSubscription(subs, "glimpse.web", f.clock.Now())
		return ok
	}
	charge := func(key string) string {
		return `{"object":"charge","id":"ch_` + key + `","metadata":{"` + StripeMetadataKey + `":"` + key + `"}`
	}
	ledger, err := f.svc.st.Ledger().ByKey(ctx, "checkout:k-refund")
	if err != nil {
		t.Fatal(err)
	}
	dispute := func(status string) string {
		return `{"object":"dispute","id":"dp_1","status":"` + status + `","payment_intent":"` + ledger.Reference + `"}`
	}

	if !entitled()[PDFCourse] || !authorised() {
		t.Fatal("not entitled before any event")
	}
	courseKey := "purchase:u1:" + course.PlanCode
	event("evt_refund_course", stripe.EventTypeChargeRefunded, charge(courseKey)+`,"refunded":true}`)
	if entitled()[PDFCourse] {
		t.Fatal("a refunded course still entitles")
	}
	// The event is remembered by its id with the charge's opaque id, never
	// its key, which names the account; a second delivery does nothing.
	if rec, found, err := f.svc.st.StripeEvents().Get(ctx, "evt_refund_course"); err != nil || !found ||
		rec.ChargeID != ChargeIDOf(courseKey) || strings.Contains(rec.ChargeID, "u1") || !rec.Applied {
		t.Fatalf("recorded: %+v, %v, %v", rec, found, err)
	}
	if res, err := f.svc.HandleStripeEvent(ctx, stripe.Event{ID: "evt_refund_course", Type: stripe.EventTypeChargeRefunded,
		Created: at.Unix(), Data: &stripe.EventData{Raw: json.RawMessage(charge(courseKey) + `,"refunded":true}`)}}); err != nil || !res.Duplicate {
		t.Fatalf("delivered again: %+v, %v", res, err)
	}
	event("evt_dispute", stripe.EventTypeChargeDisputeCreated, dispute("needs_response"))
	if authorised() {
		t.Fatal("a disputed plan still authorises")
	}
	event("evt_dispute_won", stripe.EventTypeChargeDisputeClosed, dispute("won"))
	if !authorised() {
		t.Fatal("a won dispute did not give access back")
	}
	event("evt_partial", stripe.EventTypeChargeRefunded, charge("checkout:k-refund")+`,"refunded":false}`)
	if !authorised() {
		t.Fatal("a partial refund ended the plan")
	}
	// An older event delivered late changes nothing.
	at = at.Add(-time.Hour)
	event("evt_old_dispute", stripe.EventTypeChargeDisputeCreated, dispute("needs_response"))
	at = at.Add(time.Hour)
	if !authorised() {
		t.Fatal("an old event suspended the plan")
	}
	event("evt_refund_plan", stripe.EventTypeChargeRefunded, charge("checkout:k-refund")+`,"refunded":true}`)
	if authorised() {
		t.Fatal("a plan refunded in full still authorises")
	}
	got, _ := f.svc.Subscription(ctx, main.ID)
	if got.Status != StatusExpired || !got.DueAt.IsZero() {
		t.Fatalf("refunded plan: %+v", got)
	}
}

// Stripe down: opening a page says payments are unavailable (and buys
// nothing); an event whose session cannot be read again fails, so the
// webhook answers 500 and Stripe delivers it again later.
func TestStripeSessionUnavailable(t *testing.T) {
	p, rec := newStripeForTest(t)
	rec.answer = func(path string, _ []byte) (int, []byte) {
		return http.StatusInternalServerError, []byte(`{"error": {"type": "api_error", "message": "down"}}`)
	}
	f := newFixture(t)
	f.svc.provider = p
	ctx := context.Background()
	plan, _ := f.svc.Catalogue().Find("default", FamilyWeekly)
	_, err := f.svc.StartCheckout(ctx, CheckoutRequest{Brand: "default", Bundle: "glimpse.web", PlanCode: plan.Code,
		Email: "ann@example.com", Key: "down"})
	if engine.ErrorCode(err) != engine.CodeUnavailable {
		t.Fatalf("start: %v", err)
	}
	orderID := "co_" + engine.HashToken("checkout:down")[:24]
	_, err = f.deliver(t, "evt_down", "checkout.session.completed", f.clock.Now(),
		map[string]any{"id": "cs_down", "object": "checkout.session", "client_reference_id": orderID})
	if err == nil {
		t.Fatal("an event whose session could not be read was taken")
	}
	if res, _ := f.deliver(t, "evt_down", "checkout.session.completed", f.clock.Now(),
		map[string]any{"id": "cs_down", "object": "checkout.session", "client_reference_id": orderID}); res.Duplicate {
		t.Fatal("a failed event was recorded as handled")
	}
}
