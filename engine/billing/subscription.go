package billing

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"glimpse/engine"
	"glimpse/engine/brand"
)

// Subscription statuses. Active and canceled authorise (canceled until its
// period ends); expired never does. A failing renewal keeps the status
// active while it is retried (FailedAttempts > 0): the grace period.
const (
	StatusActive   = "active"
	StatusCanceled = "canceled"
	StatusExpired  = "expired"
)

// Subscription is one purchase: a main plan that renews, or a one-time
// add-on, kept by billing's store (Subscriptions), which auth reads through
// billing to authorise. The field names follow the
// spec's lookup result (id, bundle, plan_code, status, main_plan,
// started_at, emails).
type Subscription struct {
	ID     string
	UserID string // "" until the buyer creates the account
	// Email is the account email: the last entry of Emails, as the spec's
	// finalisation flow reads it.
	Email     string
	Emails    []string
	Bundle    string
	Brand     string
	PlanCode  string
	Status    string
	MainPlan  bool
	Price     Money
	Provider  string
	StartedAt time.Time
	// The current period; zero for one-time add-ons.
	CurrentPeriodStart time.Time
	CurrentPeriodEnd   time.Time
	// ExpiresAt is when a canceled subscription stops authorising (its
	// period end), or when an expired one stopped.
	ExpiresAt         *time.Time
	CancelAtPeriodEnd bool
	CanceledAt        *time.Time
	// ResumedAt is when a cancel was last taken back: it names the plan's
	// current run, so the next cancel is an event of its own (its history
	// line and its mail), while a cancel sent twice in one run is one.
	ResumedAt     *time.Time
	PaymentMethod PaymentMethod
	// DueAt is when the renewal job next looks at the subscription: the
	// period end, or the next retry of a failed payment. Zero for one-time
	// purchases and for expired subscriptions.
	DueAt          time.Time
	FailedAttempts int
	// NextPlanCode, when set, replaces PlanCode from the next period (a
	// plan change takes effect at renewal).
	NextPlanCode string
	// MainSubscriptionID links an add-on to the main plan it was bought on.
	MainSubscriptionID string
	// PaidBy names (hashed) the charge that bought an add-on: a second
	// payment for it is found by its insert and refunded (insertAddOn).
	PaidBy string
	// Suspended is a subscription whose payment is disputed: it gives no
	// access until the dispute closes in the operator's favour.
	Suspended bool
	// Version counts the subscription's writes: every change is written
	// only over the version it was decided on (Subscriptions.Apply), so two
	// changes decided on one state cannot both land.
	Version int
	// Lease is the renewal worker holding the subscription while it
	// charges it (Subscriptions.ClaimDue); zero when none does.
	Lease Lease
	// FreeMonth is the retention offer's free month once given: at most
	// one per subscription (AddFreeMonth).
	FreeMonth *FreeMonth
	// Erased marks a subscription anonymised by an account's erasure, kept
	// until RetainUntil (the end of its tax period), then purged.
	Erased      bool
	RetainUntil time.Time
	// Extensions are the last keys of staff extensions applied, so an
	// extension sent twice extends once (Extend; bounded to the last 20).
	Extensions []string
}

// Lease is a renewal worker's hold on a subscription until a time.
type Lease struct {
	Owner string
	Until time.Time
}

// FreeMonth is the free month given: the request's key, the period end it
// was given on and the end it moved it to.
type FreeMonth struct {
	Key    string
	Base   time.Time
	Target time.Time
}

// Line returns a history line of the subscription under key: its id is
// "<subscription id>/<key>", so the same change made twice is one line.
func (s Subscription) Line(key string, at time.Time, c Change) Change {
	c.ID, c.SubscriptionID = s.ID+"/"+key, s.ID
	if c.At.IsZero() {
		c.At = at
	}
	return c
}

// The rules of a subscription's life: each takes the subscription as read
// and returns what it becomes, with the history line and mail the change
// makes, or reports that nothing changes. The service writes the result
// with Subscriptions.Apply over the version read, so a rule decides on a
// state no other writer changed meanwhile.

// ErrNotResumable is a plan that is not canceled-but-running (active
// already, ended, or an add-on).
var ErrNotResumable = engine.Errorf(engine.CodeConflict, "This plan cannot be resumed.")

// ErrAlreadyFinalized is a subscription another account owns.
var ErrAlreadyFinalized = engine.Errorf(engine.CodeConflict, "No subscription")

// Cancel stops an active main plan from renewing at end, its period end: it
// stays canceled-but-authorising until then. A scheduled plan change goes
// with the cancel (the cancel's mail says so). ok is false when there is
// nothing to cancel (canceled already, ended, or an add-on).
func (s Subscription) Cancel(now, end time.Time, by string) (next Subscription, fx Effects, ok bool) {
	if s.Status != StatusActive || !s.MainPlan {
		return s, Effects{}, false
	}
	next = s
	dropped := s.NextPlanCode
	next.Status, next.CancelAtPeriodEnd, next.CanceledAt, next.ExpiresAt, next.DueAt = StatusCanceled, true, &now, &end, end
	next.NextPlanCode = ""
	change := Change{By: by, Kind: ChangeCanceled, From: StatusActive, To: StatusCanceled}
	data := map[string]string{"plan": Describe(s.PlanCode).Name, "endDate": brand.Date(end)}
	if dropped != "" {
		change.Detail = "scheduled change to " + dropped + " dropped"
		data["dropped"] = Describe(dropped).Name
	}
	// Keyed by the plan's run: cancel, resume and cancel again is two
	// cancels, each recorded and mailed; the same cancel sent twice is one.
	fx.Lines = []Change{s.Line("canceled"+s.run(), now, change)}
	fx.Notices = []Notice{{Key: "canceled:" + s.ID + s.run(), To: s.Email, Brand: s.Brand, Kind: NoticeCanceled, Data: data}}
	return next, fx, true
}

// Resume takes back a cancel before the period ends: the plan is active
// again and renews at its period end. ok is false for a plan active
// already; ErrNotResumable for one that is not canceled-but-running. terms
// are the resumed plan's renewal terms for its mail (Service.renewalTerms).
func (s Subscription) Resume(now time.Time, by string, terms func(Subscription) map[string]string) (next Subscription, fx Effects, ok bool, err error) {
	if s.Status == StatusActive && s.MainPlan {
		return s, Effects{}, false, nil
	}
	if s.Status != StatusCanceled || !s.MainPlan || s.Expired(now) {
		return s, Effects{}, false, ErrNotResumable
	}
	// The cancel it takes back names the resume: two resumes of one cancel
	// are one history line and one mail.
	canceled := ""
	if s.CanceledAt != nil {
		canceled = strconv.FormatInt(s.CanceledAt.UnixNano(), 10)
	}
	next = s
	next.Status, next.CancelAtPeriodEnd, next.CanceledAt, next.ExpiresAt, next.DueAt = StatusActive, false, nil, nil, s.CurrentPeriodEnd
	next.ResumedAt, next.NextPlanCode = &now, ""
	fx.Lines = []Change{s.Line("resumed:"+canceled, now, Change{By: by, Kind: ChangeResumed, From: StatusCanceled, To: StatusActive})}
	fx.Notices = []Notice{{Key: "resumed:" + s.ID + ":" + canceled, To: s.Email, Brand: s.Brand, Kind: NoticeResumed, Data: terms(next)}}
	return next, fx, true, nil
}

// Finalize links the subscription to the account that claims it: once. ok
// is false when the account has it already; ErrAlreadyFinalized when
// another account does.
func (s Subscription) Finalize(userID string, now time.Time) (next Subscription, fx Effects, ok bool, err error) {
	if s.UserID == userID {
		return s, Effects{}, false, nil
	}
	if s.UserID != "" {
		return s, Effects{}, false, ErrAlreadyFinalized
	}
	next = s
	next.UserID = userID
	fx.Lines = []Change{s.Line("finalized", now, Change{By: "user:" + userID, Kind: ChangeFinalized, To: userID})}
	return next, fx, true, nil
}

// GiveFreeMonth moves an active main plan's period end, and so its next
// charge, one calendar month on from base (its period end now): once per
// subscription, whatever the key. ok is false when this key's month was
// given already (a double tap, a retry); ErrOfferUnavailable when another
// key's was, or the plan is not active and paid up.
func (s Subscription) GiveFreeMonth(key string, base, now time.Time, by string) (next Subscription, fx Effects, ok bool, err error) {
	if s.FreeMonth != nil {
		if s.FreeMonth.Key != key {
			return s, Effects{}, false, ErrOfferUnavailable
		}
		return s, Effects{}, false, nil
	}
	if !s.MainPlan || s.Status != StatusActive || s.FailedAttempts > 0 {
		return s, Effects{}, false, ErrOfferUnavailable
	}
	target := base.AddDate(0, 1, 0)
	next = s
	next.FreeMonth = &FreeMonth{Key: key, Base: base, Target: target}
	next.CurrentPeriodEnd, next.DueAt = target, target
	fx.Lines = []Change{s.Line("extended:"+key, now, Change{By: by, Kind: ChangeExtended,
		From: base.Format(time.RFC3339), To: target.Format(time.RFC3339), Detail: "one free month"})}
	// One free month per subscription, so one mail.
	fx.Notices = []Notice{{Key: freeMonthClaimID(s.ID), To: s.Email, Brand: s.Brand, Kind: NoticeExtended,
		Data: map[string]string{"plan": Describe(s.PlanCode).Name, "date": brand.Date(target)}}}
	return next, fx, true, nil
}

// Extend moves a main plan's period end (from, its end now) by days: its
// next charge or, canceled, the end of its access. key names the request:
// ok is false when it was applied already, so an extension sent twice
// extends once. The caller checks the plan may be extended (ErrNotAPlan).
func (s Subscription) Extend(key string, days int, from, now time.Time, by string) (next Subscription, fx Effects, ok bool) {
	if slices.Contains(s.Extensions, key) {
		return s, Effects{}, false
	}
	end := from.AddDate(0, 0, days)
	next = s
	next.Extensions = append(slices.Clone(s.Extensions), key)
	if len(next.Extensions) > maxExtensionKeys {
		next.Extensions = next.Extensions[len(next.Extensions)-maxExtensionKeys:]
	}
	next.CurrentPeriodEnd, next.DueAt = end, end
	if s.Status == StatusCanceled {
		next.ExpiresAt = &end
	}
	fx.Lines = []Change{s.Line("extended:staff:"+key, now, Change{By: by, Kind: ChangeExtended, From: from.Format(time.RFC3339),
		To: end.Format(time.RFC3339), Detail: strconv.Itoa(days) + " days"})}
	fx.Notices = []Notice{{Key: "extended:" + s.ID + ":" + key, To: s.Email, Brand: s.Brand, Kind: NoticeExtended,
		Data: map[string]string{"plan": Describe(s.PlanCode).Name, "date": brand.Date(end)}}}
	return next, fx, true
}

// CancelNow ends a main plan at once: no access from now and no renewal.
// ok is false for a plan ended already; ErrNotAPlan for an add-on or a
// plan that no longer counts.
func (s Subscription) CancelNow(now time.Time, by string) (next Subscription, fx Effects, ok bool, err error) {
	if s.Status == StatusExpired {
		return s, Effects{}, false, nil
	}
	if !s.MainPlan || s.Expired(now) {
		return s, Effects{}, false, ErrNotAPlan
	}
	next = s
	next.Status, next.ExpiresAt, next.CanceledAt, next.DueAt, next.CancelAtPeriodEnd = StatusExpired, &now, &now, time.Time{}, false
	next.NextPlanCode = ""
	fx.Lines = []Change{s.Line("canceled-now", now, Change{By: by, Kind: ChangeCanceled, From: s.Status, To: StatusExpired, Detail: "ended now"})}
	fx.Notices = []Notice{{Key: "canceled:" + s.ID + ":now", To: s.Email, Brand: s.Brand, Kind: NoticeCanceled,
		Data: map[string]string{"plan": Describe(s.PlanCode).Name, "endDate": brand.Date(now)}}}
	return next, fx, true, nil
}

// Erase is the subscription kept after its subscriber's erasure until
// retainUntil: ended now if it still ran, with no address, account or card
// reference.
func (s Subscription) Erase(now, retainUntil time.Time) Subscription {
	next := s
	next.UserID, next.Email, next.Emails, next.Erased, next.RetainUntil = "", ErasedEmail, []string{}, true, retainUntil
	next.PaymentMethod = PaymentMethod{Provider: s.PaymentMethod.Provider}
	if s.Status != StatusExpired {
		next.Status, next.ExpiresAt = StatusExpired, &now
		if s.CanceledAt == nil {
			next.CanceledAt = &now
		}
	}
	next.DueAt, next.CancelAtPeriodEnd, next.NextPlanCode, next.FailedAttempts = time.Time{}, false, "", 0
	next.Lease = Lease{}
	return next
}

// maxExtensionKeys bounds the extension keys a subscription remembers: a
// request is retried within minutes, not twenty extensions later.
const maxExtensionKeys = 20

// run names the plan's current run between a resume and the next cancel:
// "" before any resume.
func (s Subscription) run() string {
	if s.ResumedAt == nil {
		return ""
	}
	return ":" + strconv.FormatInt(s.ResumedAt.UnixNano(), 10)
}

// Canceled reports whether the subscription will not renew.
func (s Subscription) Canceled() bool { return s.Status == StatusCanceled }

// Expired reports whether the subscription no longer counts at now.
func (s Subscription) Expired(now time.Time) bool {
	return s.Status == StatusExpired || (s.ExpiresAt != nil && !now.Before(*s.ExpiresAt))
}

// FetchingPlansWindow is the spec's 'Fetching plans' window after a plan
// starts, during which My Plan's Cancel waits.
const FetchingPlansWindow = 36_000_000 * time.Millisecond

// FetchingPlans reports whether the plan is in its 'Fetching plans' window.
func (s Subscription) FetchingPlans(now time.Time) bool {
	return now.Sub(s.StartedAt) < FetchingPlansWindow
}

// Authorises reports whether the subscription lets its owner in on bundle
// at now: a main plan on that bundle, active or canceled (canceled still
// authorises until it expires, as the spec says), not expired.
func (s Subscription) Authorises(bundle string, now time.Time) bool {
	return s.MainPlan && s.Bundle == bundle && (s.Status == StatusActive || s.Status == StatusCanceled) && !s.Expired(now) && !s.Suspended
}

// MainSubscription returns the subscription that authorises a person on a
// bundle (Authorises), if any.
func MainSubscription(subs []Subscription, bundle string, now time.Time) (Subscription, bool) {
	for _, s := range subs {
		if s.Authorises(bundle, now) {
			return s, true
		}
	}
	return Subscription{}, false
}

// Change is one line of a subscription's history: what changed, when, by
// whom (a person, the renewal job, a provider's webhook) and from what to
// what. Its ID is "<subscription id>/<change key>", so a change made twice
// (a retry, a second instance) is recorded once.
type Change struct {
	ID             string
	SubscriptionID string
	At             time.Time
	By             string
	Kind           string
	From           string
	To             string
	Detail         string
}

// ErasedLine is a history line stripped of a person (an erasure): who made
// the change and its free text (a card label) go, and so does a from or to
// that is one of personal (their account id and addresses); what changed
// and when stay with the record.
func ErasedLine(c Change, personal []string) Change {
	c.By, c.Detail = "erased", ""
	if slices.Contains(personal, c.From) {
		c.From = ""
	}
	if slices.Contains(personal, c.To) {
		c.To = ""
	}
	return c
}

// Kinds of change.
const (
	ChangeCreated       = "created"
	ChangeFinalized     = "finalized"
	ChangeRenewed       = "renewed"
	ChangePaymentFailed = "payment_failed"
	ChangeCanceled      = "canceled"
	ChangeExpired       = "expired"
	ChangePlanChanged   = "plan_changed"
	ChangeExtended      = "extended"
	ChangeResumed       = "resumed"
	ChangeRefunded      = "refunded"
	ChangeDisputed      = "disputed"
	// A first purchase ended by its payment's failure, given back when a
	// newer event says the payment succeeded.
	ChangeReinstated = "reinstated"
)

// ByStart orders subscriptions as Subscriptions.OfUser and ByEmail return
// them: oldest first, then by id.
func ByStart(a, b Subscription) int {
	return cmp.Or(a.StartedAt.Compare(b.StartedAt), strings.Compare(a.ID, b.ID))
}

// ByDue orders subscriptions as Subscriptions.ClaimDue returns them: the
// earliest due first, then by id.
func ByDue(a, b Subscription) int {
	return cmp.Or(a.DueAt.Compare(b.DueAt), strings.Compare(a.ID, b.ID))
}
