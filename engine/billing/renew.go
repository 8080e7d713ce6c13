package billing

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"glimpse/engine"
	"glimpse/engine/brand"
	"glimpse/engine/metrics"
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
// another may take it: far longer than a batch of a pass takes, so a lease
// lapses only when its worker died.
const renewLease = 10 * time.Minute

// renewalTuning sizes a renewal pass (docs/benchmarks.md §3).
type renewalTuning struct {
	// batch is how many due subscriptions are claimed, charged and written
	// together: one claim (Subscriptions.ClaimDue), one write of the
	// ledger's entries and one of the renewals (Subscriptions.Renew).
	batch int
	// batchesInFlight is how many batches one pass works on at once.
	batchesInFlight int
	// inFlight is how many charges a provider that charges one at a time
	// (Stripe) has in flight at once: enough to keep its rate limit busy
	// while each call waits on the network.
	inFlight int
	// limiter paces charges to a provider with a rate limit; nil for none.
	limiter *rate.Limiter
}

// Batch sizes. Every batch is a few transactions, and with random ids each
// commit rewrites the index pages it touched, so fewer, larger batches write
// fewer pages: 100,000 renewals on the embedded store took 28.7 s in batches
// of 500, 22.6 s of 2,000 and 20.8 s of 5,000 (docs/benchmarks.md §10). A
// provider with a rate limit charges a batch at its pace, and a batch must
// be done well within its lease (renewLease) with two in flight: at the
// slowest pace (Stripe's test mode, 10 a second shared by both batches),
// 500 take under two minutes.
const (
	renewBatch        = 5000
	renewBatchLimited = 500
)

func defaultRenewalTuning(p Provider) renewalTuning {
	t := renewalTuning{batch: renewBatch, batchesInFlight: 2, inFlight: 64}
	if rl, ok := p.(rateLimitedProvider); ok {
		t.batch = renewBatchLimited
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
// each batch of due subscriptions is leased to this pass in the write that
// claims it (Subscriptions.ClaimDue), and every charge carries an
// idempotency key made of the subscription, its period and the attempt,
// so no period is charged twice even if a worker dies mid-way and another
// takes over once the lease lapses.
//
// A claimed subscription is charged as the claim read it, and its renewal
// is written only over that version while the lease is still this pass's
// (Subscriptions.Renew). A change a person made meanwhile (a cancel in the
// very seconds the plan renews) wins: the renewal is refused and its
// charge given back (voidRenewal), and the next pass finds the
// subscription as the change left it. What the pass could not finish goes
// back (Release) for the next pass.
func (s *Service) RenewDue(ctx context.Context) (RenewStats, error) {
	started := time.Now()
	now := s.clock.Now()
	owner := "renewal:" + engine.NewID()
	var stats RenewStats
	defer func() {
		s.metrics.RenewalBacklog(0)
		s.metrics.RenewalPass(time.Since(started))
	}()
	var (
		mu      sync.Mutex
		left    []string
		claimed error
		wg      sync.WaitGroup
	)
	// Batches in flight at once: one batch's provider calls and writes
	// leave a core idle, which the other's work fills. Each batch's lease
	// keeps its subscriptions to it, as it does between workers.
	for range max(s.renewal.batchesInFlight, 1) {
		wg.Go(func() {
			for ctx.Err() == nil {
				subs, err := s.st.Subscriptions().ClaimDue(ctx, now, owner, renewLease, max(s.renewal.batch, 1))
				if err != nil || len(subs) == 0 {
					if err != nil {
						mu.Lock()
						claimed = fmt.Errorf("claim due subscriptions: %w", err)
						mu.Unlock()
					}
					return
				}
				st, unfinished := s.renewBatch(ctx, subs, now, owner)
				st.Due += len(subs)
				s.countRenewals(st)
				mu.Lock()
				stats.add(st)
				left = append(left, unfinished...)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(left) > 0 {
		// Released even when the pass was stopped: the next pass, here or
		// on another instance, need not wait for the lease to lapse.
		if err := s.st.Subscriptions().Release(context.WithoutCancel(ctx), owner, left); err != nil {
			s.logger.Error("release unfinished renewals", "count", len(left), "error", err)
		}
	}
	s.drain(ctx)
	if err := ctx.Err(); err != nil {
		return stats, err
	}
	return stats, claimed
}

func (s *Service) countRenewals(st RenewStats) {
	s.metrics.Renewals(metrics.RenewalRenewed, st.Renewed)
	s.metrics.Renewals(metrics.RenewalPaymentFailed, st.Failed)
	s.metrics.Renewals(metrics.RenewalExpired, st.Expired)
	s.metrics.Renewals(metrics.RenewalSkipped, st.Skipped)
	s.metrics.Renewals(metrics.RenewalError, st.Failures)
}

// renewal is a claimed subscription about to be charged for plan.
type renewal struct {
	sub    Subscription
	plan   PlanSpec
	period string // the ending period's end, in Unix seconds: the keys' part
	req    ChargeRequest
}

// outcome is what one written renewal counts as.
type outcome int

const (
	outcomeRenewed outcome = iota
	outcomeFailed
	outcomeExpired
)

// renewBatch charges and records one batch of claimed subscriptions. It
// returns the ids it did not finish (an error, or a change made meanwhile),
// whose leases the pass releases.
func (s *Service) renewBatch(ctx context.Context, subs []Subscription, now time.Time, owner string) (stats RenewStats, left []string) {
	var (
		writes   []Renewal
		outcomes []outcome
		charged  []renewal // for each write that is a renewal, what was charged
		due      []renewal
	)
	expire := func(sub Subscription, why string) {
		writes, outcomes, charged = append(writes, s.expiry(sub, now, why)), append(outcomes, outcomeExpired), append(charged, renewal{})
	}
	for _, sub := range subs {
		if sub.Status != StatusActive || !sub.MainPlan {
			expire(sub, "the period ended after a cancellation")
			continue
		}
		code := sub.PlanCode
		if sub.NextPlanCode != "" {
			code = sub.NextPlanCode
		}
		plan, err := s.catalogue.Plan(code)
		if err != nil || !plan.Recurring() {
			expire(sub, "the plan no longer renews")
			continue
		}
		period := strconv.FormatInt(sub.CurrentPeriodEnd.Unix(), 10)
		due = append(due, renewal{sub: sub, plan: plan, period: period, req: ChargeRequest{SubscriptionID: sub.ID,
			Key:    "renew:" + sub.ID + ":" + period + ":" + strconv.Itoa(sub.FailedAttempts),
			Method: sub.PaymentMethod, Amount: plan.Price, Description: plan.Code}})
	}
	if len(due) > 0 {
		reqs := make([]ChargeRequest, len(due))
		for i, r := range due {
			reqs[i] = r.req
		}
		charges, errs := s.chargeMany(ctx, reqs)
		// Each answer is recorded in the ledger: with its renewal's write
		// when there is one (Renew records it whether or not the renewal
		// is written), else on its own below.
		var alone []Charge
		withCharge := func(w Renewal, i int) Renewal {
			if charges[i].Status != "" {
				w.Charge = s.ledgerCharge(reqs[i], charges[i])
			}
			return w
		}
		clockNow := s.clock.Now()
		for i, r := range due {
			switch {
			case errors.Is(errs[i], ErrCardDeclined), errors.Is(errs[i], ErrAuthenticationRequired):
				confirm := ""
				if errors.Is(errs[i], ErrAuthenticationRequired) {
					// The bank wants the subscriber: the mail's link lets
					// them authenticate and pay; the retries go on meanwhile.
					var err error
					if confirm, err = s.renewalConfirmation(ctx, r.sub, r.plan, r.req.Key); err != nil {
						stats.Failures++
						left = append(left, r.sub.ID)
						if charges[i].Status != "" {
							alone = append(alone, s.ledgerCharge(reqs[i], charges[i]))
						}
						s.logger.Error("renew subscription", "subscription", r.sub.ID, "error", err)
						continue
					}
				}
				writes, outcomes, charged = append(writes, withCharge(s.failedRenewal(r.sub, r.plan, now, confirm), i)), append(outcomes, outcomeFailed), append(charged, renewal{})
			case errs[i] != nil:
				stats.Failures++
				left = append(left, r.sub.ID)
				if charges[i].Status != "" {
					alone = append(alone, s.ledgerCharge(reqs[i], charges[i]))
				}
				if ctx.Err() == nil {
					s.logger.Error("renew subscription", "subscription", r.sub.ID, "error", errs[i])
				}
			default:
				writes, outcomes, charged = append(writes, withCharge(s.nextPeriod(r, now, clockNow), i)), append(outcomes, outcomeRenewed), append(charged, r)
			}
		}
		if err := s.recordCharges(context.WithoutCancel(ctx), alone); err != nil {
			s.logger.Error("record charges", "count", len(alone), "error", err)
		}
	}
	if len(writes) == 0 {
		return stats, left
	}
	// Written even when the pass was stopped: the charges are made.
	results, err := s.st.Subscriptions().Renew(context.WithoutCancel(ctx), owner, writes)
	if err != nil {
		s.logger.Error("renew subscriptions", "count", len(writes), "error", err)
		// The charges were made all the same: the ledger keeps them (the
		// next pass charges the same keys, which the provider replays).
		var made []Charge
		for _, w := range writes {
			if w.Charge.Key != "" {
				made = append(made, w.Charge)
			}
		}
		if err := s.recordCharges(context.WithoutCancel(ctx), made); err != nil {
			s.logger.Error("record charges", "count", len(made), "error", err)
		}
		for _, w := range writes {
			stats.Failures++
			left = append(left, w.Next.ID)
		}
		return stats, left
	}
	var receipts []Receipt
	for i, w := range writes {
		if results[i] != nil {
			// Changed since the claim (a cancel, a new card): the renewal
			// decided on the old state is not written, and its charge goes
			// back. The next pass decides on the state as it is now.
			stats.Skipped++
			left = append(left, w.Next.ID)
			if outcomes[i] == outcomeRenewed {
				s.voidRenewal(ctx, charged[i].req.Key)
			}
			continue
		}
		s.touched(w.Next.UserID)
		switch outcomes[i] {
		case outcomeExpired:
			stats.Expired++
		case outcomeFailed:
			stats.Failed++
		case outcomeRenewed:
			stats.Renewed++
			r := charged[i]
			kind := ReceiptRenewal
			if r.plan.Code != r.sub.PlanCode {
				kind = ReceiptPlanChange
			}
			receipts = append(receipts, Receipt{ChargeID: ChargeIDOf(r.req.Key), SubscriptionID: r.sub.ID, Email: r.sub.Email,
				Brand: r.sub.Brand, Kind: kind, PlanCode: r.plan.Code, Amount: r.plan.Price,
				CardBrand: r.sub.PaymentMethod.Brand, CardLast4: r.sub.PaymentMethod.Last4, PaidAt: now,
				PeriodStart: w.Next.CurrentPeriodStart, PeriodEnd: w.Next.CurrentPeriodEnd})
		}
	}
	s.issueReceipts(ctx, receipts)
	return stats, left
}

// nextPeriod is a paid renewal: the subscription's next period, as the
// plan it renews as, and its history line.
func (s *Service) nextPeriod(r renewal, now, at time.Time) Renewal {
	start := r.sub.CurrentPeriodEnd
	end := r.plan.Period.After(start)
	for !end.After(now) { // a long outage: the new period starts now, not in the past
		start, end = end, r.plan.Period.After(end)
	}
	next := r.sub
	next.CurrentPeriodStart, next.CurrentPeriodEnd, next.DueAt, next.PlanCode, next.Price = start, end, end, r.plan.Code, r.plan.Price
	next.FailedAttempts, next.NextPlanCode = 0, ""
	line := r.sub.Line("renewed:"+r.period, at, Change{By: "renewal", Kind: ChangeRenewed, From: r.sub.PlanCode, To: r.plan.Code,
		Detail: r.plan.Price.String() + " until " + end.Format(time.RFC3339)})
	return Renewal{Next: next, Fx: Effects{Lines: []Change{line}}}
}

// failedRenewal schedules the next retry of a declined renewal, with its
// line and mail, or expires the subscription after the last one.
func (s *Service) failedRenewal(sub Subscription, plan PlanSpec, now time.Time, confirm string) Renewal {
	attempt := sub.FailedAttempts
	period := strconv.FormatInt(sub.CurrentPeriodEnd.Unix(), 10)
	line := sub.Line("payment_failed:"+period+":"+strconv.Itoa(attempt), s.clock.Now(), Change{By: "renewal", Kind: ChangePaymentFailed,
		Detail: "attempt " + strconv.Itoa(attempt+1) + " of " + strconv.Itoa(len(s.retries)+1)})
	if attempt >= len(s.retries) {
		r := s.expiry(sub, now, "the renewal payment failed after every retry")
		// The expiry follows the failure that ends it: history is in time
		// order, so a nanosecond after.
		r.Fx.Lines[0].At = line.At.Add(time.Nanosecond)
		r.Fx.Lines = append([]Change{line}, r.Fx.Lines...)
		return r
	}
	retry := sub.CurrentPeriodEnd.Add(s.retries[attempt])
	if !retry.After(now) {
		retry = now.Add(time.Hour)
	}
	next := sub
	next.DueAt, next.FailedAttempts = retry, attempt+1
	data := map[string]string{"subscription": sub.ID, "plan": Describe(plan.Code).Name,
		"price": plan.Price.String(), "retryDate": brand.Date(retry)}
	kind := NoticePaymentFailed
	if confirm != "" {
		kind, data["token"] = NoticeConfirmPayment, confirm
	}
	return Renewal{Next: next, Fx: Effects{Lines: []Change{line}, Notices: []Notice{{Key: "payment-failed:" + sub.ID + ":" + period + ":" +
		strconv.Itoa(attempt), To: sub.Email, Brand: sub.Brand, Kind: kind, Data: data}}}}
}

// expiry ends a subscription the renewal job finds over: canceled at its
// period end, out of retries, or on a plan that no longer renews.
func (s *Service) expiry(sub Subscription, now time.Time, why string) Renewal {
	next := sub
	next.Status, next.ExpiresAt, next.DueAt = StatusExpired, &now, time.Time{}
	line := sub.Line("expired", s.clock.Now(), Change{By: "renewal", Kind: ChangeExpired, From: sub.Status, To: StatusExpired, Detail: why})
	return Renewal{Next: next, Fx: Effects{Lines: []Change{line}}}
}

// voidRenewal gives back a renewal's charge whose renewal was refused (the
// plan changed while it was charged): in full, marked paid for nothing
// (Charge.Duplicate), so its refund ends no access.
func (s *Service) voidRenewal(ctx context.Context, chargeKey string) {
	if err := s.st.Ledger().MarkDuplicate(ctx, ChargeIDOf(chargeKey), ""); err != nil {
		s.logger.Error("void a renewal's charge", "charge", chargeKey, "error", err)
		return
	}
	if _, err := s.Refund(ctx, RefundRequest{ChargeID: ChargeIDOf(chargeKey), Full: true, By: "renewal",
		Reason: "The plan changed while it renewed", Key: "void:" + chargeKey}); err != nil && !errors.Is(err, ErrAlreadyRefunded) {
		s.logger.Error("void a renewal's charge", "charge", chargeKey, "error", err)
	}
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

// renewed starts a subscription's next period, paid for on the provider's
// page (a renewal the bank let through only once the subscriber
// authenticated it); chargeKey is that payment's. A period renewed
// meanwhile is not renewed again.
func (s *Service) renewed(ctx context.Context, sub Subscription, plan PlanSpec, now time.Time, chargeKey string) error {
	paidFor := sub.CurrentPeriodEnd
	period := strconv.FormatInt(paidFor.Unix(), 10)
	next, err := s.change(ctx, sub.ID, func(sub Subscription) (Subscription, Effects, bool, error) {
		if !sub.CurrentPeriodEnd.Equal(paidFor) {
			return sub, Effects{}, false, nil
		}
		r := s.nextPeriod(renewal{sub: sub, plan: plan, period: period}, now, s.clock.Now())
		return r.Next, r.Fx, true, nil
	})
	if err != nil {
		return fmt.Errorf("renew %s: %w", sub.ID, err)
	}
	// The receipt is keyed by the payment: one, however often this runs.
	kind := ReceiptRenewal
	if plan.Code != sub.PlanCode {
		kind = ReceiptPlanChange
	}
	s.receiptFor(ctx, Charge{Status: ChargeSucceeded}, Receipt{ChargeID: ChargeIDOf(chargeKey), SubscriptionID: sub.ID, Email: sub.Email,
		Brand: sub.Brand, Kind: kind, PlanCode: plan.Code, Amount: plan.Price, CardBrand: sub.PaymentMethod.Brand,
		CardLast4: sub.PaymentMethod.Last4, PaidAt: now, PeriodStart: next.CurrentPeriodStart, PeriodEnd: next.CurrentPeriodEnd})
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
	// A pass after an outage may have every subscription due: over a large
	// base the pass then runs less often rather than take the cores (a
	// renewal a little late keeps the plan's access, which lasts until the
	// plan renews or ends).
	engine.EveryAtMost(ctx, every, engine.PassShare, renew)
}
