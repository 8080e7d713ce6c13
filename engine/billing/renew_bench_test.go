package billing

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/content"
	"glimpse/engine"
	"glimpse/engine/brand"
	"glimpse/engine/mail"
	"glimpse/engine/store"
	"glimpse/engine/store/storetest"
)

// NewBenchMails opens the outbox's store for these measurements: the
// embedded SQLite store, set by bench_mails_test.go, an external test file,
// because the store's package imports billing (through retention).
var NewBenchMails func(tb testing.TB) mail.Mails

// renewAt is the moment the renewal runs in these measurements; every
// subscription's period ended an hour before.
var renewAt = time.Date(2026, 11, 9, 9, 0, 0, 0, time.UTC)

// openBillingDB opens a test database with billing's store on the test's
// engine.
func openBillingDB(tb testing.TB) billingDB {
	tb.Helper()
	st := storetest.Open(tb)
	return billingDB{st: st, mails: NewBenchMails(tb), store: storeOf(st), sandbox: sandboxOf(st), seeded: new(int)}
}

// billingDB is a test database with billing's collections, and the
// outbox's storage on the embedded SQLite database (the default engine).
type billingDB struct {
	mails mail.Mails
	store Store
	// st is the test's store; sandbox, the sandbox's books on it.
	st      *store.Store
	sandbox SandboxRecords
	// seeded is how many subscriptions seedDue wrote.
	seeded *int
}

// benchID is the id of seeded subscription i.
func benchID(i int) string { return fmt.Sprintf("sub_bench_%07d", i) }

// seedDue writes n active weekly subscriptions on the sandbox, all due at
// renewAt, through billing's store in batches (Subscriptions.InsertMany).
// Each has charges and history lines already, as a real subscription
// has from its checkout and its earlier renewals.
func seedDue(tb testing.TB, db billingDB, n, filed int) {
	tb.Helper()
	ctx := context.Background()
	end := renewAt.Add(-time.Hour)
	const batch = 1000
	seeded := make([]Seeded, 0, batch)
	for i := range n {
		id := benchID(i)
		email := fmt.Sprintf("buyer%d@example.com", i)
		sub := Subscription{ID: id, Email: email, Emails: []string{email}, Bundle: "glimpse.web", Brand: "default",
			PlanCode: "glimpse_weekly_trial", Status: StatusActive, MainPlan: true, Price: USD(100), Provider: sandboxName,
			StartedAt: end.AddDate(0, 0, -7*filed), CurrentPeriodStart: end.AddDate(0, 0, -7), CurrentPeriodEnd: end, DueAt: end,
			PaymentMethod: PaymentMethod{Provider: sandboxName, ID: "pm_sandbox_ok_" + id, Brand: "visa", Last4: "4242"}}
		x := Seeded{Sub: sub}
		for n := range filed {
			key := fmt.Sprintf("earlier:%s:%d", id, n)
			x.Charges = append(x.Charges, Charge{ID: ChargeIDOf(key), Key: key, Provider: sandboxName, Amount: USD(100),
				SubscriptionID: id, Status: ChargeSucceeded, CreatedAt: end.AddDate(0, 0, -7*(filed-n))})
			x.Lines = append(x.Lines, sub.Line(fmt.Sprintf("earlier:%d", n), end.AddDate(0, 0, -7*(filed-n)), Change{By: "renewal", Kind: ChangeRenewed}))
		}
		seeded = append(seeded, x)
		if len(seeded) == batch || i == n-1 {
			if err := db.store.Subscriptions().InsertMany(ctx, seeded); err != nil {
				tb.Fatalf("seed: %v", err)
			}
			seeded = seeded[:0]
		}
	}
	*db.seeded += n
}

// renewCounts reads what the renewal did: the succeeded charges the sandbox
// took, the distinct subscription+period pairs they were for (a second
// charge of a pair is a double charge), and the subscriptions renewed.
type renewCounts struct{ charges, distinct, renewed int64 }

func countRenewals(tb testing.TB, db billingDB) renewCounts {
	tb.Helper()
	ctx := context.Background()
	var c renewCounts
	seen := map[string]bool{}
	for _, key := range sandboxChargeKeys(tb, db.st) {
		c.charges++
		// renew:<subscription>:<period end>:<attempt>
		parts := strings.Split(key, ":")
		if len(parts) != 4 || parts[0] != "renew" {
			tb.Fatalf("unexpected charge key %q", key)
		}
		seen[parts[1]+":"+parts[2]] = true
	}
	c.distinct = int64(len(seen))
	for i := range *db.seeded {
		sub, err := db.store.Subscriptions().Get(ctx, benchID(i))
		if err != nil {
			tb.Fatal(err)
		}
		if sub.DueAt.After(renewAt) {
			c.renewed++
		}
	}
	return c
}

// renewWith runs RenewDue on workers Service values over one database at
// once and returns their summed stats.
func renewWith(tb testing.TB, db billingDB, workers int) RenewStats {
	tb.Helper()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total RenewStats
	)
	outbox := receiptOutbox(tb, db)
	for range workers {
		clock := engine.NewManualClock(renewAt)
		svc := NewService(clock, Options{Store: db.store, Provider: NewSandbox(db.sandbox, clock, testWebhookSecret),
			Notify: outbox.notify, NotifyMany: outbox.notifyMany})
		wg.Go(func() {
			st, err := svc.RenewDue(context.Background())
			if err != nil {
				tb.Errorf("RenewDue: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			total.Due += st.Due
			total.Renewed += st.Renewed
			total.Failed += st.Failed
			total.Expired += st.Expired
			total.Skipped += st.Skipped
			total.Failures += st.Failures
		})
	}
	wg.Wait()
	return total
}

// receiptMailer queues the pass's receipt mails in the real outbox (its
// storage made by openBillingDB), rendered
// from the shipped brands' templates, as the app does (app.billingMails):
// a renewal's cost includes its receipt mail.
type receiptMailer struct{ box *mail.Outbox }

func receiptOutbox(tb testing.TB, db billingDB) receiptMailer {
	tb.Helper()
	shipped, err := brand.ReadShipped(content.Brands)
	if err != nil {
		tb.Fatal(err)
	}
	reg := brand.NewRegistry(nil)
	if err := reg.Install(shipped); err != nil {
		tb.Fatal(err)
	}
	box := mail.NewOutbox(db.mails, engine.NewManualClock(renewAt), slog.New(slog.DiscardHandler),
		func(k string) brand.Copy { return reg.Copy(reg.Get(k)) }, "http://127.0.0.1:8080").
		WithSenders(func(k string) mail.From {
			return mail.From{Brand: reg.Get(k).Name, Operator: "Example Operator Ltd", Support: "support@example.com"}
		})
	return receiptMailer{box}
}

func (r receiptMailer) message(n Notice) mail.Message {
	data := maps.Clone(n.Data)
	delete(data, "family")
	delete(data, "kind")
	return mail.Message{Key: n.Key, To: n.To, Brand: n.Brand, Template: mail.TemplateReceipt, Data: data, Unlisted: n.ByCharge}
}

func (r receiptMailer) notify(ctx context.Context, n Notice) error {
	if n.Kind != NoticeReceipt {
		return nil
	}
	return r.box.Enqueue(ctx, r.message(n))
}

func (r receiptMailer) notifyMany(ctx context.Context, ns []Notice) error {
	msgs := make([]mail.Message, 0, len(ns))
	for _, n := range ns {
		if n.Kind == NoticeReceipt {
			msgs = append(msgs, r.message(n))
		}
	}
	return r.box.EnqueueMany(ctx, msgs)
}

// reportProgress prints, every minute until stopped, how many charges the
// sandbox has taken, so a long run shows its rate as it goes.
func reportProgress(db billingDB, start time.Time) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				n, err := countRows(db.st, "sandbox_charges", "", bson.M{})
				fmt.Fprintf(os.Stderr, "renewal progress: %d charged after %s (%v)\n", n, time.Since(start).Round(time.Second), err)
			}
		}
	}()
	return func() { close(done) }
}

// processCPU is the CPU time this process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestTwoRenewalWorkersChargeOnce: two workers over the same due
// subscriptions charge each exactly once between them.
func TestTwoRenewalWorkersChargeOnce(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 300
	}
	db := openBillingDB(t)
	seedDue(t, db, n, 1)
	st := renewWith(t, db, 2)
	c := countRenewals(t, db)
	if c.charges != int64(n) || c.distinct != int64(n) || c.renewed != int64(n) {
		t.Fatalf("%d subscriptions: %d charges for %d distinct periods, %d renewed (stats %+v)", n, c.charges, c.distinct, c.renewed, st)
	}
	if st.Renewed != n || st.Failures != 0 {
		t.Fatalf("stats %+v, want %d renewed between the workers", st, n)
	}
	// One receipt and one queued receipt mail per renewal, whichever worker renewed it.
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("sub_bench_%07d", i)
	}
	issued, err := db.store.Receipts().OfSubscriptions(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(issued); got != n {
		t.Errorf("%d receipts after %d renewals", got, n)
	}
	queued, _, err := receiptOutbox(t, db).box.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if queued != n {
		t.Errorf("%d queued mails after %d renewals", queued, n)
	}
}

// BenchmarkRenewDue100k times one renewal pass over 100,000 due
// subscriptions on the embedded database, with one worker and with two.
// Run it once: go test ./engine/billing/ -run '^$' -bench RenewDue100k -benchtime=1x
// GLIMPSE_BENCH_RENEW_N sets another number of subscriptions, GLIMPSE_BENCH_RENEW_FILED
// the charges and history lines each has filed before (default 4: a weekly
// plan a month in).
func BenchmarkRenewDue100k(b *testing.B) {
	n, filed := 100000, 4
	if v, err := strconv.Atoi(os.Getenv("GLIMPSE_BENCH_RENEW_N")); err == nil && v > 0 {
		n = v
	}
	if v, err := strconv.Atoi(os.Getenv("GLIMPSE_BENCH_RENEW_FILED")); err == nil && v >= 0 {
		filed = v
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				db := openBillingDB(b)
				seedStart := time.Now()
				seedDue(b, db, n, filed)
				b.Logf("seeded %d subscriptions with %d charges and history lines filed each in %s", n, filed, time.Since(seedStart).Round(time.Millisecond))
				b.StartTimer()
				start, cpu := time.Now(), processCPU()
				stop := reportProgress(db, start)
				st := renewWith(b, db, workers)
				elapsed, cpuUsed := time.Since(start), processCPU()-cpu
				b.StopTimer()
				stop()
				c := countRenewals(b, db)
				b.ReportMetric(elapsed.Seconds(), "s/pass")
				// The process's CPU time over the pass (the embedded
				// database runs in it too): what a busy machine moves less.
				b.ReportMetric(cpuUsed.Seconds(), "cpu-s/pass")
				b.ReportMetric(float64(n)/elapsed.Seconds(), "subs/s")
				b.ReportMetric(float64(c.charges), "charges")
				b.ReportMetric(float64(c.charges-c.distinct), "duplicates")
				b.ReportMetric(float64(c.renewed), "renewed")
				b.Logf("workers=%d: %s (cpu %s), stats %+v, counts %+v", workers, elapsed.Round(time.Millisecond),
					cpuUsed.Round(time.Millisecond), st, c)
				if c.charges != c.distinct {
					b.Errorf("%d charges for %d distinct periods", c.charges, c.distinct)
				}
			}
		})
	}
}
