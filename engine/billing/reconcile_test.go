package billing

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine"
	"glimpse/engine/store/storetest"
)

// A page paid while fulfilment crashed (the event never came, and the
// sandbox never redelivers): the reconciliation pass reads the page again
// and fulfils the order, once.
func TestAPagePaidWithoutItsEventIsFulfilled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	order, _ := f.paidOnSandbox(t, f.start(t, FamilyWeekly, "crashed"))
	if stats, err := f.svc.ReconcilePending(ctx); err != nil || stats.Settled != 0 {
		t.Fatalf("before it is due: %+v %v", stats, err)
	}
	f.clock.Advance(ReconcileAfter + time.Minute)
	for range 2 {
		if _, err := f.svc.ReconcilePending(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := f.svc.Order(ctx, order.ID); got.Status != OrderPaid {
		t.Fatalf("the order after the pass: %s", got.Status)
	}
	sub, err := f.svc.Subscription(ctx, order.SubscriptionID)
	if err != nil || sub.Status != StatusActive {
		t.Fatalf("the plan: %+v %v", sub, err)
	}
	if status, _ := f.svc.ChargeStatus(ctx, ChargeIDOf(order.ChargeKey)); status != ChargeSucceeded {
		t.Fatalf("the charge: %s", status)
	}
	if n := len(f.notices.noticesOf(NoticePurchase)); n != 1 {
		t.Fatalf("%d welcome mails", n)
	}
}

// A page left open is looked at again until it closes, then settled as
// expired: the buyer's waiting page stops waiting.
func TestAPageLeftOpenExpires(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	st := f.start(t, FamilyWeekly, "left-open")
	f.clock.Advance(ReconcileAfter + time.Minute)
	if _, err := f.svc.ReconcilePending(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.svc.Order(ctx, st.OrderID); got.Status != OrderPending {
		t.Fatalf("an open page's order: %s", got.Status)
	}
	f.clock.Advance(sandboxSessionLifetime)
	if _, err := f.svc.ReconcilePending(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.svc.Order(ctx, st.OrderID); got.Status != OrderExpired {
		t.Fatalf("a page that closed unpaid: %s", got.Status)
	}
}

// lostAnswer is the sandbox whose refund answers are lost on the way back
// (the process died, the connection dropped): the refund is made, and the
// caller hears nothing.
type lostAnswer struct {
	*Sandbox
	lose   bool
	cancel context.CancelFunc
}

func (p *lostAnswer) Refund(ctx context.Context, req ProviderRefund) (string, error) {
	ref, err := p.Sandbox.Refund(ctx, req)
	if p.lose {
		p.cancel()
		return "", context.Canceled
	}
	return ref, err
}

// A refund claimed and made at the provider whose answer was lost stays
// pending; the pass asks again with the same idempotency key, so it is
// recorded and its effects applied, and the money goes back once. A retry
// of the request with its key does the same instead of calling a pending
// refund a success.
func TestARefundWhoseAnswerWasLostIsFinished(t *testing.T) {
	t.Parallel()
	st := storetest.Open(t)
	clock := engine.NewManualClock(start)
	log := &noticeLog{}
	provider := &lostAnswer{Sandbox: NewSandbox(sandboxOf(st), clock, testWebhookSecret)}
	f := fixture{st: st, svc: NewService(clock, Options{Store: storeOf(st), Provider: provider, Notify: log.add, WebhookSecret: testWebhookSecret}),
		clock: clock, notices: log}
	ctx := context.Background()
	_, ch := f.withAddOn(t)
	for _, retry := range []string{"pass", "request"} {
		key := "lost-" + retry
		if retry == "request" {
			var err error
			if ch, err = f.svc.Charge(ctx, f.withSecondAddOn(t)); err != nil {
				t.Fatal(err)
			}
		}
		lost, cancel := context.WithCancel(ctx)
		provider.lose, provider.cancel = true, cancel
		r, err := f.svc.Refund(lost, RefundRequest{ChargeID: ch.ID, Full: true, Reason: "Mistake", By: "staff:s", Key: key})
		provider.lose = false
		if err == nil || r.Status != RefundPending {
			t.Fatalf("%s: a refund whose answer was lost: %+v %v", retry, r, err)
		}
		if again, _ := f.svc.RefundsOf(ctx, ch.ID); len(again) != 1 || again[0].Status != RefundPending {
			t.Fatalf("%s: stored: %+v", retry, again)
		}
		switch retry {
		case "pass":
			f.clock.Advance(ReconcileAfter + time.Minute)
			if stats, err := f.svc.ReconcilePending(ctx); err != nil || stats.Refunds != 1 {
				t.Fatalf("the pass: %+v %v", stats, err)
			}
		case "request":
			got, err := f.svc.Refund(ctx, RefundRequest{ChargeID: ch.ID, Full: true, Reason: "Mistake", By: "staff:s", Key: key})
			if err != nil || got.Status != RefundSucceeded {
				t.Fatalf("the same request again: %+v %v", got, err)
			}
		}
		refunds, _ := f.svc.RefundsOf(ctx, ch.ID)
		if len(refunds) != 1 || refunds[0].Status != RefundSucceeded || refunds[0].Reference == "" {
			t.Fatalf("%s: after: %+v", retry, refunds)
		}
		if status, _ := f.svc.ChargeStatus(ctx, ch.ID); status != ChargeRefunded {
			t.Fatalf("%s: the charge: %s", retry, status)
		}
		n := countRecords(t, f.st, "sandbox_refunds", "charge_id = ?", bson.M{"chargeKey": ch.ID}, ch.ID)
		if n != 1 {
			t.Fatalf("%s: the provider refunded %d times", retry, n)
		}
	}
	if _, err := f.svc.Refund(ctx, RefundRequest{ChargeID: ch.ID, Reason: "Mistake", By: "staff:s", Key: "neither"}); !errors.Is(err, ErrRefundAmount) {
		t.Fatalf("a refund neither full nor of an amount: %v", err)
	}
}

// withSecondAddOn buys the PDF course on withAddOn's main plan and returns
// its charge's id.
func (f fixture) withSecondAddOn(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	main, err := f.svc.Subscription(ctx, "main-u1")
	if err != nil {
		t.Fatal(err)
	}
	addOn, err := f.svc.Purchase(ctx, PurchaseRequest{UserID: "u1", Email: main.Email, Main: main, Family: FamilyPDFCourse})
	if err != nil {
		t.Fatal(err)
	}
	charges, err := f.svc.ChargesFor(ctx, []string{addOn.ID})
	if err != nil || len(charges) != 1 {
		t.Fatalf("charges of the course: %v %v", charges, err)
	}
	return charges[0].ID
}
