package retention

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"glimpse/engine"
	"glimpse/engine/store/storetest"
)

// TestEraseOfDeletesTheSubscribersAttemptsAndSteps: EraseOf deletes every
// attempt the subscriber's list names with all its events, the list
// itself, an attempt written before the lists once it is listed at start,
// and the events of an attempt a stopped erasure already deleted; another
// subscriber's attempts stay whole.
func TestEraseOfDeletesTheSubscribersAttemptsAndSteps(t *testing.T) {
	st := storetest.Open(t)
	db := st.DB()
	clock := engine.NewManualClock(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	svc := NewService(db, clock)
	ctx := context.Background()
	start := func(userID string, events int) Attempt {
		t.Helper()
		a, err := svc.Start(ctx, Attempt{UserID: userID, SubscriptionID: "sub_" + userID, Entry: "my_plan"})
		if err != nil {
			t.Fatal(err)
		}
		for i := range events {
			if err := svc.Record(ctx, a, Event{Kind: EventAnswer, Step: i, Review: "written by " + userID}); err != nil {
				t.Fatal(err)
			}
		}
		return a
	}
	mine := []Attempt{start("u1", 3), start("u1", 0)}
	interrupted := start("u1", 2)
	theirs := start("u2", 2)
	// Written by an older release, with no list entry, then listed at start.
	older := Attempt{ID: "older", UserID: "u1", SubscriptionID: "sub_u1", StartedAt: clock.Now().Add(-48 * time.Hour)}
	if _, err := db.Collection(AttemptsCollection).InsertOne(ctx, older); err != nil {
		t.Fatal(err)
	}
	if err := svc.Record(ctx, older, Event{Kind: EventReached}); err != nil {
		t.Fatal(err)
	}
	if err := ListExistingAttempts(ctx, db, "settings"); err != nil {
		t.Fatal(err)
	}
	mine = append(mine, older, interrupted)
	// An erasure that stopped after deleting this attempt, before its events.
	if _, err := db.Collection(AttemptsCollection).DeleteOne(ctx, bson.M{"_id": interrupted.ID}); err != nil {
		t.Fatal(err)
	}

	if err := EraseOf(ctx, db, "u1"); err != nil {
		t.Fatal(err)
	}
	exists := func(coll, id string) bool {
		t.Helper()
		err := db.Collection(coll).FindOne(ctx, bson.M{"_id": id}).Err()
		if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
			t.Fatal(err)
		}
		return err == nil
	}
	for _, a := range mine {
		if exists(AttemptsCollection, a.ID) {
			t.Errorf("attempt %s is left", a.ID)
		}
		for n := range 4 {
			if exists(StepsCollection, StepID(a.ID, n)) {
				t.Errorf("event %s is left", StepID(a.ID, n))
			}
		}
	}
	if ids, err := svc.byUser.Slots(ctx, "u1"); err != nil || len(ids) != 0 {
		t.Errorf("the list is left: %v, %v", ids, err)
	}
	sums, err := svc.OfUser(ctx, "u2")
	if err != nil || len(sums) != 1 || sums[0].ID != theirs.ID || sums[0].Review != "written by u2" {
		t.Errorf("the other subscriber's attempts: %+v, %v", sums, err)
	}
	// Again, as after a failure in a later step: nothing left to do.
	if err := EraseOf(ctx, db, "u1"); err != nil {
		t.Fatal(err)
	}
}
