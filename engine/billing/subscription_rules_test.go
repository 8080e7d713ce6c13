package billing

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func rulePlan() Subscription {
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	return Subscription{ID: "s1", Email: "ann@x", Brand: "default", PlanCode: "glimpse_monthly", Status: StatusActive,
		MainPlan: true, StartedAt: start, CurrentPeriodStart: start, CurrentPeriodEnd: start.AddDate(0, 1, 0), DueAt: start.AddDate(0, 1, 0)}
}

func TestCancelThenResumeThenCancelAreThreeEventsEachOnce(t *testing.T) {
	s := rulePlan()
	s.NextPlanCode = "glimpse_yearly"
	now := s.StartedAt.Add(time.Hour)
	canceled, fx, ok := s.Cancel(now, s.CurrentPeriodEnd, "user")
	if !ok || canceled.Status != StatusCanceled || canceled.NextPlanCode != "" || !canceled.ExpiresAt.Equal(s.CurrentPeriodEnd) ||
		fx.Lines[0].ID != "s1/canceled" || fx.Notices[0].Data["dropped"] == "" {
		t.Fatalf("cancel: %+v %+v %v", canceled, fx, ok)
	}
	if _, _, ok := canceled.Cancel(now, s.CurrentPeriodEnd, "user"); ok {
		t.Fatal("a canceled plan was canceled again")
	}
	resumed, fx, ok, err := canceled.Resume(now.Add(time.Hour), "user", func(Subscription) map[string]string { return nil })
	if err != nil || !ok || resumed.Status != StatusActive || resumed.ExpiresAt != nil || !resumed.DueAt.Equal(s.CurrentPeriodEnd) ||
		fx.Lines[0].ID != fmt.Sprint("s1/resumed:", now.UnixNano()) {
		t.Fatalf("resume: %+v %+v %v %v", resumed, fx, ok, err)
	}
	if _, _, ok, err := resumed.Resume(now, "user", nil); ok || err != nil {
		t.Fatalf("resuming an active plan = %v, %v; want a no-op", ok, err)
	}
	_, fx2, _ := resumed.Cancel(now.Add(2*time.Hour), s.CurrentPeriodEnd, "user")
	if fx2.Lines[0].ID == "s1/canceled" || fx2.Notices[0].Key == "canceled:s1" {
		t.Fatalf("the second cancel has the first's keys: %+v", fx2)
	}
	expired := canceled
	if _, _, _, err := expired.Resume(s.CurrentPeriodEnd, "user", nil); !errors.Is(err, ErrNotResumable) {
		t.Fatalf("resuming at the period end = %v, want ErrNotResumable", err)
	}
}

func TestFinalizeIsOneAccounts(t *testing.T) {
	s := rulePlan()
	mine, fx, ok, err := s.Finalize("u1", s.StartedAt)
	if err != nil || !ok || mine.UserID != "u1" || fx.Lines[0].ID != "s1/finalized" {
		t.Fatalf("Finalize = %+v %+v %v %v", mine, fx, ok, err)
	}
	if _, _, ok, err := mine.Finalize("u1", s.StartedAt); ok || err != nil {
		t.Fatalf("again by the owner = %v, %v; want a no-op", ok, err)
	}
	if _, _, _, err := mine.Finalize("u2", s.StartedAt); !errors.Is(err, ErrAlreadyFinalized) {
		t.Fatalf("by another = %v, want ErrAlreadyFinalized", err)
	}
}

func TestAFreeMonthIsOncePerSubscription(t *testing.T) {
	s := rulePlan()
	given, _, ok, err := s.GiveFreeMonth("k1", s.CurrentPeriodEnd, s.StartedAt, "user")
	if want := s.CurrentPeriodEnd.AddDate(0, 1, 0); err != nil || !ok || !given.CurrentPeriodEnd.Equal(want) || !given.DueAt.Equal(want) {
		t.Fatalf("GiveFreeMonth = %+v %v %v", given, ok, err)
	}
	if _, _, ok, err := given.GiveFreeMonth("k1", given.CurrentPeriodEnd, s.StartedAt, "user"); ok || err != nil {
		t.Fatalf("the same key again = %v, %v; want a no-op", ok, err)
	}
	if _, _, _, err := given.GiveFreeMonth("k2", given.CurrentPeriodEnd, s.StartedAt, "user"); !errors.Is(err, ErrOfferUnavailable) {
		t.Fatalf("another key = %v, want ErrOfferUnavailable", err)
	}
	failing := rulePlan()
	failing.FailedAttempts = 1
	if _, _, _, err := failing.GiveFreeMonth("k1", failing.CurrentPeriodEnd, s.StartedAt, "user"); !errors.Is(err, ErrOfferUnavailable) {
		t.Fatalf("a plan whose payment fails = %v, want ErrOfferUnavailable", err)
	}
}

func TestAnExtensionKeyIsRememberedAndBounded(t *testing.T) {
	s := rulePlan()
	s.Status = StatusCanceled
	next, fx, ok := s.Extend("k0", 7, s.CurrentPeriodEnd, s.StartedAt, "staff:x")
	if want := s.CurrentPeriodEnd.AddDate(0, 0, 7); !ok || !next.CurrentPeriodEnd.Equal(want) || next.ExpiresAt == nil ||
		!next.ExpiresAt.Equal(want) || fx.Lines[0].Detail != "7 days" {
		t.Fatalf("Extend = %+v %+v %v", next, fx, ok)
	}
	if _, _, ok := next.Extend("k0", 7, next.CurrentPeriodEnd, s.StartedAt, "staff:x"); ok {
		t.Fatal("an extension key extended twice")
	}
	for i := 1; i <= 25; i++ {
		next, _, _ = next.Extend(fmt.Sprint("k", i), 1, next.CurrentPeriodEnd, s.StartedAt, "staff:x")
	}
	if len(next.Extensions) != maxExtensionKeys || next.Extensions[len(next.Extensions)-1] != "k25" {
		t.Fatalf("extensions kept: %v", next.Extensions)
	}
}

func TestCancelNowEndsAtOnce(t *testing.T) {
	s := rulePlan()
	now := s.StartedAt.Add(time.Hour)
	ended, fx, ok, err := s.CancelNow(now, "staff:x")
	if err != nil || !ok || ended.Status != StatusExpired || !ended.ExpiresAt.Equal(now) || !ended.DueAt.IsZero() ||
		fx.Lines[0].From != StatusActive || fx.Notices[0].Key != "canceled:s1:now" {
		t.Fatalf("CancelNow = %+v %+v %v %v", ended, fx, ok, err)
	}
	if _, _, ok, err := ended.CancelNow(now, "staff:x"); ok || err != nil {
		t.Fatalf("ending an ended plan = %v, %v; want a no-op", ok, err)
	}
	addOn := rulePlan()
	addOn.MainPlan = false
	if _, _, _, err := addOn.CancelNow(now, "staff:x"); !errors.Is(err, ErrNotAPlan) {
		t.Fatalf("an add-on = %v, want ErrNotAPlan", err)
	}
}
