package billing

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"golang.org/x/time/rate"

	"glimpse/engine"
	"glimpse/engine/brand"
	"glimpse/engine/metrics"
	"glimpse/engine/store"
)

// RenewStats counts what one pass of the renewal job did.
type RenewStats struct {
	Due      int // subscriptions found due
	Renewed  int // charged for a new period
	Failed   int // a renewal payment failed (a retry is scheduled)
	Expired  int // ended: canceled at period end, or out of retries
	Skipped  int // another worker had it, or it changed meanwhile
	Failures int // errors other than a declined payment (logged)
}

func (r *RenewStats) add(o RenewStats) {
	r.Due += o.Due
	r.Renewed += o.Renewed
	r.Failed += o.Failed
	r.Expired += o.Expired
	r.Skipped += o.Skipped
	r.Failures += o.Failures
}

// renewLease is how long a worker holds a subscription's renewal before
// another may take it: far longer than a batch of a pass takes (a batch acts
// on what it read before claiming, so the lease must outlast the batch).
const renewLease = 10 * time.Minute

// renewalTuning sizes a renewal pass (docs/benchmarks.md §3).
type renewalTuning struct {
	// batch is how many due subscriptions are claimed, charged and written
	// together: one insertMany of claims, one of ledger entries, one of
	// history lines, one filing of their next due times, and the
	// subscription updates in bulkWrites of updatesPerCommand.
	batch int
	// batchesInFlight is how many batches one pass works on at once.
	batchesInFlight int
	// inFlight is how many charges a provider that charges one at a time
	// (Stripe) has in flight at once: enough to keep its rate limit busy
	// while each call waits on the network.
	inFlight int
	// limiter paces charges to a provider with a rate limit; nil for none.
	limiter *rate.Limiter
	// scanFloor is the due set at or under which the pass always reads by
	// _id (due.go).
	scanFloor int
}

func defaultRenewalTuning(p Provider) renewalTuning {
	t := renewalTuning{batch: 500, batchesInFlight: 2, inFlight: 64, scanFloor: defaultScanFloor}
	if rl, ok := p.(rateLimitedProvider); ok {
		if rps := rl.RenewalRate(); rps > 0 {
			// Burst 1: charges go out evenly, never a second's worth at once.
			t.limiter = rate.NewLimiter(rate.Limit(rps), 1)
		}
	}
	return t
}

// SetMetrics makes the service count its renewals (a nil m counts nothing).
// Call it before the service is used.
func (s *Service) SetMetrics(m *metrics.Business) { s.metrics = m }

// RenewDue renews, retries or expires every subscription due at the
// clock's now. Any number of workers may run it at once on one database:
// each due subscription's turn is claimed with a unique insert keyed by its
// due time, and every charge carries an idempotency key made of the
// subscription, its period and the attempt, so no period is charged twice
// even if a worker dies mid-way and another takes over after the lease.
//
// The due subscriptions are those the renewal schedule files under the
// minutes up to now (store.Schedule), each read by _id and handled only if
// its dueAt is still due. They are handled in batches, two at once
// (renewalTuning.batchesInFlight): one unordered
// insertMany claims a batch (each claim still its own unique insert), the
// provider charges the claimed ones (in one call when it can, as the
// sandbox does; else several at once, paced to its rate limit), and the
// ledger entries, next due times, subscription updates and history lines
// are written a batch at a time. What is rare (a declined card, an expiry)
// is written one by one. A subscription the pass could not finish (an
// error, or a claim another worker holds) is filed again under now, so the
// next pass tries it; the schedule's buckets past its grace are then
// deleted.
//
// A batch acts on its subscriptions as it read them. The claim keeps other
// workers off; a change a person makes between that read and the charge (a
// cancel in the very seconds the plan renews) is not seen, as one made just
// after the charge would not be.
func (s *Service) RenewDue(ctx context.Context) (RenewStats, error) {
	started := time.Now()
	now := s.clock.Now()
	var stats RenewStats
	defer func() {
		s.metrics.RenewalBacklog(0)
		s.metrics.RenewalPass(time.Since(started))
	}()
	entries, err := s.due.Due(ctx, now)
	if err != nil {
		return stats, fmt.Errorf("read the renewal schedule: %w", err)
	}
	var scanned []Subscription
	if s.scanCheaper(ctx, len(entries)) {
		if scanned, err = s.scanDue(ctx, now); err != nil {
			return stats, err
		}
		entries = entries[:0]
		for _, sub := range scanned {
			entries = append(entries, store.ScheduleEntry{Ref: sub.ID, At: sub.DueAt})
		}
	}
	var (
		mu         sync.Mutex
		unfinished []store.ScheduleEntry
		next       = make(chan int)
		wg         sync.WaitGroup
	)
	// Batches in flight at once: one batch's round trips leave a core
	// idle (the embedded database works on one command at a time per
	// connection), which the other's work fills. Each batch's claims keep
	// its subscriptions to it, as they do between workers.
	for range max(s.renewal.batchesInFlight, 1) {
		wg.Go(func() {
			for i := range next {
				chunk := entries[i:min(i+s.renewal.batch, len(entries))]
				var subs []Subscription
				var failed []store.ScheduleEntry
				if scanned != nil {
					subs = scanned[i : i+len(chunk)]
				} else {
					subs, failed = s.readScheduled(ctx, chunk)
				}
				due := make([]Subscription, 0, len(subs))
				for _, sub := range subs {
					if !sub.DueAt.IsZero() && !sub.DueAt.After(now) {
						due = append(due, sub)
					}
				}
				st, left := s.renewBatch(ctx, due, now)
				st.Due += len(due)
				st.Failures += len(failed)
				s.countRenewals(st)
				mu.Lock()
				stats.add(st)
				unfinished = append(unfinished, failed...)
				for _, e := range chunk {
					if left[e.Ref] {
						unfinished = append(unfinished, e)
					}
				}
				mu.Unlock()
			}
		})
	}
	for i := 0; i < len(entries) && ctx.Err() == nil; i += s.renewal.batch {
		s.metrics.RenewalBacklog(len(entries) - i)
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		// Stopped part-way: the buckets stay for the next pass.
		return stats, err
	}
	if err := s.due.Settle(ctx, now, unfinished); err != nil {
		return stats, fmt.Errorf("settle the renewal schedule: %w", err)
	}
	return stats, nil
}

func (s *Service) countRenewals(st RenewStats) {
	s.metrics.Renewals(metrics.RenewalRenewed, st.Renewed)
	s.metrics.Renewals(metrics.RenewalPaymentFailed, st.Failed)
	s.metrics.Renewals(metrics.RenewalExpired, st.Expired)
	s.metrics.Renewals(metrics.RenewalSkipped, st.Skipped)
	s.metrics.Renewals(metrics.RenewalError, st.Failures)
}

// renewClaimID names a subscription's turn: the subscription and the due
// time it was found with, so its next turn is a new claim.
func renewClaimID(sub Subscription) string {
	return "renew:" + sub.ID + ":" + strconv.FormatInt(sub.DueAt.UnixNano(), 10)
}

// renewal is a claimed subscription about to be charged for plan.
type renewal struct {
	sub    Subscription
	plan   PlanSpec
	period string // the ending period's end, in Unix seconds: the keys' part
	req    ChargeRequest
	paid   Charge // the provider's answer, once charged
}

// renewBatch claims, charges and records one batch of due subscriptions.
// It returns, in left, the subscriptions it did not finish: another worker
// holds their claim, or an error stopped them. Each is still due and is
// tried again by a later pass.
func (s *Service) renewBatch(ctx context.Context, subs []Subscription, now time.Time) (stats RenewStats, left map[string]bool) {
	left = map[string]bool{}
	ids := make([]string, len(subs))
	for i, sub := range subs {
		ids[i] = renewClaimID(sub)
	}
	won, err := s.claims.TakeMany(ctx, ids, "renewal", now.Add(renewLease))
	if err != nil {
		// The ids TakeMany could not insert are not won, and so left to a
		// later pass (or to the worker that holds them).
		stats.Failures++
		s.logger.Error("claim renewals", "error", err)
	}
	due := make([]renewal, 0, len(subs))
	for i, sub := range subs {
		switch {
		case !won[i]:
			stats.Skipped++
			left[sub.ID] = true
			continue
		case sub.DueAt.IsZero() || sub.DueAt.After(now):
			stats.Skipped++
			continue
		case sub.Status == StatusCanceled || !sub.MainPlan || sub.Status != StatusActive:
			s.expireCounted(ctx, sub, now, "the period ended after a cancellation", &stats, left)
			continue
		}
		code := sub.PlanCode
		if sub.NextPlanCode != "" {
			code = sub.NextPlanCode
		}
		plan, err := s.catalogue.Plan(code)
		if err != nil || !plan.Recurring() {
			s.expireCounted(ctx, sub, now, "the plan no longer renews", &stats, left)
			continue
		}
		period := strconv.FormatInt(sub.CurrentPeriodEnd.Unix(), 10)
		due = append(due, renewal{sub: sub, plan: plan, period: period, req: ChargeRequest{SubscriptionID: sub.ID,
			Key:    "renew:" + sub.ID + ":" + period + ":" + strconv.Itoa(sub.FailedAttempts),
			Method: sub.PaymentMethod, Amount: plan.Price, Description: plan.Code}})
	}
	if len(due) == 0 {
		return stats, left
	}
	reqs := make([]ChargeRequest, len(due))
	for i, r := range due {
		reqs[i] = r.req
	}
	charges, errs := s.chargeMany(ctx, reqs)
	chargeBounds := make(map[string]int, len(due))
	for _, r := range due {
		chargeBounds[r.sub.ID] = r.sub.FiledCharges
	}
	chargeBounds = s.recordCharges(ctx, reqs, charges, chargeBounds)

	var (
		sets     []bson.M // each renewed subscription's new fields
		history  []Change
		renewed  []renewal
		clockNow = s.clock.Now()
	)
	for i, r := range due {
		switch {
		case errors.Is(errs[i], ErrCardDeclined), errors.Is(errs[i], ErrAuthenticationRequired):
			confirm := ""
			var err error
			if errors.Is(errs[i], ErrAuthenticationRequired) {
				// The bank wants the subscriber: the mail's link lets
				// them authenticate and pay; the retries go on meanwhile.
				confirm, err = s.renewalConfirmation(ctx, r.sub, r.plan, r.req.Key)
			}
			if err == nil {
				err = s.paymentFailed(ctx, r.sub, r.plan, now, confirm)
			}
			if err != nil {
				stats.Failures++
				left[r.sub.ID] = true
				s.logger.Error("renew subscription", "subscription", r.sub.ID, "error", err)
			} else {
				stats.Failed++
			}
			continue
		case errs[i] != nil:
			stats.Failures++
			left[r.sub.ID] = true
			if ctx.Err() == nil {
				s.logger.Error("renew subscription", "subscription", r.sub.ID, "error", errs[i])
			}
			continue
		}
		start := r.sub.CurrentPeriodEnd
		end := r.plan.Period.After(start)
		for !end.After(now) { // a long outage: the new period starts now, not in the past
			start, end = end, r.plan.Period.After(end)
		}
		sets = append(sets, bson.M{"currentPeriodStart": start, "currentPeriodEnd": end, "dueAt": end, "planCode": r.plan.Code, "price": r.plan.Price})
		history = append(history, Change{ID: r.sub.ID + "/renewed:" + r.period, SubscriptionID: r.sub.ID, At: clockNow,
			By: "renewal", Kind: ChangeRenewed, From: r.sub.PlanCode, To: r.plan.Code,
			Detail: r.plan.Price.String() + " until " + end.Format(time.RFC3339)})
		r.paid = charges[i]
		renewed = append(renewed, r)
	}
	if len(sets) == 0 {
		return stats, left
	}
	// The next due times are filed before the subscriptions name them.
	next := make([]store.ScheduleEntry, len(renewed))
	for i, r := range renewed {
		next[i] = store.ScheduleEntry{Ref: r.sub.ID, At: sets[i]["dueAt"].(time.Time)}
	}
	if err := s.due.File(ctx, s.clock.Now(), next...); err != nil {
		// Not updated, so still due: the claims keep them until their lease
		// ends, and the charges' keys return these answers then.
		s.logger.Error("schedule renewed subscriptions", "count", len(next), "error", err)
		for _, r := range renewed {
			left[r.sub.ID] = true
		}
		stats.Failures += len(renewed)
		return stats, left
	}
	// The history lines are filed before the subscriptions are updated, so
	// that each update can move its bounds past the slots just taken; a line
	// whose update then fails is not written, and readers skip a slot whose
	// line is missing (docs/store.md §10). Its retry files it again.
	historyBounds := make(map[string]int, len(renewed))
	for _, r := range renewed {
		historyBounds[r.sub.ID] = r.sub.FiledHistory
	}
	historyBounds = s.fileLines(ctx, history, historyBounds)
	updates := make([]mongo.WriteModel, len(renewed))
	for i, r := range renewed {
		if n := chargeBounds[r.sub.ID]; n > r.sub.FiledCharges {
			sets[i]["filedCharges"] = n
		}
		if n := historyBounds[r.sub.ID]; n > r.sub.FiledHistory {
			sets[i]["filedHistory"] = n
		}
		updates[i] = mongo.NewUpdateOneModel().SetFilter(bson.M{"_id": r.sub.ID}).
			SetUpdate(bson.M{"$set": sets[i], "$unset": bson.M{"failedAttempts": "", "nextPlanCode": ""}})
	}
	updated := s.updateRenewed(ctx, updates)
	var lines []Change
	for i, ok := range updated {
		if ok {
			lines = append(lines, history[i])
		}
	}
	s.writeLines(ctx, lines)
	receipts := make([]Receipt, 0, len(renewed))
	for i, r := range renewed {
		if !updated[i] {
			stats.Failures++
			left[r.sub.ID] = true
			continue
		}
		stats.Renewed++
		kind := ReceiptRenewal
		if r.plan.Code != r.sub.PlanCode {
			kind = ReceiptPlanChange
		}
		if r.paid.Status == ChargeSucceeded {
			receipts = append(receipts, Receipt{ChargeKey: r.req.Key, SubscriptionID: r.sub.ID, Email: r.sub.Email,
				Brand: r.sub.Brand, Kind: kind, PlanCode: r.plan.Code, Amount: r.plan.Price,
				CardBrand: r.sub.PaymentMethod.Brand, CardLast4: r.sub.PaymentMethod.Last4, PaidAt: now,
				PeriodStart: sets[i]["currentPeriodStart"].(time.Time), PeriodEnd: sets[i]["currentPeriodEnd"].(time.Time)})
		}
		s.touched(r.sub.UserID)
	}
	s.issueReceipts(ctx, receipts)
	return stats, left
}

func (s *Service) expireCounted(ctx context.Context, sub Subscription, now time.Time, why string, stats *RenewStats, left map[string]bool) {
	if err := s.expire(ctx, sub, now, why); err != nil {
		stats.Failures++
		left[sub.ID] = true
		s.logger.Error("renew subscription", "subscription", sub.ID, "error", err)
		return
	}
	stats.Expired++
}

// batchCharger is a provider that takes many charges in one call, each
// answered as Charge would answer it alone: the sandbox, whose charges are
// documents in our own database.
type batchCharger interface {
	ChargeMany(ctx context.Context, reqs []ChargeRequest) ([]Charge, []error)
}

// rateLimitedProvider is a provider whose API allows a bounded number of
// requests a second; RenewalRate is how many charges a second a renewal
// pass may send it.
type rateLimitedProvider interface {
	RenewalRate() float64
}

// chargeMany asks the provider for every charge of a batch: in one call
// when it can take a batch, else up to inFlight at once, each waiting for
// the limiter's turn.
func (s *Service) chargeMany(ctx context.Context, reqs []ChargeRequest) ([]Charge, []error) {
	if bc, ok := s.provider.(batchCharger); ok {
		return bc.ChargeMany(ctx, reqs)
	}
	charges, errs := make([]Charge, len(reqs)), make([]error, len(reqs))
	slots := make(chan struct{}, max(s.renewal.inFlight, 1))
	var wg sync.WaitGroup
	for i, req := range reqs {
		if s.renewal.limiter != nil {
			if err := s.renewal.limiter.Wait(ctx); err != nil {
				for j := i; j < len(reqs); j++ {
					errs[j] = fmt.Errorf("charge %s: %w", reqs[j].Key, err)
				}
				break
			}
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			charges[i], errs[i] = s.provider.Charge(ctx, req)
		})
	}
	wg.Wait()
	return charges, errs
}

// recordCharges keeps the provider's answers in the charges ledger, as
// charge does one at a time: one unordered insertMany, where an entry
// already there (a retry of the same key) stays as it was. Each charge is
// filed under its subscription from the bound in bounds; the new bounds
// are returned.
func (s *Service) recordCharges(ctx context.Context, reqs []ChargeRequest, charges []Charge, bounds map[string]int) map[string]int {
	docs := make([]any, 0, len(charges))
	for i, ch := range charges {
		if ch.Status == "" {
			continue
		}
		if ch.Key == "" {
			ch.Key = reqs[i].Key
		}
		ch.ID, ch.SubscriptionID = reqs[i].Key, reqs[i].SubscriptionID
		if ch.CreatedAt.IsZero() {
			ch.CreatedAt = s.clock.Now()
		}
		docs = append(docs, ch)
	}
	if err := insertManyOnce(ctx, s.db.Collection(chargesCollection), docs); err != nil {
		s.logger.Error("record charges", "count", len(docs), "error", err)
	}
	bySubscription, byReference := map[string][]string{}, map[string][]string{}
	for _, d := range docs {
		ch := d.(Charge)
		bySubscription[ch.SubscriptionID] = append(bySubscription[ch.SubscriptionID], ch.ID)
		if ch.Reference != "" {
			byReference[ch.Reference] = append(byReference[ch.Reference], ch.ID)
		}
	}
	next, err := fileMany(ctx, s.db, filedCharges, bySubscription, bounds)
	if err != nil {
		s.logger.Error("file charges", "count", len(docs), "error", err)
	}
	if _, err := fileMany(ctx, s.db, filedReference, byReference, nil); err != nil {
		s.logger.Error("file charge references", "count", len(docs), "error", err)
	}
	return next
}

// fileLines files history lines under their subscriptions, a batch at a
// time, from the bounds given, and returns the new bounds.
func (s *Service) fileLines(ctx context.Context, lines []Change, bounds map[string]int) map[string]int {
	bySubscription := map[string][]string{}
	for _, c := range lines {
		bySubscription[c.SubscriptionID] = append(bySubscription[c.SubscriptionID], c.ID)
	}
	next, err := fileMany(ctx, s.db, filedHistory, bySubscription, bounds)
	if err != nil {
		s.logger.Error("file subscription changes", "count", len(lines), "error", err)
	}
	return next
}

// writeLines writes history lines (filed before) as record does, a batch
// at a time.
func (s *Service) writeLines(ctx context.Context, lines []Change) {
	docs := make([]any, len(lines))
	for i, c := range lines {
		docs[i] = c
	}
	if err := insertManyOnce(ctx, s.db.Collection(historyCollection), docs); err != nil {
		s.logger.Error("record subscription changes", "count", len(docs), "error", err)
	}
}

// updatesPerCommand bounds the updates sent in one bulkWrite command. The
// embedded FerretDB keeps each update's read of its document open until the
// whole command ends, one SQLite connection each, out of a pool of 100: a
// bulkWrite of 500 updates hung there with all 100 taken (measured). A few
// workers' commands, and the requests served meanwhile, must fit together.
const updatesPerCommand = 16

// updateRenewed applies the renewed subscriptions' updates, an unordered
// bulkWrite of up to updatesPerCommand at a time, and reports which were
// applied. Each is an update of one document by _id, as before; only the
// round trips are shared.
func (s *Service) updateRenewed(ctx context.Context, updates []mongo.WriteModel) []bool {
	ok := make([]bool, len(updates))
	for from := 0; from < len(updates); from += updatesPerCommand {
		to := min(from+updatesPerCommand, len(updates))
		_, err := s.db.Collection(SubscriptionsCollection).BulkWrite(ctx, updates[from:to], options.BulkWrite().SetOrdered(false))
		var bwe mongo.BulkWriteException
		switch {
		case err == nil:
			for i := from; i < to; i++ {
				ok[i] = true
			}
		case errors.As(err, &bwe) && bwe.WriteConcernError == nil:
			for i := from; i < to; i++ {
				ok[i] = true
			}
			for _, we := range bwe.WriteErrors {
				if we.Index >= 0 && from+we.Index < to {
					ok[from+we.Index] = false
				}
			}
			s.logger.Error("renew subscriptions", "failed", len(bwe.WriteErrors), "error", err)
		default:
			// Which were applied is unknown; the claims keep them from
			// being charged again, and their next pass after the lease
			// finds each as it is (the charge's key returns the first
			// answer).
			s.logger.Error("renew subscriptions", "count", to-from, "error", err)
		}
	}
	return ok
}

// insertManyOnce inserts docs with one unordered insertMany, where a
// document whose _id exists (written before by a retry or another worker)
// is left as it was; any other refusal is the error.
func insertManyOnce(ctx context.Context, coll *mongo.Collection, docs []any) error {
	_, err := store.InsertNew(ctx, coll, docs)
	return err
}

// paymentFailed schedules the next retry, or expires the subscription after
// the last one.
func (s *Service) paymentFailed(ctx context.Context, sub Subscription, plan PlanSpec, now time.Time, confirm string) error {
	attempt := sub.FailedAttempts
	period := strconv.FormatInt(sub.CurrentPeriodEnd.Unix(), 10)
	s.record(ctx, sub.ID, "payment_failed:"+period+":"+strconv.Itoa(attempt), Change{By: "renewal", Kind: ChangePaymentFailed,
		Detail: "attempt " + strconv.Itoa(attempt+1) + " of " + strconv.Itoa(len(s.retries)+1)})
	if attempt >= len(s.retries) {
		return s.expire(ctx, sub, now, "the renewal payment failed after every retry")
	}
	next := sub.CurrentPeriodEnd.Add(s.retries[attempt])
	if !next.After(now) {
		next = now.Add(time.Hour)
	}
	if err := s.scheduleRenewal(ctx, sub.ID, next); err != nil {
		return fmt.Errorf("schedule retry of %s: %w", sub.ID, err)
	}
	if _, err := s.db.Collection(SubscriptionsCollection).UpdateOne(ctx, bson.M{"_id": sub.ID},
		bson.M{"$set": bson.M{"dueAt": next, "failedAttempts": attempt + 1}}); err != nil {
		return fmt.Errorf("schedule retry of %s: %w", sub.ID, err)
	}
	data := map[string]string{"subscription": sub.ID, "plan": Describe(plan.Code).Name,
		"price": plan.Price.String(), "retryDate": brand.Date(next)}
	kind := NoticePaymentFailed
	if confirm != "" {
		kind, data["token"] = NoticeConfirmPayment, confirm
	}
	s.send(ctx, Notice{Key: "payment-failed:" + sub.ID + ":" + period + ":" + strconv.Itoa(attempt), To: sub.Email, Brand: sub.Brand,
		Kind: kind, Data: data})
	return nil
}

// renewed starts a subscription's next period, paid for on the provider's
// page (a renewal the bank let through only once the subscriber
// authenticated it); chargeKey is that payment's.
func (s *Service) renewed(ctx context.Context, sub Subscription, plan PlanSpec, now time.Time, chargeKey string) error {
	period := strconv.FormatInt(sub.CurrentPeriodEnd.Unix(), 10)
	start := sub.CurrentPeriodEnd
	end := plan.Period.After(start)
	for !end.After(now) { // a long outage: the new period starts now, not in the past
		start, end = end, plan.Period.After(end)
	}
	if err := s.scheduleRenewal(ctx, sub.ID, end); err != nil {
		return fmt.Errorf("renew %s: %w", sub.ID, err)
	}
	if _, err := s.db.Collection(SubscriptionsCollection).UpdateOne(ctx, bson.M{"_id": sub.ID}, bson.M{
		"$set":   bson.M{"currentPeriodStart": start, "currentPeriodEnd": end, "dueAt": end, "planCode": plan.Code, "price": plan.Price},
		"$unset": bson.M{"failedAttempts": "", "nextPlanCode": ""},
	}); err != nil {
		return fmt.Errorf("renew %s: %w", sub.ID, err)
	}
	s.record(ctx, sub.ID, "renewed:"+period, Change{By: "renewal", Kind: ChangeRenewed, From: sub.PlanCode, To: plan.Code,
		Detail: plan.Price.String() + " until " + end.Format(time.RFC3339)})
	kind := ReceiptRenewal
	if plan.Code != sub.PlanCode {
		kind = ReceiptPlanChange
	}
	s.receiptFor(ctx, Charge{Status: ChargeSucceeded}, Receipt{ChargeKey: chargeKey, SubscriptionID: sub.ID, Email: sub.Email,
		Brand: sub.Brand, Kind: kind, PlanCode: plan.Code, Amount: plan.Price, CardBrand: sub.PaymentMethod.Brand,
		CardLast4: sub.PaymentMethod.Last4, PaidAt: now, PeriodStart: start, PeriodEnd: end})
	s.touched(sub.UserID)
	return nil
}

func (s *Service) expire(ctx context.Context, sub Subscription, now time.Time, why string) error {
	if _, err := s.db.Collection(SubscriptionsCollection).UpdateOne(ctx, bson.M{"_id": sub.ID}, bson.M{
		"$set":   bson.M{"status": StatusExpired, "expiresAt": now},
		"$unset": bson.M{"dueAt": ""},
	}); err != nil {
		return fmt.Errorf("expire %s: %w", sub.ID, err)
	}
	s.record(ctx, sub.ID, "expired", Change{By: "renewal", Kind: ChangeExpired, From: sub.Status, To: StatusExpired, Detail: why})
	s.touched(sub.UserID)
	return nil
}

// RunRenewals runs RenewDue every interval until ctx ends, at most
// engine.PassShare of the time.
func (s *Service) RunRenewals(ctx context.Context, every time.Duration) {
	renew := func(ctx context.Context) {
		if checked, err := s.ReconcilePending(ctx); err != nil && ctx.Err() == nil {
			s.logger.Error("reconciliation pass", "error", err)
		} else if checked.Settled+checked.Refunds > 0 {
			s.logger.Info("reconciliation pass", "due", checked.Due, "settled", checked.Settled, "refunds", checked.Refunds)
		}
		stats, err := s.RenewDue(ctx)
		if err != nil && ctx.Err() == nil {
			s.logger.Error("renewal pass", "error", err)
		} else if stats.Due > 0 {
			s.logger.Info("renewal pass", "due", stats.Due, "renewed", stats.Renewed, "failed", stats.Failed,
				"expired", stats.Expired, "skipped", stats.Skipped)
		}
		// Mails decided by a change that stopped before handing them over.
		if err := s.DrainNotices(ctx); err != nil && ctx.Err() == nil {
			s.logger.Error("billing outbox", "error", err)
		}
	}
	renew(ctx)
	// A pass after an outage may scan every subscription (due.go): over a
	// large base the pass then runs less often rather than take the cores
	// (a renewal a little late keeps the plan's access, which lasts until
	// the plan renews or ends).
	engine.EveryAtMost(ctx, every, engine.PassShare, renew)
}
