package billing_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/billing/billingtest"
	"glimpse/engine/store"
	"glimpse/engine/store/mongostore"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/store/storetest"
)

func init() {
	billing.SetTestStores(func(st *store.Store) billing.Store {
		if db := st.SQL(); db != nil {
			return sqlstore.NewBilling(db)
		}
		return mongostore.NewBilling(st.DB())
	})
	billing.SetTestSandbox(func(st *store.Store) billing.SandboxRecords {
		if db := st.SQL(); db != nil {
			return sqlstore.NewSandboxRecords(db)
		}
		return mongostore.NewSandboxRecords(st.DB())
	})
}

// mailbox records the notices handed to the mailer, failing while fail is set.
type mailbox struct {
	mu     sync.Mutex
	got    map[string]int
	fail   atomic.Bool
	failed atomic.Int64
}

func (m *mailbox) notify(_ context.Context, n billing.Notice) error {
	if m.fail.Load() {
		m.failed.Add(1)
		return errors.New("the mailer is down")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.got[n.Key]++
	return nil
}

func newStoredService(t *testing.T) (*billing.Service, billing.Store, *mailbox) {
	t.Helper()
	st := storetest.Open(t)
	if st.SQL() == nil {
		t.Skip("the store's SQLite database is needed (GLIMPSE_TEST_MONGODB_URI is set)")
	}
	bs := sqlstore.NewBilling(st.SQL())
	box := &mailbox{got: map[string]int{}}
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 13, 0, 0, 0, time.UTC))
	return billing.NewService(clock, billing.Options{Store: bs, Notify: box.notify}), bs, box
}

func TestAChangeThatLostARaceIsDecidedAgain(t *testing.T) {
	ctx := context.Background()
	svc, bs, box := newStoredService(t)
	if _, _, err := bs.Subscriptions().Create(ctx, billingtest.Plan("s1", "ann@x"), billing.Effects{}); err != nil {
		t.Fatal(err)
	}
	var tick atomic.Int64
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			_, err := svc.Change(ctx, "s1", func(s billing.Subscription) (billing.Subscription, billing.Effects, bool, error) {
				now := s.StartedAt.Add(time.Duration(tick.Add(1)) * time.Second)
				if i%2 == 0 {
					next, fx, ok := s.Cancel(now, s.CurrentPeriodEnd, "user")
					return next, fx, ok, nil
				}
				next, fx, ok, err := s.Resume(now, "user", func(billing.Subscription) map[string]string { return nil })
				if errors.Is(err, billing.ErrNotResumable) {
					return s, billing.Effects{}, false, nil
				}
				return next, fx, ok, err
			})
			// Five losses in a row is possible among thirty writers at once;
			// the caller is told, and nothing is half-written.
			if err != nil && !errors.Is(err, billing.ErrStale) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	h, _ := bs.Subscriptions().History(ctx, "s1")
	got, _ := bs.Subscriptions().Get(ctx, "s1")
	if len(h) == 0 || got.Version != len(h)+1 || h[len(h)-1].To != got.Status {
		t.Fatalf("v%d %s after %d lines", got.Version, got.Status, len(h))
	}
	if err := svc.DrainNotices(ctx); err != nil {
		t.Fatal(err)
	}
	box.mu.Lock()
	defer box.mu.Unlock()
	if len(box.got) != len(h) {
		t.Fatalf("%d mails for %d changes: %v", len(box.got), len(h), box.got)
	}
}

func TestAMailTheMailerRefusedIsHandedOverByTheNextDrain(t *testing.T) {
	ctx := context.Background()
	svc, bs, box := newStoredService(t)
	if _, _, err := bs.Subscriptions().Create(ctx, billingtest.Plan("s1", "ann@x"), billing.Effects{}); err != nil {
		t.Fatal(err)
	}
	box.fail.Store(true)
	cancel := func(s billing.Subscription) (billing.Subscription, billing.Effects, bool, error) {
		next, fx, ok := s.Cancel(s.StartedAt, s.CurrentPeriodEnd, "user")
		return next, fx, ok, nil
	}
	sub, err := svc.Change(ctx, "s1", cancel)
	if err != nil || sub.Status != billing.StatusCanceled || box.failed.Load() == 0 {
		t.Fatalf("Change = %s, %v (mailer asked %d times); want canceled, the mail refused", sub.Status, err, box.failed.Load())
	}
	if p, _ := bs.Notices().Pending(ctx, 10); len(p) != 1 {
		t.Fatalf("outbox holds %d, want the refused mail", len(p))
	}
	// The same request again changes nothing and mails nothing more.
	if _, err := svc.Change(ctx, "s1", cancel); err != nil {
		t.Fatal(err)
	}
	box.fail.Store(false)
	for range 2 {
		if err := svc.DrainNotices(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if box.got["canceled:s1"] != 1 || len(box.got) != 1 {
		t.Fatalf("mailed %v; want the cancel's mail once", box.got)
	}
	if p, _ := bs.Notices().Pending(ctx, 10); len(p) != 0 {
		t.Fatalf("outbox still holds %d", len(p))
	}
}
