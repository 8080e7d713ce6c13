package billing

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestForUserFindsTheAccountsSubscriptions: an account's subscriptions
// are those finalized to it, oldest first; another account's are not.
func TestForUserFindsTheAccountsSubscriptions(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for i, id := range []string{"s1", "s2"} {
		if err := f.svc.Put(ctx, Subscription{ID: id, UserID: "u1", Email: "ann@example.com", Status: StatusActive,
			StartedAt: start.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.svc.Put(ctx, Subscription{ID: "someone-elses", UserID: "u2", Email: "bob@example.com"}); err != nil {
		t.Fatal(err)
	}
	subs, err := f.svc.ForUser(ctx, "u1")
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 2 || subs[0].ID != "s1" || subs[1].ID != "s2" {
		t.Fatalf("ForUser = %+v, want s1 and s2", subs)
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

// TestExistingListsAreFiled: charge events, charge references and a
// subscription's charges written before filings are found once filed at
// start.
func TestExistingListsAreFiled(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	db := f.svc.db
	if _, err := db.Collection(chargesCollection).InsertOne(ctx, Charge{ID: "key-9", Key: "key-9", Reference: "pi_9", Status: ChargeSucceeded, SubscriptionID: "s9"}); err != nil {
		t.Fatal(err)
	}
	ev := chargeEvent{ID: chargeEventID("key-9", start, "evt_1"), Key: "key-9", Status: ChargeRefunded, At: start, EventID: "evt_1"}
	if _, err := db.Collection(chargeEventsCollection).InsertOne(ctx, ev); err != nil {
		t.Fatal(err)
	}
	if charges, _ := f.svc.ChargesOf(ctx, []string{"s9"}); len(charges) != 0 {
		t.Fatalf("charges before filing: %v", charges)
	}
	if err := FileExistingBillingLists(ctx, db, "settings"); err != nil {
		t.Fatal(err)
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
