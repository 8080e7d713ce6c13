package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"glimpse/engine"
)

// Outcomes of a use case (a checkout, a purchase, an import, an analysis):
// OutcomeOK, OutcomeDeclined for a card the bank refused, and otherwise the
// error's engine.Code as Outcome maps it.
const (
	OutcomeOK          = "ok"
	OutcomeDeclined    = "declined"
	OutcomeInvalid     = "invalid"
	OutcomeConflict    = "conflict"
	OutcomeRateLimited = "rate_limited"
	OutcomeUnavailable = "unavailable"
	OutcomeError       = "error"
)

var outcomes = []string{OutcomeOK, OutcomeDeclined, OutcomeInvalid, OutcomeConflict, OutcomeRateLimited,
	OutcomeUnavailable, OutcomeError}

// Outcome is the outcome label of a use case that returned err: ok, or the
// kind of error (a refused input, a conflict, a limit, the database away,
// anything else). A declined card is the caller's to say (OutcomeDeclined),
// as only the payment package knows its error.
func Outcome(err error) string {
	if err == nil {
		return OutcomeOK
	}
	switch engine.ErrorCode(err) {
	case engine.CodeInvalid:
		return OutcomeInvalid
	case engine.CodeConflict:
		return OutcomeConflict
	case engine.CodeRateLimited:
		return OutcomeRateLimited
	case engine.CodeUnavailable:
		return OutcomeUnavailable
	}
	return OutcomeError
}

// Renewal outcomes, one per due subscription a pass looked at.
const (
	RenewalRenewed       = "renewed"
	RenewalPaymentFailed = "payment_failed"
	RenewalExpired       = "expired"
	RenewalSkipped       = "skipped" // another worker had it, or it changed meanwhile
	RenewalError         = "error"
)

var renewalOutcomes = []string{RenewalRenewed, RenewalPaymentFailed, RenewalExpired, RenewalSkipped, RenewalError}

// WebhookTypes are the Stripe event types counted by name; any other type
// is counted as WebhookOther, so a type Stripe adds cannot add series.
var WebhookTypes = []string{
	"payment_intent.succeeded", "payment_intent.payment_failed", "payment_intent.processing",
	"payment_intent.canceled", "charge.refunded", "charge.dispute.created", "charge.dispute.closed",
	"checkout.session.completed", "checkout.session.expired", "checkout.session.async_payment_succeeded",
	"checkout.session.async_payment_failed", WebhookOther,
}

// WebhookOther is the type label of an event type not in WebhookTypes (and
// of a delivery refused before its type was known).
const WebhookOther = "other"

// Webhook results.
const (
	WebhookApplied   = "applied"   // changed the ledger (the newest event of its charge), or settled a checkout order
	WebhookRecorded  = "recorded"  // kept, but a newer event already decided
	WebhookDuplicate = "duplicate" // seen before (Stripe delivers at least once)
	WebhookIgnored   = "ignored"   // a type or a charge that is not ours to act on
	WebhookRefused   = "refused"   // a bad signature, an old timestamp, an unreadable body
	WebhookError     = "error"     // the work failed; answered 500, and Stripe retries
)

var webhookResults = []string{WebhookApplied, WebhookRecorded, WebhookDuplicate, WebhookIgnored, WebhookRefused, WebhookError}

// Reasons a sign-in failed.
const (
	SignInBadCredential  = "invalid_credential"
	SignInNoSubscription = "no_subscription"
	SignInExpired        = "subscription_expired"
	SignInDisabled       = "disabled"
	SignInLinkInvalid    = "link_invalid"
	SignInRateLimited    = "rate_limited"
	SignInError          = "error"
)

var signInReasons = []string{SignInBadCredential, SignInNoSubscription, SignInExpired, SignInDisabled,
	SignInLinkInvalid, SignInRateLimited, SignInError}

// Limits whose refusals are counted.
const (
	LimitSignIn        = "sign_in"
	LimitStudioSignIn  = "studio_sign_in"
	LimitPasswordReset = "password_reset"
	LimitCheckout      = "checkout"
	LimitCancelMail    = "cancel_mail"
	LimitEvents        = "events"
	LimitImport        = "import"
	LimitOther         = "other"
)

var limitNames = []string{LimitSignIn, LimitStudioSignIn, LimitPasswordReset, LimitCheckout, LimitCancelMail,
	LimitEvents, LimitImport, LimitOther}

// Page cache lookup results.
const (
	CacheHit  = "hit"
	CacheMiss = "miss"
)

// jobBuckets time imports and analyses: a small export takes well under a
// second, a 1M + 1M one about two (docs/benchmarks.md §5), and the import's
// own timeout is minutes.
var jobBuckets = []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300}

// mailRefresh is how long a read of the mail queue's depth is reused, so a
// scrape every few seconds reads the database at most this often.
const mailRefresh = 15 * time.Second

// mailTimeout bounds that read; a scrape answers without the mail gauges
// rather than waiting on a database that is away.
const mailTimeout = 2 * time.Second

// Business is the app's own metrics: what was sold and renewed, what Stripe
// said, what the outbox holds, who could not sign in. Every label takes its
// values from a closed set (a value outside it is counted as the set's
// catch-all), and every series exists from the start at zero, so an alert's
// rate() has a series to read before the first event.
//
// A nil *Business counts nothing: the services hold one whether or not
// GLIMPSE_METRICS_ADDR is set, and call it in one line.
type Business struct {
	checkouts      labelled
	purchases      labelled
	renewals       labelled
	signInFailures labelled
	limits         labelled
	imports        labelled
	analyses       labelled
	webhooks       [][]prometheus.Counter // [type][result]
	webhookVec     *prometheus.CounterVec
	webhookType    map[string]int
	webhookResult  map[string]int

	backlog          prometheus.Gauge
	renewalPass      prometheus.Histogram
	exposures        prometheus.Counter
	importDuration   prometheus.Histogram
	analysisDuration prometheus.Histogram

	pageLookups *prometheus.Desc
	pageEntries *prometheus.Desc
	pageBytes   *prometheus.Desc
	mailDepth   *prometheus.Desc
	mailOldest  *prometheus.Desc

	mu                   sync.Mutex
	pageCache            func() (hits, misses uint64, entries, bytes int)
	mailQueue            func(ctx context.Context) (depth int, oldest time.Time, err error)
	mailRead             time.Time // when mailQueue last answered
	mailDepthV, mailAgeV float64
	now                  func() time.Time
}

// labelled is a counter vector with one label whose values are a closed
// set; the last value is where anything outside the set is counted.
type labelled struct {
	vec    *prometheus.CounterVec
	index  map[string]int
	series []prometheus.Counter
}

func newLabelled(name, help, label string, values []string) labelled {
	l := labelled{vec: prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{label}),
		index: make(map[string]int, len(values))}
	for i, v := range values {
		l.index[v] = i
		l.series = append(l.series, l.vec.WithLabelValues(v))
	}
	return l
}

func (l *labelled) inc(value string) {
	i, ok := l.index[value]
	if !ok {
		i = len(l.series) - 1
	}
	l.series[i].Inc()
}

// NewBusiness returns the business metrics, every series at zero. now is the
// clock the mail queue's age is measured with.
func NewBusiness(now func() time.Time) *Business {
	if now == nil {
		now = time.Now
	}
	b := &Business{
		checkouts: newLabelled("glimpse_checkouts_total", "Checkouts (a visitor buying a plan), by outcome.", "outcome", outcomes),
		purchases: newLabelled("glimpse_purchases_total", "Add-on purchases by subscribers, by outcome.", "outcome", outcomes),
		renewals: newLabelled("glimpse_renewals_total",
			"Due subscriptions a renewal pass handled, by outcome (skipped: another worker had it).", "outcome", renewalOutcomes),
		signInFailures: newLabelled("glimpse_sign_in_failures_total", "Sign-ins refused, by reason.", "reason", signInReasons),
		limits:         newLabelled("glimpse_limits_hit_total", "Requests refused by a rate limit, by limit.", "limit", limitNames),
		imports:        newLabelled("glimpse_imports_total", "Instagram data-export uploads imported, by outcome.", "outcome", outcomes),
		analyses:       newLabelled("glimpse_analyses_total", "Profile analyses run, by outcome.", "outcome", outcomes),
		webhookVec: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "glimpse_webhook_events_total",
			Help: "Stripe webhook deliveries, by event type (known types, else other) and result."}, []string{"type", "result"}),
		webhookType:   map[string]int{},
		webhookResult: map[string]int{},
		backlog: prometheus.NewGauge(prometheus.GaugeOpts{Name: "glimpse_renewals_due",
			Help: "Due subscriptions the running renewal pass has still to handle (0 between passes)."}),
		renewalPass: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "glimpse_renewal_pass_duration_seconds",
			Help: "Time one renewal pass took.", Buckets: []float64{.1, .5, 1, 5, 15, 30, 60, 120, 300, 600, 1800}}),
		exposures: prometheus.NewCounter(prometheus.CounterOpts{Name: "glimpse_experiment_exposures_total",
			Help: "Subscribers shown an experiment's variant for the first time in its phase."}),
		importDuration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "glimpse_import_duration_seconds",
			Help: "Time an upload's import took, from its stored file to its snapshot.", Buckets: jobBuckets}),
		analysisDuration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "glimpse_analysis_duration_seconds",
			Help: "Time a profile analysis took.", Buckets: jobBuckets}),
		pageLookups: prometheus.NewDesc("glimpse_page_cache_lookups_total", "Screen requests looked up in the page cache, by result.", []string{"result"}, nil),
		pageEntries: prometheus.NewDesc("glimpse_page_cache_entries", "Pages the page cache holds.", nil, nil),
		pageBytes:   prometheus.NewDesc("glimpse_page_cache_bytes", "Bytes the page cache holds, compressed forms included.", nil, nil),
		mailDepth:   prometheus.NewDesc("glimpse_mail_outbox_depth", "Mails waiting to be sent (first attempts and retries).", nil, nil),
		mailOldest: prometheus.NewDesc("glimpse_mail_outbox_oldest_age_seconds",
			"Age of the oldest mail waiting to be sent, 0 when none waits.", nil, nil),
		now: now,
	}
	for i, t := range WebhookTypes {
		b.webhookType[t] = i
		row := make([]prometheus.Counter, len(webhookResults))
		for j, r := range webhookResults {
			b.webhookResult[r] = j
			row[j] = b.webhookVec.WithLabelValues(t, r)
		}
		b.webhooks = append(b.webhooks, row)
	}
	return b
}

// Checkout counts a checkout's outcome.
func (b *Business) Checkout(outcome string) {
	if b != nil {
		b.checkouts.inc(outcome)
	}
}

// Purchase counts an add-on purchase's outcome.
func (b *Business) Purchase(outcome string) {
	if b != nil {
		b.purchases.inc(outcome)
	}
}

// Renewals counts n due subscriptions a pass handled with outcome.
func (b *Business) Renewals(outcome string, n int) {
	if b != nil && n > 0 {
		i, ok := b.renewals.index[outcome]
		if !ok {
			i = len(b.renewals.series) - 1
		}
		b.renewals.series[i].Add(float64(n))
	}
}

// RenewalBacklog sets how many due subscriptions the running pass has left.
func (b *Business) RenewalBacklog(n int) {
	if b != nil {
		b.backlog.Set(float64(n))
	}
}

// RenewalPass records how long a whole renewal pass took.
func (b *Business) RenewalPass(d time.Duration) {
	if b != nil {
		b.renewalPass.Observe(d.Seconds())
	}
}

// Webhook counts one webhook delivery of an event type with a result.
func (b *Business) Webhook(eventType, result string) {
	if b == nil {
		return
	}
	t, ok := b.webhookType[eventType]
	if !ok {
		t = len(WebhookTypes) - 1
	}
	r, ok := b.webhookResult[result]
	if !ok {
		r = b.webhookResult[WebhookError]
	}
	b.webhooks[t][r].Inc()
}

// Exposure counts a subscriber's first exposure to an experiment's phase.
func (b *Business) Exposure() {
	if b != nil {
		b.exposures.Inc()
	}
}

// SignInFailed counts a refused sign-in.
func (b *Business) SignInFailed(reason string) {
	if b != nil {
		b.signInFailures.inc(reason)
	}
}

// LimitHit counts a request a rate limit refused.
func (b *Business) LimitHit(limit string) {
	if b != nil {
		b.limits.inc(limit)
	}
}

// Import counts an import that started at start and ended with err.
func (b *Business) Import(start time.Time, err error) {
	if b != nil {
		b.imports.inc(Outcome(err))
		b.importDuration.Observe(time.Since(start).Seconds())
	}
}

// Analysis counts an analysis that started at start and ended with err.
func (b *Business) Analysis(start time.Time, err error) {
	if b != nil {
		b.analyses.inc(Outcome(err))
		b.analysisDuration.Observe(time.Since(start).Seconds())
	}
}

// SetPageCache makes the page cache's own counters readable at scrape time,
// so the screen path pays nothing for them beyond its cache's counting.
func (b *Business) SetPageCache(read func() (hits, misses uint64, entries, bytes int)) {
	if b != nil {
		b.mu.Lock()
		b.pageCache = read
		b.mu.Unlock()
	}
}

// SetMailQueue sets how the mail queue's depth and its oldest mail's time
// are read: at scrape time, at most every mailRefresh.
func (b *Business) SetMailQueue(read func(ctx context.Context) (depth int, oldest time.Time, err error)) {
	if b != nil {
		b.mu.Lock()
		b.mailQueue = read
		b.mu.Unlock()
	}
}

// Labels returns, for each label of these metrics, every value it may take:
// the closed sets the metrics test checks exposed series against.
func (b *Business) Labels() map[string][]string {
	return map[string][]string{
		"outcome": append(append([]string(nil), outcomes...), renewalOutcomes...),
		"type":    WebhookTypes,
		"result":  append(append([]string(nil), webhookResults...), CacheHit, CacheMiss),
		"reason":  signInReasons,
		"limit":   limitNames,
	}
}

func (b *Business) vectors() []prometheus.Collector {
	return []prometheus.Collector{b.checkouts.vec, b.purchases.vec, b.renewals.vec, b.signInFailures.vec, b.limits.vec,
		b.imports.vec, b.analyses.vec, b.webhookVec, b.backlog, b.renewalPass, b.exposures, b.importDuration, b.analysisDuration}
}

// Describe implements prometheus.Collector.
func (b *Business) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range b.vectors() {
		c.Describe(ch)
	}
	for _, d := range []*prometheus.Desc{b.pageLookups, b.pageEntries, b.pageBytes, b.mailDepth, b.mailOldest} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (b *Business) Collect(ch chan<- prometheus.Metric) {
	for _, c := range b.vectors() {
		c.Collect(ch)
	}
	b.mu.Lock()
	pages, mailQueue := b.pageCache, b.mailQueue
	b.mu.Unlock()
	if pages != nil {
		hits, misses, entries, bytes := pages()
		ch <- prometheus.MustNewConstMetric(b.pageLookups, prometheus.CounterValue, float64(hits), CacheHit)
		ch <- prometheus.MustNewConstMetric(b.pageLookups, prometheus.CounterValue, float64(misses), CacheMiss)
		ch <- prometheus.MustNewConstMetric(b.pageEntries, prometheus.GaugeValue, float64(entries))
		ch <- prometheus.MustNewConstMetric(b.pageBytes, prometheus.GaugeValue, float64(bytes))
	}
	if mailQueue != nil {
		if depth, age, ok := b.readMail(mailQueue); ok {
			ch <- prometheus.MustNewConstMetric(b.mailDepth, prometheus.GaugeValue, depth)
			ch <- prometheus.MustNewConstMetric(b.mailOldest, prometheus.GaugeValue, age)
		}
	}
}

// readMail returns the mail queue's depth and oldest age, read again when
// the last read is older than mailRefresh. A failed read leaves the gauges
// out of the scrape (an alert on absent() sees it) rather than repeating old
// values as if current.
func (b *Business) readMail(read func(ctx context.Context) (int, time.Time, error)) (depth, age float64, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if !b.mailRead.IsZero() && now.Sub(b.mailRead) < mailRefresh {
		return b.mailDepthV, b.mailAgeV, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), mailTimeout)
	defer cancel()
	n, oldest, err := read(ctx)
	if err != nil {
		b.mailRead = time.Time{}
		return 0, 0, false
	}
	b.mailRead, b.mailDepthV, b.mailAgeV = now, float64(n), 0
	if n > 0 && !oldest.IsZero() {
		b.mailAgeV = max(now.Sub(oldest).Seconds(), 0)
	}
	return b.mailDepthV, b.mailAgeV, true
}
