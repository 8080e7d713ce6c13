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

// Refunds. The EULA (content/legal/terms-of-use.md §9) says a direct
// purchase may be refunded once the operator approves it; staff do that
// from the support desk. A refund goes to the provider that took the
// charge, and what it does to access follows from the charge's new status
// (ApplyChargeAccess): refunded in full, an add-on loses its entitlement and
// a plan ends at once; a partial refund (a goodwill gesture) changes no
// access. docs/stripe.md says the same for operators.

// refundsCollection names the refunds' table and collection in billing's
// store (Refunds): one per refund of a charge, "<charge id>#<n>" (n = 0,
// 1, … in the order they were asked for). Of two refunds of one charge
// asked for together exactly one gets number n (Refunds.Claim), so the sum
// of a charge's refunds is checked against everything refunded before it,
// and a double click refunds once.
const refundsCollection = "refunds"

// ChargePartiallyRefunded is a charge refunded in part: it keeps paying for
// what it bought (Stripe's charge.refunded with refunded=false reads the
// same, stripe_events.go).
const ChargePartiallyRefunded = "partially_refunded"

// Refund statuses.
const (
	RefundPending   = "pending"
	RefundSucceeded = "succeeded"
	RefundFailed    = "failed"
)

// RefundRequest asks for a charge to be refunded.
type RefundRequest struct {
	ChargeID string
	// Full gives back everything not refunded yet; otherwise Amount, in the
	// charge's minor units, is what to give back (more than 0). A refund is
	// one or the other by choice: an amount left empty is no full refund.
	Full   bool
	Amount int64
	// Reason says why, in staff's words; kept with the refund.
	Reason string
	// By is who asked ("staff:<email>").
	By string
	// Key names this request (one per desk view): asked again with the same
	// key (a double click, a retry), the first refund is returned and
	// nothing is refunded twice.
	Key string
}

// Refund is money given back for a charge.
type Refund struct {
	ID             string // "<charge id>#<seq>"
	ChargeID       string
	SubscriptionID string
	Seq            int
	Amount         Money
	// Full is a refund that left nothing of the charge.
	Full      bool
	Status    string
	Reference string // the provider's id (re_…)
	Failure   string
	By        string
	Reason    string
	Key       string
	CreatedAt time.Time
	// Erased is a refund an erasure kept, without staff's reason, until
	// RetainUntil (the tax period).
	Erased      bool
	RetainUntil time.Time
}

// ProviderRefund is what a provider is asked to give back.
type ProviderRefund struct {
	// Key is the idempotency key, bound to the charge, the refund's number
	// and its amount: a retry replays, another amount is another refund.
	Key    string
	Charge Charge
	Amount Money
}

// Refunder is a provider that can give money back. It is apart from
// Provider so a provider without refunds still takes payments.
type Refunder interface {
	// Refund gives back req.Amount of req.Charge and returns the
	// provider's id for the refund.
	Refund(ctx context.Context, req ProviderRefund) (string, error)
}

// Refund errors; their messages are what staff see.
var (
	// ErrRefundAmount is a refund neither full nor of an amount.
	ErrRefundAmount = engine.Errorf(engine.CodeInvalid, "Choose a full refund, or write the amount to give back.")
	ErrNoCharge     = engine.Errorf(engine.CodeNotFound, "There is no such charge.")
	// ErrNotRefundable is a charge that did not take money (failed, still
	// processing) or is disputed, or one not taken by Glimpse's own
	// provider (an App Store purchase: the EULA sends those to the store).
	ErrNotRefundable    = engine.Errorf(engine.CodeConflict, "This charge cannot be refunded.")
	ErrAlreadyRefunded  = engine.Errorf(engine.CodeConflict, "This charge has been refunded in full.")
	ErrRefundTooLarge   = engine.Errorf(engine.CodeInvalid, "The refund is more than what is left of the charge.")
	ErrRefundInProgress = engine.Errorf(engine.CodeConflict, "Another refund of this charge was just made. Reload to see it.")
	ErrRefundFailed     = engine.Errorf(engine.CodeUnavailable, "The payment provider did not make the refund. Please try again later.")
)

// Charge returns a charge of the ledger by its opaque id (ChargeIDOf its
// key).
func (s *Service) Charge(ctx context.Context, id string) (Charge, error) {
	ch, err := s.st.Ledger().Charge(ctx, id)
	if err != nil && !errors.Is(err, ErrNoCharge) {
		return Charge{}, fmt.Errorf("read charge %s: %w", id, err)
	}
	return ch, err
}

// ChargesFor returns the charges that paid for any of the subscriptions,
// newest first, each with its current status (the newest event's).
func (s *Service) ChargesFor(ctx context.Context, subscriptionIDs []string) ([]Charge, error) {
	out, err := s.ChargesOf(ctx, subscriptionIDs)
	if err != nil {
		return nil, err
	}
	slices.Reverse(out)
	return out, nil
}

// RefundsOf returns a charge's refunds, in the order they were asked for.
func (s *Service) RefundsOf(ctx context.Context, chargeID string) ([]Refund, error) {
	out, err := s.st.Refunds().Of(ctx, chargeID)
	if err != nil {
		return nil, fmt.Errorf("refunds of %s: %w", chargeID, err)
	}
	return out, nil
}

// RefundID is the id of a charge's refund number n.
func RefundID(chargeID string, n int) string { return chargeID + "#" + strconv.Itoa(n) }

// Refunded is what a charge's refunds gave back or are giving back (every
// one but the failed).
func Refunded(refunds []Refund) int64 {
	var sum int64
	for _, r := range refunds {
		if r.Status != RefundFailed {
			sum += r.Amount.Amount
		}
	}
	return sum
}

// GivenBack is what the succeeded refunds among refunds gave back, and
// when the last of them was made (zero for none): what billing history, a
// receipt and a receipt sent again show of a charge's refunds.
func GivenBack(refunds []Refund) (Money, time.Time) {
	var back Money
	var on time.Time
	for _, r := range refunds {
		if r.Status == RefundSucceeded {
			back = Money{Amount: back.Amount + r.Amount.Amount, Currency: r.Amount.Currency}
			on = r.CreatedAt
		}
	}
	return back, on
}

// Refundable reports whether a charge can still be refunded: it took money,
// through this service's provider, and is not disputed.
func (s *Service) Refundable(ch Charge) bool {
	if s.provider == nil || ch.Provider != s.provider.Name() {
		return false
	}
	return ch.Status == ChargeSucceeded || ch.Status == ChargePartiallyRefunded
}

// Refund gives back all or part of a charge through the provider that took
// it, once: the refund's number is claimed with a unique insert before the
// provider is asked, so a request sent twice together refunds once (the
// second gets the first's refund when it carries the same Key, else
// ErrRefundInProgress), and refunds never add up to more than the charge.
// Refunded in full, the charge's status becomes refunded and
// ApplyChargeAccess ends what it paid for; in part, partially_refunded, and
// access stays.
func (s *Service) Refund(ctx context.Context, req RefundRequest) (Refund, error) {
	if req.ChargeID == "" || req.Amount < 0 || len(req.Key) > 128 || strings.TrimSpace(req.Reason) == "" || req.By == "" {
		return Refund{}, engine.Errorf(engine.CodeInvalid, "A refund needs a charge, an amount that is not negative, a reason and who asks.")
	}
	if !req.Full && req.Amount == 0 {
		return Refund{}, ErrRefundAmount
	}
	if _, ok := s.provider.(Refunder); !ok {
		return Refund{}, engine.Errorf(engine.CodeUnavailable, "The payment provider cannot make refunds.")
	}
	ch, err := s.Charge(ctx, req.ChargeID)
	if err != nil {
		return Refund{}, err
	}
	earlier, err := s.RefundsOf(ctx, ch.ID)
	if err != nil {
		return Refund{}, err
	}
	if r, ok := refundWithKey(earlier, req.Key); ok {
		// Asked again: a refund the provider never answered (a crash, a
		// timeout) is asked again with its own idempotency key.
		return s.finishRefund(ctx, ch, r)
	}
	if ch.Status == ChargeRefunded {
		return Refund{}, ErrAlreadyRefunded
	}
	if !s.Refundable(ch) {
		return Refund{}, ErrNotRefundable
	}
	left := ch.Amount.Amount - Refunded(earlier)
	if left <= 0 {
		return Refund{}, ErrAlreadyRefunded
	}
	amount := req.Amount
	if req.Full {
		amount = left
	}
	if amount > left {
		return Refund{}, ErrRefundTooLarge
	}
	seq := len(earlier)
	r := Refund{ID: RefundID(ch.ID, seq), ChargeID: ch.ID, SubscriptionID: ch.SubscriptionID, Seq: seq,
		Amount: Money{Amount: amount, Currency: ch.Amount.Currency}, Full: amount == left, Status: RefundPending,
		By: req.By, Reason: strings.TrimSpace(req.Reason), Key: req.Key, CreatedAt: s.clock.Now()}
	claimed, won, err := s.st.Refunds().Claim(ctx, r, ch.Amount.Amount)
	switch {
	case errors.Is(err, ErrRefundInProgress), errors.Is(err, ErrRefundTooLarge):
		// Another refund of this charge took the number first.
		return Refund{}, err
	case err != nil:
		return Refund{}, fmt.Errorf("claim refund %s: %w", r.ID, err)
	case !won:
		// This request's own twin claimed it first: its refund.
		return claimed, nil
	}
	r = claimed
	// Only the winner of the number writes its document from here on. A
	// crash before the provider's answer is written leaves it pending,
	// and the reconciliation asks again (reconcile.go, Refunds.Pending).
	return s.finishRefund(ctx, ch, r)
}

// finishRefund asks the provider for a refund claimed and still pending,
// with the idempotency key that names it (a retry replays, never refunds
// twice), then records the answer and what the refund changes. A refund
// already answered is returned as it is.
func (s *Service) finishRefund(ctx context.Context, ch Charge, r Refund) (Refund, error) {
	if r.Status != RefundPending {
		return r, nil
	}
	refunder, ok := s.provider.(Refunder)
	if !ok {
		return r, engine.Errorf(engine.CodeUnavailable, "The payment provider cannot make refunds.")
	}
	reference, err := refunder.Refund(ctx, ProviderRefund{Key: "refund:" + r.ID + ":" + strconv.FormatInt(r.Amount.Amount, 10),
		Charge: ch, Amount: r.Amount})
	if err != nil && ctx.Err() != nil {
		return r, fmt.Errorf("refund %s: %w", r.ID, err) // no answer: left pending for the reconciliation
	}
	if err != nil {
		r.Status, r.Failure = RefundFailed, err.Error()
		if _, werr := s.st.Refunds().Settle(ctx, r.ID, r.Status, "", r.Failure); werr != nil {
			s.logger.Error("record failed refund", "refund", r.ID, "error", werr)
		}
		return r, fmt.Errorf("refund %s: %w", r.ID, err)
	}
	r.Status, r.Reference = RefundSucceeded, reference
	if _, err := s.st.Refunds().Settle(ctx, r.ID, r.Status, r.Reference, ""); err != nil {
		return r, fmt.Errorf("record refund %s: %w", r.ID, err)
	}
	status := ChargePartiallyRefunded
	if r.Full {
		status = ChargeRefunded
	}
	if ch.SubscriptionID != "" {
		s.record(ctx, ch.SubscriptionID, "refund:"+r.ID, Change{By: r.By, Kind: ChangeRefunded,
			Detail: r.Amount.String() + " of charge " + ch.ID + ": " + r.Reason})
		s.mailRefund(ctx, ch, r)
	}
	applied, err := s.addChargeEvent(ctx, ChargeEvent{ChargeID: ch.ID, EventID: "refund:" + r.ID, Status: status, At: r.CreatedAt.UTC()})
	if err != nil {
		return r, err
	}
	if applied {
		if err := s.ApplyChargeAccess(ctx, ch.ID, status); err != nil {
			return r, err
		}
	}
	return r, nil
}

// mailRefund tells the subscriber of money given back: how much, for what,
// to which card, and what the refund ends (a full refund ends what it paid
// for; a partial one changes no access). One mail per refund.
func (s *Service) mailRefund(ctx context.Context, ch Charge, r Refund) {
	sub, err := s.Subscription(ctx, ch.SubscriptionID)
	if err != nil {
		s.logger.Error("refund mail", "refund", r.ID, "error", err)
		return
	}
	item := sub.PlanCode
	if ch.PlanCode != "" {
		item = ch.PlanCode
	}
	data := map[string]string{"amount": r.Amount.String(), "item": Describe(item).Name, "card": "—",
		"date": brand.Date(ch.CreatedAt), "ends": ""}
	if pm := sub.PaymentMethod; pm.Last4 != "" {
		data["card"] = brand.CardLabel(pm.Brand, pm.Last4)
	}
	if plan, err := s.catalogue.Plan(item); err == nil && plan.Kind == KindAddOn {
		data["family"] = FamilyOf(item)
	}
	switch {
	case ch.Duplicate:
		data["ends"] = "duplicate"
	case r.Full && sub.MainPlan:
		data["ends"] = "plan"
	case r.Full:
		data["ends"] = "add_on"
	}
	s.send(ctx, Notice{Key: "refund:" + r.ID, To: sub.Email, Brand: sub.Brand, Kind: NoticeRefunded, Data: data})
}

func refundWithKey(refunds []Refund, key string) (Refund, bool) {
	if key == "" {
		return Refund{}, false
	}
	for _, r := range refunds {
		if r.Key == key {
			return r, true
		}
	}
	return Refund{}, false
}

// SandboxRefund is a refund the sandbox made, under its idempotency key.
type SandboxRefund struct {
	ID        string // the idempotency key
	ChargeKey string // the ledger charge's id
	Reference string
	Amount    Money
	CreatedAt time.Time
}

// Refund implements Refunder: it records the refund, as a processor in test
// mode would, and moves no money. The first request with a key decides;
// the same key with another amount is refused, as Stripe refuses it. A
// charge the sandbox never took cannot be refunded.
func (s *Sandbox) Refund(ctx context.Context, req ProviderRefund) (string, error) {
	if req.Key == "" {
		return "", errors.New("sandbox refund: no idempotency key")
	}
	taken, err := s.takenCharge(ctx, req.Charge)
	if err != nil {
		return "", fmt.Errorf("sandbox refund of %s: %w", req.Charge.ID, err)
	}
	if taken.Status != ChargeSucceeded {
		return "", fmt.Errorf("sandbox refund of %s: %w", req.Charge.ID, ErrNotRefundable)
	}
	if req.Amount.Amount <= 0 || req.Amount.Amount > taken.Amount.Amount {
		return "", fmt.Errorf("sandbox refund of %s: %w", req.Charge.ID, ErrRefundTooLarge)
	}
	r := SandboxRefund{ID: req.Key, ChargeKey: req.Charge.ID, Reference: "re_sandbox_" + engine.NewID(),
		Amount: req.Amount, CreatedAt: s.clock.Now()}
	first, err := s.recs.Refund(ctx, r)
	if err != nil {
		return "", fmt.Errorf("sandbox refund %s: %w", req.Key, err)
	}
	if first.Amount != req.Amount || first.ChargeKey != req.Charge.ID {
		return "", fmt.Errorf("sandbox refund %s: %w", req.Key, ErrIdempotencyMismatch)
	}
	return first.Reference, nil
}

// takenCharge reads the sandbox's record of a ledger charge: a saved card's
// charge under its key's id, a hosted page's payment under its session's
// record, or else the record the charge's PaymentIntent names (a charge
// whose key an erasure rewrote). A charge the sandbox never took is
// ErrNotRefundable.
func (s *Sandbox) takenCharge(ctx context.Context, ch Charge) (Charge, error) {
	taken, err := s.recs.ChargeOf(ctx, sandboxRecordIDs(ch), ch.Reference)
	if errors.Is(err, ErrNoCharge) {
		return Charge{}, ErrNotRefundable
	}
	return taken, err
}

// ErrAmount is an amount that is not dollars and at most two decimals.
var ErrAmount = engine.Errorf(engine.CodeInvalid, "Write an amount such as 5 or 5.50.")

// ParseAmount reads an amount typed as dollars ("5", "5.5", "5.50") into
// cents; "" is 0, which a refund reads as all that is left. More than two
// decimals, signs, separators and amounts of a million or more are refused.
func ParseAmount(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	if whole == "" || len(whole) > 6 || len(frac) > 2 || (hasFrac && frac == "") || !allDigits(whole) || !allDigits(frac) {
		return 0, ErrAmount
	}
	for len(frac) < 2 {
		frac += "0"
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, ErrAmount
	}
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return 0, ErrAmount
	}
	return w*100 + f, nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// addOnPurchase names the next purchase of an add-on by an account: its
// subscription id, the base of its charge keys and the key its declined
// attempts are counted under. An add-on is bought once while it counts
// (ErrAlreadyOwned); once a refund ended it, buying it again is a purchase
// of its own, with ids of its own ("…-2", "#r2"), since the ended one's
// charge key would replay the refunded charge instead of taking money.
func (s *Service) addOnPurchase(ctx context.Context, userID, planCode string) (subID, chargeBase, failures string, err error) {
	first := "add_" + engine.HashToken("purchase:" + userID + ":" + planCode)[:24]
	base := "purchase:" + userID + ":" + planCode
	firstFailures := "purchase-failed:" + engine.HashToken(userID+":"+planCode)
	for n := 1; n <= 100; n++ {
		subID, chargeBase, failures = first, base, firstFailures
		if n > 1 {
			suffix := strconv.Itoa(n)
			subID, chargeBase, failures = first+"-"+suffix, base+"#r"+suffix, firstFailures+"#r"+suffix
		}
		existing, err := s.Subscription(ctx, subID)
		if errors.Is(err, ErrNoSubscription) {
			return subID, chargeBase, failures, nil
		}
		if err != nil {
			return "", "", "", err
		}
		if !existing.Expired(s.clock.Now()) {
			return subID, "", "", fmt.Errorf("purchase %s: %w", subID, ErrAlreadyOwned)
		}
	}
	return "", "", "", fmt.Errorf("purchase %s: too many purchases", first)
}
