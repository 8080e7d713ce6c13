package app_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/billing"
	"glimpse/engine/mail"
	"glimpse/engine/store/storetest"
)

// TestSeedScaleWritesWhatTheAppReads: a small scale seed gives each
// subscriber an account (an active one signs in), a subscription found by
// it (billing's store), and history lines and charges found by the
// subscription; a renewal pass over the seeded base then adds one of each
// per renewal.
func TestSeedScaleWritesWhatTheAppReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := engine.NewManualClock(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC))
	a, err := app.Open(ctx, load(t, nil), slog.New(slog.DiscardHandler), clock, storetest.Open(t))
	if err != nil {
		t.Fatal(err)
	}
	const n = 25 // 0-7 canceled, 8-14 expired, 15-24 active
	report, err := app.SeedScale(ctx, a, n, io.Discard)
	if err != nil || report.Subscribers != n {
		t.Fatalf("seeded %d subscribers (%v), want %d", report.Subscribers, err, n)
	}
	// Accounts and sessions go through auth's store, one of each per
	// subscriber.
	if report.Documents["users"] != n || report.Documents["sessions"] != n {
		t.Fatalf("seeded %d users and %d sessions, want %d of each", report.Documents["users"], report.Documents["sessions"], n)
	}
	if u, err := a.Auth.UserByEmail(ctx, app.ScaleEmail(0)); err != nil {
		t.Fatal(err)
	} else if sessions, err := a.Auth.Sessions(ctx, u.ID); err != nil || len(sessions) != 1 {
		t.Fatalf("subscriber 0's seeded sessions: %d (%v), want 1", len(sessions), err)
	}
	subscription := func(i int) billing.Subscription {
		t.Helper()
		if i >= 15 { // the active ones sign in; an ended plan is refused at sign-in
			if _, err := a.Auth.SignIn(ctx, app.ScaleEmail(i), app.ScalePassword, "127.0.0.1", "glimpse.web"); err != nil {
				t.Fatalf("subscriber %d cannot sign in: %v", i, err)
			}
		}
		user, err := a.Auth.UserByEmail(ctx, app.ScaleEmail(i))
		if err != nil {
			t.Fatal(err)
		}
		subs, err := a.Billing.ForUser(ctx, user.ID)
		if err != nil || len(subs) != 1 {
			t.Fatalf("subscriber %d has %d subscriptions (%v), want 1", i, len(subs), err)
		}
		// The retention job counts from the account's creation, as for an
		// account made through auth.
		if used, found, err := a.Privacy.LastActive(ctx, user.ID); err != nil || !found || used.IsZero() {
			t.Fatalf("subscriber %d: no record of use (%v, %v)", i, found, err)
		}
		return subs[0]
	}
	filed := func(sub billing.Subscription) (history, charges int) {
		t.Helper()
		lines, err := a.Billing.History(ctx, sub.ID)
		if err != nil {
			t.Fatal(err)
		}
		paid, err := a.Billing.ChargesOf(ctx, []string{sub.ID})
		if err != nil {
			t.Fatal(err)
		}
		return len(lines), len(paid)
	}
	type found struct{ history, charges int }
	before := map[int]found{}
	for i := range n {
		sub := subscription(i)
		history, charges := filed(sub)
		if history < 2 || charges < 1 || charges != history-1 {
			t.Errorf("subscriber %d: %d history lines and %d charges, want a charge per line but the finalization", i, history, charges)
		}
		before[i] = found{history, charges}
		// Its purchase mail, sent, is found under its address (the
		// outbox's store), and nothing is left to send.
		mails, err := a.Outbox.SentTo(ctx, app.ScaleEmail(i), 10)
		if err != nil || len(mails) != 1 || mails[0].ID != "purchase:"+sub.ID || mails[0].Status != mail.StatusSent {
			t.Errorf("subscriber %d: mails %+v (%v), want its purchase mail, sent", i, mails, err)
		}
	}
	if queued, _, err := a.Outbox.Pending(ctx); err != nil || queued != 0 {
		t.Errorf("%d mails queued after the seed (%v), want none (not the pattern mail either)", queued, err)
	}

	// A year and a day on, every active plan is due and renews once.
	clock.Set(clock.Now().AddDate(1, 0, 1))
	st, err := a.Billing.RenewDue(ctx)
	if err != nil || st.Renewed != 10 || st.Failures != 0 {
		t.Fatalf("RenewDue: %+v, %v; want the 10 active plans renewed", st, err)
	}
	for i := 15; i < n; i++ {
		sub := subscription(i)
		history, charges := filed(sub)
		if history != before[i].history+1 || charges != before[i].charges+1 {
			t.Errorf("subscriber %d after renewing: %d history lines and %d charges (before %d and %d)",
				i, history, charges, before[i].history, before[i].charges)
		}
	}
}
