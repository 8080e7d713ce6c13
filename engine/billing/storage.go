package billing

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"
)

// Billing's storage, in its own words (issue #33, docs/store.md §0). Each
// interface is implemented on the embedded SQLite database
// (engine/store/sqlstore) and on MongoDB (engine/store/mongostore), and each
// rule that must hold under concurrency is enforced where the data is
// written: a subscription changes by a compare-and-swap on its Version
// (Apply), a key is bound by a unique insert (Keys.Bind), a bounded counter
// counts by a conditional increment (Keys.Take). The contract suites in
// billingtest prove both engines keep them.

// ErrStale is a change written against a subscription that another writer
// changed since it was read: the caller reads it again and decides again
// (Service.change).
var ErrStale = errors.New("billing: the subscription changed since it was read")

// Effects are what a decision writes beside the record it decides on: the
// history lines, the receipts and the mails. A store writes them with the
// deciding write (SQLite: the same transaction; MongoDB: the same
// single-document update, as a pending part copied out by idempotent,
// deterministically keyed inserts), so nothing is ever decided and not
// recorded, or recorded and not mailed.
type Effects struct {
	Lines    []Change
	Receipts []Receipt
	Notices  []Notice
}

// Empty reports whether there is nothing to write.
func (fx Effects) Empty() bool {
	return len(fx.Lines) == 0 && len(fx.Receipts) == 0 && len(fx.Notices) == 0
}

// Subscriptions keeps subscriptions with their history lines.
type Subscriptions interface {
	// Get returns one subscription by id, or ErrNoSubscription.
	Get(ctx context.Context, id string) (Subscription, error)
	// OfUser returns the subscriptions finalized to the account, oldest
	// start first.
	OfUser(ctx context.Context, userID string) ([]Subscription, error)
	// ByEmail returns the subscriptions whose current address is email
	// (normalised by the caller), oldest start first.
	ByEmail(ctx context.Context, email string) ([]Subscription, error)
	// WithEmailPrefix returns up to n subscriptions whose current address
	// starts with prefix (normalised by the caller), in address order: the
	// support desk's search, a range on the address's index.
	WithEmailPrefix(ctx context.Context, prefix string, n int) ([]Subscription, error)
	// WithEmailContaining returns up to n subscriptions, not erased, whose
	// current address contains part (normalised by the caller, at least
	// MinContaining characters, no NUL: see Containable; another part finds
	// nothing), in address
	// order: the support desk's search inside an address, on a substring
	// index, read until n are found. When more than n match, which n is the
	// store's (the first the index yields).
	WithEmailContaining(ctx context.Context, part string, n int) ([]Subscription, error)
	// WithCard returns up to n subscriptions whose card's last four digits
	// are last4, in address order (an index on the card's last four and the
	// address).
	WithCard(ctx context.Context, last4 string, n int) ([]Subscription, error)
	// Create inserts a new subscription at Version 1 with its effects. When
	// the id exists it writes nothing and returns the stored one and false.
	Create(ctx context.Context, s Subscription, fx Effects) (Subscription, bool, error)
	// Apply writes next over the stored subscription when the stored
	// Version is next.Version, and returns it at Version+1; otherwise it
	// writes nothing and returns ErrStale (ErrNoSubscription when absent).
	// A line whose id is already stored is not written again.
	Apply(ctx context.Context, next Subscription, fx Effects) (Subscription, error)
	// Put writes the subscription as given (Version included): demo data
	// and tests only; no rule holds across it.
	Put(ctx context.Context, s Subscription) error
	// ClaimDue leases up to n subscriptions due by now, unleased or whose
	// lease lapsed, to owner for lease, and returns them as leased (the
	// renewal pass).
	ClaimDue(ctx context.Context, now time.Time, owner string, lease time.Duration, n int) ([]Subscription, error)
	// Renew writes each renewal as Apply does, provided the lease is still
	// owner's, and clears the lease. A renewal's Charge (when it has a Key)
	// is recorded as Ledger.Record records it, whether or not the renewal
	// is written: the money was taken. On SQLite the batch is one
	// transaction; on MongoDB each charge is inserted (if absent) before its
	// subscription's conditional update, so a rerun completes it. The
	// errors are per item (ErrStale), then the call's.
	Renew(ctx context.Context, owner string, rs []Renewal) ([]error, error)
	// Release clears owner's leases of ids: unfinished items go back.
	Release(ctx context.Context, owner string, ids []string) error
	// History returns a subscription's lines, oldest first.
	History(ctx context.Context, id string) ([]Change, error)
	// EraseLines strips a subscription's lines of a person (an erasure):
	// By becomes "erased", Detail goes, and so does a From or To that is
	// one of personal. Running it again changes nothing more.
	EraseLines(ctx context.Context, id string, personal []string) error
	// Retained returns up to n subscriptions erasures kept whose retention
	// ended before before, earliest first.
	Retained(ctx context.Context, before time.Time, n int) ([]Subscription, error)
	// Purge deletes a subscription an erasure kept, with its lines, once
	// its retention ended before now, and reports whether it did.
	Purge(ctx context.Context, id string, now time.Time) (bool, error)
	// InsertMany writes seeded subscriptions with their lines and charges
	// in bulk (seed-scale); a subscription, line or charge (by key) stored
	// already stays as it was.
	InsertMany(ctx context.Context, seeded []Seeded) error
}

// PrefixEnd is the least string above every string that starts with
// prefix and goes on in valid UTF-8 (prefix followed by U+10FFFF, the
// largest code point): the upper bound of a range that finds a prefix by an
// index, on SQLite and on MongoDB alike.
func PrefixEnd(prefix string) string { return prefix + "\U0010FFFF" }

// MinContaining is the shortest part of an address, in characters, that
// Subscriptions.WithEmailContaining looks for: SQLite's trigram index
// answers a part of three characters or more (a shorter one has no
// trigram, and finding it would read every address), and both stores hold
// to the same rule.
const MinContaining = 3

// Containable reports whether WithEmailContaining looks for part: at least
// MinContaining characters and no NUL (no address holds one, and MongoDB
// refuses one in a regular expression).
func Containable(part string) bool {
	return utf8.RuneCountInString(part) >= MinContaining && !strings.ContainsRune(part, 0)
}

// Renewal is one renewal's writes: the subscription's next state (its
// Version the one read), the charge made and the effects.
type Renewal struct {
	Next   Subscription
	Charge Charge
	Fx     Effects
}

// Seeded is one subscription written by seed-scale with its lines and
// charges.
type Seeded struct {
	Sub     Subscription
	Lines   []Change
	Charges []Charge
}

// Notices is the outbox: the mails decided with a change and not yet handed
// to the mailer. A notice is handed over before it is marked done, so a
// crash between the two sends it again, which its key makes harmless.
type Notices interface {
	// Pending returns up to n notices, oldest first.
	Pending(ctx context.Context, n int) ([]Notice, error)
	// Done removes the notices with these keys from the outbox.
	Done(ctx context.Context, keys []string) error
}

// Keys holds short bindings (a checkout key to what it buys, an address to
// the plan being bought) and bounded counters (attempts per window), each
// until it expires.
type Keys interface {
	// Bind binds key to value until expires, unless key is bound and not
	// expired at now; it returns the value bound (value when this call
	// bound it).
	Bind(ctx context.Context, key, value string, now, expires time.Time) (string, error)
	// Bound returns the value key is bound to at now, or "".
	Bound(ctx context.Context, key string, now time.Time) (string, error)
	// Unbind removes key.
	Unbind(ctx context.Context, key string) error
	// Take adds one to key's count when it is below limit, atomically, and
	// reports whether it did. A new key's count (or one expired at now)
	// starts at one and expires at expires.
	Take(ctx context.Context, key string, limit int, now, expires time.Time) (bool, error)
	// Give takes one off key's count (a take given back).
	Give(ctx context.Context, key string) error
	// Count returns key's count at now (0 once expired).
	Count(ctx context.Context, key string, now time.Time) (int, error)
	// DeleteExpired deletes the keys expired by now and returns how many.
	DeleteExpired(ctx context.Context, now time.Time) (int64, error)
}

// Store is billing's storage on one engine.
//
// The interfaces are reached through accessors, not embedded: several share
// method names (Get, Pending, DeleteExpired, Record), which one interface
// cannot embed twice.
type Store interface {
	Subscriptions() Subscriptions
	Notices() Notices
	Keys() Keys
	Refunds() Refunds
	Receipts() Receipts
	CancelLinks() CancelLinks
	StripeEvents() StripeEvents
	Ledger() Ledger
	Orders() Orders
	// Atomically runs fn with stores whose writes form one use case. On
	// SQLite they are one transaction (BEGIN IMMEDIATE, the single writer):
	// never call a provider inside fn. On MongoDB fn runs as is, its writes
	// in program order, each idempotent, so a rerun completes a half-done
	// run (no multi-document transaction is relied on).
	Atomically(ctx context.Context, fn func(Store) error) error
}

// Ledger keeps charges and the provider's status events about them. A
// charge's status is its newest event's (by time, then event id), or the
// status it was recorded with when no event came: events arrive twice and
// in any order, some before the charge itself is recorded.
type Ledger interface {
	// Record stores each charge unless one with its key exists, and
	// returns the stored ones (the first written for each key), each with
	// the status of the newest event already received about it.
	Record(ctx context.Context, chs []Charge) ([]Charge, error)
	// Charge returns the charge with the opaque id (ErrNoCharge).
	Charge(ctx context.Context, id string) (Charge, error)
	// ByKey returns the charge with the idempotency key (ErrNoCharge).
	ByKey(ctx context.Context, key string) (Charge, error)
	// ByReference returns the first charge the provider knows as ref (a
	// dispute names only pi_…); ErrNoCharge.
	ByReference(ctx context.Context, ref string) (Charge, error)
	// OfSubscriptions returns the charges that paid for the subscriptions,
	// oldest first.
	OfSubscriptions(ctx context.Context, ids []string) ([]Charge, error)
	// AddEvent stores the event once (by event id and charge) and sets the
	// charge's status to it when it is newer than the one applied, in the
	// same conditional write: it reports whether it is now the newest.
	AddEvent(ctx context.Context, ev ChargeEvent) (applied bool, err error)
	// MarkDuplicate marks a charge as a payment for what the buyer had.
	MarkDuplicate(ctx context.Context, id, planCode string) error
	// Erase keeps the charge for the tax period, until retainUntil, with
	// newKey as its key (one that names nobody): the key is all that
	// changes, so its id, events, refunds and receipt still find it. Run
	// again, it changes nothing more (ErrNoCharge when absent).
	Erase(ctx context.Context, id, newKey string, retainUntil time.Time) error
	// Retained returns up to n charges erasures kept whose retention ended
	// before before, earliest first (an index on the retention's end).
	Retained(ctx context.Context, before time.Time, n int) ([]Charge, error)
	// Purge deletes a charge an erasure kept, with its events, once its
	// retention ended before now, and reports whether it did.
	Purge(ctx context.Context, id string, now time.Time) (bool, error)
}

// ChargeEvent is one status the provider reported for a charge, named by
// our id or, before the charge is known, by the provider's reference.
type ChargeEvent struct {
	ChargeID, Reference, EventID, Status string
	At                                   time.Time
}

// Newer reports whether ev orders after an event (at, eventID): later, or
// at the same time with a larger event id, so every instance agrees.
func (ev ChargeEvent) Newer(at time.Time, eventID string) bool {
	return ev.At.After(at) || ev.At.Equal(at) && ev.EventID > eventID
}

// Refunds keeps refunds numbered per charge: a charge's refunds are
// "<charge id>#0", "#1", … in the order they were claimed, none skipped.
type Refunds interface {
	// Of returns a charge's refunds in the order they were claimed.
	Of(ctx context.Context, chargeID string) ([]Refund, error)
	// Claim stores r (status pending) as the charge's refund number r.Seq,
	// at the write: when the charge already has a refund with r.Key, that
	// one is returned and false; when another refund took number r.Seq
	// first, ErrRefundInProgress; when the charge's refunds (the failed
	// ones aside) and r would give back more than chargeAmount,
	// ErrRefundTooLarge. So a request sent twice refunds once, and refunds
	// never add up to more than the charge.
	Claim(ctx context.Context, r Refund, chargeAmount int64) (Refund, bool, error)
	// Settle records the provider's answer on a pending refund and returns
	// it; a refund settled already is returned as it is (ErrNoRefund when
	// absent).
	Settle(ctx context.Context, id, status, reference, failure string) (Refund, error)
	// Pending returns up to n refunds still pending that were claimed
	// before before, oldest first (the reconciliation asks again).
	Pending(ctx context.Context, before time.Time, n int) ([]Refund, error)
	// Anonymise strips a refund of staff's reason and keeps it until
	// retainUntil (an erasure).
	Anonymise(ctx context.Context, id string, retainUntil time.Time) error
	// DeleteRetained deletes the refund if an erasure kept it and its
	// period ended before now, and returns how many went (0 or 1).
	DeleteRetained(ctx context.Context, id string, now time.Time) (int64, error)
}

// ErrNoRefund is a refund id that names none.
var ErrNoRefund = errors.New("billing: no such refund")

// Receipts keeps one receipt per successful charge, by number. A charge's
// number is the first of its candidate numbers (receiptNumber) that is free
// or holds its receipt, so the unique number is what makes one receipt per
// charge: of two issuers, one inserts and the other reads that one back.
type Receipts interface {
	// Issue inserts each receipt under its Number unless the number is
	// taken, and returns, for each, the receipt stored under its number
	// (the one given, or the one there before, maybe another charge's).
	Issue(ctx context.Context, rs []Receipt) ([]Receipt, error)
	// ByNumber returns a receipt by number, or ErrNoReceipt.
	ByNumber(ctx context.Context, number string) (Receipt, error)
	// OfCharge returns the receipt of the charge with this opaque id, or
	// ErrNoReceipt.
	OfCharge(ctx context.Context, chargeID string) (Receipt, error)
	// OfSubscriptions returns the receipts of the subscriptions, oldest
	// paid first.
	OfSubscriptions(ctx context.Context, subIDs []string) ([]Receipt, error)
	// Anonymise strips a receipt of its address (ErasedEmail) and its
	// charge's id and keeps it until retainUntil (an erasure; again changes
	// nothing more).
	Anonymise(ctx context.Context, number string, retainUntil time.Time) error
	// DeleteRetained deletes the receipt if an erasure kept it and its
	// period ended before now, and returns how many went (0 or 1).
	DeleteRetained(ctx context.Context, number string, now time.Time) (int64, error)
}

// Orders keeps hosted-page purchases. An order's outcome is decided once,
// at the write (ClaimOutcome), and its status is written after what the
// outcome made exists (Settled), so a page that reads paid finds it. Orders
// still pending or processing are looked at again by the reconciliation
// pass at their check time (Unsettled, Recheck).
type Orders interface {
	// Open stores o unless an order with its id exists, and returns the
	// stored one and whether this call stored it.
	Open(ctx context.Context, o Order) (Order, bool, error)
	// Get returns an order, or ErrNoOrder.
	Get(ctx context.Context, id string) (Order, error)
	// SetSession records the hosted page opened for the order.
	SetSession(ctx context.Context, id, session, url string) error
	// Processing moves a pending order to processing (a delayed method
	// accepted); an order in any other status stays as it is.
	Processing(ctx context.Context, id string) error
	// ClaimOutcome sets the order's outcome unless one is set, at the write,
	// and returns the outcome that stands (this one, or the first): of
	// callers racing, one decides. An order settled without an outcome
	// stands as its status says. ErrNoOrder when absent.
	ClaimOutcome(ctx context.Context, id, outcome string) (string, error)
	// Settled writes the order's final status (after its fulfilment).
	Settled(ctx context.Context, id, status string) error
	// ChangeEmail writes the buyer's corrected address.
	ChangeEmail(ctx context.Context, id, email string) error
	// ByEmail returns the orders of an address (normalised).
	ByEmail(ctx context.Context, email string) ([]Order, error)
	// OfSubscription returns the orders made for a subscription.
	OfSubscription(ctx context.Context, subID string) ([]Order, error)
	// Unsettled returns up to n orders pending or processing whose check
	// time is at or before now, earliest check first.
	Unsettled(ctx context.Context, now time.Time, n int) ([]Order, error)
	// Recheck sets when the reconciliation looks at the order again; a zero
	// at means never (nothing left to ask the provider).
	Recheck(ctx context.Context, id string, at time.Time) error
	// Delete deletes an order (an erasure); an absent one is no error.
	Delete(ctx context.Context, id string) error
}

// CancelLink is a cancel-by-email link.
type CancelLink = cancelLink

// ErrNoCancelLink is a cancel link id that names none.
var ErrNoCancelLink = errors.New("billing: no such cancel link")

// CancelLinks keeps cancel-by-email links by the hash of their token; each
// cancels once.
type CancelLinks interface {
	// Insert stores a new link.
	Insert(ctx context.Context, l CancelLink) error
	// Get returns a link by id (SpentAt set once spent), or ErrNoCancelLink.
	Get(ctx context.Context, id string) (CancelLink, error)
	// Spend marks the link spent at at, unless it is spent already: of
	// callers racing, one gets true (a conditional update at the write).
	Spend(ctx context.Context, id string, at time.Time) (bool, error)
	// DeleteOf deletes the links of an address (its erasure).
	DeleteOf(ctx context.Context, email string) (int64, error)
	// DeleteExpired deletes the links that expired before before.
	DeleteExpired(ctx context.Context, before time.Time) (int64, error)
}

// StripeEventRecord is a webhook event handled, by its id. ChargeID is the
// opaque id of the charge it concerned (ChargeIDOf its key; "" if none),
// never the key, which can name the account; Order is the order a checkout
// event settled.
type StripeEventRecord struct {
	ID         string
	Type       string
	ChargeID   string
	Order      string
	Applied    bool
	Created    time.Time
	ReceivedAt time.Time
}

// StripeEvents remembers the webhook events handled.
type StripeEvents interface {
	// Get returns the event recorded under id; found is false when none
	// is.
	Get(ctx context.Context, id string) (e StripeEventRecord, found bool, err error)
	// Record stores the event, unless its id is recorded (then nothing).
	Record(ctx context.Context, e StripeEventRecord) error
	// DeleteReceivedBefore forgets the events received before before
	// (Stripe retries a delivery for three days at most).
	DeleteReceivedBefore(ctx context.Context, before time.Time) (int64, error)
}

// SubscriberErasure names what one subscriber's erasure reaches: their
// subscriptions and addresses, and until when the ledger keeps the rest.
type SubscriberErasure struct {
	UserID          string
	Emails          []string
	SubscriptionIDs []string
	RetainUntil     time.Time
}

// Erasures erases one subscriber's billing data and purges what erasures
// kept once its tax period ends.
type Erasures interface {
	EraseSubscriber(ctx context.Context, e SubscriberErasure) error
	PurgeRetained(ctx context.Context, now time.Time, n int) (int64, error)
}

// SandboxRecords are the sandbox provider's own books: its hosted pages,
// the charges it took and the refunds it made. A page is paid once: its
// payment is a record inserted under the page's id, and the insert decides
// (SQLite: in one transaction with the page's completion). A charge or a
// refund is answered once per idempotency key: the first stored answers.
// A charge is kept under an id derived from its key (sandboxChargeID), and
// its key beside it, which an erasure rewrites (Rekey): so no record names
// a person once the pages are erased and the keys rewritten.
type SandboxRecords interface {
	// OpenSession stores s unless a page with its id exists, and returns
	// the stored one.
	OpenSession(ctx context.Context, s SandboxSession) (SandboxSession, error)
	// Session returns a page, or ErrNoSession.
	Session(ctx context.Context, id string) (SandboxSession, error)
	// Challenge sets the card waiting for its 3-D Secure step while the page
	// is open; a zero pm clears it.
	Challenge(ctx context.Context, id string, pm PaymentMethod) error
	// PaySession stores the page's payment record unless it exists and, when
	// this call stored it, completes the page as paid says (status, payment
	// status, method, payment intent; the challenge cleared). It reports
	// whether this call paid the page.
	PaySession(ctx context.Context, record Charge, paid SandboxSession) (bool, error)
	// Charges stores each charge under its ID unless one is stored there,
	// and returns for each the stored one and whether this call stored it.
	Charges(ctx context.Context, chs []Charge) ([]Charge, []bool, error)
	// ChargeOf returns the first record stored under one of ids, else one
	// whose Reference is reference (ErrNoCharge).
	ChargeOf(ctx context.Context, ids []string, reference string) (Charge, error)
	// Rekey rewrites the key of the charges stored with oldKey (an
	// erasure: the key can name the account); again, it changes nothing.
	Rekey(ctx context.Context, oldKey, newKey string) error
	// Refund stores r unless a refund with its key (ID) exists, and returns
	// the stored one.
	Refund(ctx context.Context, r SandboxRefund) (SandboxRefund, error)
	// DeleteSession deletes a page (an erasure); an absent one is no error.
	DeleteSession(ctx context.Context, id string) error
}
