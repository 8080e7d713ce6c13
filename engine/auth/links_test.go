package auth_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine/auth"
)

// TestEraseUserDeletesEverythingByList: erasing an account deletes its
// sessions, sign-in and reset links, its subscriptions' activation keys
// (one minted before the lists existed, listed once at start) and its
// address index, each found through a list, and leaves another account's.
func TestEraseUserDeletesEverythingByList(t *testing.T) {
	t.Parallel()
	svc, clock, db := newServiceDB(t)
	ctx := context.Background()
	ann := subscribed(t, svc, "ann@example.com", "correct-horse")
	bob := subscribed(t, svc, "bob@example.com", "correct-horse")
	if _, err := db.Collection(auth.ActivationKeysCollection).InsertOne(ctx, bson.M{"_id": "before-lists",
		"subscriptionId": "sub-" + ann.ID, "expiresAt": clock.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := auth.ListExistingLinks(ctx, db, "test_settings", clock.Now()); err != nil {
		t.Fatal(err)
	}
	for _, u := range []auth.User{ann, bob} {
		if _, err := svc.SignIn(ctx, u.Email, "correct-horse", "1.2.3.4", "glimpse.web"); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.MintLoginLink(ctx, u.Email); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(20 * time.Minute)
	if _, err := svc.MintPasswordReset(ctx, ann.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.EraseUser(ctx, ann, []string{"sub-" + ann.ID}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		coll   string
		filter bson.M
		want   int64
	}{
		{auth.SessionsCollection, bson.M{"userId": ann.ID}, 0},
		{auth.SessionsCollection, bson.M{"userId": bob.ID}, 1},
		{auth.LoginLinksCollection, bson.M{"userId": ann.ID}, 0},
		{auth.LoginLinksCollection, bson.M{"userId": bob.ID}, 1},
		{auth.PasswordResetsCollection, bson.M{}, 0},
		{auth.ActivationKeysCollection, bson.M{}, 0},
		{auth.UserEmailsCollection, bson.M{"userId": ann.ID}, 0},
		{auth.UserEmailsCollection, bson.M{"userId": bob.ID}, 1},
		{auth.UsersCollection, bson.M{"_id": ann.ID}, 0},
	} {
		if n, err := db.Collection(c.coll).CountDocuments(ctx, c.filter); err != nil || n != c.want {
			t.Errorf("%s %v: %d (%v), want %d", c.coll, c.filter, n, err, c.want)
		}
	}
	// Bob's session and link are listed; ann's lists are gone.
	if n, err := db.Collection(auth.LinksByOwnerCollection).CountDocuments(ctx, bson.M{}); err != nil || n != 1 {
		t.Errorf("%d link list slots (%v), want bob's one", n, err)
	}
	if n, err := db.Collection(auth.SessionsByUserCollection).CountDocuments(ctx, bson.M{}); err != nil || n != 1 {
		t.Errorf("%d session list slots (%v), want bob's one", n, err)
	}
}
