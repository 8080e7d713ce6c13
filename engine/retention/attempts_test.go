package retention_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/retention"
	"glimpse/engine/store/sqlstore"
	"glimpse/engine/store/storetest"
)

func newService(t *testing.T) (*retention.Service, *engine.ManualClock) {
	t.Helper()
	clock := engine.NewManualClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	return retention.NewService(sqlstore.NewAttempts(storetest.OpenSQL(t)), clock), clock
}

func TestAttemptRecordsStepsAnswersAndOutcome(t *testing.T) {
	t.Parallel()
	svc, clock := newService(t)
	ctx := context.Background()
	a, started, err := svc.Start(ctx, retention.Attempt{UserID: "u1", SubscriptionID: "sub_1", PlanCode: "glimpse_weekly_trial", Entry: "my_plan"})
	if err != nil || !started {
		t.Fatalf("start: %v, started %v", err, started)
	}
	if _, err := svc.Get(ctx, a.ID, "someone else"); err != retention.ErrNoAttempt {
		t.Fatalf("another user's attempt: %v", err)
	}
	for _, e := range []retention.Event{
		{Kind: retention.EventReached, Step: 0}, {Kind: retention.EventReached, Step: 5},
		{Kind: retention.EventAnswer, Step: 5, Reason: "other"},
		{Kind: retention.EventAnswer, Step: 6, Stars: 4, Review: "Fine"},
		{Kind: retention.EventReached, Step: 7}, {Kind: retention.EventOfferShown, Step: 7, Offer: retention.OfferGiftMonth},
		{Kind: retention.EventOutcome, Step: 8, Outcome: retention.OutcomeCanceled},
	} {
		clock.Advance(time.Second)
		if err := svc.Record(ctx, a, e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := svc.Get(ctx, a.ID, "u1")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := svc.Summary(ctx, got)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Reached) != 3 || sum.Reached[1].Step != retention.StepReason || sum.Reason != "other" || sum.Stars != 4 ||
		sum.Review != "Fine" || len(sum.OffersShown) != 1 || sum.Outcome != retention.OutcomeCanceled {
		t.Fatalf("summary: %+v", sum)
	}
	// The outcome ended it: opening the flow again is a new attempt.
	if next, started, err := svc.Start(ctx, retention.Attempt{UserID: "u1", SubscriptionID: "sub_1"}); err != nil || !started || next.ID == a.ID {
		t.Fatalf("after the outcome: %s, started %v, %v", next.ID, started, err)
	}
}

// TestStartTwiceIsOneAttempt: opening the flow twice (a reload, a second
// tab, two requests at once) resumes the open attempt; after ResumeWithin
// it is a new one.
func TestStartTwiceIsOneAttempt(t *testing.T) {
	t.Parallel()
	svc, clock := newService(t)
	ctx := context.Background()
	const n = 8
	var wg sync.WaitGroup
	got := make(chan retention.Attempt, n)
	for range n {
		wg.Go(func() {
			a, _, err := svc.Start(ctx, retention.Attempt{UserID: "u1", SubscriptionID: "sub_1", Entry: "my_plan"})
			if err != nil {
				t.Error(err)
			}
			got <- a
		})
	}
	wg.Wait()
	close(got)
	ids := map[string]bool{}
	for a := range got {
		ids[a.ID] = true
	}
	if sums, err := svc.OfUser(ctx, "u1"); err != nil || len(ids) != 1 || len(sums) != 1 {
		t.Fatalf("%d attempts returned, %d stored (%v); want one", len(ids), len(sums), err)
	}
	clock.Advance(retention.ResumeWithin)
	if _, started, err := svc.Start(ctx, retention.Attempt{UserID: "u1", SubscriptionID: "sub_1"}); err != nil || !started {
		t.Fatalf("after ResumeWithin: started %v, %v", started, err)
	}
}

// TestConcurrentRecordsAreAllKept: events of one attempt recorded at once
// are all in its summary.
func TestConcurrentRecordsAreAllKept(t *testing.T) {
	t.Parallel()
	svc, _ := newService(t)
	ctx := context.Background()
	a, _, err := svc.Start(ctx, retention.Attempt{UserID: "u1", SubscriptionID: "sub_1", PlanCode: "glimpse_weekly_trial", Entry: "my_plan"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 10
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() { errs <- svc.Record(ctx, a, retention.Event{Kind: retention.EventReached, Step: i}) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	sum, err := svc.Summary(ctx, a)
	if err != nil || len(sum.Reached) != n {
		t.Fatalf("%d events read, want %d (%v)", len(sum.Reached), n, err)
	}
}

// TestOfUserIsTheSubscribersAttemptsNewestFirst: a subscriber's attempts
// come with what happened in each, newest first; another subscriber's are
// not among them.
func TestOfUserIsTheSubscribersAttemptsNewestFirst(t *testing.T) {
	t.Parallel()
	svc, clock := newService(t)
	ctx := context.Background()
	first, _, err := svc.Start(ctx, retention.Attempt{UserID: "u1", SubscriptionID: "sub_1", Entry: "my_plan"})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Record(ctx, first, retention.Event{Kind: retention.EventOutcome, Outcome: retention.OutcomeStayed, Exit: "stay"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	second, _, err := svc.Start(ctx, retention.Attempt{UserID: "u1", SubscriptionID: "sub_1", Entry: "mail"})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Record(ctx, second, retention.Event{Kind: retention.EventAnswer, Reason: "other"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Start(ctx, retention.Attempt{UserID: "u2", SubscriptionID: "sub_2"}); err != nil {
		t.Fatal(err)
	}
	sums, err := svc.OfUser(ctx, "u1")
	if err != nil || len(sums) != 2 || sums[0].ID != second.ID || sums[1].ID != first.ID {
		t.Fatalf("OfUser = %+v, %v; want [%s %s]", sums, err, second.ID, first.ID)
	}
	if sums[0].Reason != "other" || sums[1].Outcome != retention.OutcomeStayed || sums[1].Exit != "stay" {
		t.Fatalf("summaries: %+v", sums)
	}
}

// TestEraseUserDeletesTheSubscribersAttemptsAndSteps: EraseUser deletes
// every attempt of the subscriber with all its events (run twice, as after
// a failure in a later step of the erasure, it has nothing left to do);
// another subscriber's attempts stay whole.
func TestEraseUserDeletesTheSubscribersAttemptsAndSteps(t *testing.T) {
	t.Parallel()
	svc, clock := newService(t)
	ctx := context.Background()
	start := func(userID string, events int) retention.Attempt {
		t.Helper()
		clock.Advance(2 * retention.ResumeWithin) // each its own attempt
		a, _, err := svc.Start(ctx, retention.Attempt{UserID: userID, SubscriptionID: "sub_" + userID, Entry: "my_plan"})
		if err != nil {
			t.Fatal(err)
		}
		for i := range events {
			if err := svc.Record(ctx, a, retention.Event{Kind: retention.EventAnswer, Step: i, Review: "written by " + userID}); err != nil {
				t.Fatal(err)
			}
		}
		return a
	}
	mine := []retention.Attempt{start("u1", 3), start("u1", 0), start("u1", 2)}
	theirs := start("u2", 2)
	for range 2 {
		if err := svc.EraseUser(ctx, "u1"); err != nil {
			t.Fatal(err)
		}
	}
	if sums, err := svc.OfUser(ctx, "u1"); err != nil || len(sums) != 0 {
		t.Errorf("left after EraseUser: %+v, %v", sums, err)
	}
	for _, a := range mine {
		if _, err := svc.Get(ctx, a.ID, "u1"); err != retention.ErrNoAttempt {
			t.Errorf("attempt %s: %v", a.ID, err)
		}
		if sum, err := svc.Summary(ctx, a); err != nil || sum.Review != "" {
			t.Errorf("events of %s are left: %+v, %v", a.ID, sum, err)
		}
	}
	sums, err := svc.OfUser(ctx, "u2")
	if err != nil || len(sums) != 1 || sums[0].ID != theirs.ID || sums[0].Review != "written by u2" {
		t.Errorf("the other subscriber's attempts: %+v, %v", sums, err)
	}
}
