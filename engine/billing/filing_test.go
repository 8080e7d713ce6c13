package billing

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestForUserReadsTheAccountsSlots: an account's subscriptions are found
// through its slots; a slot whose subscription names another account is
// skipped; a subscription stored before slots existed is filed once at
// start by FileExistingSubscriptions.
func TestForUserReadsTheAccountsSlots(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, id := range []string{"s1", "s2"} {
		if err := f.svc.Put(ctx, Subscription{ID: id, UserID: "u1", Email: "ann@example.com", Status: StatusActive}); err != nil {
			t.Fatal(err)
		}
	}
	if err := indexUser(ctx, f.svc.db, "u1", "someone-elses"); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Put(ctx, Subscription{ID: "someone-elses", UserID: "u2", Email: "bob@example.com"}); err != nil {
		t.Fatal(err)
	}
	// Written by an older release: no slot.
	if _, err := f.svc.db.Collection(SubscriptionsCollection).InsertOne(ctx, Subscription{ID: "old", UserID: "u1", Email: "ann@example.com"}); err != nil {
		t.Fatal(err)
	}
	ids := func() []string {
		subs, err := f.svc.ForUser(ctx, "u1")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range subs {
			out = append(out, s.ID)
		}
		return out
	}
	if got := ids(); len(got) != 2 || got[0] != "s1" || got[1] != "s2" {
		t.Fatalf("before filing: %v", got)
	}
	if err := FileExistingSubscriptions(ctx, f.svc.db, "settings"); err != nil {
		t.Fatal(err)
	}
	if got := ids(); len(got) != 3 {
		t.Fatalf("after filing: %v, want s1, s2 and old", got)
	}
	// Done once: a subscription written without a slot now stays unfiled.
	if _, err := f.svc.db.Collection(SubscriptionsCollection).InsertOne(ctx, Subscription{ID: "later", UserID: "u1"}); err != nil {
		t.Fatal(err)
	}
	if err := FileExistingSubscriptions(ctx, f.svc.db, "settings"); err != nil {
		t.Fatal(err)
	}
	if got := ids(); len(got) != 3 {
		t.Fatalf("filed twice: %v", got)
	}
}

// TestConcurrentFilingsTakeTheirOwnSlots: purchases by one account at once
// each file their subscription (unique slot inserts), none lost.
func TestConcurrentFilingsTakeTheirOwnSlots(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			errs <- f.svc.Put(ctx, Subscription{ID: "c" + strconv.Itoa(i), UserID: "u1", Email: "ann@example.com"})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	subs, err := f.svc.ForUser(ctx, "u1")
	if err != nil || len(subs) != n {
		t.Fatalf("%d subscriptions found, want %d (%v)", len(subs), n, err)
	}
}

// TestLegacyFreeMonthGetsItsClaim: a free month recorded only in history
// (before the claim was per subscription) is claimed once at start with its
// key, so the offer is refused to another key and FreeMonthKey reads it
// from the claim.
func TestLegacyFreeMonthGetsItsClaim(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	sub := f.buy(t, FamilyWeekly, "4242424242424242", "k-legacy")
	base := sub.CurrentPeriodEnd
	line := Change{ID: sub.ID + "/extended:old-attempt", SubscriptionID: sub.ID, At: start, By: "user:u", Kind: ChangeExtended,
		From: base.Format(time.RFC3339), To: base.AddDate(0, 1, 0).Format(time.RFC3339)}
	if _, err := f.svc.db.Collection(historyCollection).InsertOne(ctx, line); err != nil {
		t.Fatal(err)
	}
	if err := ClaimLegacyFreeMonths(ctx, f.svc.db, "settings"); err != nil {
		t.Fatal(err)
	}
	if key, err := f.svc.FreeMonthKey(ctx, sub.ID); err != nil || key != "old-attempt" {
		t.Fatalf("free month key %q, %v", key, err)
	}
	if _, err := f.svc.AddFreeMonth(ctx, sub.ID, "new-attempt", "user:u"); !errors.Is(err, ErrOfferUnavailable) {
		t.Fatalf("a second free month: %v", err)
	}
}

// TestExistingListsAreFiled: history lines, charge events, charge
// references and a subscription's charges written before filings are found
// once filed at start.
func TestExistingListsAreFiled(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	db := f.svc.db
	if _, err := db.Collection(historyCollection).InsertOne(ctx, Change{ID: "s9/created", SubscriptionID: "s9", At: start, Kind: ChangeCreated}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection(chargesCollection).InsertOne(ctx, Charge{ID: "key-9", Key: "key-9", Reference: "pi_9", Status: ChargeSucceeded, SubscriptionID: "s9"}); err != nil {
		t.Fatal(err)
	}
	ev := chargeEvent{ID: chargeEventID("key-9", start, "evt_1"), Key: "key-9", Status: ChargeRefunded, At: start, EventID: "evt_1"}
	if _, err := db.Collection(chargeEventsCollection).InsertOne(ctx, ev); err != nil {
		t.Fatal(err)
	}
	if h, _ := f.svc.History(ctx, "s9"); len(h) != 0 {
		t.Fatalf("history before filing: %v", h)
	}
	if charges, _ := f.svc.ChargesOf(ctx, []string{"s9"}); len(charges) != 0 {
		t.Fatalf("charges before filing: %v", charges)
	}
	if err := FileExistingBillingLists(ctx, db, "settings"); err != nil {
		t.Fatal(err)
	}
	if h, err := f.svc.History(ctx, "s9"); err != nil || len(h) != 1 {
		t.Fatalf("history after filing: %v %v", h, err)
	}
	if charges, err := f.svc.ChargesOf(ctx, []string{"s9"}); err != nil || len(charges) != 1 || charges[0].ID != "key-9" {
		t.Fatalf("charges after filing: %v %v", charges, err)
	}
	if key, err := f.svc.ChargeKeyByReference(ctx, "pi_9"); err != nil || key != "key-9" {
		t.Fatalf("charge by reference: %q %v", key, err)
	}
	if status, err := f.svc.ChargeStatus(ctx, "key-9"); err != nil || status != ChargeRefunded {
		t.Fatalf("charge status: %q %v", status, err)
	}
	// A newer event applied now wins over the filed one.
	if _, err := f.svc.ApplyChargeEvent(ctx, "key-9", "evt_2", ChargeDisputed, start.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if status, _ := f.svc.ChargeStatus(ctx, "key-9"); status != ChargeDisputed {
		t.Fatalf("after a newer event: %q", status)
	}
	var marks int64
	if marks, _ = db.Collection("settings").CountDocuments(ctx, bson.M{"_id": bson.M{"$in": []string{filingsMarker, chargeFilingsMarker}}}); marks != 2 {
		t.Fatalf("marker written %d times", marks)
	}
}

// TestOneByOneWritersFileFromTheBound: a history line recorded one at a time
// (a plan change, a cancellation) and a charge written one at a time are
// filed from the bound their subscription keeps, not from slot 0: the slots
// below the bound are not read. A gap below the bound, which no writer
// leaves, shows where they went: filed from 0 they would have filled it.
func TestOneByOneWritersFileFromTheBound(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const sub = "sub_bound"
	if _, err := f.svc.db.Collection(SubscriptionsCollection).InsertOne(ctx,
		Subscription{ID: sub, Status: StatusActive, FiledCharges: 3, FiledHistory: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.db.Collection(filingsCollection).InsertMany(ctx, []any{
		ChargeFiling(sub, 0, "charge-0"), ChargeFiling(sub, 2, "charge-2"),
		HistoryFiling(sub, 0, sub+"/line-0"), HistoryFiling(sub, 2, sub+"/line-2"),
	}); err != nil {
		t.Fatal(err)
	}
	f.svc.record(ctx, sub, "plan-changed", Change{Kind: ChangeRenewed, By: "test"})
	if err := f.svc.chargeWritten(ctx, Charge{ID: "charge-3", Key: "charge-3", SubscriptionID: sub}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct{ kind, ref string }{{filedHistory, sub + "/plan-changed"}, {filedCharges, "charge-3"}} {
		var slot filing
		if err := f.svc.db.Collection(filingsCollection).FindOne(ctx, bson.M{"_id": filingID(want.kind, sub, 3)}).Decode(&slot); err != nil || slot.Ref != want.ref {
			t.Errorf("%s slot 3: %+v (%v), want %s", want.kind, slot, err, want.ref)
		}
		if n, err := f.svc.db.Collection(filingsCollection).CountDocuments(ctx, bson.M{"_id": filingID(want.kind, sub, 1)}); err != nil || n != 0 {
			t.Errorf("%s slot 1 below the bound was filled (%d, %v)", want.kind, n, err)
		}
	}
}
