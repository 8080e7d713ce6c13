package billing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"glimpse/engine"
	"glimpse/engine/brand"
	"glimpse/engine/metrics"
)

// Notice is a mail billing asks to send; the app turns it into the mail
// package's message. Key makes it once-only.
type Notice struct {
	Key   string
	To    string
	Brand string
	Kind  string // NoticePurchase, NoticePaymentFailed, …
	Data  map[string]string
	// ByCharge marks a mail found through its charge rather than on its
	// recipient's list of mails (mail.Message.Unlisted): a renewal pass's
	// receipts, queued hundreds at a time.
	ByCharge bool
}

// Kinds of notice.
const (
	NoticePurchase      = "purchase"       // Data: subscription, plan, price
	NoticePaymentFailed = "payment_failed" // Data: plan, retryDate
	// NoticeConfirmPayment is a renewal the bank refused until the
	// subscriber authenticates it. Data: plan, price, retryDate, token (the
	// link's secret: /checkout/confirm?token=…).
	NoticeConfirmPayment = "confirm_payment"
	NoticeCanceled       = "canceled"       // Data: plan, endDate
	NoticeReceipt        = "receipt"        // Data: item, price, date; family for an add-on (its name is the brand's copy)
	NoticeCancelLink     = "cancel_link"    // Data: token, email
	NoticeProfileReport  = "profile_report" // Data: user, email: the bought report is to be made and mailed
	// Every other change to a plan is confirmed in writing, as a card
	// network's rules and consumers expect of a subscription.
	NoticeResumed     = "resumed"      // Data: plan, price, period, date (the next charge)
	NoticePlanChange  = "plan_change"  // Data: plan, price, period, date (from when)
	NoticePlanKept    = "plan_kept"    // a scheduled change undone. Data: plan, price, period, date (the next charge)
	NoticeExtended    = "extended"     // Data: plan, date (the new end of the period)
	NoticeCardUpdated = "card_updated" // Data: plan, card
	// NoticeRefunded is money given back. Data: amount, item (or family for
	// an add-on), card, date (of the payment), ends: "plan", "add_on" or ""
	// (a partial refund changes no access).
	NoticeRefunded = "refunded"
)

// Service sells plans and keeps subscriptions.
type Service struct {
	// st is billing's storage (storage.go): SQLite or MongoDB.
	st        Store
	clock     engine.Clock
	provider  Provider
	catalogue *Catalogue
	logger    *slog.Logger
	// notify sends mail; nil sends none.
	notify     func(ctx context.Context, n Notice) error
	notifyMany func(ctx context.Context, ns []Notice) error
	// changed is told the user whose subscriptions changed, so caches of
	// them (auth keeps one per instance) can drop it.
	changed func(userID string)
	// retries are the delays after a period end at which a failed renewal is
	// tried again; after the last the subscription expires.
	retries []time.Duration
	// renewal sizes the renewal pass's pages, batches and charges in flight
	// (renew.go).
	renewal renewalTuning
	// metrics counts business events; nil counts nothing (SetMetrics).
	metrics *metrics.Business
	// webhookSecret verifies events (ReceiveStripeWebhook).
	webhookSecret string
}

// Options are the Service's collaborators beyond the database.
type Options struct {
	// Store is billing's own storage (sqlstore.NewBilling,
	// mongostore.NewBilling).
	Store     Store
	Provider  Provider
	Catalogue *Catalogue
	Logger    *slog.Logger
	Notify    func(ctx context.Context, n Notice) error
	// NotifyMany queues many mails at once (a renewal pass's receipts); nil
	// queues them one by one with Notify.
	NotifyMany func(ctx context.Context, ns []Notice) error
	Changed    func(userID string)
	// WebhookSecret verifies the provider's events (Stripe's whsec_…;
	// the sandbox signs its own with it). Empty refuses every event.
	WebhookSecret string
}

// DefaultRetries retries a failed renewal 1, 3 and 5 days after the period
// ended, the spacing subscription businesses commonly use for dunning.
var DefaultRetries = []time.Duration{24 * time.Hour, 3 * 24 * time.Hour, 5 * 24 * time.Hour}

// NewService returns the billing service.
func NewService(clock engine.Clock, o Options) *Service {
	if o.Catalogue == nil {
		o.Catalogue = DefaultCatalogue()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{st: o.Store, clock: clock, provider: o.Provider, catalogue: o.Catalogue,
		logger: o.Logger, notify: o.Notify, notifyMany: o.NotifyMany, changed: o.Changed, retries: DefaultRetries, renewal: defaultRenewalTuning(o.Provider),
		webhookSecret: o.WebhookSecret}
}

// Catalogue returns the plans on sale.
func (s *Service) Catalogue() *Catalogue { return s.catalogue }

// Provider returns the payment provider.
func (s *Service) Provider() Provider { return s.provider }

// maxStaleReads bounds how often a change reads again after losing a race:
// a subscription changes a few times a month, so five losses in a row is
// a storm (or a bug), reported rather than retried for ever.
const maxStaleReads = 5

// change applies a rule to a subscription as stored: it reads it, decides
// by rule on what it read, and writes the result over the version read
// (Subscriptions.Apply), with the lines and mails the rule returned. When
// another writer changed it meanwhile (ErrStale) it reads and decides
// again. ok false from the rule writes nothing and returns the
// subscription as read.
func (s *Service) change(ctx context.Context, id string, rule func(Subscription) (Subscription, Effects, bool, error)) (Subscription, error) {
	subs := s.st.Subscriptions()
	for range maxStaleReads {
		sub, err := subs.Get(ctx, id)
		if err != nil {
			return Subscription{}, err
		}
		next, fx, ok, err := rule(sub)
		if err != nil || !ok {
			return sub, err
		}
		applied, err := subs.Apply(ctx, next, fx)
		if errors.Is(err, ErrStale) {
			continue
		}
		if err != nil {
			return Subscription{}, fmt.Errorf("change subscription %s: %w", id, err)
		}
		s.touched(applied.UserID)
		if len(fx.Notices) > 0 {
			s.drain(ctx)
		}
		return applied, nil
	}
	return Subscription{}, fmt.Errorf("change subscription %s: %w %d times", id, ErrStale, maxStaleReads)
}

// drain hands the outbox's mails to the mailer, logging a failure: what is
// left is handed over by the next drain (DrainNotices, every renewal tick).
func (s *Service) drain(ctx context.Context) {
	if err := s.DrainNotices(ctx); err != nil {
		s.logger.Error("hand billing mails over", "error", err)
	}
}

// drainBatch is how many mails one round of DrainNotices hands over.
const drainBatch = 500

// DrainNotices hands every mail waiting in the outbox to the mailer, then
// removes it. A mail is removed only once handed over, so a stop between
// the two hands it over again, which its key makes harmless.
func (s *Service) DrainNotices(ctx context.Context) error {
	if s.st == nil {
		return nil
	}
	for {
		ns, err := s.st.Notices().Pending(ctx, drainBatch)
		if err != nil || len(ns) == 0 {
			return err
		}
		// A mail to no address (a subscription without one) is dropped, as
		// send drops it.
		mail := slices.DeleteFunc(slices.Clone(ns), func(n Notice) bool { return n.To == "" })
		if s.notifyMany != nil {
			if err := s.notifyMany(ctx, mail); err != nil {
				return fmt.Errorf("hand billing mails over: %w", err)
			}
		} else if s.notify != nil {
			for _, n := range mail {
				if err := s.notify(ctx, n); err != nil {
					return fmt.Errorf("hand billing mail %s over: %w", n.Key, err)
				}
			}
		}
		keys := make([]string, len(ns))
		for i, n := range ns {
			keys[i] = n.Key
		}
		if err := s.st.Notices().Done(ctx, keys); err != nil {
			return err
		}
		if len(ns) < drainBatch {
			return nil
		}
	}
}

// SweepKeys deletes billing's expired keys (Keys.DeleteExpired).
func (s *Service) SweepKeys(ctx context.Context) (int64, error) {
	if s.st == nil {
		return 0, nil
	}
	return s.st.Keys().DeleteExpired(ctx, s.clock.Now())
}

// ErrNoSubscription is an unknown subscription id.
var ErrNoSubscription = engine.Errorf(engine.CodeNotFound, "No subscription")

// charge asks the provider and keeps the answer in the charges ledger under
// the opaque id of the request's key (ChargeIDOf).
func (s *Service) charge(ctx context.Context, req ChargeRequest) (Charge, error) {
	ch, err := s.provider.Charge(ctx, req)
	ch = s.ledgerCharge(req, ch)
	if ch.Status != "" {
		if werr := s.recordCharges(ctx, []Charge{ch}); werr != nil {
			s.logger.Error("record charge and apply its early events", "charge", ch.ID, "error", werr)
		}
	}
	if err != nil {
		return ch, err
	}
	return ch, nil
}

// Subscription returns a subscription by id.
func (s *Service) Subscription(ctx context.Context, id string) (Subscription, error) {
	sub, err := s.st.Subscriptions().Get(ctx, id)
	if err != nil && !errors.Is(err, ErrNoSubscription) {
		return Subscription{}, fmt.Errorf("find subscription %s: %w", id, err)
	}
	return sub, err
}

// SubscriptionsByEmail returns every subscription whose address is email.
func (s *Service) SubscriptionsByEmail(ctx context.Context, email string) ([]Subscription, error) {
	subs, err := s.st.Subscriptions().ByEmail(ctx, normaliseEmail(email))
	if err != nil {
		return nil, fmt.Errorf("subscriptions by email: %w", err)
	}
	return subs, nil
}

// ForUser returns an account's subscriptions.
func (s *Service) ForUser(ctx context.Context, userID string) ([]Subscription, error) {
	subs, err := s.st.Subscriptions().OfUser(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("subscriptions of %s: %w", userID, err)
	}
	return subs, nil
}

// Finalize links a paid subscription to the account just created for it:
// the link is written over the version read (Subscription.Finalize), so of
// two accounts racing for one subscription exactly one gets it; linking
// the same account again is a no-op.
func (s *Service) Finalize(ctx context.Context, subscriptionID, userID string) error {
	_, err := s.change(ctx, subscriptionID, func(sub Subscription) (Subscription, Effects, bool, error) {
		return sub.Finalize(userID, s.clock.Now())
	})
	if err != nil && !errors.Is(err, ErrAlreadyFinalized) && !errors.Is(err, ErrNoSubscription) {
		return fmt.Errorf("finalize %s: %w", subscriptionID, err)
	}
	return err
}

// PurchaseRequest is a subscriber buying an add-on with the payment method
// of their main plan.
type PurchaseRequest struct {
	UserID string
	Email  string
	Main   Subscription
	Family string // FamilyPDFCourse, FamilyProfileReport or FamilyReelsPlaybook
	// Origin is the brand's origin (config.BrandOrigin): where the
	// provider's page sends the buyer back when their bank asks them to
	// authenticate the payment.
	Origin string
}

// bindKey binds an idempotency key (claimID) to what it buys (what): the
// first caller binds it, and a caller with the same key and anything else
// gets ErrKeyReused.
func (s *Service) bindKey(ctx context.Context, claimID, what string) error {
	now := s.clock.Now()
	bound, err := s.st.Keys().Bind(ctx, claimID, what, now, now.Add(keyLifetime))
	if err != nil {
		return err
	}
	if bound != what {
		return ErrKeyReused
	}
	return nil
}

// keyLifetime is how long a checkout key stays bound: far longer than a
// checkout page is open.
const keyLifetime = 30 * 24 * time.Hour

// maxAttempts bounds the declined attempts one key counts.
const maxAttempts = 1000

// attemptKey is the charge key of the next attempt of base: base itself,
// then base#1, base#2, … after each declined one (counted under failures).
// A repeat of an attempt (a double tap, a retry) gets the same key, so the
// provider charges it once. failed counts the attempt as declined when its
// charge was refused by the bank, so the next one is new.
func (s *Service) attemptKey(ctx context.Context, base, failures string) (key string, failed func(error), err error) {
	n, err := s.st.Keys().Count(ctx, failures, s.clock.Now())
	if err != nil {
		return "", nil, fmt.Errorf("count attempts of %s: %w", base, err)
	}
	key = base
	if n > 0 {
		key += "#" + strconv.Itoa(n)
	}
	return key, func(chargeErr error) {
		if !errors.Is(chargeErr, ErrCardDeclined) && !errors.Is(chargeErr, ErrAuthenticationRequired) {
			return
		}
		now := s.clock.Now()
		if _, err := s.st.Keys().Take(ctx, failures, maxAttempts, now, now.Add(keyLifetime)); err != nil {
			s.logger.Error("count a declined attempt", "key", base, "error", err)
		}
	}, nil
}

// ErrAlreadyOwned is an add-on bought before.
var ErrAlreadyOwned = engine.Errorf(engine.CodeConflict, "You already own this.")

// Purchase charges an add-on to the main plan's payment method. An add-on
// is bought once per account and brand, so its idempotency key is that
// pair: a double tap, a retry or a second instance charges once.
func (s *Service) Purchase(ctx context.Context, req PurchaseRequest) (Subscription, error) {
	if req.UserID == "" || req.Main.ID == "" {
		return Subscription{}, engine.Errorf(engine.CodeForbidden, "Cant find subscription id or firebase uid")
	}
	plan, err := s.catalogue.Find(req.Main.Brand, req.Family)
	if err != nil || plan.Kind != KindAddOn {
		return Subscription{}, ErrUnknownPlan
	}
	subID, base, failures, err := s.addOnPurchase(ctx, req.UserID, plan.Code)
	if errors.Is(err, ErrAlreadyOwned) {
		// A second tap: the caller is shown what the first one bought.
		owned, rerr := s.Subscription(ctx, subID)
		if rerr != nil {
			return Subscription{}, errors.Join(err, rerr)
		}
		return owned, err
	}
	if err != nil {
		return Subscription{}, err
	}
	// A page opened for this add-on by an earlier tap (its bank asked for
	// the buyer) is where this tap goes too: a second page would be a second
	// payment.
	if url, err := s.openAddOnPage(ctx, subID); err != nil {
		return Subscription{}, err
	} else if url != "" {
		return Subscription{}, &AuthenticationNeeded{URL: url}
	}
	// A declined purchase does not block the add-on: the next attempt (a
	// new card, or the same one again) is a charge of its own.
	chargeKey, failed, err := s.attemptKey(ctx, base, failures)
	if err != nil {
		return Subscription{}, err
	}
	ch, err := s.charge(ctx, ChargeRequest{Key: chargeKey, SubscriptionID: subID,
		Method: req.Main.PaymentMethod, Amount: plan.Price, Description: plan.Code})
	if errors.Is(err, ErrAuthenticationRequired) {
		// The bank wants the buyer: they authenticate and pay on the
		// provider's page, and the add-on is made from its event.
		failed(err)
		return Subscription{}, s.authenticateAddOn(ctx, req, plan, subID, chargeKey)
	}
	if err != nil {
		failed(err)
		return Subscription{}, err
	}
	sub := Subscription{ID: subID, UserID: req.UserID, Email: req.Email, Emails: []string{req.Email},
		Bundle: req.Main.Bundle, Brand: req.Main.Brand, PlanCode: plan.Code, Status: StatusActive,
		Price: plan.Price, Provider: s.provider.Name(), StartedAt: s.clock.Now(), PaymentMethod: req.Main.PaymentMethod,
		MainSubscriptionID: req.Main.ID, PaidBy: paidBy(chargeKey)}
	if twice, err := s.insertAddOn(ctx, sub); err != nil {
		return Subscription{}, fmt.Errorf("purchase %s: %w", plan.Code, err)
	} else if twice {
		// A hosted page for it was paid meanwhile: this charge goes back.
		return s.refundAddOnCharge(ctx, subID, chargeKey, plan.Code)
	}
	s.addOnBought(ctx, sub, req.Family, ch, chargeKey)
	return sub, nil
}

// refundAddOnCharge gives back a saved card's charge for an add-on that
// another payment bought first, and answers as a second tap is answered.
func (s *Service) refundAddOnCharge(ctx context.Context, subID, chargeKey, planCode string) (Subscription, error) {
	// The refund's key names the charge by its id: the key can name the
	// account, and the refund is kept after an erasure.
	id := ChargeIDOf(chargeKey)
	if err := s.st.Ledger().MarkDuplicate(ctx, id, planCode); err != nil {
		return Subscription{}, fmt.Errorf("mark %s paid twice: %w", id, err)
	}
	if _, err := s.Refund(ctx, RefundRequest{ChargeID: id, Full: true, By: "purchase",
		Reason: "Paid for what the buyer already had", Key: "paid-twice:" + id}); err != nil && !errors.Is(err, ErrAlreadyRefunded) {
		return Subscription{}, fmt.Errorf("refund %s paid twice: %w", id, err)
	}
	owned, err := s.Subscription(ctx, subID)
	if err != nil {
		return Subscription{}, errors.Join(ErrAlreadyOwned, err)
	}
	return owned, ErrAlreadyOwned
}

// addOnBought records an add-on just paid for and sends its mails.
func (s *Service) addOnBought(ctx context.Context, sub Subscription, family string, ch Charge, chargeKey string) {
	s.record(ctx, sub.ID, "created", Change{By: "user:" + sub.UserID, Kind: ChangeCreated, To: sub.PlanCode,
		Detail: sub.Price.String() + " charge " + ch.Reference})
	s.receiptFor(ctx, ch, Receipt{ChargeID: ChargeIDOf(chargeKey), SubscriptionID: sub.ID, Email: sub.Email,
		Brand: sub.Brand, Kind: ReceiptAddOn, PlanCode: sub.PlanCode, Amount: sub.Price,
		CardBrand: sub.PaymentMethod.Brand, CardLast4: sub.PaymentMethod.Last4, PaidAt: s.clock.Now()})
	if family == FamilyProfileReport {
		s.send(ctx, Notice{Key: "profile-report:" + sub.UserID, To: sub.Email, Brand: sub.Brand, Kind: NoticeProfileReport,
			Data: map[string]string{"user": sub.UserID, "email": sub.Email}})
	}
	s.touched(sub.UserID)
}

// Cancel stops a main plan from renewing: it stays canceled-but-authorised
// until its period ends, then the renewal job expires it. Canceling twice
// is a no-op. A canceled plan does not renew, so a change scheduled for its
// renewal goes with the cancel, and the cancel's mail says so
// (Subscription.Cancel).
func (s *Service) Cancel(ctx context.Context, subscriptionID, by string) (Subscription, error) {
	return s.change(ctx, subscriptionID, func(sub Subscription) (Subscription, Effects, bool, error) {
		now := s.clock.Now()
		next, fx, ok := sub.Cancel(now, s.periodEnd(sub, now), by)
		return next, fx, ok, nil
	})
}

// Resume takes back a cancel at period end before the period ends: the plan
// is active again and renews as before. Resuming twice is a no-op.
func (s *Service) Resume(ctx context.Context, subscriptionID, by string) (Subscription, error) {
	return s.change(ctx, subscriptionID, func(sub Subscription) (Subscription, Effects, bool, error) {
		return sub.Resume(s.clock.Now(), by, s.renewalTerms)
	})
}

// renewalTerms says what a running main plan renews as: its name, the price
// and period of its next charge (a scheduled change's, when one is set) and
// the date of that charge.
func (s *Service) renewalTerms(sub Subscription) map[string]string {
	code, price := sub.PlanCode, sub.Price
	if sub.NextPlanCode != "" {
		code = sub.NextPlanCode
		if next, err := s.catalogue.Plan(code); err == nil {
			price = next.Price
		}
	}
	return map[string]string{"plan": Describe(code).Name, "price": price.String(), "period": Describe(code).Period,
		"date": brand.Date(sub.CurrentPeriodEnd)}
}

// cancelAll cancels the active main plans among subs on bundle and counts
// those canceled now (each once, though subs may list one twice), with the
// latest day one of them stops authorising.
func (s *Service) cancelAll(ctx context.Context, subs []Subscription, bundle, by string) (int, time.Time, error) {
	now := s.clock.Now()
	seen := map[string]bool{}
	n := 0
	var ends time.Time
	for _, sub := range subs {
		if seen[sub.ID] || sub.Bundle != bundle || !sub.MainPlan || sub.Expired(now) {
			continue
		}
		seen[sub.ID] = true
		if sub.Status == StatusActive {
			canceled, err := s.Cancel(ctx, sub.ID, by)
			if err != nil {
				return n, ends, err
			}
			sub = canceled
		}
		if sub.ExpiresAt != nil && sub.ExpiresAt.After(ends) {
			ends = *sub.ExpiresAt
		}
		n++
	}
	return n, ends, nil
}

// TakeAttempt counts one attempt of something limited (checkouts per
// client, cancel mails per subscription) in the current window of length

// never get past the limit together.
func (s *Service) TakeAttempt(ctx context.Context, key string, limit int, window time.Duration) (bool, error) {
	now := s.clock.Now()
	ok, err := s.st.Keys().Take(ctx, key+":"+engine.Window(now, window), limit, now, now.Add(2*window))
	if err != nil {
		return false, fmt.Errorf("count attempt %s: %w", key, err)
	}
	return ok, nil
}

// History returns a subscription's changes, oldest first.
func (s *Service) History(ctx context.Context, subscriptionID string) ([]Change, error) {
	h, err := s.st.Subscriptions().History(ctx, subscriptionID)
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", subscriptionID, err)
	}
	return h, nil
}

// record writes one history line under its key, as a change of the
// subscription that changes nothing else (over the version read, so it
// never undoes a change made meanwhile); a line already written (the same
// change made again) stays as it was.
func (s *Service) record(ctx context.Context, subID, key string, c Change) {
	now := s.clock.Now()
	if _, err := s.change(ctx, subID, func(sub Subscription) (Subscription, Effects, bool, error) {
		return sub, Effects{Lines: []Change{sub.Line(key, now, c)}}, true, nil
	}); err != nil {
		s.logger.Error("record subscription change", "subscription", subID, "change", key, "error", err)
	}
}

func (s *Service) send(ctx context.Context, n Notice) {
	if s.notify == nil || n.To == "" {
		return
	}
	if err := s.notify(ctx, n); err != nil {
		s.logger.Error("queue billing mail", "key", n.Key, "error", err)
	}
}

// sendMany queues notices as send queues each, in one batch when the app
// can take one.
func (s *Service) sendMany(ctx context.Context, ns []Notice) {
	if s.notifyMany == nil {
		for _, n := range ns {
			s.send(ctx, n)
		}
		return
	}
	ns = slices.DeleteFunc(ns, func(n Notice) bool { return n.To == "" })
	if len(ns) == 0 {
		return
	}
	if err := s.notifyMany(ctx, ns); err != nil {
		s.logger.Error("queue billing mails", "count", len(ns), "error", err)
	}
}

func (s *Service) touched(userID string) {
	if s.changed != nil && userID != "" {
		s.changed(userID)
	}
}

func normaliseEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// Put creates or replaces a subscription as given, for seeding demo data
// and tests; everything a person does goes through Checkout and Purchase.
func (s *Service) Put(ctx context.Context, sub Subscription) error {
	sub.Email = normaliseEmail(sub.Email)
	if len(sub.Emails) == 0 {
		sub.Emails = []string{sub.Email}
	}
	if err := s.st.Subscriptions().Put(ctx, sub); err != nil {
		return fmt.Errorf("put subscription %s: %w", sub.ID, err)
	}
	s.touched(sub.UserID)
	return nil
}

// periodEnd is when a main plan's paid period ends: its current period's
// end, or, for a subscription written before periods were kept, the next
// period boundary counted from its start.
func (s *Service) periodEnd(sub Subscription, now time.Time) time.Time {
	if !sub.CurrentPeriodEnd.IsZero() {
		return sub.CurrentPeriodEnd
	}
	plan, err := s.catalogue.Plan(sub.PlanCode)
	if err != nil || !plan.Recurring() || sub.StartedAt.IsZero() {
		plan, err = s.catalogue.Find(sub.Brand, FamilyOf(sub.PlanCode))
		if err != nil || !plan.Recurring() || sub.StartedAt.IsZero() {
			return now
		}
	}
	end := plan.Period.After(sub.StartedAt)
	for !end.After(now) {
		end = plan.Period.After(end)
	}
	return end
}
