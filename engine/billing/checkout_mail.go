package billing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"glimpse/engine"
	"glimpse/engine/brand"
)

// What the checkout's pages do with an order after the hosted page (#32
// item 12): "← Back" restores the address the buyer typed, and the done
// page of a paid plan says what was bought and where the mail with the
// link to create the account went, and lets the buyer have it sent again
// or correct a mistyped address. Both act only through the order's id,
// which the buyer's own pages carry (an unguessable 96-bit value), only on
// a plan whose account does not exist yet, and only for PurchaseFixWindow
// after the purchase; each mail is counted (PurchaseMailsPerHour).

// PurchaseFixWindow is how long after a purchase its done page may send the
// account mail again or change the address it goes to.
const PurchaseFixWindow = 24 * time.Hour

// PurchaseMailsPerHour is how many account mails an order's done page may
// send in an hour, again or to a corrected address; PurchaseEmailChanges
// is how many times it may change the address at all.
const (
	PurchaseMailsPerHour = 3
	PurchaseEmailChanges = 3
)

// ChangeEmail is a history line: a buyer corrected the address of a plan
// before creating its account.
const ChangeEmail = "email_changed"

// ErrPurchaseClosed is a done page whose purchase can no longer be changed
// from it: the account exists, or the day after the purchase is over.
var ErrPurchaseClosed = engine.Errorf(engine.CodeConflict,
	"This purchase can no longer be changed from this page. Sign in, or ask for a new link on the access page.")

// ErrPurchaseMails is a done page that sent PurchaseMailsPerHour mails
// this hour, or changed the address PurchaseEmailChanges times.
var ErrPurchaseMails = engine.Wrap(engine.CodeRateLimited, ErrTooManyAttempts,
	"We have sent this mail several times already. Please check your spam folder, or try again in an hour.")

// CheckoutBack returns the address to restore on the checkout the hosted
// page's "← Back" returns to: that of a plan order on bundle still unpaid
// and opened less than a day ago (a Checkout Session's longest life); ""
// for any other order. The cancel URL carries the order's id, never the
// address.
func (s *Service) CheckoutBack(ctx context.Context, orderID, bundle string) (string, error) {
	if orderID == "" || len(orderID) > 64 {
		return "", nil
	}
	order, err := s.Order(ctx, orderID)
	if errors.Is(err, ErrNoOrder) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if order.Kind != OrderPlan || order.Bundle != bundle || order.Status != OrderPending ||
		!s.clock.Now().Before(order.CreatedAt.Add(sandboxSessionLifetime)) {
		return "", nil
	}
	return order.Email, nil
}

// HostedPagePeriod is how often what the sandbox's page sells renews ("1
// month"), "" for a one-time payment or a card update: the page says
// "$13.99 every 1 month", as the checkout did.
func (s *Service) HostedPagePeriod(ctx context.Context, sessionID string) (string, error) {
	sb, ok := s.provider.(*Sandbox)
	if !ok {
		return "", ErrNoSession
	}
	doc, err := sb.session(ctx, sessionID)
	if err != nil {
		return "", err
	}
	order, err := s.Order(ctx, doc.OrderID)
	if errors.Is(err, ErrNoOrder) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if order.Kind != OrderPlan && order.Kind != OrderRenewal {
		return "", nil
	}
	return Describe(order.PlanCode).Period, nil
}

// PaidPlan is a paid plan order as its done page shows it.
type PaidPlan struct {
	Order Order
	Plan  Plan  // its name and period
	Price Money // what the first period cost (renewals cost the plan's price)
	// RenewsOn is when the plan next renews (zero once canceled).
	RenewsOn time.Time
	// AccountReady is a plan whose account exists.
	AccountReady bool
	// Fixable says the done page may send the mail again or change its
	// address: no account yet, and within PurchaseFixWindow.
	Fixable bool
}

// PaidPlan returns the paid plan order orderID on bundle, ErrNoOrder for
// any other.
func (s *Service) PaidPlan(ctx context.Context, orderID, bundle string) (PaidPlan, error) {
	order, err := s.Order(ctx, orderID)
	if err != nil {
		return PaidPlan{}, err
	}
	if order.Kind != OrderPlan || order.Bundle != bundle || order.Status != OrderPaid {
		return PaidPlan{}, ErrNoOrder
	}
	sub, err := s.Subscription(ctx, order.SubscriptionID)
	if errors.Is(err, ErrNoSubscription) {
		return PaidPlan{}, ErrNoOrder
	}
	if err != nil {
		return PaidPlan{}, err
	}
	p := PaidPlan{Order: order, Plan: Describe(sub.PlanCode), Price: order.Amount, AccountReady: sub.UserID != ""}
	if sub.Status == StatusActive && !sub.CancelAtPeriodEnd {
		p.RenewsOn = sub.CurrentPeriodEnd
	}
	p.Fixable = !p.AccountReady && sub.Email == order.Email && sub.Authorises(bundle, s.clock.Now()) &&
		s.clock.Now().Before(order.CreatedAt.Add(PurchaseFixWindow))
	return p, nil
}

// ResendPurchaseMail sends a paid plan's mail with the link to create its
// account again, to the address it went to.
func (s *Service) ResendPurchaseMail(ctx context.Context, orderID, bundle string) error {
	p, err := s.fixablePurchase(ctx, orderID, bundle)
	if err != nil {
		return err
	}
	if err := s.takePurchaseMail(ctx, orderID); err != nil {
		return err
	}
	return s.sendPurchaseAgain(ctx, p.Order.SubscriptionID)
}

// ChangePurchaseEmail corrects the address of a paid plan before its
// account exists, and sends the mail with the link to create it to the new
// address. The links mailed to the old one stop working (the account's
// links are bound to the address they were mailed to: auth.Accounts). The
// subscription is found by the new address from now on, and no longer by
// the old one; an address that has a live plan already is refused.
func (s *Service) ChangePurchaseEmail(ctx context.Context, orderID, bundle, email string) error {
	email = normaliseEmail(email)
	if email == "" || len(email) > 254 || !strings.Contains(email, "@") {
		return engine.Errorf(engine.CodeInvalid, "Enter an email address.")
	}
	p, err := s.fixablePurchase(ctx, orderID, bundle)
	if err != nil {
		return err
	}
	old, subID := p.Order.Email, p.Order.SubscriptionID
	if email == old {
		return s.ResendPurchaseMail(ctx, orderID, bundle)
	}
	if live, err := s.liveMainPlan(ctx, email, bundle, subID); err != nil {
		return err
	} else if live != "" {
		return ErrHasLivePlan
	}
	if err := s.takePurchaseMail(ctx, orderID); err != nil {
		return err
	}
	now := s.clock.Now()
	ok, err := s.st.Keys().Take(ctx, "purchase-email-change:"+orderID, PurchaseEmailChanges, now, now.Add(2*PurchaseFixWindow))
	if err != nil {
		return fmt.Errorf("change the address of %s: %w", orderID, err)
	}
	if !ok {
		return ErrPurchaseMails
	}
	// Of two changes sent together, one: each is written over the version
	// of the plan it read, from the address the plan had then, so the
	// second reads the new address and is refused.
	if _, err := s.change(ctx, subID, func(sub Subscription) (Subscription, Effects, bool, error) {
		if sub.Email != old || sub.UserID != "" {
			return sub, Effects{}, false, ErrPurchaseClosed
		}
		now := s.clock.Now()
		next := sub
		next.Email, next.Emails = email, append(slices.Clone(sub.Emails), email)
		line := sub.Line("email:"+strconv.FormatInt(now.UnixNano(), 10), now, Change{By: "checkout", Kind: ChangeEmail,
			From: maskAddress(old), To: email})
		return next, Effects{Lines: []Change{line}}, true, nil
	}); err != nil {
		if errors.Is(err, ErrPurchaseClosed) {
			return err
		}
		return fmt.Errorf("change the address of %s: %w", subID, err)
	}
	if err := s.st.Orders().ChangeEmail(ctx, orderID, email); err != nil {
		return fmt.Errorf("change the address of %s: %w", orderID, err)
	}
	return s.sendPurchaseAgain(ctx, subID)
}

// fixablePurchase is PaidPlan for a page that would change it.
func (s *Service) fixablePurchase(ctx context.Context, orderID, bundle string) (PaidPlan, error) {
	p, err := s.PaidPlan(ctx, orderID, bundle)
	if err != nil {
		return PaidPlan{}, err
	}
	if !p.Fixable {
		return PaidPlan{}, ErrPurchaseClosed
	}
	return p, nil
}

// takePurchaseMail counts one of an order's account mails this hour.
func (s *Service) takePurchaseMail(ctx context.Context, orderID string) error {
	ok, err := s.TakeAttempt(ctx, "purchase-mail:"+orderID, PurchaseMailsPerHour, time.Hour)
	if err != nil {
		return err
	}
	if !ok {
		return ErrPurchaseMails
	}
	return nil
}

// sendPurchaseAgain mails a plan's purchase mail (its link creates the
// account) to the plan's address as it is now, under a key of its own.
func (s *Service) sendPurchaseAgain(ctx context.Context, subID string) error {
	sub, err := s.Subscription(ctx, subID)
	if err != nil {
		return err
	}
	s.send(ctx, Notice{Key: "purchase:" + sub.ID + ":again:" + engine.NewID(), To: sub.Email,
		Brand: sub.Brand, Kind: NoticePurchase, Data: map[string]string{"subscription": sub.ID, "plan": Describe(sub.PlanCode).Name,
			"price": sub.Price.String(), "period": Describe(sub.PlanCode).Period, "renewDate": brand.Date(sub.CurrentPeriodEnd)}})
	return nil
}

// maskAddress is an address shown to someone who may not own it:
// "a•••@example.com".
func maskAddress(email string) string {
	local, domain, ok := strings.Cut(email, "@")
	if !ok || local == "" {
		return "•••"
	}
	return local[:1] + "•••@" + domain
}
