package billing

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"glimpse/engine"
	"glimpse/engine/brand"
)

// orderSessionKey is the idempotency key of an order's hosted page: one
// page per order, whose sandbox page is found from the order's id
// (sandboxSessionID).
func orderSessionKey(orderID string) string { return "session:" + orderID }

// Kinds of order.
const (
	OrderPlan    = "plan"    // a first purchase of a main plan
	OrderAddOn   = "addon"   // an add-on whose bank asked for the buyer (3-D Secure)
	OrderCard    = "card"    // a card update (setup mode)
	OrderRenewal = "renewal" // a renewal whose bank asked for the subscriber
)

// Order statuses. An order is pending until its provider's events settle it:
// paid (what it bought exists) or failed; processing is a payment accepted
// but not yet settled (a delayed method).
const (
	OrderPending    = "pending"
	OrderProcessing = "processing"
	OrderPaid       = "paid"
	OrderFailed     = "failed"
	// OrderExpired is an order whose page closed unpaid.
	OrderExpired = "expired"
	// OrderRefunded is a paid order given back at once: it paid for what
	// the buyer already had (refundPaidTwice).
	OrderRefunded = "refunded"
)

// Paths the hosted pages send the buyer back to (the checkout's screens).
const (
	PathCheckoutDone    = "/checkout/done"
	PathCheckoutStart   = "/checkout"
	PathCheckoutConfirm = "/checkout/confirm"
	pathDashboard       = "/dashboard"
	pathUpdateCard      = "/checkout/card"
)

// Order is one purchase on a hosted page: what it buys, for whom, and how it
// stands. Only verified provider events settle it (settleCheckout); the
// buyer's return from the page only reads it.
type Order struct {
	ID             string
	Kind           string
	Brand          string
	Bundle         string
	PlanCode       string
	Family         string
	Email          string
	UserID         string
	SubscriptionID string
	MainID         string
	Period         int64 // a renewal's period end (unix seconds)
	ChargeKey      string
	Amount         Money
	Saved          PaymentMethod
	Session        string
	// URL is the hosted page, where a buyer asking again is sent back to.
	URL string
	// Return is the add-on family a card update interrupted the purchase
	// of: the done page leads back to it.
	Return    string
	Status    string
	CreatedAt time.Time
}

// CheckoutRequest is a visitor buying a main plan.
type CheckoutRequest struct {
	Brand    string // brand key
	Bundle   string // the brand's bundle
	PlanCode string
	Email    string
	// Key is the checkout's idempotency key (one per checkout page view):
	// the same key opens the same hosted page and buys once.
	Key string
	// Client is who is buying (the client's address), for the checkout's
	// limits (checkout_limits.go). Empty counts nothing.
	Client string
	// Origin is the brand's own origin (config.BrandOrigin), where the
	// hosted page sends the buyer back.
	Origin string
}

// CheckoutStart is a hosted page to send the buyer to.
type CheckoutStart struct {
	OrderID string
	URL     string
}

// ErrTooManyAttempts is a limited action asked for too often.
var ErrTooManyAttempts = engine.Errorf(engine.CodeRateLimited, "Too many attempts. Please try again later.")

// ErrKeyReused is a checkout key used before to buy something else (another
// plan, another address): the page is stale, and buying again needs a new
// one.
var ErrKeyReused = engine.Errorf(engine.CodeConflict, "This checkout was used for another purchase. Please reload the page.")

// ErrHasLivePlan is a checkout for an address that has a running plan: a
// second one would be paid for and never seen. The person signs in to
// manage the plan they have (or change it from My Plan).
var ErrHasLivePlan = engine.Errorf(engine.CodeConflict, "This email address already has an active plan. Sign in to manage it or change plan in My Plan.")

// FamilyKnown reports an add-on family on sale.
func FamilyKnown(family string) bool {
	for _, a := range AddOns {
		if a.Family == family {
			return true
		}
	}
	return false
}

// ErrNoOrder is an order id nobody made.
var ErrNoOrder = engine.Errorf(engine.CodeNotFound, "This checkout was not found.")

// StartCheckout opens the provider's hosted page for a main plan's first
// period. Nothing is bought here: the subscription is made when the
// provider's verified event says the session was paid (settleCheckout).
func (s *Service) StartCheckout(ctx context.Context, req CheckoutRequest) (CheckoutStart, error) {
	plan, err := s.catalogue.Plan(req.PlanCode)
	if err != nil {
		return CheckoutStart{}, err
	}
	if plan.Kind != KindMain || plan.Sale || plan.Brand != req.Brand {
		return CheckoutStart{}, ErrUnknownPlan
	}
	if req.Key == "" || len(req.Key) > 128 {
		return CheckoutStart{}, engine.Errorf(engine.CodeInvalid, "The checkout could not be read. Please reload the page.")
	}
	email := normaliseEmail(req.Email)
	if err := s.takeCheckoutAttempts(ctx, req.Client, email); err != nil {
		return CheckoutStart{}, err
	}
	keyHash := engine.HashToken("checkout:" + req.Key)
	// The same checkout opened again (its own plan is the live one) gets
	// its page back, as any repeat does.
	if live, err := s.liveMainPlan(ctx, email, req.Bundle, "sub_"+keyHash[:24]); err != nil {
		return CheckoutStart{}, err
	} else if live != "" {
		return CheckoutStart{}, ErrHasLivePlan
	}
	// The key is bound to what it buys: the first caller's plan and email
	// (a unique insert, so one of any concurrent callers), and a caller
	// asking for something else with it is refused.
	if err := s.bindKey(ctx, checkoutKeyClaim(keyHash), checkoutKeyOwner(plan.Code, keyHash, email)); err != nil {
		return CheckoutStart{}, err
	}
	order := Order{ID: "co_" + keyHash[:24], Kind: OrderPlan, Brand: req.Brand, Bundle: req.Bundle, PlanCode: plan.Code,
		Email: email, SubscriptionID: "sub_" + keyHash[:24], ChargeKey: "checkout:" + req.Key, Amount: plan.Price}
	// "← Back" on the hosted page returns to the checkout with the plan
	// chosen and the order, from which the checkout restores the address
	// (CheckoutBack): the address itself is never put in a URL.
	return s.openSession(ctx, order, SessionPayment, Describe(plan.Code).Name, req.Origin,
		req.Origin+PathCheckoutStart+"?plan="+url.QueryEscape(plan.Code)+"&order="+url.QueryEscape(order.ID))
}

// openSession stores an order (once: a repeat finds it) and opens its hosted
// page; the same order always gets the same page.
func (s *Service) openSession(ctx context.Context, order Order, mode, description, origin, cancelURL string) (CheckoutStart, error) {
	order.Status, order.CreatedAt = OrderPending, s.clock.Now()
	// The same checkout opened again finds its order stored.
	if _, _, err := s.st.Orders().Open(ctx, order); err != nil {
		return CheckoutStart{}, fmt.Errorf("store order %s: %w", order.ID, err)
	}
	// Looked at again unless its events settle it first: a page paid while
	// fulfilment crashed, or left to close, is settled by the pass.
	if err := s.checkLater(ctx, order.ID); err != nil {
		return CheckoutStart{}, err
	}
	renews := ""
	if order.Kind == OrderPlan {
		renews = "Renews every " + Describe(order.PlanCode).Period + " until you cancel."
	}
	sess, err := s.provider.StartSession(ctx, SessionRequest{Key: orderSessionKey(order.ID), OrderID: order.ID, Mode: mode, Renews: renews,
		ChargeKey: order.ChargeKey, Amount: order.Amount, Description: description, Email: order.Email, Saved: order.Saved,
		Brand: order.Brand, SuccessURL: origin + PathCheckoutDone + "?order=" + url.QueryEscape(order.ID), CancelURL: cancelURL})
	if err != nil {
		return CheckoutStart{}, err
	}
	if err := s.st.Orders().SetSession(ctx, order.ID, sess.ID, sess.URL); err != nil {
		return CheckoutStart{}, fmt.Errorf("store order %s: %w", order.ID, err)
	}
	return CheckoutStart{OrderID: order.ID, URL: sess.URL}, nil
}

// Order returns an order, for the page the buyer returns to.
func (s *Service) Order(ctx context.Context, id string) (Order, error) {
	o, err := s.st.Orders().Get(ctx, id)
	if errors.Is(err, ErrNoOrder) {
		return Order{}, ErrNoOrder
	}
	if err != nil {
		return Order{}, fmt.Errorf("read order %s: %w", id, err)
	}
	return o, nil
}

// settleCheckout applies a checkout.session.* event to its order. The
// session is read again from the provider and that answer decides, never the
// event's copy (https://docs.stripe.com/checkout/fulfillment): paid, the
// order is fulfilled; async_payment_failed, it failed; completed but unpaid
// (a delayed method), it is processing. An order is settled once: its
// outcome is claimed by a conditional write (Orders.ClaimOutcome), the first
// outcome stays, and fulfilling again
// (a duplicate, a concurrent copy, a retry after a crash) changes nothing.
func (s *Service) settleCheckout(ctx context.Context, ev settlingEvent, sessionID, orderID string) (string, error) {
	order, err := s.Order(ctx, orderID)
	if errors.Is(err, ErrNoOrder) {
		s.logger.Warn("checkout event for an unknown order", "order", orderID, "session", sessionID)
		return "", nil
	}
	if err != nil {
		return "", err
	}
	res, err := s.provider.SessionResult(ctx, sessionID)
	if err != nil {
		return "", err
	}
	if res.OrderID != order.ID {
		s.logger.Warn("checkout session of another order", "order", order.ID, "session", sessionID, "sessionOrder", res.OrderID)
		return "", nil
	}
	switch {
	case ev.Type == "checkout.session.async_payment_failed":
		return OrderFailed, s.settle(ctx, order, OrderFailed, res, ev)
	case ev.Type == "checkout.session.expired" && res.Status == "expired":
		// Left unpaid until the page closed: nothing was bought, and the
		// page the buyer may still watch says so instead of waiting.
		return OrderExpired, s.settle(ctx, order, OrderExpired, res, ev)
	case res.Paid():
		return OrderPaid, s.settle(ctx, order, OrderPaid, res, ev)
	case ev.Type == "checkout.session.completed":
		if err := s.st.Orders().Processing(ctx, order.ID); err != nil {
			return "", fmt.Errorf("order %s: %w", order.ID, err)
		}
		return OrderProcessing, nil
	}
	return "", nil
}

// settle claims an order's outcome and, when it is this one, does its work.
func (s *Service) settle(ctx context.Context, order Order, outcome string, res SessionResult, ev settlingEvent) error {
	first, err := s.st.Orders().ClaimOutcome(ctx, order.ID, outcome)
	if err != nil {
		return fmt.Errorf("settle order %s: %w", order.ID, err)
	}
	if first != outcome {
		return nil // settled the other way first (a late event)
	}
	if outcome == OrderPaid {
		err := s.fulfil(ctx, order, res, ev)
		if errors.Is(err, errPaidTwice) {
			outcome = OrderRefunded
		} else if err != nil {
			return err
		}
	}
	// Written last, so a page that reads paid finds what was bought.
	if err := s.st.Orders().Settled(ctx, order.ID, outcome); err != nil {
		return fmt.Errorf("settle order %s: %w", order.ID, err)
	}
	return nil
}

// fulfil makes what a paid order bought. Each step is safe to repeat.
func (s *Service) fulfil(ctx context.Context, order Order, res SessionResult, ev settlingEvent) error {
	now := s.clock.Now()
	pm := res.Method
	switch order.Kind {
	case OrderPlan:
		plan, err := s.catalogue.Plan(order.PlanCode)
		if err != nil {
			return err
		}
		live, err := s.livePlanOf(ctx, order)
		if err != nil {
			return err
		}
		if live != "" {
			return s.refundPaidTwice(ctx, order, res, ev, live)
		}
		end := plan.Period.After(now)
		sub := Subscription{ID: order.SubscriptionID, Email: order.Email, Emails: []string{order.Email}, Bundle: order.Bundle,
			Brand: order.Brand, PlanCode: plan.Code, Status: StatusActive, MainPlan: true, Price: order.Amount,
			Provider: s.provider.Name(), StartedAt: now, CurrentPeriodStart: now, CurrentPeriodEnd: end, DueAt: end,
			PaymentMethod: pm}
		// Created with its line and its mail, or found made by an earlier
		// run of this fulfilment (a retry), whose effects were written with it.
		if _, _, err := s.st.Subscriptions().Create(ctx, sub, Effects{
			Lines: []Change{sub.Line("created", now, Change{By: "checkout", Kind: ChangeCreated, To: plan.Code,
				Detail: order.Amount.String() + " " + brand.CardLabel(pm.Brand, pm.Last4)})},
			Notices: []Notice{{Key: "purchase:" + sub.ID, To: order.Email, Brand: order.Brand, Kind: NoticePurchase,
				Data: map[string]string{"subscription": sub.ID, "plan": Describe(plan.Code).Name, "price": order.Amount.String(),
					"period": Describe(plan.Code).Period, "renewDate": brand.Date(end)}}},
		}); err != nil {
			return fmt.Errorf("fulfil %s: create subscription: %w", order.ID, err)
		}
		if err := s.recordCharge(ctx, order, res, ev); err != nil {
			return err
		}
		s.drain(ctx)
		if order.ChargeKey != "" {
			s.receiptFor(ctx, Charge{Status: ChargeSucceeded}, Receipt{ChargeID: ChargeIDOf(order.ChargeKey), SubscriptionID: sub.ID,
				Email: order.Email, Brand: order.Brand, Kind: ReceiptPurchase, PlanCode: plan.Code, Amount: order.Amount,
				CardBrand: pm.Brand, CardLast4: pm.Last4, PaidAt: now, PeriodStart: now, PeriodEnd: end})
		}
	case OrderAddOn:
		sub := Subscription{ID: order.SubscriptionID, UserID: order.UserID, Email: order.Email, Emails: []string{order.Email},
			Bundle: order.Bundle, Brand: order.Brand, PlanCode: order.PlanCode, Status: StatusActive, Price: order.Amount,
			Provider: s.provider.Name(), StartedAt: now, PaymentMethod: pm, MainSubscriptionID: order.MainID,
			PaidBy: paidBy(order.ChargeKey)}
		if twice, err := s.insertAddOn(ctx, sub); err != nil {
			return fmt.Errorf("fulfil %s: %w", order.ID, err)
		} else if twice {
			return s.refundPaidTwice(ctx, order, res, ev, order.SubscriptionID)
		}
		if err := s.recordCharge(ctx, order, res, ev); err != nil {
			return err
		}
		s.addOnBought(ctx, sub, order.Family, Charge{Status: ChargeSucceeded, Reference: res.PaymentIntent}, order.ChargeKey)
	case OrderCard:
		if err := s.setCard(ctx, order.SubscriptionID, pm, "user:"+order.UserID); err != nil {
			return err
		}
	case OrderRenewal:
		sub, err := s.Subscription(ctx, order.SubscriptionID)
		if err != nil {
			return err
		}
		if sub.CurrentPeriodEnd.Unix() != order.Period {
			// Renewed meanwhile (a retry with a new card): this payment
			// is the period's second, for the operator to refund.
			s.logger.Error("renewal confirmed after the period was renewed", "order", order.ID, "subscription", sub.ID)
			return s.recordCharge(ctx, order, res, ev)
		}
		plan, err := s.catalogue.Plan(order.PlanCode)
		if err != nil {
			return err
		}
		if err := s.recordCharge(ctx, order, res, ev); err != nil {
			return err
		}
		if pm.ID != "" {
			if err := s.setCard(ctx, sub.ID, pm, "renewal"); err != nil {
				return err
			}
		}
		return s.renewed(ctx, sub, plan, now, order.ChargeKey)
	default:
		return fmt.Errorf("fulfil %s: unknown kind %q", order.ID, order.Kind)
	}
	return nil
}

// recordCharge writes a hosted page's payment into the charges ledger, then
// applies what the provider said of it before the ledger knew it.
//
// The payment's success is itself a dated event of the charge: the
// Checkout Session event that settled it, at the time the provider created
// that event. Without it the ledger's entry had no date, so a failed attempt
// on the same page (a declined card before the good one, whose
// payment_intent.payment_failed is older) was the charge's newest event and
// ended the plan just paid for. A failure older than the success now never
// applies, in whatever order the events arrive.
func (s *Service) recordCharge(ctx context.Context, order Order, res SessionResult, ev settlingEvent) error {
	if order.ChargeKey == "" {
		return nil
	}
	return s.storeCharge(ctx, s.orderCharge(order, res), ev)
}

// orderCharge is the ledger's entry for a hosted page's payment.
func (s *Service) orderCharge(order Order, res SessionResult) Charge {
	return Charge{ID: ChargeIDOf(order.ChargeKey), Key: order.ChargeKey, Provider: s.provider.Name(), Reference: res.PaymentIntent,
		Amount: order.Amount, Method: res.Method.ID, SubscriptionID: order.SubscriptionID, Status: ChargeSucceeded,
		CreatedAt: s.clock.Now()}
}

// storeCharge writes a hosted page's payment and its settling event, then
// applies to what it paid for the status the ledger ends on: the newest of
// the events, some of which may have come before the charge (Stripe's
// order is not ours: a refund or a failure may beat the payment's own
// event; the ledger gives a charge recorded late the newest earlier one).
func (s *Service) storeCharge(ctx context.Context, ch Charge, ev settlingEvent) error {
	if _, err := s.st.Ledger().Record(ctx, []Charge{ch}); err != nil {
		return fmt.Errorf("record charge %s: %w", ch.ID, err)
	}
	if ev.ID != "" {
		if _, err := s.addChargeEvent(ctx, ChargeEvent{ChargeID: ch.ID, EventID: ev.ID, Status: ChargeSucceeded, At: ev.At.UTC()}); err != nil {
			return err
		}
	}
	stored, err := s.st.Ledger().Charge(ctx, ch.ID)
	if err != nil {
		return fmt.Errorf("record charge %s: %w", ch.ID, err)
	}
	if ev.ID == "" && stored.Status == ch.Status {
		return nil // no event about it: nothing to catch up with
	}
	return s.ApplyChargeAccess(ctx, ch.ID, stored.Status)
}

// errPaidTwice is a paid order whose payment fulfil gave back at once: it
// paid for what the buyer already had. The order is then refunded.
var errPaidTwice = errors.New("paid for what the buyer already had")

// livePlanOf returns the live main plan (running, or canceled but running)
// that the address of a plan order already has on its bundle, "" for none:
// a second main plan would be charged, then lost from sight (My Plan and the
// account show one). The checkout refuses such an address up front
// (ErrHasLivePlan); this catches a page paid anyway: two pages opened at
// once, or one opened before the first was paid. Two orders of one address
// fulfilled together are decided by a key bound at the write (Keys.Bind), so
// one of them is the plan.
func (s *Service) livePlanOf(ctx context.Context, order Order) (string, error) {
	now := s.clock.Now()
	if id, err := s.liveMainPlan(ctx, order.Email, order.Bundle, order.SubscriptionID); err != nil || id != "" {
		return id, err
	}
	claim := "first-plan:" + engine.HashToken(order.Bundle+"|"+order.Email)
	owner, err := s.st.Keys().Bind(ctx, claim, order.SubscriptionID, now, now.Add(firstPlanWindow))
	if err != nil || owner == "" || owner == order.SubscriptionID {
		return "", err
	}
	other, err := s.Subscription(ctx, owner)
	if errors.Is(err, ErrNoSubscription) {
		return owner, nil // being made by the order that won
	}
	if err != nil {
		return "", err
	}
	if other.MainPlan && other.Authorises(order.Bundle, now) {
		return owner, nil
	}
	return "", nil
}

// firstPlanWindow is how long an address's first-plan claim decides between
// orders fulfilled together; after it the plan itself is found by address.
const firstPlanWindow = 10 * time.Minute

// liveMainPlan returns the id of a main plan bought with email that still
// authorises on bundle, other than except; "" for none.
func (s *Service) liveMainPlan(ctx context.Context, email, bundle, except string) (string, error) {
	subs, err := s.SubscriptionsByEmail(ctx, email)
	if err != nil {
		return "", err
	}
	now := s.clock.Now()
	for _, sub := range subs {
		if sub.ID != except && sub.MainPlan && sub.Authorises(bundle, now) {
			return sub.ID, nil
		}
	}
	return "", nil
}

// insertAddOn writes an add-on just paid for and reports whether another
// payment had bought it already: the add-on's _id is its purchase's, so of
// two payments (a saved card's and a hosted page's, or two pages) exactly
// one inserts it, and the other finds it paid by another charge. The same
// payment again (a retry, a redelivery) is not a second one.
func (s *Service) insertAddOn(ctx context.Context, sub Subscription) (paidTwice bool, err error) {
	first, created, err := s.st.Subscriptions().Create(ctx, sub, Effects{})
	if err != nil {
		return false, fmt.Errorf("create add-on %s: %w", sub.ID, err)
	}
	return !created && first.PaidBy != "" && first.PaidBy != sub.PaidBy, nil
}

// paidBy names the charge that bought an add-on without naming its buyer
// (an add-on's charge key holds the account id; subscriptions outlive an
// erasure for the tax period).
func paidBy(chargeKey string) string { return engine.HashToken("paid-by:" + chargeKey)[:32] }

// refundPaidTwice records a hosted page's payment for what the buyer
// already had under the subscription that has it (so billing history and
// the desk show it), refunds it in full at once, and mails the buyer why
// (mailRefund). Its refund ends nothing (Charge.Duplicate). A retry (the
// provider's redelivery after a failed refund) refunds once: the refund is
// keyed by the order.
func (s *Service) refundPaidTwice(ctx context.Context, order Order, res SessionResult, ev settlingEvent, subID string) error {
	ch := s.orderCharge(order, res)
	ch.SubscriptionID, ch.Duplicate, ch.PlanCode = subID, true, order.PlanCode
	if err := s.storeCharge(ctx, ch, ev); err != nil {
		return err
	}
	s.logger.Warn("paid twice: refunding", "order", order.ID, "subscription", subID)
	_, err := s.Refund(ctx, RefundRequest{ChargeID: ch.ID, Amount: order.Amount.Amount, By: "checkout",
		Reason: "Paid for what the buyer already had", Key: "paid-twice:" + order.ID})
	if err != nil && !errors.Is(err, ErrAlreadyRefunded) {
		return fmt.Errorf("refund order %s paid twice: %w", order.ID, err)
	}
	return errPaidTwice
}

// settlingEvent is the provider's event that settles a Checkout Session:
// its id, type and the time the provider created it.
type settlingEvent struct {
	ID, Type string
	At       time.Time
}

// setCard replaces a main plan's saved card. A renewal that failed is tried
// again at once, with the new card.
func (s *Service) setCard(ctx context.Context, subID string, pm PaymentMethod, by string) error {
	_, err := s.change(ctx, subID, func(sub Subscription) (Subscription, Effects, bool, error) {
		now := s.clock.Now()
		next := sub
		next.PaymentMethod = pm
		if sub.FailedAttempts > 0 && sub.Status == StatusActive {
			next.DueAt = now
		}
		fx := Effects{Lines: []Change{sub.Line("card:"+pm.ID, now, Change{By: by, Kind: "card_updated", To: brand.CardLabel(pm.Brand, pm.Last4)})}}
		if pm.ID != sub.PaymentMethod.ID {
			fx.Notices = []Notice{{Key: "card:" + sub.ID + ":" + pm.ID, To: sub.Email, Brand: sub.Brand, Kind: NoticeCardUpdated,
				Data: map[string]string{"plan": Describe(sub.PlanCode).Name, "card": brand.CardLabel(pm.Brand, pm.Last4)}}}
		}
		return next, fx, true, nil
	})
	if err != nil && !errors.Is(err, ErrNoSubscription) {
		return fmt.Errorf("update card of %s: %w", subID, err)
	}
	return err
}

// CardUpdateRequest is a subscriber replacing the card of their plan.
type CardUpdateRequest struct {
	SubscriptionID string
	UserID         string
	Origin         string // the brand's origin (config.BrandOrigin)
	// Return is the add-on family whose purchase the card update
	// interrupted ("" for none): the done page leads back to it.
	Return string
}

// StartCardUpdate opens the provider's hosted page in setup mode: the new
// card is typed there and saved when its verified event arrives.
func (s *Service) StartCardUpdate(ctx context.Context, req CardUpdateRequest) (CheckoutStart, error) {
	sub, err := s.Subscription(ctx, req.SubscriptionID)
	if err != nil {
		return CheckoutStart{}, err
	}
	if sub.UserID == "" || sub.UserID != req.UserID || !sub.MainPlan {
		return CheckoutStart{}, ErrNoSubscription
	}
	order := Order{ID: "co_" + engine.HashToken("card:" + sub.ID + ":" + engine.NewToken())[:24], Kind: OrderCard,
		Brand: sub.Brand, Bundle: sub.Bundle, PlanCode: sub.PlanCode, Email: sub.Email, UserID: req.UserID,
		SubscriptionID: sub.ID, Amount: Money{Currency: sub.Price.Currency}, Saved: sub.PaymentMethod}
	if FamilyKnown(req.Return) {
		order.Return = req.Return
	}
	return s.openSession(ctx, order, SessionSetup, Describe(sub.PlanCode).Name, req.Origin,
		req.Origin+pathUpdateCard)
}

// AuthenticationNeeded is a charge the bank would not take without the
// buyer: URL is the provider's page where they authenticate and pay. It is
// ErrAuthenticationRequired for errors.Is.
type AuthenticationNeeded struct {
	URL string
}

func (e *AuthenticationNeeded) Error() string { return ErrAuthenticationRequired.Error() }

// Is makes errors.Is(err, ErrAuthenticationRequired) hold.
func (e *AuthenticationNeeded) Is(target error) bool { return target == ErrAuthenticationRequired }

// authenticateAddOn opens the hosted page for an add-on whose off-session
// charge the bank refused until the buyer authenticates; the add-on is made
// when that page's payment is confirmed by its event.
func (s *Service) authenticateAddOn(ctx context.Context, req PurchaseRequest, plan PlanSpec, subID, failedKey string) error {
	order := Order{ID: "co_" + engine.HashToken("addon:" + failedKey)[:24], Kind: OrderAddOn, Brand: req.Main.Brand,
		Bundle: req.Main.Bundle, PlanCode: plan.Code, Family: req.Family, Email: req.Email, UserID: req.UserID,
		SubscriptionID: subID, MainID: req.Main.ID, ChargeKey: failedKey + ":session", Amount: plan.Price,
		Saved: req.Main.PaymentMethod}
	start, err := s.openSession(ctx, order, SessionPayment, Describe(plan.Code).Name, req.Origin, req.Origin+pathDashboard)
	if err != nil {
		return err
	}
	// The add-on's open page: a second tap is sent back to it (openAddOnPage)
	// instead of to a second page that would take a second payment.
	now := s.clock.Now()
	if _, err := s.st.Keys().Bind(ctx, addOnPageClaim(subID), order.ID, now, now.Add(addOnPageLifetime)); err != nil {
		return fmt.Errorf("add-on page of %s: %w", subID, err)
	}
	return &AuthenticationNeeded{URL: start.URL}
}

// confirmLifetime is how long a renewal's confirmation link may be used:
// past the last retry the subscription has ended anyway.
const confirmLifetime = 14 * 24 * time.Hour

// addOnPageLifetime bounds how long an add-on's hosted page is offered
// again: a Checkout Session expires after a day at the latest.
const addOnPageLifetime = 24 * time.Hour

func addOnPageClaim(subID string) string { return "addon-page:" + subID }

// openAddOnPage returns the hosted page still open for an add-on, "" when
// none is: the page a first tap opened, to which a second tap returns.
func (s *Service) openAddOnPage(ctx context.Context, subID string) (string, error) {
	orderID, err := s.st.Keys().Bound(ctx, addOnPageClaim(subID), s.clock.Now())
	if err != nil || orderID == "" {
		return "", err
	}
	order, err := s.Order(ctx, orderID)
	if errors.Is(err, ErrNoOrder) {
		return "", s.st.Keys().Unbind(ctx, addOnPageClaim(subID))
	}
	if err != nil {
		return "", err
	}
	if order.Status == OrderPending && order.URL != "" {
		res, err := s.provider.SessionResult(ctx, order.Session)
		if err != nil {
			return "", err
		}
		if res.Status == "open" {
			return order.URL, nil
		}
	}
	// Paid, failed or expired: the next tap is a purchase of its own.
	return "", s.st.Keys().Unbind(ctx, addOnPageClaim(subID))
}

// renewalConfirmation makes the order a renewal refused for authentication
// is paid with, and returns the token of its link (mailed; only its hash is
// stored, as the order's id).
func (s *Service) renewalConfirmation(ctx context.Context, sub Subscription, plan PlanSpec, chargeKey string) (string, error) {
	token := engine.NewToken()
	order := Order{ID: confirmOrderID(token), Kind: OrderRenewal, Brand: sub.Brand, Bundle: sub.Bundle, PlanCode: plan.Code,
		Email: sub.Email, UserID: sub.UserID, SubscriptionID: sub.ID, Period: sub.CurrentPeriodEnd.Unix(),
		ChargeKey: chargeKey + ":session", Amount: plan.Price, Saved: sub.PaymentMethod, Status: OrderPending,
		CreatedAt: s.clock.Now()}
	if _, _, err := s.st.Orders().Open(ctx, order); err != nil {
		return "", fmt.Errorf("renewal confirmation of %s: %w", sub.ID, err)
	}
	return token, nil
}

func confirmOrderID(token string) string { return "co_" + engine.HashToken("confirm:" + token)[:24] }

// ErrConfirmationClosed is a confirmation link used up, out of date, or for
// a period already renewed.
var ErrConfirmationClosed = engine.Errorf(engine.CodeConflict, "This payment no longer needs you.")

// Confirmation returns the renewal a confirmation link pays for, as its page
// shows it.
func (s *Service) Confirmation(ctx context.Context, token string) (Order, error) {
	if token == "" || len(token) > 128 {
		return Order{}, ErrNoOrder
	}
	order, err := s.Order(ctx, confirmOrderID(token))
	if err != nil {
		return Order{}, err
	}
	if order.Kind != OrderRenewal {
		return Order{}, ErrNoOrder
	}
	sub, err := s.Subscription(ctx, order.SubscriptionID)
	if err != nil {
		return Order{}, err
	}
	if order.Status != OrderPending || sub.CurrentPeriodEnd.Unix() != order.Period || sub.Status != StatusActive ||
		!s.clock.Now().Before(order.CreatedAt.Add(confirmLifetime)) {
		return order, ErrConfirmationClosed
	}
	return order, nil
}

// StartConfirmation opens the hosted page where a subscriber authenticates
// and pays a renewal their bank refused without them.
func (s *Service) StartConfirmation(ctx context.Context, token, origin string) (CheckoutStart, error) {
	order, err := s.Confirmation(ctx, token)
	if err != nil {
		return CheckoutStart{}, err
	}
	return s.openSession(ctx, order, SessionPayment, Describe(order.PlanCode).Name, origin,
		origin+PathCheckoutConfirm+"?token="+url.QueryEscape(token))
}

// SandboxPayRequest is one step taken on the sandbox's hosted page.
type SandboxPayRequest struct {
	Session string
	// Step is "card" (pay with Card), "saved" (pay with the saved card),
	// "authenticate" or "fail" (the 3-D Secure step's two answers).
	Step string
	Card Card
}

// SandboxPage returns the sandbox's hosted page of a session.
func (s *Service) SandboxPage(ctx context.Context, sessionID string) (SandboxPage, error) {
	sb, ok := s.provider.(*Sandbox)
	if !ok {
		return SandboxPage{}, ErrNoSession
	}
	return sb.Page(ctx, sessionID)
}

// PayOnSandbox takes a step on the sandbox's hosted page. A step that pays
// sends the sandbox's signed checkout.session.completed event through the
// same verification and fulfilment as Stripe's (ReceiveStripeWebhook), so
// the sandbox runs the flow production runs.
func (s *Service) PayOnSandbox(ctx context.Context, req SandboxPayRequest) (SandboxPage, error) {
	sb, ok := s.provider.(*Sandbox)
	if !ok {
		return SandboxPage{}, ErrNoSession
	}
	var (
		p   sandboxPayment
		err error
	)
	switch req.Step {
	case "card", "saved":
		p, err = sb.pay(ctx, req.Session, req.Card, req.Step == "saved")
	case "authenticate", "fail":
		p, err = sb.authenticate(ctx, req.Session, req.Step == "authenticate")
	default:
		return SandboxPage{}, engine.Errorf(engine.CodeInvalid, "Unknown step.")
	}
	if err != nil {
		return SandboxPage{}, err
	}
	if p.Event != nil {
		if _, err := s.ReceiveStripeWebhook(ctx, p.Event.Payload, p.Event.Signature); err != nil {
			return SandboxPage{}, fmt.Errorf("sandbox: deliver %s: %w", req.Session, err)
		}
	}
	return p.Page, nil
}

// signedAt reads the timestamp of a Stripe-Signature header
// ("t=<unix seconds>,v1=<hex>,…").
func signedAt(header string) (time.Time, bool) {
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok && k == "t" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return time.Time{}, false
			}
			return time.Unix(n, 0), true
		}
	}
	return time.Time{}, false
}
