package billing

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine"
	"glimpse/engine/billing/stripetest"
)

// withAddOn puts a main weekly plan for user u1 (a sandbox card that pays)
// and buys the Reels playbook on it through Purchase; it returns the
// add-on's subscription and its charge.
func (f fixture) withAddOn(t *testing.T) (Subscription, Charge) {
	t.Helper()
	ctx := context.Background()
	main := Subscription{ID: "main-u1", UserID: "u1", Email: "ann@example.com", Bundle: "glimpse.web", Brand: "default",
		PlanCode: "glimpse_weekly_trial", Status: StatusActive, MainPlan: true, Price: USD(100), Provider: sandboxName,
		StartedAt: start, CurrentPeriodStart: start, CurrentPeriodEnd: start.AddDate(0, 0, 7), DueAt: start.AddDate(0, 0, 7),
		PaymentMethod: PaymentMethod{Provider: sandboxName, ID: "pm_sandbox_ok_test", Brand: "visa", Last4: "4242"}}
	if err := f.svc.Put(ctx, main); err != nil {
		t.Fatal(err)
	}
	addOn, err := f.svc.Purchase(ctx, PurchaseRequest{UserID: "u1", Email: main.Email, Main: main, Family: FamilyReelsPlaybook})
	if err != nil {
		t.Fatal(err)
	}
	charges, err := f.svc.ChargesFor(ctx, []string{addOn.ID})
	if err != nil || len(charges) != 1 {
		t.Fatalf("charges of the add-on: %v %v", charges, err)
	}
	return addOn, charges[0]
}

func TestRefundAnAddOnInFullTakesItsEntitlement(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	addOn, ch := f.withAddOn(t)
	if ch.Amount != USD(2899) || ch.Status != ChargeSucceeded || !f.svc.Refundable(ch) {
		t.Fatalf("the add-on's charge = %+v", ch)
	}
	r, err := f.svc.Refund(ctx, RefundRequest{Full: true, ChargeID: ch.ID, Reason: "Bought by mistake", By: "staff:support@example.com", Key: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != RefundSucceeded || !r.Full || r.Amount != USD(2899) || r.Reference == "" || r.Reason != "Bought by mistake" {
		t.Fatalf("refund = %+v", r)
	}
	after, err := f.svc.Charge(ctx, ch.ID)
	if err != nil || after.Status != ChargeRefunded {
		t.Fatalf("the charge after the refund: %+v %v", after, err)
	}
	sub, err := f.svc.Subscription(ctx, addOn.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !sub.Expired(f.clock.Now()) {
		t.Fatalf("the refunded add-on is %s, still counting", sub.Status)
	}
	subs, _ := f.svc.ForUser(ctx, "u1")
	if ent := Entitlements(subs, "glimpse.web", f.clock.Now()); ent[ReelsPlaybook] {
		t.Fatalf("the refunded playbook is still an entitlement: %v", ent)
	}
	if main, _ := f.svc.Subscription(ctx, "main-u1"); !main.Authorises("glimpse.web", f.clock.Now()) {
		t.Fatal("refunding the add-on ended the main plan")
	}
	// Asked again with the same key: the same refund, nothing more.
	again, err := f.svc.Refund(ctx, RefundRequest{Full: true, ChargeID: ch.ID, Reason: "Bought by mistake", By: "staff:support@example.com", Key: "k1"})
	if err != nil || again.ID != r.ID {
		t.Fatalf("the same request again: %+v %v", again, err)
	}
	// Another request: nothing is left.
	if _, err := f.svc.Refund(ctx, RefundRequest{Full: true, ChargeID: ch.ID, Reason: "again", By: "staff:x", Key: "k2"}); !errors.Is(err, ErrAlreadyRefunded) {
		t.Fatalf("a second refund of a refunded charge: %v", err)
	}
	if n := countRecords(t, f.st, "sandbox_refunds", "", bson.M{}); n != 1 {
		t.Fatalf("the provider made %d refunds, want 1", n)
	}
	history, _ := f.svc.History(ctx, addOn.ID)
	kinds := map[string]int{}
	for _, c := range history {
		kinds[c.Kind]++
	}
	if kinds[ChangeRefunded] != 2 { // the refund, and the end of what it paid for
		t.Fatalf("history %+v", history)
	}
}

func TestRefundInPartsKeepsAccessUntilNothingIsLeft(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	addOn, ch := f.withAddOn(t)
	part, err := f.svc.Refund(ctx, RefundRequest{ChargeID: ch.ID, Amount: 900, Reason: "Goodwill", By: "staff:s"})
	if err != nil || part.Full || part.Amount != USD(900) {
		t.Fatalf("a partial refund: %+v %v", part, err)
	}
	if after, _ := f.svc.Charge(ctx, ch.ID); after.Status != ChargePartiallyRefunded {
		t.Fatalf("status after a partial refund: %s", after.Status)
	}
	if sub, _ := f.svc.Subscription(ctx, addOn.ID); sub.Expired(f.clock.Now()) {
		t.Fatal("a partial refund ended the add-on")
	}
	if _, err := f.svc.Refund(ctx, RefundRequest{ChargeID: ch.ID, Amount: 2000, Reason: "Too much", By: "staff:s"}); !errors.Is(err, ErrRefundTooLarge) {
		t.Fatalf("a refund of more than is left: %v", err)
	}
	rest, err := f.svc.Refund(ctx, RefundRequest{Full: true, ChargeID: ch.ID, Reason: "The rest", By: "staff:s"})
	if err != nil || !rest.Full || rest.Amount != USD(1999) || rest.Seq != 1 {
		t.Fatalf("the rest: %+v %v", rest, err)
	}
	if sub, _ := f.svc.Subscription(ctx, addOn.ID); !sub.Expired(f.clock.Now()) {
		t.Fatal("refunded in full in two parts, the add-on still counts")
	}
}

// Ten desk requests for one charge sent together, as a double click or two
// support agents would: one refund reaches the provider. With the same key
// every request gets that refund back; with none, the others are refused.
// Without the numbered claim each would read "nothing refunded yet" and
// refund the charge again.
func TestARefundIsMadeOnceWhenAskedTogether(t *testing.T) {
	t.Parallel()
	for _, sameKey := range []bool{true, false} {
		t.Run("same key "+strconv.FormatBool(sameKey), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			ctx := context.Background()
			_, ch := f.withAddOn(t)
			var wg sync.WaitGroup
			results := make([]Refund, 10)
			errs := make([]error, 10)
			for i := range 10 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					key := "desk-view-1"
					if !sameKey {
						key = "desk-view-" + strconv.Itoa(i)
					}
					results[i], errs[i] = f.svc.Refund(ctx, RefundRequest{Full: true, ChargeID: ch.ID, Reason: "Duplicate purchase", By: "staff:s", Key: key})
				}()
			}
			wg.Wait()
			ids := map[string]bool{}
			for i, err := range errs {
				switch {
				case err == nil:
					ids[results[i].ID] = true
				case sameKey:
					t.Errorf("request %d with the shared key: %v", i, err)
				case !errors.Is(err, ErrRefundInProgress) && !errors.Is(err, ErrAlreadyRefunded):
					t.Errorf("request %d: %v", i, err)
				}
			}
			if len(ids) != 1 {
				t.Errorf("%d refunds answered, want 1: %v", len(ids), ids)
			}
			if n := countRecords(t, f.st, "sandbox_refunds", "", bson.M{}); n != 1 {
				t.Errorf("the provider made %d refunds, want 1", n)
			}
			recorded, err := f.svc.RefundsOf(ctx, ch.ID)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(recorded); n != 1 || recorded[0].Status != RefundSucceeded {
				t.Errorf("%d refunds recorded (%+v), want 1 succeeded", n, recorded)
			}
		})
	}
}

func TestRefundOfAPlanChargeEndsThePlan(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	_, _ = f.withAddOn(t)
	ch, err := f.svc.charge(ctx, ChargeRequest{Key: "renew:main-u1:1", Method: PaymentMethod{Provider: sandboxName, ID: "pm_sandbox_ok_test"},
		Amount: USD(100), Description: "glimpse_weekly_trial", SubscriptionID: "main-u1"})
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Hour)
	if _, err := f.svc.Refund(ctx, RefundRequest{Full: true, ChargeID: ch.ID, Reason: "Charged after cancelling", By: "staff:s"}); err != nil {
		t.Fatal(err)
	}
	main, _ := f.svc.Subscription(ctx, "main-u1")
	if main.Authorises("glimpse.web", f.clock.Now()) || main.Status != StatusExpired || !main.DueAt.IsZero() {
		t.Fatalf("the plan after its charge was refunded: %+v", main)
	}
}

func TestRefundRefusesWhatCannotBeRefunded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	_, _ = f.withAddOn(t)
	declined, _ := f.svc.charge(ctx, ChargeRequest{Key: "purchase:u1:x", Method: PaymentMethod{ID: "pm_sandbox_decline_1"},
		Amount: USD(500), SubscriptionID: "main-u1"})
	if declined.Status != "failed" {
		t.Fatalf("declined charge = %+v", declined)
	}
	store := Charge{ID: ChargeIDOf("appstore:1"), Key: "appstore:1", Provider: "appstore", Amount: USD(999), Status: ChargeSucceeded,
		SubscriptionID: "main-u1", CreatedAt: start}
	if _, err := f.svc.st.Ledger().Record(ctx, []Charge{store}); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		req  RefundRequest
		want error
	}{
		"a declined charge":     {RefundRequest{Full: true, ChargeID: declined.ID, Reason: "r", By: "s"}, ErrNotRefundable},
		"an App Store purchase": {RefundRequest{Full: true, ChargeID: store.ID, Reason: "r", By: "s"}, ErrNotRefundable},
		"an unknown charge":     {RefundRequest{Full: true, ChargeID: "nope", Reason: "r", By: "s"}, ErrNoCharge},
		"no reason":             {RefundRequest{Full: true, ChargeID: store.ID, Reason: "  ", By: "s"}, nil},
		"a negative amount":     {RefundRequest{ChargeID: store.ID, Amount: -1, Reason: "r", By: "s"}, nil},
	} {
		_, err := f.svc.Refund(ctx, c.req)
		var e *engine.Error
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) || (c.want == nil && (!errors.As(err, &e) || e.Code != engine.CodeInvalid)) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	if n := countRecords(t, f.st, "sandbox_refunds", "", bson.M{}); n != 0 {
		t.Fatalf("the provider made %d refunds", n)
	}
}

func TestStripeRefund(t *testing.T) {
	p, rec := newStripeForTest(t)
	ch := Charge{ID: ChargeIDOf("purchase:u1:glimpse_reels_playbook"), Key: "purchase:u1:glimpse_reels_playbook", Reference: "pi_123",
		Amount: USD(2899)}
	id, err := p.Refund(context.Background(), ProviderRefund{Key: "refund:" + ch.ID + "#0:1000", Charge: ch, Amount: USD(1000)})
	if err != nil {
		t.Fatal(err)
	}
	if id == "" {
		t.Fatal("no refund id")
	}
	reqs := rec.requests()
	r := reqs[len(reqs)-1]
	if r.Method != http.MethodPost || r.Path != "/v1/refunds" {
		t.Fatalf("request = %s %s", r.Method, r.Path)
	}
	if got := r.Header.Get("Idempotency-Key"); got != "refund:"+ch.ID+"#0:1000" {
		t.Errorf("Idempotency-Key = %q", got)
	}
	for k, v := range map[string]string{"payment_intent": "pi_123", "amount": "1000", "reason": "requested_by_customer",
		"metadata[glimpse_key]": ch.Key, "metadata[glimpse_refund]": "refund:" + ch.ID + "#0:1000"} {
		if r.Form.Get(k) != v {
			t.Errorf("%s = %q, want %q (form %v)", k, r.Form.Get(k), v, r.Form)
		}
	}
}

// Stripe refusing a refund, failing, or reporting it failed, and Stripe not
// answering at all: each is an error staff can read, and nothing hangs.
func TestStripeRefundFailures(t *testing.T) {
	ch := Charge{ID: "purchase:u1:x", Reference: "pi_123", Amount: USD(2899)}
	req := ProviderRefund{Key: "refund:purchase:u1:x#0:2899", Charge: ch, Amount: USD(2899)}
	for name, c := range map[string]struct {
		status int
		body   string
		want   error
	}{
		"already refunded": {http.StatusBadRequest, `{"error":{"type":"invalid_request_error","code":"charge_already_refunded","message":"Charge has already been refunded."}}`, ErrNotRefundable},
		"stripe fails":     {http.StatusInternalServerError, `{"error":{"type":"api_error","message":"boom"}}`, ErrRefundFailed},
		"refund failed":    {http.StatusOK, `{"id":"re_1","object":"refund","status":"failed","amount":2899,"currency":"usd"}`, ErrRefundFailed},
	} {
		t.Run(name, func(t *testing.T) {
			p, rec := newStripeForTest(t)
			rec.answer = func(string, []byte) (int, []byte) { return c.status, []byte(c.body) }
			if _, err := p.Refund(context.Background(), req); !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
		})
	}
	t.Run("no answer", func(t *testing.T) {
		released := make(chan struct{})
		hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-released:
			}
		}))
		defer hang.Close()
		defer close(released)
		p, err := NewStripe(StripeConfig{SecretKey: stripetest.Key, APIBase: hang.URL, HTTPClient: &http.Client{Timeout: 300 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		if _, err := p.Refund(context.Background(), req); !errors.Is(err, ErrRefundFailed) {
			t.Fatalf("err = %v, want ErrRefundFailed", err)
		}
		if took := time.Since(began); took > 10*time.Second {
			t.Fatalf("a refund Stripe never answered took %v", took)
		}
	})
	t.Run("no PaymentIntent", func(t *testing.T) {
		p, rec := newStripeForTest(t)
		if _, err := p.Refund(context.Background(), ProviderRefund{Key: "k", Charge: Charge{ID: "x"}, Amount: USD(1)}); !errors.Is(err, ErrNotRefundable) {
			t.Fatalf("err = %v", err)
		}
		if n := len(rec.requests()); n != 0 {
			t.Fatalf("%d requests for a charge without a PaymentIntent", n)
		}
	})
}

func TestParseAmount(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"": 0, " 5 ": 500, "5.5": 550, "5.50": 550, "0.01": 1, "28.99": 2899, "999999.99": 99999999} {
		if got, err := ParseAmount(in); err != nil || got != want {
			t.Errorf("ParseAmount(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"-1", "+1", "5.", ".5", "5.555", "1,000", "1e3", "1000000", "5 .5", "٣", "0x10"} {
		if got, err := ParseAmount(in); !errors.Is(err, ErrAmount) {
			t.Errorf("ParseAmount(%q) = %d, %v; want ErrAmount", in, got, err)
		}
	}
}

func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"", "5", "5.50", "28.99", "-1", "5.", "1e3", "999999.99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cents, err := ParseAmount(s)
		if err != nil {
			return
		}
		if cents < 0 || cents >= 100_000_000 {
			t.Fatalf("ParseAmount(%q) = %d, out of range", s, cents)
		}
		// What was read writes back as the same amount.
		if s != "" && strings.TrimSpace(s) != "" {
			again, err := ParseAmount(USD(cents).String()[1:])
			if err != nil || again != cents {
				t.Fatalf("ParseAmount(%q) = %d, but its own print reads %d, %v", s, cents, again, err)
			}
		}
	})
}

// A refunded add-on can be bought again, and that takes money and gives it
// back; until refunded it is owned once.
func TestAnAddOnRefundedCanBeBoughtAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	addOn, ch := f.withAddOn(t)
	main, _ := f.svc.Subscription(ctx, "main-u1")
	req := PurchaseRequest{UserID: "u1", Email: main.Email, Main: main, Family: FamilyReelsPlaybook}
	if _, err := f.svc.Purchase(ctx, req); !errors.Is(err, ErrAlreadyOwned) {
		t.Fatalf("buying an owned add-on again: %v", err)
	}
	if _, err := f.svc.Refund(ctx, RefundRequest{Full: true, ChargeID: ch.ID, Reason: "Mistake", By: "staff:s"}); err != nil {
		t.Fatal(err)
	}
	again, err := f.svc.Purchase(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID == addOn.ID || again.Expired(f.clock.Now()) {
		t.Fatalf("the second purchase = %+v", again)
	}
	if n := countRecords(t, f.st, "sandbox_charges", succeededSandboxCharges, succeededSandboxFilter); n != 2 {
		t.Fatalf("%d charges taken, want the first purchase and the second", n)
	}
	subs, _ := f.svc.ForUser(ctx, "u1")
	if ent := Entitlements(subs, "glimpse.web", f.clock.Now()); !ent[ReelsPlaybook] {
		t.Fatal("bought again, the playbook is not the subscriber's")
	}
	if _, err := f.svc.Purchase(ctx, req); !errors.Is(err, ErrAlreadyOwned) {
		t.Fatalf("buying it a third time: %v", err)
	}
}

// Every charge a hosted page took refunds, in part and then in full: a first
// purchase, an add-on whose bank asked for 3-D Secure, and a renewal
// confirmed on the page. The sandbox keeps a page's payment under the
// session, and finds it from the ledger's charge by its PaymentIntent.
func TestEveryHostedPagePaymentRefunds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	main := f.buyAuthenticated(t, "refund-hosted")
	_, err := f.svc.Purchase(ctx, PurchaseRequest{UserID: "u1", Email: main.Email, Main: main, Family: FamilyPDFCourse,
		Origin: "https://glimpse.example"})
	var need *AuthenticationNeeded
	if !errors.As(err, &need) {
		t.Fatalf("add-on: %v", err)
	}
	f.payWithSavedCard(t, strings.TrimPrefix(need.URL, PathSandboxPay))
	f.clock.Set(main.CurrentPeriodEnd)
	if _, err := f.svc.RenewDue(ctx); err != nil {
		t.Fatal(err)
	}
	var token string
	for _, n := range f.notices.list {
		if n.Kind == NoticeConfirmPayment {
			token = n.Data["token"]
		}
	}
	st, err := f.svc.StartConfirmation(ctx, token, "https://glimpse.example")
	if err != nil {
		t.Fatal(err)
	}
	f.payWithSavedCard(t, sessionOf(st))
	subs, err := f.svc.ForUser(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range subs {
		ids = append(ids, s.ID)
	}
	charges, err := f.svc.ChargesFor(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, ch := range charges {
		if ch.Status != ChargeSucceeded {
			continue
		}
		kinds[strings.SplitN(ch.Key, ":", 2)[0]] = true
		part, err := f.svc.Refund(ctx, RefundRequest{ChargeID: ch.ID, Amount: ch.Amount.Amount / 2, Reason: "Goodwill", By: "staff:s", Key: ch.ID + "/part"})
		if err != nil || part.Status != RefundSucceeded {
			t.Fatalf("part of %s: %+v %v", ch.ID, part, err)
		}
		rest, err := f.svc.Refund(ctx, RefundRequest{ChargeID: ch.ID, Amount: ch.Amount.Amount - ch.Amount.Amount/2, Reason: "Mistake", By: "staff:s", Key: ch.ID + "/rest"})
		if err != nil || !rest.Full {
			t.Fatalf("the rest of %s: %+v %v", ch.ID, rest, err)
		}
		if status, _ := f.svc.ChargeStatus(ctx, ch.ID); status != ChargeRefunded {
			t.Fatalf("%s after a full refund: %s", ch.ID, status)
		}
	}
	if len(kinds) != 3 {
		t.Fatalf("refunded charges of kinds %v, want a checkout, a purchase and a renewal", kinds)
	}
}
