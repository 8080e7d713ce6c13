package billing

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"glimpse/engine"
)

// errCrash is the process stopping between two of an erasure's writes.
var errCrash = errors.New("stopped here")

// crashing is billing's store whose erasure writes fail from the nth on
// (the process stopped there): the subscriptions' lines and state, the
// receipts, the refunds and the charges.
type crashing struct {
	Store
	left *atomic.Int64
}

func (c crashing) write() error {
	if c.left.Add(-1) < 0 {
		return errCrash
	}
	return nil
}

func (c crashing) Subscriptions() Subscriptions { return crashingSubs{c.Store.Subscriptions(), c} }
func (c crashing) Receipts() Receipts           { return crashingReceipts{c.Store.Receipts(), c} }
func (c crashing) Refunds() Refunds             { return crashingRefunds{c.Store.Refunds(), c} }
func (c crashing) Ledger() Ledger               { return crashingLedger{c.Store.Ledger(), c} }

type crashingSubs struct {
	Subscriptions
	c crashing
}

func (s crashingSubs) EraseLines(ctx context.Context, id string, personal []string) error {
	if err := s.c.write(); err != nil {
		return err
	}
	return s.Subscriptions.EraseLines(ctx, id, personal)
}

func (s crashingSubs) Apply(ctx context.Context, next Subscription, fx Effects) (Subscription, error) {
	if err := s.c.write(); err != nil {
		return Subscription{}, err
	}
	return s.Subscriptions.Apply(ctx, next, fx)
}

type crashingReceipts struct {
	Receipts
	c crashing
}

func (r crashingReceipts) Anonymise(ctx context.Context, number string, retainUntil time.Time) error {
	if err := r.c.write(); err != nil {
		return err
	}
	return r.Receipts.Anonymise(ctx, number, retainUntil)
}

type crashingRefunds struct {
	Refunds
	c crashing
}

func (r crashingRefunds) Anonymise(ctx context.Context, id string, retainUntil time.Time) error {
	if err := r.c.write(); err != nil {
		return err
	}
	return r.Refunds.Anonymise(ctx, id, retainUntil)
}

type crashingLedger struct {
	Ledger
	c crashing
}

func (l crashingLedger) Erase(ctx context.Context, id, newKey string, retainUntil time.Time) error {
	if err := l.c.write(); err != nil {
		return err
	}
	return l.Ledger.Erase(ctx, id, newKey, retainUntil)
}

// erasedState is what a subscriber's erasure leaves of their billing.
type erasedState struct {
	Subs     []Subscription
	Lines    [][]Change
	Charges  []Charge
	Receipts []Receipt
	Refunds  [][]Refund
}

func (f fixture) erasedState(t *testing.T, subIDs []string) erasedState {
	t.Helper()
	ctx := context.Background()
	var s erasedState
	for _, id := range subIDs {
		sub, err := f.svc.Subscription(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		sub.Version = 0 // a retried write bumps it: not part of what is kept
		lines, err := f.svc.History(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		s.Subs, s.Lines = append(s.Subs, sub), append(s.Lines, lines)
	}
	var err error
	if s.Charges, err = f.svc.ChargesOf(ctx, subIDs); err != nil {
		t.Fatal(err)
	}
	if s.Receipts, err = f.svc.st.Receipts().OfSubscriptions(ctx, subIDs); err != nil {
		t.Fatal(err)
	}
	for _, ch := range s.Charges {
		refunds, err := f.svc.RefundsOf(ctx, ch.ID)
		if err != nil {
			t.Fatal(err)
		}
		s.Refunds = append(s.Refunds, refunds)
	}
	return s
}

// TestAnErasureStoppedAtAnyWriteIsFinishedByARerun: an erasure stopped
// after any of its writes and run again leaves what one run leaves: every
// charge kept under its id with the hash of its key, each once (nothing
// moves, so nothing is left behind or copied), receipts and refunds
// stripped, the subscriptions anonymised last.
func TestAnErasureStoppedAtAnyWriteIsFinishedByARerun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	retain := start.AddDate(8, 0, 0)
	setUp := func(t *testing.T) (fixture, []Subscription, Charge) {
		f := newFixture(t)
		addOn, ch := f.withAddOn(t)
		if _, err := f.svc.Refund(ctx, RefundRequest{ChargeID: ch.ID, Amount: 500, Reason: "ann@example.com asked", By: "staff:s1",
			Key: "part"}); err != nil {
			t.Fatal(err)
		}
		main, err := f.svc.Subscription(ctx, "main-u1")
		if err != nil {
			t.Fatal(err)
		}
		return f, []Subscription{main, addOn}, ch
	}
	erase := func(svc *Service, subs []Subscription) error {
		return svc.EraseSubscriber(ctx, subs, []string{"ann@example.com"}, retain)
	}
	ids := []string{"main-u1", ""}

	// One run, as the reference.
	f, subs, ch := setUp(t)
	ids[1] = subs[1].ID
	if err := erase(f.svc, subs); err != nil {
		t.Fatal(err)
	}
	once := f.erasedState(t, ids)
	if len(once.Charges) != 1 || once.Charges[0].ID != ch.ID || once.Charges[0].Key != "erased:"+engine.HashToken(ch.Key) ||
		!once.Charges[0].Erased || !once.Charges[0].RetainUntil.Equal(retain) {
		t.Fatalf("one run: charges %+v", once.Charges)
	}
	if len(once.Receipts) != 1 || once.Receipts[0].Email != ErasedEmail || len(once.Refunds) != 1 || len(once.Refunds[0]) != 1 ||
		once.Refunds[0][0].Reason != "erased" {
		t.Fatalf("one run: receipts %+v, refunds %+v", once.Receipts, once.Refunds)
	}

	for n := int64(0); ; n++ {
		f, subs, _ := setUp(t)
		left := &atomic.Int64{}
		left.Store(n)
		stopped := NewService(f.clock, Options{Store: crashing{f.svc.st, left}, Provider: f.svc.provider,
			Notify: f.notices.add})
		err := erase(stopped, subs)
		if err != nil && !errors.Is(err, errCrash) {
			t.Fatalf("stopped at write %d: %v", n, err)
		}
		if err := erase(f.svc, subs); err != nil {
			t.Fatalf("rerun after write %d: %v", n, err)
		}
		got := f.erasedState(t, ids)
		// The fixtures differ only in what the sandbox made up: the
		// provider's references.
		for i := range got.Charges {
			if i < len(once.Charges) {
				got.Charges[i].Reference = once.Charges[i].Reference
			}
		}
		for i := range got.Refunds {
			for j := range got.Refunds[i] {
				if i < len(once.Refunds) && j < len(once.Refunds[i]) {
					got.Refunds[i][j].Reference = once.Refunds[i][j].Reference
				}
			}
		}
		if !reflect.DeepEqual(got.Charges, once.Charges) || !reflect.DeepEqual(got.Subs, once.Subs) ||
			!reflect.DeepEqual(got.Refunds, once.Refunds) || !reflect.DeepEqual(got.Receipts, once.Receipts) ||
			!reflect.DeepEqual(got.Lines, once.Lines) {
			t.Fatalf("stopped after %d writes, then rerun:\n%+v\nwant one run's\n%+v", n, got, once)
		}
		if err == nil {
			break // the erasure finished before a write failed: every stop was tried
		}
	}
}
