package billing

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"glimpse/engine"
)

// A cancel link is spent by one tap of many sent together (one conditional
// update wins), its page then reads as used with the plan canceled, and erasing
// the address deletes the link (#32 item 10).
func TestACancelLinkIsSpentOnceSaysSoAndIsErased(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	end := start.Add(6 * 24 * time.Hour)
	if err := f.svc.Put(ctx, Subscription{ID: "sub-ann", Email: "ann@example.com", Bundle: "glimpse.web", Brand: "default",
		PlanCode: "glimpse_weekly_trial", Status: StatusActive, MainPlan: true, StartedAt: start.Add(-24 * time.Hour),
		CurrentPeriodStart: start.Add(-24 * time.Hour), CurrentPeriodEnd: end, DueAt: end}); err != nil {
		t.Fatal(err)
	}
	token, err := f.svc.NewCancelLink(ctx, "ann@example.com", "", "glimpse.web", CancelLinkLifetime)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := f.svc.CancelLinkView(ctx, token, "glimpse.web"); err != nil || v.State != LinkLive || !v.Running || !v.AccessEnds.Equal(end) {
		t.Fatalf("before the tap: %+v %v", v, err)
	}
	if v, _ := f.svc.CancelLinkView(ctx, token, "other.bundle"); v.State != LinkUnknown {
		t.Fatalf("another brand's page: %+v", v)
	}
	const n = 8
	var wg sync.WaitGroup
	wins := make(chan bool, n)
	for range n {
		wg.Go(func() {
			done, err := f.svc.CancelByLink(ctx, token, "glimpse.web")
			if err != nil {
				t.Error(err)
			}
			wins <- done.Canceled
		})
	}
	wg.Wait()
	close(wins)
	won := 0
	for w := range wins {
		if w {
			won++
		}
	}
	if won != 1 {
		t.Fatalf("%d taps canceled, want 1", won)
	}
	v, err := f.svc.CancelLinkView(ctx, token, "glimpse.web")
	if err != nil || v.State != LinkUsed || !v.Canceled || v.Running || !v.AccessEnds.Equal(end) {
		t.Fatalf("after the tap: %+v %v", v, err)
	}
	if err := f.svc.EraseSubscriber(ctx, nil, []string{"ann@example.com"}, start); err != nil {
		t.Fatal(err)
	}
	if l, err := f.svc.st.CancelLinks().Get(ctx, engine.HashToken(token)); !errors.Is(err, ErrNoCancelLink) {
		t.Fatalf("the cancel link is left: %+v, %v", l, err)
	}
}

// An expired link's page says so for a week, and then the sweep forgets it.
func TestAnExpiredCancelLinkIsSweptAfterItsGrace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	token, err := f.svc.NewCancelLink(ctx, "ann@example.com", "", "glimpse.web", CancelLinkLifetime)
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Set(start.Add(CancelLinkLifetime + CancelLinkGrace - time.Minute))
	if _, err := f.svc.SweepLedger(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := f.svc.CancelLinkView(ctx, token, "glimpse.web"); err != nil || v.State != LinkExpired {
		t.Fatalf("within its grace: %+v %v", v, err)
	}
	f.clock.Set(start.Add(CancelLinkLifetime + CancelLinkGrace + time.Minute))
	if n, err := f.svc.SweepLedger(ctx); err != nil || n != 1 {
		t.Fatalf("swept %d, %v; want the link", n, err)
	}
	if v, err := f.svc.CancelLinkView(ctx, token, "glimpse.web"); err != nil || v.State != LinkUnknown {
		t.Fatalf("after the sweep: %+v %v", v, err)
	}
}
