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
	"go.mongodb.org/mongo-driver/v2/bson"
)

// recordedRequest is one call the Stripe client made.
type recordedRequest struct {
	Method, Path string
	Header       http.Header
	Form         url.Values
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
	r.reqs = append(r.reqs, recordedRequest{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Form: form})
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

func stripeCard() Card {
	return Card{Number: "4242 4242 4242 4242", ExpMonth: 12, ExpYear: 30, CVC: "123"}
}

func TestStripeSaveCard(t *testing.T) {
	p, rec := newStripeForTest(t)
	pm, err := p.SaveCard(context.Background(), "ann@example.com", stripeCard())
	if err != nil {
		t.Fatalf("SaveCard: %v", err)
	}
	if pm.Provider != "stripe" || !strings.HasPrefix(pm.ID, "pm_") || !strings.HasPrefix(pm.Customer, "cus_") ||
		pm.Brand == "" || len(pm.Last4) != 4 {
		t.Fatalf("payment method = %+v", pm)
	}
	reqs := rec.requests()
	var paths []string
	for _, r := range reqs {
		paths = append(paths, r.Method+" "+r.Path)
	}
	want := []string{"POST /v1/customers", "POST /v1/payment_methods", "POST /v1/payment_methods/" + pm.ID + "/attach"}
	if strings.Join(paths, ",") != strings.Join(want, ",") {
		t.Fatalf("requests = %v, want %v", paths, want)
	}
	if got := reqs[0].Form.Get("email"); got != "ann@example.com" {
		t.Errorf("customer email = %q", got)
	}
	card := reqs[1].Form
	if card.Get("type") != "card" || card.Get("card[number]") != "4242424242424242" || card.Get("card[exp_year]") != "2030" ||
		card.Get("card[exp_month]") != "12" || card.Get("card[cvc]") != "123" {
		t.Errorf("payment method params = %v", card)
	}
	if got := reqs[2].Form.Get("customer"); got != pm.Customer {
		t.Errorf("attach customer = %q, want %q", got, pm.Customer)
	}
}

func TestStripeSaveCardChecksLocally(t *testing.T) {
	p, rec := newStripeForTest(t)
	_, err := p.SaveCard(context.Background(), "ann@example.com", Card{Number: "4242 4242 4242 4241", ExpMonth: 12, ExpYear: 30, CVC: "123"})
	if !errors.Is(err, ErrCardInvalid) {
		t.Fatalf("err = %v, want ErrCardInvalid", err)
	}
	if n := len(rec.requests()); n != 0 {
		t.Fatalf("%d requests sent for a number that fails the Luhn check", n)
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

func TestStripeCharge(t *testing.T) {
	p, rec := newStripeForTest(t)
	rec.answer = succeed
	pm := PaymentMethod{Provider: "stripe", ID: "pm_123", Customer: "cus_123"}
	for _, offSession := range []bool{false, true} {
		key := "renew:sub_1:1767000000:0"
		if !offSession {
			key = "checkout:abc"
		}
		ch, err := p.Charge(context.Background(), ChargeRequest{Key: key, Method: pm, Amount: USD(1399),
			Description: "glimpse_premium_one_month", OffSession: offSession})
		if err != nil {
			t.Fatalf("Charge(offSession=%v): %v", offSession, err)
		}
		if ch.Status != "succeeded" || !strings.HasPrefix(ch.Reference, "pi_") || ch.ID != key || ch.Amount != USD(1399) {
			t.Fatalf("charge = %+v", ch)
		}
		reqs := rec.requests()
		r := reqs[len(reqs)-1]
		if r.Method != http.MethodPost || r.Path != "/v1/payment_intents" {
			t.Fatalf("request = %s %s", r.Method, r.Path)
		}
		if got := r.Header.Get("Idempotency-Key"); got != key {
			t.Errorf("Idempotency-Key = %q, want %q", got, key)
		}
		f := r.Form
		want := map[string]string{"amount": "1399", "currency": "usd", "customer": "cus_123", "payment_method": "pm_123",
			"confirm": "true", "metadata[glimpse_key]": key, "payment_method_types[0]": "card",
			"description": "glimpse_premium_one_month"}
		if offSession {
			want["off_session"] = "true"
		} else {
			want["error_on_requires_action"] = "true"
		}
		for k, v := range want {
			if f.Get(k) != v {
				t.Errorf("offSession=%v: %s = %q, want %q (form %v)", offSession, k, f.Get(k), v, f)
			}
		}
		if !offSession && f.Has("off_session") {
			t.Errorf("off_session sent for a charge the buyer is present for")
		}
	}
}

func TestStripeChargeDeclined(t *testing.T) {
	p, rec := newStripeForTest(t)
	rec.answer = func(path string, _ []byte) (int, []byte) {
		return http.StatusPaymentRequired, []byte(`{"error": {"type": "card_error", "code": "card_declined",
			"decline_code": "insufficient_funds", "message": "Your card has insufficient funds.",
			"payment_intent": {"id": "pi_declined", "object": "payment_intent", "status": "requires_payment_method"}}}`)
	}
	ch, err := p.Charge(context.Background(), ChargeRequest{Key: "renew:sub_1:1:0", OffSession: true,
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

// TestStripeCheckout runs a whole checkout through the service on Stripe,
// so the ledger holds the charge under its key with the PaymentIntent id.
func TestStripeCheckout(t *testing.T) {
	p, rec := newStripeForTest(t)
	rec.answer = succeed
	f := newFixture(t)
	f.svc.provider = p
	plan, err := f.svc.Catalogue().Find("default", FamilyPremiumOneMonth)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sub, err := f.svc.Checkout(ctx, CheckoutRequest{Brand: "default", Bundle: "glimpse.web", PlanCode: plan.Code,
		Email: "ann@example.com", Card: stripeCard(), Key: "page-1"})
	if err != nil {
		t.Fatalf("checkout: %v", err)
	}
	if sub.Provider != "stripe" || !strings.HasPrefix(sub.PaymentMethod.Customer, "cus_") {
		t.Fatalf("subscription = %+v", sub)
	}
	status, err := f.svc.ChargeStatus(ctx, "checkout:page-1")
	if err != nil || status != "succeeded" {
		t.Fatalf("ledger status = %q, %v", status, err)
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
	var ledger Charge
	if err := f.svc.db.Collection(chargesCollection).FindOne(ctx, bson.M{"_id": "checkout:k-refund"}).Decode(&ledger); err != nil {
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
