package billing

import (
	"strconv"
	"time"
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
// add-on. Its document lives in the subscriptions collection, which auth
// reads (a subset of these fields) to authorise. The field names follow the
// spec's lookup result (id, bundle, plan_code, status, main_plan,
// started_at, emails).
type Subscription struct {
	ID     string `bson:"_id"`
	UserID string `bson:"userId"` // "" until the buyer creates the account
	// Email is the account email: the last entry of Emails, as the spec's
	// finalisation flow reads it.
	Email     string    `bson:"email"`
	Emails    []string  `bson:"emails"`
	Bundle    string    `bson:"bundle"`
	Brand     string    `bson:"brand"`
	PlanCode  string    `bson:"planCode"`
	Status    string    `bson:"status"`
	MainPlan  bool      `bson:"mainPlan"`
	Price     Money     `bson:"price"`
	Provider  string    `bson:"provider"`
	StartedAt time.Time `bson:"startedAt"`
	// The current period; zero for one-time add-ons.
	CurrentPeriodStart time.Time `bson:"currentPeriodStart,omitempty"`
	CurrentPeriodEnd   time.Time `bson:"currentPeriodEnd,omitempty"`
	// ExpiresAt is when a canceled subscription stops authorising (its
	// period end), or when an expired one stopped.
	ExpiresAt         *time.Time `bson:"expiresAt,omitempty"`
	CancelAtPeriodEnd bool       `bson:"cancelAtPeriodEnd,omitempty"`
	CanceledAt        *time.Time `bson:"canceledAt,omitempty"`
	// ResumedAt is when a cancel was last taken back: it names the plan's
	// current run, so the next cancel is an event of its own (its history
	// line and its mail), while a cancel sent twice in one run is one.
	ResumedAt     *time.Time    `bson:"resumedAt,omitempty"`
	PaymentMethod PaymentMethod `bson:"paymentMethod"`
	// DueAt is when the renewal job next looks at the subscription: the
	// period end, or the next retry of a failed payment. Zero for one-time
	// purchases and for expired subscriptions.
	DueAt          time.Time `bson:"dueAt,omitempty"`
	FailedAttempts int       `bson:"failedAttempts,omitempty"`
	// NextPlanCode, when set, replaces PlanCode from the next period (a
	// plan change takes effect at renewal).
	NextPlanCode string `bson:"nextPlanCode,omitempty"`
	// MainSubscriptionID links an add-on to the main plan it was bought on.
	MainSubscriptionID string `bson:"mainSubscriptionId,omitempty"`
	// PaidBy names (hashed) the charge that bought an add-on: a second
	// payment for it is found by its insert and refunded (insertAddOn).
	PaidBy string `bson:"paidBy,omitempty"`
	// Suspended is a subscription whose payment is disputed: it gives no
	// access until the dispute closes in the operator's favour.
	Suspended bool `bson:"suspended,omitempty"`
	// FiledCharges and FiledHistory bound the subscription's filed charges
	// and history lines (billing_filings): every slot below is taken. The
	// renewal pass, which rewrites the subscription anyway, keeps them and
	// files a renewal's charge and history line in the slots they name,
	// instead of reading every earlier slot (two reads a renewal per
	// renewal before it). A bound lower than the truth (a line another
	// writer filed) costs a read or two, never a lost filing.
	FiledCharges int `bson:"filedCharges,omitempty"`
	FiledHistory int `bson:"filedHistory,omitempty"`
}

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
// what. Its _id is "<subscription id>/<change key>", so a change made twice
// (a retry, a second instance) is recorded once.
type Change struct {
	ID             string    `bson:"_id"`
	SubscriptionID string    `bson:"subscriptionId"`
	At             time.Time `bson:"at"`
	By             string    `bson:"by"`
	Kind           string    `bson:"kind"`
	From           string    `bson:"from,omitempty"`
	To             string    `bson:"to,omitempty"`
	Detail         string    `bson:"detail,omitempty"`
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
