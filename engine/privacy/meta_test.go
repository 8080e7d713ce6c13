package privacy_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"glimpse/engine"
	"glimpse/engine/app"
	"glimpse/engine/privacy"
)

// TestInstagramDeletionReplaysMakeOneRecord sends one data-deletion request
// many times at once, as a replay (or Meta's retries) would: every answer
// is the same code and url, the profile is deleted, and the database holds
// one record for the Instagram user, which says the data was deleted. Each
// request used to insert a record under a new random code (#32 item 7); the
// rule is the record's _id, derived from the Instagram user's id, so it
// holds under concurrency, where a read-then-write would not.
func TestInstagramDeletionReplaysMakeOneRecord(t *testing.T) {
	a, clock := openApp(t)
	ctx := context.Background()
	p := seedPerson(t, a, "replays@example.com")
	signed := privacy.SignRequest(privacy.SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: clock.Now().Unix(),
		UserID: "ig-" + p.user.ID}, []byte(appSecret))

	const n = 8
	answers := make([]privacy.DeletionAnswer, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	begin := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-begin
			answers[i], errs[i] = a.Privacy.InstagramDataDeletion(ctx, signed)
		})
	}
	close(begin)
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("request %d: %v", i, errs[i])
		}
		if answers[i] != answers[0] || answers[i].ConfirmationCode == "" {
			t.Errorf("request %d answered %+v, request 0 %+v", i, answers[i], answers[0])
		}
	}
	if got := records(t, a, privacy.InstagramDeletionsCollection); got != 1 {
		t.Errorf("%d deletion records for one Instagram user, want 1", got)
	}
	if st, found, err := a.Privacy.DeletionStatus(ctx, answers[0].ConfirmationCode); err != nil || !found || st.Status != privacy.DeletionCompleted {
		t.Errorf("status: %+v %v %v", st, found, err)
	}
	if prof, _ := a.Profiles.Get(ctx, p.user.ID); prof.Source != "" {
		t.Errorf("profile kept: %+v", prof)
	}

	// Later (a new request by the same person, fresh): the same code, still
	// one record. Another Instagram user gets a code of its own.
	clock.Advance(time.Hour)
	later := privacy.SignRequest(privacy.SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: clock.Now().Unix(),
		UserID: "ig-" + p.user.ID}, []byte(appSecret))
	if got, err := a.Privacy.InstagramDataDeletion(ctx, later); err != nil || got != answers[0] {
		t.Errorf("a later request: %+v %v, want %+v", got, err, answers[0])
	}
	other := privacy.SignRequest(privacy.SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: clock.Now().Unix(),
		UserID: "someone-else"}, []byte(appSecret))
	got, err := a.Privacy.InstagramDataDeletion(ctx, other)
	if err != nil || got.ConfirmationCode == answers[0].ConfirmationCode {
		t.Errorf("another user: %+v %v", got, err)
	}
	if st, _, _ := a.Privacy.DeletionStatus(ctx, got.ConfirmationCode); st.Status != privacy.DeletionNoData {
		t.Errorf("another user's status: %+v", st)
	}
	if n := records(t, a, privacy.InstagramDeletionsCollection); n != 2 {
		t.Errorf("%d deletion records for two Instagram users, want 2", n)
	}
}

// TestInstagramCallbacksRefuseStaleRequests: a well signed request issued
// more than privacy.SignedRequestMaxAge before the clock (issued_at=1 was
// accepted, #32 item 7), or more than SignedRequestMaxAhead after it,
// deletes nothing, records nothing and revokes nothing; one within the
// window is accepted.
func TestInstagramCallbacksRefuseStaleRequests(t *testing.T) {
	a, clock := openApp(t)
	ctx := context.Background()
	p := seedPerson(t, a, "stale@example.com")
	now := clock.Now()
	sign := func(issued int64) string {
		return privacy.SignRequest(privacy.SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: issued, UserID: "ig-" + p.user.ID},
			[]byte(appSecret))
	}
	for name, issued := range map[string]int64{
		"issued_at 1":     1,
		"no issued_at":    0,
		"too old":         now.Add(-privacy.SignedRequestMaxAge - time.Second).Unix(),
		"a day old":       now.Add(-24 * time.Hour).Unix(),
		"too far ahead":   now.Add(privacy.SignedRequestMaxAhead + time.Second).Unix(),
		"a year ahead":    now.Add(365 * 24 * time.Hour).Unix(),
		"negative":        -now.Unix(),
		"largest integer": 1<<63 - 1,
	} {
		_, err := a.Privacy.InstagramDataDeletion(ctx, sign(issued))
		if engine.ErrorCode(err) != engine.CodeUnauthenticated {
			t.Errorf("data deletion, %s: got %v, want unauthenticated", name, err)
		}
		if err := a.Privacy.InstagramDeauthorize(ctx, sign(issued)); engine.ErrorCode(err) != engine.CodeUnauthenticated {
			t.Errorf("deauthorize, %s: got %v, want unauthenticated", name, err)
		}
	}
	prof, _ := a.Profiles.Get(ctx, p.user.ID)
	if prof.Source == "" || prof.Credential == "" {
		t.Fatalf("a stale request changed the profile: %+v", prof)
	}
	if n := records(t, a, privacy.InstagramDeletionsCollection); n != 0 {
		t.Errorf("%d deletion records after stale requests", n)
	}
	// At the edges of the window, accepted.
	if err := a.Privacy.InstagramDeauthorize(ctx, sign(now.Add(privacy.SignedRequestMaxAhead).Unix())); err != nil {
		t.Errorf("deauthorize issued %v ahead: %v", privacy.SignedRequestMaxAhead, err)
	}
	if _, err := a.Privacy.InstagramDataDeletion(ctx, sign(now.Add(-privacy.SignedRequestMaxAge).Unix())); err != nil {
		t.Errorf("data deletion issued %v ago: %v", privacy.SignedRequestMaxAge, err)
	}
}

// records counts the rows of the named table and the documents of the
// collection of that name: whichever engine the app's store uses.
func records(t *testing.T, a *app.App, name string) int64 {
	t.Helper()
	if db := a.Store.DB(); db != nil {
		n, err := db.Collection(name).CountDocuments(context.Background(), bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return int64(len(sqlRows(t, a, name)))
}
