package billing

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"glimpse/engine"
	"glimpse/engine/brand"
)

// receiptsCollection names the receipts' table and collection in billing's
// store (Receipts), for the privacy package's declaration.
const receiptsCollection = "receipts"

// What a receipt paid for.
const (
	ReceiptPurchase   = "purchase"    // the first period of a main plan, at checkout
	ReceiptRenewal    = "renewal"     // a main plan's next period
	ReceiptPlanChange = "plan_change" // the first period of the plan a subscriber changed to
	ReceiptAddOn      = "add_on"      // a one-time add-on
)

// Receipt is the record of one successful charge, written once when the
// charge succeeds and never changed: what later happens to the money (a
// refund, a dispute) is the charge's status, read beside it.
type Receipt struct {
	// Number is the receipt number people quote to support. It is the
	// document's _id, so it is unique and, being derived from the charge's
	// id, the same whichever instance issues it first.
	Number string
	// ChargeID is the opaque id of the charge it is the receipt of
	// (ChargeIDOf its key), which names nobody.
	ChargeID       string
	SubscriptionID string
	Email          string
	Brand          string
	Kind           string // ReceiptPurchase, …
	PlanCode       string
	Amount         Money
	CardBrand      string
	CardLast4      string
	PaidAt         time.Time
	// PeriodStart and PeriodEnd are the service period a plan's charge
	// pays for; zero for a one-time add-on.
	PeriodStart time.Time
	PeriodEnd   time.Time
	// Erased is a receipt an erasure kept, without the person, until
	// RetainUntil (the tax period).
	Erased      bool
	RetainUntil time.Time
}

// Period is the service period as people read it ("Nov 2, 2026 – Dec 2,
// 2026"), "" for a one-time purchase.
func (r Receipt) Period() string {
	if r.PeriodStart.IsZero() || r.PeriodEnd.IsZero() {
		return ""
	}
	return brand.Date(r.PeriodStart) + " – " + brand.Date(r.PeriodEnd)
}

// Family is the add-on family an add-on receipt paid for ("" for a plan).
func (r Receipt) Family() string {
	if r.Kind != ReceiptAddOn {
		return ""
	}
	return FamilyOf(r.PlanCode)
}

// Card is the card charged as people read it: "Visa ••4242".
func (r Receipt) Card() string {
	if r.CardLast4 == "" {
		return ""
	}
	return brand.CardLabel(r.CardBrand, r.CardLast4)
}

// ErrNoReceipt is a receipt number unknown, or not the asker's.
var ErrNoReceipt = engine.Errorf(engine.CodeNotFound, "There is no receipt with this number.")

// receiptAlphabet is Crockford's base32: no I, L, O or U, so a number read
// out over the phone is not mistaken.
const receiptAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// receiptNumber is the n-th candidate number of the charge with the opaque
// id: 60 bits of a hash, as "XXXX-XXXX-XXXX". Candidates after the first
// exist only for the case two charges' hashes meet.
func receiptNumber(chargeID string, n int) string {
	sum := sha256.Sum256([]byte("receipt:" + chargeID + "#" + strconv.Itoa(n)))
	var b strings.Builder
	bits, acc := 0, uint(0)
	written := 0
	for _, c := range sum {
		acc = acc<<8 | uint(c)
		bits += 8
		for bits >= 5 && written < 12 {
			bits -= 5
			if written > 0 && written%4 == 0 {
				b.WriteByte('-')
			}
			b.WriteByte(receiptAlphabet[(acc>>bits)&31])
			written++
		}
		if written == 12 {
			break
		}
	}
	return b.String()
}

// maxReceiptCandidates bounds the numbers tried for one charge.
const maxReceiptCandidates = 8

// issueReceipt records the receipt of a charge that succeeded and mails it.
// The receipt is a unique insert under its number, so whoever issues it
// first (a retried request, a second instance, a webhook) writes it and
// every later call reads that one back: one receipt per charge, one number
// forever. The mail's key is the number, so it is sent once too; it is
// asked for on every call, which re-queues it when an earlier call stopped
// between the two.
func (s *Service) issueReceipt(ctx context.Context, r Receipt) (Receipt, error) {
	if r.ChargeID == "" {
		return Receipt{}, errors.New("issue receipt: no charge key")
	}
	issued, err := s.insertReceipt(ctx, s.completed(r))
	if err != nil {
		return Receipt{}, err
	}
	s.send(ctx, Notice{Key: issued.MailKey(), To: issued.Email, Brand: issued.Brand, Kind: NoticeReceipt,
		Data: receiptNoticeData(issued)})
	return issued, nil
}

// issueReceipts issues the receipts of a batch of charges (a renewal pass's):
// one unordered insertMany of their first numbers, then a mail each. A receipt
// the batch could not insert (its number taken: issued before for the same
// charge, or another charge's on the same number) goes issueReceipt's way,
// which settles both; so does every one when the insert failed as a whole.
func (s *Service) issueReceipts(ctx context.Context, receipts []Receipt) {
	if len(receipts) == 0 {
		return
	}
	for i := range receipts {
		receipts[i] = s.completed(receipts[i])
		receipts[i].Number = receiptNumber(receipts[i].ChargeID, 0)
	}
	stored, err := s.st.Receipts().Issue(ctx, receipts)
	refused := make([]bool, len(receipts))
	for i, r := range receipts {
		// Refused: the insert failed as a whole, or the number holds
		// another receipt (issued before for the same charge, or another
		// charge's on the same number).
		refused[i] = err != nil || stored[i].ChargeID != r.ChargeID
		if !refused[i] {
			receipts[i] = stored[i] // this one, or the same charge's issued before
		}
	}
	notices := make([]Notice, 0, len(receipts))
	for i, r := range receipts {
		if refused[i] {
			if _, err := s.issueReceipt(ctx, r); err != nil {
				s.logger.Error("issue receipt", "charge", r.ChargeID, "kind", r.Kind, "error", err)
			}
			continue
		}
		notices = append(notices, Notice{Key: r.MailKey(), To: r.Email, Brand: r.Brand, Kind: NoticeReceipt,
			Data: receiptNoticeData(r), ByCharge: true})
	}
	s.sendMany(ctx, notices)
}

// completed is r as it is kept: paid now unless it says when, to its
// address in the form the rest of billing compares.
func (s *Service) completed(r Receipt) Receipt {
	if r.PaidAt.IsZero() {
		r.PaidAt = s.clock.Now()
	}
	r.Email = normaliseEmail(r.Email)
	return r
}

func (s *Service) insertReceipt(ctx context.Context, r Receipt) (Receipt, error) {
	for n := range maxReceiptCandidates {
		r.Number = receiptNumber(r.ChargeID, n)
		stored, err := s.st.Receipts().Issue(ctx, []Receipt{r})
		if err != nil {
			return Receipt{}, fmt.Errorf("issue receipt of %s: %w", r.ChargeID, err)
		}
		if stored[0].ChargeID == r.ChargeID {
			return stored[0], nil // this one, or issued before: the first one stands
		}
	}
	return Receipt{}, fmt.Errorf("issue receipt of %s: no free number", r.ChargeID)
}

// receiptNoticeData is what the receipt mail says; the app names an add-on
// in the brand's words from its family, and adds the operator's details.
func receiptNoticeData(r Receipt) map[string]string {
	d := map[string]string{"item": Describe(r.PlanCode).Name, "price": r.Amount.String(), "date": brand.Date(r.PaidAt),
		"number": r.Number, "card": r.Card(), "kind": r.Kind, "period": r.Period()}
	if f := r.Family(); f != "" {
		d["family"] = f
	}
	if d["card"] == "" {
		d["card"] = "—"
	}
	return d
}

// MailKey is the key of the mail that sent the receipt: the support desk
// finds a subscriber's receipt mails through their charges.
func (r Receipt) MailKey() string { return "receipt:" + r.Number }

// ReceiptOfCharge returns the receipt of the charge with the opaque id
// (Charge.ID); ErrNoReceipt
// when it has none (it failed, or has not succeeded yet).
func (s *Service) ReceiptOfCharge(ctx context.Context, chargeID string) (Receipt, error) {
	if chargeID == "" {
		return Receipt{}, ErrNoReceipt
	}
	r, err := s.st.Receipts().OfCharge(ctx, chargeID)
	if err != nil && !errors.Is(err, ErrNoReceipt) {
		return Receipt{}, fmt.Errorf("read receipt of %s: %w", chargeID, err)
	}
	return r, err
}

// ReceiptView is a receipt with what has happened to its charge since.
type ReceiptView struct {
	Receipt
	Status string // HistoryPaid, HistoryRefunded, …
	// Refunded is what was given back of the charge since (zero: nothing),
	// the last time on RefundedAt.
	Refunded   Money
	RefundedAt time.Time
}

// ReceiptForUser returns a receipt of one of the user's subscriptions;
// anyone else's, or an unknown number, is ErrNoReceipt.
func (s *Service) ReceiptForUser(ctx context.Context, userID, number string) (ReceiptView, error) {
	if userID == "" || number == "" || len(number) > 32 {
		return ReceiptView{}, ErrNoReceipt
	}
	r, err := s.st.Receipts().ByNumber(ctx, number)
	if errors.Is(err, ErrNoReceipt) {
		return ReceiptView{}, ErrNoReceipt
	}
	if err != nil {
		return ReceiptView{}, fmt.Errorf("read receipt %s: %w", number, err)
	}
	sub, err := s.Subscription(ctx, r.SubscriptionID)
	if errors.Is(err, ErrNoSubscription) || (err == nil && sub.UserID != userID) {
		return ReceiptView{}, ErrNoReceipt
	}
	if err != nil {
		return ReceiptView{}, err
	}
	status, err := s.ChargeStatus(ctx, r.ChargeID)
	if err != nil {
		return ReceiptView{}, err
	}
	v := ReceiptView{Receipt: r, Status: HistoryStatus(status)}
	refunds, err := s.RefundsOf(ctx, r.ChargeID)
	if err != nil {
		return ReceiptView{}, err
	}
	v.Refunded, v.RefundedAt = GivenBack(refunds)
	return v, nil
}

// Statuses of a charge as billing history shows it.
const (
	HistoryPaid              = "paid"
	HistoryRefunded          = "refunded"
	HistoryPartiallyRefunded = "partially_refunded"
	HistoryFailed            = "failed"
	HistoryPending           = "pending"
	HistoryDisputed          = "disputed"
)

// HistoryStatus reads a ledger status (a provider's word) as the subscriber
// is told it.
func HistoryStatus(ledger string) string {
	switch ledger {
	case ChargeSucceeded, ChargeDisputeWon:
		return HistoryPaid
	case ChargeRefunded, ChargeDisputeLost:
		return HistoryRefunded
	case "partially_refunded":
		return HistoryPartiallyRefunded
	case ChargeDisputed:
		return HistoryDisputed
	case "processing":
		return HistoryPending
	}
	return HistoryFailed
}

// HistoryLine is one charge in a subscriber's billing history.
type HistoryLine struct {
	At       time.Time
	PlanCode string
	// Family is the add-on family for an add-on, "" for a plan.
	Family string
	Amount Money
	Status string // HistoryPaid, …
	// Receipt is the receipt's number; "" for a charge that has none (it
	// failed, or is pending).
	Receipt string
	// Refunded is what was given back of the charge (zero: nothing), the
	// last time on RefundedAt.
	Refunded   Money
	RefundedAt time.Time
}

// maxHistory bounds the lines billing history shows: years of weekly
// renewals.
const maxHistory = 200

// BillingHistory lists every charge made for the user's subscriptions,
// newest first, with what it paid for, its status now and its receipt.
func (s *Service) BillingHistory(ctx context.Context, userID string) ([]HistoryLine, error) {
	if userID == "" {
		return nil, nil
	}
	subs, err := s.ForUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	if len(subs) == 0 {
		return nil, nil
	}
	ids := make([]string, 0, len(subs))
	codes := make(map[string]Subscription, len(subs))
	for _, sub := range subs {
		ids = append(ids, sub.ID)
		codes[sub.ID] = sub
	}
	charges, err := s.ChargesOf(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("billing history of %s: %w", userID, err)
	}
	slices.SortFunc(charges, func(a, b Charge) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	if len(charges) > maxHistory {
		charges = charges[:maxHistory]
	}
	out := make([]HistoryLine, 0, len(charges))
	for _, ch := range charges {
		// The ledger's status is the newest event's.
		line := HistoryLine{At: ch.CreatedAt, Amount: ch.Amount, Status: HistoryStatus(ch.Status)}
		sub := codes[ch.SubscriptionID]
		line.PlanCode = sub.PlanCode
		if ch.PlanCode != "" {
			line.PlanCode = ch.PlanCode // a payment for what the buyer had, filed under what they had
		}
		refunds, err := s.RefundsOf(ctx, ch.ID)
		if err != nil {
			return nil, err
		}
		line.Refunded, line.RefundedAt = GivenBack(refunds)
		r, err := s.ReceiptOfCharge(ctx, ch.ID)
		switch {
		case err == nil:
			line.Receipt, line.PlanCode = r.Number, r.PlanCode
			if r.Kind == ReceiptAddOn {
				line.Family = r.Family()
			}
		case !errors.Is(err, ErrNoReceipt):
			return nil, err
		case !sub.MainPlan:
			line.Family = FamilyOf(sub.PlanCode)
		}
		out = append(out, line)
	}
	return out, nil
}

// receiptFor issues the receipt of a charge the provider answered, when
// that answer is a success: a charge still processing gets its receipt
// when its success arrives. A failure to issue is logged, not returned: the
// money is taken and what it bought is granted either way.
func (s *Service) receiptFor(ctx context.Context, ch Charge, r Receipt) {
	if ch.Status != ChargeSucceeded {
		return
	}
	if _, err := s.issueReceipt(ctx, r); err != nil {
		s.logger.Error("issue receipt", "charge", r.ChargeID, "kind", r.Kind, "error", err)
	}
}

// BuyAddOn buys an add-on (Purchase) and returns its receipt, for the
// buyer's confirmation. An add-on owned already answers its receipt with
// ErrAlreadyOwned (a second tap of the pay button sees what the first one
// bought); one owned with no receipt (granted, not bought) answers
// ErrAlreadyOwned alone.
func (s *Service) BuyAddOn(ctx context.Context, req PurchaseRequest) (Receipt, error) {
	sub, err := s.Purchase(ctx, req)
	if err != nil && !errors.Is(err, ErrAlreadyOwned) {
		return Receipt{}, err
	}
	r, rerr := s.receiptOfSubscription(ctx, sub.ID)
	if rerr != nil && !errors.Is(rerr, ErrNoReceipt) {
		return Receipt{}, rerr
	}
	return r, err
}

// receiptOfSubscription is the newest receipt of a subscription.
func (s *Service) receiptOfSubscription(ctx context.Context, subID string) (Receipt, error) {
	if subID == "" {
		return Receipt{}, ErrNoReceipt
	}
	all, err := s.st.Receipts().OfSubscriptions(ctx, []string{subID})
	if err != nil {
		return Receipt{}, fmt.Errorf("receipts of %s: %w", subID, err)
	}
	if len(all) == 0 {
		return Receipt{}, ErrNoReceipt
	}
	return slices.MaxFunc(all, func(a, b Receipt) int { return a.PaidAt.Compare(b.PaidAt) }), nil
}
