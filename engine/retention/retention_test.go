package retention

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/billing"
	"glimpse/engine/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.Main(m)) }

// edge is one move of the graph: from a step, a move, where it leads.
type edge struct {
	from Step
	move Move
	to   Step
}

// The whole step graph for each plan state.
func TestStepGraphPerPlan(t *testing.T) {
	common := []edge{
		{StepBenefits, MoveStay, Close},
		{StepBenefits, MoveForward, StepPleaseWait},
		{StepPleaseWait, MoveForward, StepPlan},
		{StepPlan, MoveBack, StepBenefits},
		{StepMadeTheMost, MoveStay, Close},
		{StepMadeTheMost, MoveForward, StepReason},
		{StepMadeTheMost, MoveBack, StepPlan},
		{StepReview, MoveBack, StepReason},
		{StepCancel, MoveStay, Close},
	}
	for s := range Steps {
		common = append(common, edge{Step(s), MoveNow, StepCancel}) // click to cancel, from every step
	}
	cases := []struct {
		name   string
		family string
		edges  []edge
	}{
		{"weekly", billing.FamilyWeekly, []edge{
			{StepPlan, MoveChange, StepPlanChange},
			{StepPlan, MoveCancel, StepMadeTheMost},
			{StepPlanChange, MoveForward, StepMadeTheMost},
			{StepPlanChange, MoveBack, StepPlan},
			{StepReason, MoveBack, StepMadeTheMost},
			{StepReview, MoveForward, StepGiftMonth},
			{StepGiftMonth, MoveForward, StepCancel},
			{StepGiftMonth, MoveBack, StepReview},
			{StepCancel, MoveBack, StepGiftMonth},
		}},
		{"3-month", billing.FamilyThreeMonth, []edge{
			{StepPlan, MoveChange, StepPlanChange},
			{StepPlan, MoveCancel, StepMadeTheMost},
			{StepReview, MoveForward, StepGiftMonth},
			{StepCancel, MoveBack, StepGiftMonth},
		}},
		{"premium one-month", billing.FamilyPremiumOneMonth, []edge{
			{StepPlan, MoveChange, StepMadeTheMost},
			{StepPlan, MoveCancel, StepReason},
			{StepReason, MoveBack, StepPlan},
			{StepReview, MoveForward, StepGiftMonth},
			{StepCancel, MoveBack, StepGiftMonth},
		}},
		{"gift", billing.FamilyGiftOneMonth, []edge{
			{StepPlan, MoveChange, StepPlanChange},
			{StepPlan, MoveCancel, StepMadeTheMost},
			{StepReview, MoveForward, StepCancel},
			{StepCancel, MoveBack, StepReview},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Situation{Family: tc.family, Reason: "other"}
			for _, e := range append(append([]edge{}, common...), tc.edges...) {
				if got := Next(e.from, e.move, s); got != e.to {
					t.Errorf("%s --%s--> %d, want %d", e.from.Name(), e.move, got, e.to)
				}
			}
		})
	}
}

func TestSurveyReasonsAndOffers(t *testing.T) {
	if len(Reasons) != 8 || Reasons[0] != ReasonKeep {
		t.Fatalf("reasons: %v", Reasons)
	}
	s := Situation{Family: billing.FamilyWeekly, Reason: ReasonKeep}
	if got := Next(StepReason, MoveForward, s); got != Close {
		t.Fatalf("keeping the membership: %d, want Close", got)
	}
	s.Reason = "cutting_expenses"
	if got := Next(StepReason, MoveForward, s); got != StepReview {
		t.Fatalf("a reason: %d", got)
	}
	if ValidReason("nope") || !ValidReason("other") {
		t.Fatal("ValidReason")
	}
	// A subscription that already had its free month skips the offer.
	s.GiftUsed = true
	if got := Next(StepReview, MoveForward, s); got != StepCancel {
		t.Fatalf("gift used: %d", got)
	}
	if got := Next(StepCancel, MoveBack, s); got != StepReview {
		t.Fatalf("gift used, back: %d", got)
	}
	// An offer experiment routes by reason (the subscriber's variants).
	s.GiftUsed = false
	s.Offers = map[string]string{SlotReason("cutting_expenses"): OfferPlanChange, SlotReason("other"): OfferSkip}
	if got := Next(StepReview, MoveForward, s); got != StepPlanChange {
		t.Fatalf("routed to the plan change: %d", got)
	}
	s.Reason = "other"
	if got := Next(StepReview, MoveForward, s); got != StepCancel {
		t.Fatalf("routed to no offer: %d", got)
	}
	// An unknown offer id is the spec's.
	s.Offers[SlotReason("other")] = "bogus"
	if got := Next(StepReview, MoveForward, s); got != StepGiftMonth {
		t.Fatalf("unknown offer: %d", got)
	}
}

// The offer steps show the subscriber's slot offers: a step whose offer
// they cannot take (or none) is skipped, both ways.
func TestOfferSlots(t *testing.T) {
	s := Situation{Family: billing.FamilyThreeMonth}
	if s.OfferAt(StepPlanChange) != OfferPlanChange || s.OfferAt(StepGiftMonth) != OfferGiftMonth || s.OfferAt(StepPlan) != OfferNone {
		t.Fatal("defaults")
	}
	s.Offers = map[string]string{SlotStep(StepPlanChange): OfferGiftMonth, SlotStep(StepGiftMonth): OfferSkip}
	if s.OfferAt(StepPlanChange) != OfferGiftMonth {
		t.Fatal("step 3's variant")
	}
	if got := Next(StepPlan, MoveChange, s); got != StepPlanChange {
		t.Fatalf("change: %d", got)
	}
	s.Reason = "other"
	if got := Next(StepReview, MoveForward, s); got != StepCancel {
		t.Fatalf("step 7 shows none, after the review: %d", got)
	}
	if got := Next(StepCancel, MoveBack, s); got != StepReview {
		t.Fatalf("step 7 shows none, back: %d", got)
	}
	// A premium holder may take the free month on step 3.
	s.Family = billing.FamilyPremiumOneMonth
	if got := Next(StepPlan, MoveChange, s); got != StepPlanChange {
		t.Fatalf("premium, gift on step 3: %d", got)
	}
	s.GiftUsed = true
	if got := Next(StepPlan, MoveChange, s); got != StepMadeTheMost {
		t.Fatalf("premium, gift used: %d", got)
	}
}

func TestAttemptRecordsStepsAnswersAndOutcome(t *testing.T) {
	st := storetest.Open(t)
	clock := engine.NewManualClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	svc := NewService(st.DB(), clock)
	ctx := context.Background()
	a, err := svc.Start(ctx, Attempt{UserID: "u1", SubscriptionID: "sub_1", PlanCode: "glimpse_weekly_trial", Entry: "my_plan"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Get(ctx, a.ID, "someone else"); err != ErrNoAttempt {
		t.Fatalf("another user's attempt: %v", err)
	}
	for _, e := range []Event{
		{Kind: EventReached, Step: 0}, {Kind: EventReached, Step: 5},
		{Kind: EventAnswer, Step: 5, Reason: "other"},
		{Kind: EventAnswer, Step: 6, Stars: 4, Review: "Fine"},
		{Kind: EventReached, Step: 7}, {Kind: EventOfferShown, Step: 7, Offer: OfferGiftMonth},
		{Kind: EventOutcome, Step: 8, Outcome: OutcomeCanceled},
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
	if len(sum.Reached) != 3 || sum.Reached[1].Step != StepReason || sum.Reason != "other" || sum.Stars != 4 ||
		sum.Review != "Fine" || len(sum.OffersShown) != 1 || sum.Outcome != OutcomeCanceled {
		t.Fatalf("summary: %+v", sum)
	}
}

// TestConcurrentRecordsEachTakeANumber: events of one attempt recorded at
// once each get their own number (a unique insert), and the summary reads
// them all by _id.
func TestConcurrentRecordsEachTakeANumber(t *testing.T) {
	st := storetest.Open(t)
	clock := engine.NewManualClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	svc := NewService(st.DB(), clock)
	ctx := context.Background()
	a, err := svc.Start(ctx, Attempt{UserID: "u1", SubscriptionID: "sub_1", PlanCode: "glimpse_weekly_trial", Entry: "my_plan"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 10
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() { errs <- svc.Record(ctx, a, Event{Kind: EventReached, Step: i}) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	events, err := svc.events(ctx, a.ID)
	if err != nil || len(events) != n {
		t.Fatalf("%d events read, want %d (%v)", len(events), n, err)
	}
}

// TestOfUserReadsTheSubscribersList: a subscriber's attempts are found
// through their list, newest first; another subscriber's are not; an
// attempt written before lists existed is listed once at start
// (ListExistingAttempts, idempotent), and a listed attempt whose write never
// happened is skipped.
func TestOfUserReadsTheSubscribersList(t *testing.T) {
	st := storetest.Open(t)
	clock := engine.NewManualClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	svc := NewService(st.DB(), clock)
	ctx := context.Background()
	first, err := svc.Start(ctx, Attempt{UserID: "u1", SubscriptionID: "sub_1", Entry: "my_plan"})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	second, err := svc.Start(ctx, Attempt{UserID: "u1", SubscriptionID: "sub_1", Entry: "mail"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Start(ctx, Attempt{UserID: "u2", SubscriptionID: "sub_2"}); err != nil {
		t.Fatal(err)
	}
	// Written by an older release, with no list entry.
	older := Attempt{ID: "older", UserID: "u1", SubscriptionID: "sub_1", StartedAt: clock.Now().Add(-48 * time.Hour)}
	if _, err := st.DB().Collection(AttemptsCollection).InsertOne(ctx, older); err != nil {
		t.Fatal(err)
	}
	// Listed by a start that stopped before writing the attempt.
	if err := svc.byUser.Add(ctx, "u1", "never-written"); err != nil {
		t.Fatal(err)
	}
	ids := func() []string {
		t.Helper()
		sums, err := svc.OfUser(ctx, "u1")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range sums {
			out = append(out, s.Attempt.ID)
		}
		return out
	}
	if got := ids(); len(got) != 2 || got[0] != second.ID || got[1] != first.ID {
		t.Fatalf("before listing existing attempts: %v, want [%s %s]", got, second.ID, first.ID)
	}
	for range 2 {
		if err := ListExistingAttempts(ctx, st.DB(), "settings"); err != nil {
			t.Fatal(err)
		}
	}
	if got := ids(); len(got) != 3 || got[0] != second.ID || got[1] != first.ID || got[2] != "older" {
		t.Fatalf("after listing existing attempts: %v, want [%s %s older]", got, second.ID, first.ID)
	}
}
