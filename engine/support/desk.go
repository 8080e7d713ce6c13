// Package support is the support desk: staff with the support role (or
// admins) look a subscriber up by email and act for them, each action with
// a reason and an entry in an audit log nobody can edit. It reads what the
// other packages keep and acts through their use cases (billing.Refund,
// billing.CancelNow, auth.SignOutAll, …); the rules stay with them.
//
// What the desk shows is only what support needs: no password hashes, no
// tokens or keys, no mail bodies (their links act for the subscriber), no
// card numbers beyond brand and last four.
package support

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"glimpse/engine"
	"glimpse/engine/auth"
	"glimpse/engine/billing"
	"glimpse/engine/brand"
	"glimpse/engine/mail"
	"glimpse/engine/profile"
	"glimpse/engine/retention"
)

// Actions, as the audit log names them.
const (
	ActionRefund           = "refund"
	ActionCancelNow        = "cancel_now"
	ActionCancelAtEnd      = "cancel_at_period_end"
	ActionExtend           = "extend"
	ActionResendActivation = "resend_activation"
	ActionResendReceipt    = "resend_receipt"
	ActionSignOut          = "sign_out_everywhere"
)

// ExtensionDays are the extensions the desk offers: a choice, each with
// the date it moves the plan to, rather than a number typed blind.
var ExtensionDays = []int{1, 3, 7, 14, 30, 60, 90}

// Bounds of a reason, in characters.
const (
	MinReason = 5
	MaxReason = 500
)

// Limits of what a dossier lists.
const (
	mailLimit   = 30
	signInLimit = 10
	// AuditLimit is how many audit entries the desk shows.
	AuditLimit = 50
)

// Errors staff see.
var (
	// ErrReason is a reason missing, too short or too long.
	ErrReason = engine.Errorf(engine.CodeInvalid, "Say why, in %d to %d characters.", MinReason, MaxReason)
	// ErrNoSubscriber is an address with no account and no subscription.
	ErrNoSubscriber = engine.Errorf(engine.CodeNotFound, "Nobody with this email has an account or a subscription.")
	// ErrNotTheirs is a subscription or charge that is not the subscriber's.
	ErrNotTheirs = engine.Errorf(engine.CodeNotFound, "This is not one of the subscriber's subscriptions or charges.")
	// ErrNoAccount is an action on an account for a subscriber without one.
	ErrNoAccount = engine.Errorf(engine.CodeConflict, "This subscriber has no account yet.")
)

// Desk is the support desk's use cases.
type Desk struct {
	clock     engine.Clock
	audit     *auditLog
	auth      *auth.Service
	accounts  *auth.Accounts
	billing   *billing.Service
	retention *retention.Service
	profiles  *profile.Service
	outbox    *mail.Outbox
	brands    *brand.Registry
}

// Deps are what the desk reads and acts through.
type Deps struct {
	Auth      *auth.Service
	Accounts  *auth.Accounts
	Billing   *billing.Service
	Retention *retention.Service
	Profiles  *profile.Service
	Outbox    *mail.Outbox
	Brands    *brand.Registry
}

// NewDesk returns the desk over its audit log and the services.
func NewDesk(audit AuditLog, clock engine.Clock, d Deps) *Desk {
	return &Desk{clock: clock, audit: newAuditLog(audit, clock), auth: d.Auth, accounts: d.Accounts,
		billing: d.Billing, retention: d.Retention, profiles: d.Profiles, outbox: d.Outbox, brands: d.Brands}
}

// Dossier is what the desk shows of one subscriber.
type Dossier struct {
	Email         string
	Account       *Account // nil: no account yet
	Subscriptions []SubscriptionLine
	Charges       []ChargeLine
	Mails         []mail.Sent
	Attempts      []AttemptLine
	Profile       *ProfileLine // nil: none connected
	SignIns       []SignIn
	Audit         []Entry
}

// Account is the subscriber's account, without its password hash.
type Account struct {
	ID        string
	CreatedAt time.Time
	Disabled  bool
}

// SubscriptionLine is one subscription, its card as brand and last four.
type SubscriptionLine struct {
	ID, PlanCode, Plan, Status, Brand, Card string
	Price                                   billing.Money
	// NextPlan names the plan a scheduled change moves to at PeriodEnd
	// ("" for none).
	NextPlan string
	// ExtendFrom is the date an extension counts its days from (the
	// period's end), so the desk shows the new date before staff confirm.
	ExtendFrom                      time.Time
	MainPlan, Counts, AwaitsAccount bool
	CancelAtPeriodEnd, Suspended    bool
	StartedAt, PeriodEnd            time.Time
	ExpiresAt                       *time.Time
}

// ChargeLine is one charge with its refunds, its receipt's number and the
// card it was taken from (brand and last four, from its receipt, else the
// subscription's card on file).
type ChargeLine struct {
	ID, SubscriptionID, What, Status string
	Receipt, Card                    string
	Amount, Refunded                 billing.Money
	Refundable                       bool
	CreatedAt                        time.Time
	Refunds                          []billing.Refund
}

// Left is what can still be refunded.
func (c ChargeLine) Left() billing.Money {
	return billing.Money{Amount: c.Amount.Amount - c.Refunded.Amount, Currency: c.Amount.Currency}
}

// AttemptLine is one cancel attempt and the subscriber's answers in it.
// Repeats counts the attempts it stands for: attempts left without an
// answer, one after the other on the same plan, are one line (the newest,
// From the oldest's start), so twelve openings of the flow read as one.
type AttemptLine struct {
	StartedAt, From             time.Time
	Repeats                     int
	Plan, Entry, Reason, Review string
	Stars                       int
	OffersShown, OffersAccepted []string
	Outcome                     string
}

// ProfileLine is the connected profile, without its token.
type ProfileLine struct {
	Source, Username, Status string
	Snapshots                int
	HasToken                 bool
}

// SignIn is one session the subscriber opened.
type SignIn struct {
	At, Until time.Time
	Live      bool
	// Device is the browser and system it was opened in ("Chrome on
	// Android"); "" for a session from before sessions kept it.
	Device string
	// Place is the country it was opened from, in English ("Germany"), as
	// the proxy in front reported it (auth.CountryOf); "" when unknown:
	// no header configured, none sent, or a session from before. No IP
	// address is kept, so nothing finer is shown.
	Place string
}

// SearchLimit bounds the subscriptions one search reads, and so the
// matches it lists: a query that finds more asks staff for more of it.
const SearchLimit = 20

// MaxQuery bounds what staff type in the search box, in bytes.
const MaxQuery = 254

// What a search matched on.
const (
	ViaEmail   = "email"
	ViaCard    = "card"
	ViaReceipt = "receipt"
	ViaCharge  = "charge"
	// ViaInstagram is the start of the connected Instagram username.
	ViaInstagram = "instagram"
	// ViaEmailPart is a part inside the address (not its start).
	ViaEmailPart = "email_part"
)

// Match is one subscriber a search found: their address, the plans found
// with it (main plans first) and what matched; Username is their Instagram
// username when that is what matched; Part is what the address was found
// to contain (lower case, as searched) when that is what matched.
type Match struct {
	Email    string
	Plans    []string
	Via      string
	Username string
	Part     string
}

// ErrQuery is a search too long to be anything the desk looks up.
var ErrQuery = engine.Errorf(engine.CodeInvalid, "Type part of an email or an Instagram username, a receipt number, a charge id or a card's last four digits.")

// Search finds subscribers by what staff typed: the start of an address (a
// whole one included) or of an Instagram username ("@" or not), a part
// inside an address (billing.MinContaining characters or more), a receipt
// number, a charge's id or the provider's reference for it, or a card's
// last four digits. Each kind is one indexed read of at most SearchLimit
// rows (docs/support.md); the matches are in address order, one per
// address, SearchLimit at most.
func (d *Desk) Search(ctx context.Context, query string) ([]Match, error) {
	q := strings.TrimSpace(query)
	if len(q) > MaxQuery {
		return nil, ErrQuery
	}
	if q == "" {
		return nil, nil
	}
	if isLast4(q) {
		subs, err := d.billing.SubscriptionsWithCard(ctx, q, SearchLimit)
		if err != nil {
			return nil, err
		}
		return d.matches(subs, ViaCard), nil
	}
	if number, ok := receiptNumber(q); ok {
		r, err := d.billing.ReceiptByNumber(ctx, number)
		switch {
		case err == nil:
			return d.matchOf(ctx, r.SubscriptionID, ViaReceipt)
		case !errors.Is(err, billing.ErrNoReceipt):
			return nil, err
		}
	}
	if !strings.ContainsAny(q, " @") {
		ch, err := d.billing.Charge(ctx, q)
		if errors.Is(err, billing.ErrNoCharge) {
			ch, err = d.billing.ChargeByReference(ctx, q)
		}
		switch {
		case err == nil:
			return d.matchOf(ctx, ch.SubscriptionID, ViaCharge)
		case !errors.Is(err, billing.ErrNoCharge):
			return nil, err
		}
	}
	subs, err := d.billing.SubscriptionsFrom(ctx, q, SearchLimit)
	if err != nil {
		return nil, err
	}
	out := d.matches(subs, ViaEmail)
	named, err := d.byUsername(ctx, q)
	if err != nil {
		return nil, err
	}
	out = merge(out, named)
	if out, err = d.withPart(ctx, q, out); err != nil {
		return nil, err
	}
	// An account with no subscription (they all ended and went) is found by
	// its whole address.
	if email := auth.NormaliseEmail(q); strings.Contains(q, "@") && !slices.ContainsFunc(out, func(m Match) bool { return m.Email == email }) {
		if _, err := d.auth.UserByEmail(ctx, email); err == nil {
			out = append([]Match{{Email: email, Via: ViaEmail}}, out...)
		} else if !engine.IsNotFound(err) {
			return nil, err
		}
	}
	return out, nil
}

// byUsername finds the subscribers whose Instagram username starts with q:
// one range of the profiles' username index (SearchLimit entries at most),
// then each one's account (by its key) and the plans it holds (by the
// subscriptions' index on their holder). An account being erased (closed:
// only an erasure closes one) or gone is no match; its profile goes with
// the erasure.
func (d *Desk) byUsername(ctx context.Context, q string) ([]Match, error) {
	handles, err := d.profiles.WithUsernamePrefix(ctx, q, SearchLimit)
	if err != nil {
		return nil, err
	}
	var out []Match
	for _, h := range handles {
		u, err := d.auth.User(ctx, h.UserID)
		if engine.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if u.Disabled {
			continue
		}
		held, err := d.billing.ForUser(ctx, u.ID)
		if err != nil {
			return nil, err
		}
		m := Match{Email: u.Email, Via: ViaInstagram, Username: h.Username}
		for _, s := range sortSubs(held) {
			if !s.Erased {
				m.Plans = d.withPlan(m.Plans, s)
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// withPart adds, when the starts found fewer than SearchLimit, the
// subscribers whose address contains q elsewhere than at its start ("smith",
// "example.com"): one read of the addresses' substring index, at most
// SearchLimit subscriptions. A start found already stays as found; the
// rest fill the list up to SearchLimit, and all are in address order. A
// part shorter than billing.MinContaining characters reads nothing.
func (d *Desk) withPart(ctx context.Context, q string, found []Match) ([]Match, error) {
	if len(found) >= SearchLimit || !billing.Containable(q) {
		return found, nil
	}
	subs, err := d.billing.SubscriptionsContaining(ctx, q, SearchLimit)
	if err != nil {
		return nil, err
	}
	return addParts(found, d.matches(subs, ViaEmailPart), strings.ToLower(q)), nil
}

// addParts adds the matches found inside an address to those found by a
// start: an address already found stays as it was, the others (each
// saying the part it contains) fill the list up to SearchLimit in their
// address order, and the whole is in address order.
func addParts(found, inside []Match, part string) []Match {
	out := slices.Clone(found)
	for _, m := range inside {
		if len(out) >= SearchLimit {
			break
		}
		if slices.ContainsFunc(out, func(f Match) bool { return f.Email == m.Email }) {
			continue
		}
		m.Part = part
		out = append(out, m)
	}
	slices.SortStableFunc(out, func(a, b Match) int { return strings.Compare(a.Email, b.Email) })
	return out
}

// merge adds the matches by username to those by address: one per
// address (an address found both ways says so once, as found by address,
// with the username), in address order, SearchLimit at most.
func merge(byEmail, byName []Match) []Match {
	out := slices.Clone(byEmail)
	for _, n := range byName {
		if i := slices.IndexFunc(out, func(m Match) bool { return m.Email == n.Email }); i >= 0 {
			out[i].Username = n.Username
			continue
		}
		out = append(out, n)
	}
	slices.SortStableFunc(out, func(a, b Match) int { return strings.Compare(a.Email, b.Email) })
	return out[:min(len(out), SearchLimit)]
}

// matchOf is the match of the subscriber of one subscription.
func (d *Desk) matchOf(ctx context.Context, subscriptionID, via string) ([]Match, error) {
	sub, err := d.billing.Subscription(ctx, subscriptionID)
	if errors.Is(err, billing.ErrNoSubscription) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return d.matches([]billing.Subscription{sub}, via), nil
}

// matches groups subscriptions (in address order) by address.
func (d *Desk) matches(subs []billing.Subscription, via string) []Match {
	var out []Match
	for _, s := range subs {
		if s.Erased {
			continue
		}
		if n := len(out); n == 0 || out[n-1].Email != s.Email {
			out = append(out, Match{Email: s.Email, Via: via})
		}
		m := &out[len(out)-1]
		m.Plans = d.withPlan(m.Plans, s)
	}
	return out
}

// withPlan adds a subscription's plan to a match's, once, main plans
// first.
func (d *Desk) withPlan(plans []string, s billing.Subscription) []string {
	name := d.planName(s.Brand, s.PlanCode)
	switch {
	case slices.Contains(plans, name):
		return plans
	case s.MainPlan:
		return append([]string{name}, plans...)
	default:
		return append(plans, name)
	}
}

// isLast4 reports four digits: a card's last four.
func isLast4(q string) bool {
	if len(q) != 4 {
		return false
	}
	for _, c := range q {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// receiptNumber reads a receipt number as people quote it: any case, with
// or without its dashes ("abcd efgh 2345" too), as "ABCD-EFGH-2345".
func receiptNumber(q string) (string, bool) {
	var b strings.Builder
	for _, c := range strings.ToUpper(q) {
		switch {
		case c == '-' || c == ' ':
		case c >= '0' && c <= '9' || c >= 'A' && c <= 'Z':
			b.WriteRune(c)
		default:
			return "", false
		}
	}
	raw := b.String()
	if len(raw) != 12 {
		return "", false
	}
	return raw[:4] + "-" + raw[4:8] + "-" + raw[8:], true
}

// Find reads everything the desk shows of the subscriber with this email.
func (d *Desk) Find(ctx context.Context, email string) (Dossier, error) {
	email = auth.NormaliseEmail(email)
	out := Dossier{Email: email}
	subs, user, err := d.subscriptions(ctx, email)
	if err != nil {
		return Dossier{}, err
	}
	if user == nil && len(subs) == 0 {
		return Dossier{}, ErrNoSubscriber
	}
	now := d.clock.Now()
	ids := make([]string, 0, len(subs))
	for _, s := range subs {
		ids = append(ids, s.ID)
		line := subscriptionLine(s, d.bundleOf(s), now)
		line.Plan = d.planName(s.Brand, s.PlanCode)
		line.ExtendFrom = d.billing.ExtendedEnd(s, 0)
		if s.NextPlanCode != "" && s.NextPlanCode != s.PlanCode {
			line.NextPlan = d.planName(s.Brand, s.NextPlanCode)
		}
		out.Subscriptions = append(out.Subscriptions, line)
	}
	charges, err := d.billing.ChargesFor(ctx, ids)
	if err != nil {
		return Dossier{}, err
	}
	receipts, err := d.billing.ReceiptsOf(ctx, ids)
	if err != nil {
		return Dossier{}, err
	}
	byCharge := make(map[string]billing.Receipt, len(receipts))
	for _, r := range receipts {
		byCharge[r.ChargeID] = r
	}
	plans, cards := map[string]string{}, map[string]string{}
	for _, s := range subs {
		plans[s.ID] = d.planName(s.Brand, s.PlanCode)
		if pm := s.PaymentMethod; pm.Last4 != "" {
			cards[s.ID] = brand.CardLabel(pm.Brand, pm.Last4)
		}
	}
	for _, ch := range charges {
		refunds, err := d.billing.RefundsOf(ctx, ch.ID)
		if err != nil {
			return Dossier{}, err
		}
		r := byCharge[ch.ID]
		card := cards[ch.SubscriptionID]
		if r.CardLast4 != "" {
			card = brand.CardLabel(r.CardBrand, r.CardLast4)
		}
		out.Charges = append(out.Charges, ChargeLine{ID: ch.ID, SubscriptionID: ch.SubscriptionID, What: plans[ch.SubscriptionID],
			Receipt: r.Number, Card: card,
			Status: ch.Status, Amount: ch.Amount, CreatedAt: ch.CreatedAt, Refunds: refunds,
			Refunded:   billing.Money{Amount: billing.Refunded(refunds), Currency: ch.Amount.Currency},
			Refundable: d.billing.Refundable(ch) && billing.Refunded(refunds) < ch.Amount.Amount})
	}
	if out.Mails, err = d.mails(ctx, email, charges); err != nil {
		return Dossier{}, err
	}
	if user != nil {
		out.Account = &Account{ID: user.ID, CreatedAt: user.CreatedAt, Disabled: user.Disabled}
		if err := d.accountParts(ctx, user.ID, plans, &out); err != nil {
			return Dossier{}, err
		}
	}
	if out.Audit, err = d.audit.newest(ctx, email, AuditLimit); err != nil {
		return Dossier{}, err
	}
	return out, nil
}

// mails are the newest mails to the subscriber, newest first: those on
// their address's list, and the receipts of their newest charges, which
// are found through the charges (billing.Notice.ByCharge).
func (d *Desk) mails(ctx context.Context, email string, charges []billing.Charge) ([]mail.Sent, error) {
	out, err := d.outbox.SentTo(ctx, email, mailLimit)
	if err != nil {
		return nil, err
	}
	charges = slices.Clone(charges)
	slices.SortStableFunc(charges, func(a, b billing.Charge) int { return b.CreatedAt.Compare(a.CreatedAt) })
	var keys []string
	for _, ch := range charges {
		if len(keys) == mailLimit {
			break
		}
		if ch.Status == billing.ChargeFailed {
			continue
		}
		r, err := d.billing.ReceiptOfCharge(ctx, ch.ID)
		if errors.Is(err, billing.ErrNoReceipt) {
			continue
		}
		if err != nil {
			return nil, err
		}
		keys = append(keys, r.MailKey())
	}
	receipts, err := d.outbox.Sent(ctx, keys)
	if err != nil {
		return nil, err
	}
	for _, r := range receipts {
		if !slices.ContainsFunc(out, func(m mail.Sent) bool { return m.ID == r.ID }) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b mail.Sent) int { return b.CreatedAt.Compare(a.CreatedAt) })
	return out[:min(len(out), mailLimit)], nil
}

// accountParts reads what hangs off the account: cancel attempts, the
// connected profile and sign-ins.
func (d *Desk) accountParts(ctx context.Context, userID string, plans map[string]string, out *Dossier) error {
	attempts, err := d.retention.OfUser(ctx, userID)
	if err != nil {
		return err
	}
	lines := make([]AttemptLine, 0, len(attempts))
	for _, a := range attempts {
		lines = append(lines, AttemptLine{StartedAt: a.StartedAt, From: a.StartedAt, Repeats: 1, Plan: billing.Describe(a.PlanCode).Name,
			Entry: a.Entry, Reason: a.Reason, Review: a.Review, Stars: a.Stars, OffersShown: a.OffersShown,
			OffersAccepted: a.OffersAccepted, Outcome: a.Outcome})
	}
	out.Attempts = collapseAttempts(lines)
	p, err := d.profiles.Get(ctx, userID)
	if err != nil {
		return err
	}
	if p.Status != profile.StatusIdle || p.Source != "" {
		out.Profile = &ProfileLine{Source: p.Source, Username: p.Username, Status: p.Status, Snapshots: len(p.Snapshots),
			HasToken: p.Credential != ""}
	}
	sessions, err := d.auth.Sessions(ctx, userID)
	if err != nil {
		return err
	}
	now := d.clock.Now()
	for i, s := range sessions {
		if i == signInLimit {
			break
		}
		out.SignIns = append(out.SignIns, SignIn{At: s.CreatedAt, Until: s.ExpiresAt, Live: now.Before(s.ExpiresAt) && !s.Ended,
			Device: s.Device, Place: auth.CountryName(s.Country)})
	}
	return nil
}

// silent reports an attempt left without an answer: no outcome, nothing
// said and no offer taken.
func (a AttemptLine) silent() bool {
	return a.Outcome == "" && a.Reason == "" && a.Review == "" && a.Stars == 0 && len(a.OffersAccepted) == 0
}

// collapseAttempts folds runs of silent attempts on one plan, in the order
// given (newest first), into one line each: the newest, with the run's
// count and its oldest start.
func collapseAttempts(in []AttemptLine) []AttemptLine {
	var out []AttemptLine
	for _, a := range in {
		if n := len(out); n > 0 && a.silent() && out[n-1].silent() && out[n-1].Plan == a.Plan &&
			slices.Equal(out[n-1].OffersShown, a.OffersShown) {
			out[n-1].Repeats++
			out[n-1].From = a.StartedAt
			continue
		}
		out = append(out, a)
	}
	return out
}

// subscriptions returns every subscription bought with the address or held
// by its account (each once, newest first), and the account if any.
func (d *Desk) subscriptions(ctx context.Context, email string) ([]billing.Subscription, *auth.User, error) {
	subs, err := d.billing.SubscriptionsByEmail(ctx, email)
	if err != nil {
		return nil, nil, err
	}
	u, err := d.auth.UserByEmail(ctx, email)
	if engine.IsNotFound(err) {
		return sortSubs(subs), nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	held, err := d.billing.ForUser(ctx, u.ID)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range held {
		if !slices.ContainsFunc(subs, func(x billing.Subscription) bool { return x.ID == s.ID }) {
			subs = append(subs, s)
		}
	}
	return sortSubs(subs), &u, nil
}

func sortSubs(subs []billing.Subscription) []billing.Subscription {
	slices.SortStableFunc(subs, func(a, b billing.Subscription) int { return b.StartedAt.Compare(a.StartedAt) })
	return subs
}

// planName names a plan as the subscriber's screens do: an add-on in its
// brand's words (My Plan's title for it), a main plan by the plan table.
func (d *Desk) planName(brandKey, code string) string {
	switch family := billing.FamilyOf(code); family {
	case billing.FamilyPDFCourse, billing.FamilyProfileReport, billing.FamilyReelsPlaybook:
		return d.brands.Copy(d.brands.Get(brandKey)).T("plan.offer." + family + ".title")
	}
	return billing.Describe(code).Name
}

func (d *Desk) bundleOf(s billing.Subscription) string {
	if s.Bundle != "" {
		return s.Bundle
	}
	return d.brands.Get(s.Brand).Bundle
}

func subscriptionLine(s billing.Subscription, bundle string, now time.Time) SubscriptionLine {
	line := SubscriptionLine{ID: s.ID, PlanCode: s.PlanCode, Plan: billing.Describe(s.PlanCode).Name, Status: s.Status,
		Brand: s.Brand, Price: s.Price, MainPlan: s.MainPlan, CancelAtPeriodEnd: s.CancelAtPeriodEnd, Suspended: s.Suspended,
		StartedAt: s.StartedAt, PeriodEnd: s.CurrentPeriodEnd, ExpiresAt: s.ExpiresAt,
		Counts:        !s.Expired(now) && !s.Suspended && (s.Status == billing.StatusActive || s.Status == billing.StatusCanceled),
		AwaitsAccount: s.UserID == "" && s.Authorises(bundle, now)}
	if pm := s.PaymentMethod; pm.Last4 != "" {
		line.Card = brand.CardLabel(pm.Brand, pm.Last4)
	}
	return line
}

// Act is who acts, for whom and why; Key names the request (one per desk
// view), so a repeat of it does not act twice where that matters.
type Act struct {
	Staff, Subscriber, Reason, Key string
}

func (a Act) by() string { return "staff:" + a.Staff }

// check validates the reason and finds the subscriber's subscriptions.
func (d *Desk) check(ctx context.Context, a *Act) ([]billing.Subscription, *auth.User, error) {
	a.Reason = strings.TrimSpace(a.Reason)
	if n := utf8.RuneCountInString(a.Reason); n < MinReason || n > MaxReason {
		return nil, nil, ErrReason
	}
	a.Subscriber = auth.NormaliseEmail(a.Subscriber)
	subs, user, err := d.subscriptions(ctx, a.Subscriber)
	if err != nil {
		return nil, nil, err
	}
	if user == nil && len(subs) == 0 {
		return nil, nil, ErrNoSubscriber
	}
	return subs, user, nil
}

// record writes the audit entry of an action that ran: done, or failed
// with the problem staff were shown. A failure to write it is returned
// (joined to the action's own error), so no action passes unrecorded
// without staff being told.
func (d *Desk) record(ctx context.Context, a Act, action, target, detail string, actErr error) error {
	return d.finish(ctx, a, "", action, target, detail, actErr)
}

// begin records the intent of an action that moves money or a plan's term,
// before it acts: an action whose intent cannot be recorded is not taken
// (with the disk full, an extension once moved a period while its audit
// entry failed). finish then records its outcome, naming the intent.
func (d *Desk) begin(ctx context.Context, a Act, action, target, detail string) (string, error) {
	id, err := d.audit.appendEntry(ctx, Entry{At: d.clock.Now(), Staff: a.Staff, Action: action, Subscriber: a.Subscriber,
		Target: target, Reason: a.Reason, Detail: detail, Outcome: OutcomeStarted})
	if err != nil {
		return "", fmt.Errorf("record the intent to %s: %w", action, err)
	}
	return id, nil
}

// finish records an action's outcome (closing the intent begin wrote, when
// there is one) and returns the action's own error.
func (d *Desk) finish(ctx context.Context, a Act, intent, action, target, detail string, actErr error) error {
	e := Entry{At: d.clock.Now(), Staff: a.Staff, Action: action, Subscriber: a.Subscriber, Target: target,
		Reason: a.Reason, Detail: detail, Outcome: OutcomeDone, Intent: intent}
	if actErr != nil {
		e.Outcome, e.Problem = OutcomeFailed, shown(actErr)
	}
	if err := d.audit.append(ctx, e); err != nil {
		return errors.Join(actErr, err)
	}
	return actErr
}

// shown is the message a person was shown for err.
func shown(err error) string {
	var e *engine.Error
	if errors.As(err, &e) && e.Message != "" {
		return e.Message
	}
	return "Something went wrong"
}

// subscriptionOf finds one of the subscriber's subscriptions.
func subscriptionOf(subs []billing.Subscription, id string) (billing.Subscription, error) {
	for _, s := range subs {
		if s.ID == id {
			return s, nil
		}
	}
	return billing.Subscription{}, ErrNotTheirs
}

// Refund gives back all that is left of a charge (full) or amount of it:
// staff choose one or the other, never by leaving the amount empty.
func (d *Desk) Refund(ctx context.Context, a Act, chargeID string, full bool, amount int64) (billing.Refund, error) {
	subs, _, err := d.check(ctx, &a)
	if err != nil {
		return billing.Refund{}, err
	}
	ch, err := d.billing.Charge(ctx, chargeID)
	if err != nil {
		return billing.Refund{}, err
	}
	if _, err := subscriptionOf(subs, ch.SubscriptionID); err != nil {
		return billing.Refund{}, err
	}
	detail := "all that was left"
	if !full {
		detail = billing.Money{Amount: amount, Currency: ch.Amount.Currency}.String()
	}
	intent, err := d.begin(ctx, a, ActionRefund, ch.ID, detail)
	if err != nil {
		return billing.Refund{}, err
	}
	r, err := d.billing.Refund(ctx, billing.RefundRequest{ChargeID: ch.ID, Full: full, Amount: amount, Reason: a.Reason, By: a.by(), Key: a.Key})
	if err == nil {
		detail = r.Amount.String()
		if r.Full {
			detail += " (nothing left)"
		}
	}
	return r, d.finish(ctx, a, intent, ActionRefund, ch.ID, detail, err)
}

// Cancel ends a main plan now, or at the end of its period as the
// subscriber's own cancel does.
func (d *Desk) Cancel(ctx context.Context, a Act, subscriptionID string, now bool) error {
	subs, _, err := d.check(ctx, &a)
	if err != nil {
		return err
	}
	sub, err := subscriptionOf(subs, subscriptionID)
	if err != nil {
		return err
	}
	action, what := ActionCancelAtEnd, billing.Describe(sub.PlanCode).Name
	if now {
		action = ActionCancelNow
	}
	intent, err := d.begin(ctx, a, action, sub.ID, what)
	if err != nil {
		return err
	}
	switch {
	case now:
		_, err = d.billing.CancelNow(ctx, sub.ID, a.by())
	case !sub.MainPlan || sub.Status != billing.StatusActive || sub.Expired(d.clock.Now()):
		err = billing.ErrNotAPlan
	default:
		_, err = d.billing.Cancel(ctx, sub.ID, a.by())
	}
	return d.finish(ctx, a, intent, action, sub.ID, what, err)
}

// Extend gives a running main plan days more.
func (d *Desk) Extend(ctx context.Context, a Act, subscriptionID string, days int) error {
	subs, _, err := d.check(ctx, &a)
	if err != nil {
		return err
	}
	sub, err := subscriptionOf(subs, subscriptionID)
	if err != nil {
		return err
	}
	detail := strconv.Itoa(days) + " days"
	intent, err := d.begin(ctx, a, ActionExtend, sub.ID, detail)
	if err != nil {
		return err
	}
	_, err = d.billing.Extend(ctx, sub.ID, days, a.Key, a.by())
	return d.finish(ctx, a, intent, ActionExtend, sub.ID, detail, err)
}

// ResendActivation mails a new link to create the account of a
// subscription that waits for one.
func (d *Desk) ResendActivation(ctx context.Context, a Act, subscriptionID string) error {
	subs, _, err := d.check(ctx, &a)
	if err != nil {
		return err
	}
	sub, err := subscriptionOf(subs, subscriptionID)
	if err != nil {
		return err
	}
	err = d.accounts.ResendActivation(ctx, sub.ID, sub.Brand, d.bundleOf(sub))
	return d.record(ctx, a, ActionResendActivation, sub.ID, "to "+sub.Email, err)
}

// ResendReceipt mails a charge's receipt again.
func (d *Desk) ResendReceipt(ctx context.Context, a Act, chargeID string) error {
	subs, _, err := d.check(ctx, &a)
	if err != nil {
		return err
	}
	ch, err := d.billing.Charge(ctx, chargeID)
	if err != nil {
		return err
	}
	sub, err := subscriptionOf(subs, ch.SubscriptionID)
	if err != nil {
		return err
	}
	err = d.billing.ResendReceipt(ctx, ch.ID)
	return d.record(ctx, a, ActionResendReceipt, ch.ID, "to "+sub.Email, err)
}

// SignOutEverywhere ends every session of the subscriber's account.
func (d *Desk) SignOutEverywhere(ctx context.Context, a Act) error {
	_, user, err := d.check(ctx, &a)
	if err != nil {
		return err
	}
	if user == nil {
		return ErrNoAccount
	}
	err = d.auth.SignOutAll(ctx, user.ID)
	return d.record(ctx, a, ActionSignOut, "", "", err)
}

// Audit returns the newest entries of the whole audit log.
func (d *Desk) Audit(ctx context.Context) ([]Entry, error) {
	entries, err := d.audit.newest(ctx, "", AuditLimit)
	if err != nil {
		return nil, fmt.Errorf("support audit: %w", err)
	}
	return entries, nil
}
