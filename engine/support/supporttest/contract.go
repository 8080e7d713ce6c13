// Package supporttest is the contract every implementation of
// support.AuditLog keeps, run against each store by its own tests.
package supporttest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"glimpse/engine/store/contract"
	"glimpse/engine/support"
)

// Run runs the contract against stores made by open, one per call.
func Run(t *testing.T, open func(t *testing.T) support.AuditLog) {
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	ctx := context.Background()
	entry := func(at time.Time, subscriber, reason string) support.Entry {
		return support.Entry{ID: support.EntryID(at), At: at, Staff: "sue@glimpse.test", Action: support.ActionRefund,
			Subscriber: subscriber, Reason: reason, Outcome: support.OutcomeDone}
	}
	reasons := func(es []support.Entry) string {
		var out []string
		for _, e := range es {
			out = append(out, e.Reason)
		}
		return fmt.Sprint(out)
	}

	t.Run("ARoundTripKeepsEveryField", func(t *testing.T) {
		s := open(t)
		want := support.Entry{ID: support.EntryID(t0), At: t0, Staff: "sue@glimpse.test", Action: support.ActionExtend,
			Subscriber: "ann@example.com", Target: "sub-1", Reason: "Asked by mail", Detail: "7 days",
			Outcome: support.OutcomeFailed, Problem: "No plan to extend.", Intent: "00000000000000000001-abcd"}
		contract.Must(t, s.Append(ctx, want))
		got, err := s.NewestOf(ctx, "ann@example.com", 10)
		if err != nil || len(got) != 1 || got[0] != want {
			t.Fatalf("NewestOf = %+v, %v; wrote %+v", got, err, want)
		}
		if got, err := s.Newest(ctx, 10); err != nil || len(got) != 1 || got[0] != want {
			t.Fatalf("Newest = %+v, %v; wrote %+v", got, err, want)
		}
	})

	t.Run("NewestIsNewestFirstAcrossMonthsAndLimited", func(t *testing.T) {
		s := open(t)
		at := []time.Time{t0.AddDate(0, -2, 0), t0.AddDate(0, -1, 1), t0.Add(-time.Minute), t0, t0.Add(48 * time.Hour)}
		for i, when := range at {
			who := "ann@example.com"
			if i%2 == 1 {
				who = "bob@example.com"
			}
			contract.Must(t, s.Append(ctx, entry(when, who, fmt.Sprint("reason ", i))))
		}
		contract.Must(t, s.Append(ctx, entry(t0.Add(time.Hour), "", "no subscriber")))
		if got, err := s.Newest(ctx, 3); err != nil || reasons(got) != "[reason 4 no subscriber reason 3]" {
			t.Fatalf("Newest(3) = %s, %v", reasons(got), err)
		}
		if got, err := s.Newest(ctx, 50); err != nil || len(got) != 6 {
			t.Fatalf("Newest(50) = %s, %v", reasons(got), err)
		}
		if got, err := s.NewestOf(ctx, "bob@example.com", 50); err != nil || reasons(got) != "[reason 3 reason 1]" {
			t.Fatalf("NewestOf(bob) = %s, %v", reasons(got), err)
		}
		if got, err := s.NewestOf(ctx, "ann@example.com", 2); err != nil || reasons(got) != "[reason 4 reason 2]" {
			t.Fatalf("NewestOf(ann, 2) = %s, %v", reasons(got), err)
		}
	})

	t.Run("AnEntryIsNeverReplaced", func(t *testing.T) {
		s := open(t)
		e := entry(t0, "ann@example.com", "first")
		contract.Must(t, s.Append(ctx, e))
		e.Reason, e.Outcome = "rewritten", support.OutcomeFailed
		if err := s.Append(ctx, e); !errors.Is(err, support.ErrEntryExists) {
			t.Fatalf("a second Append of %s = %v, want ErrEntryExists", e.ID, err)
		}
		if got, _ := s.Newest(ctx, 10); reasons(got) != "[first]" || got[0].Outcome != support.OutcomeDone {
			t.Fatalf("the log holds %+v", got)
		}
	})

	t.Run("AppendsSentTogetherAreAllKept", func(t *testing.T) {
		s := open(t)
		const n = 30
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				// The same instant for all: the ids' random tails keep them apart.
				errs[i] = s.Append(ctx, entry(t0, "ann@example.com", fmt.Sprint(i)))
			}()
		}
		close(start)
		wg.Wait()
		for _, err := range errs {
			contract.Must(t, err)
		}
		for _, read := range []func() ([]support.Entry, error){
			func() ([]support.Entry, error) { return s.Newest(ctx, 100) },
			func() ([]support.Entry, error) { return s.NewestOf(ctx, "ann@example.com", 100) },
		} {
			if got, err := read(); err != nil || len(got) != n {
				t.Fatalf("%d of %d entries read back (%v)", len(got), n, err)
			}
		}
	})

	t.Run("OfAppendsOfOneIDSentTogetherOneWins", func(t *testing.T) {
		s := open(t)
		const n = 20
		id := support.EntryID(t0)
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				e := entry(t0, "ann@example.com", fmt.Sprint(i))
				e.ID = id
				errs[i] = s.Append(ctx, e)
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for i, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, support.ErrEntryExists):
				t.Fatalf("append %d: %v", i, err)
			}
		}
		if got, _ := s.Newest(ctx, 100); won != 1 || len(got) != 1 {
			t.Fatalf("%d appends of one id won, %d entries stored; want 1 and 1", won, len(got))
		}
	})
}
