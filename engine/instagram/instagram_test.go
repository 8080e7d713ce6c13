package instagram

import (
	"context"
	"strings"
	"testing"
	"time"

	"glimpse/engine/instagram/api"
	"glimpse/engine/instagram/api/apitest"
)

func TestSnapshotFromTheAPI(t *testing.T) {
	t.Parallel()
	fake := apitest.NewServer(t, "")
	c := api.New(fake.Config())
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	snap, prof, err := Snapshot(context.Background(), c, fake.Token(), now)
	if err != nil {
		t.Fatal(err)
	}
	if prof.Username == "" || snap.FollowerCount != prof.FollowersCount || snap.FollowerCount == 0 {
		t.Fatalf("profile %+v, snapshot follower count %d", prof, snap.FollowerCount)
	}
	if len(snap.Posts) == 0 || snap.Followers != nil || snap.Following != nil {
		t.Fatalf("posts %d, lists %v %v", len(snap.Posts), snap.Followers, snap.Following)
	}
	commenters := 0
	for _, p := range snap.Posts {
		commenters += len(p.Commenters)
	}
	if commenters == 0 {
		t.Fatal("no commenters were read")
	}
}

func TestSealerRoundTripAndTamper(t *testing.T) {
	t.Parallel()
	s, err := NewSealer(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	tok := api.Token{AccessToken: "IGAAsecret", ExpiresAt: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}
	sealed, err := s.Seal(tok)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, "IGAAsecret") {
		t.Fatal("the sealed token shows the token")
	}
	got, err := s.Open(sealed)
	if err != nil || got.AccessToken != tok.AccessToken || !got.ExpiresAt.Equal(tok.ExpiresAt) {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	if _, err := s.Open(sealed[:len(sealed)-2] + "AA"); err == nil {
		t.Fatal("a tampered token opened")
	}
	if _, err := NewSealer([]byte("short")); err == nil {
		t.Fatal("a short key was accepted")
	}
}

// TestSealerOpensWhatAnOlderKeySealed: a token stored under the old key
// still opens after the key changes, new tokens are sealed with the new key
// only, and a sealer without the old key cannot open old tokens.
func TestSealerOpensWhatAnOlderKeySealed(t *testing.T) {
	t.Parallel()
	oldKey, newKey := make([]byte, 32), make([]byte, 32)
	for i := range newKey {
		newKey[i] = byte(i + 1)
	}
	before, err := NewSealer(oldKey)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := before.Seal(api.Token{AccessToken: "old-token"})
	if err != nil {
		t.Fatal(err)
	}
	after, err := NewSealer(newKey, oldKey)
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := after.Open(stored); err != nil || tok.AccessToken != "old-token" {
		t.Fatalf("Open(old) = %+v, %v; want the old token", tok, err)
	}
	fresh, err := after.Seal(api.Token{AccessToken: "new-token"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := before.Open(fresh); err == nil {
		t.Error("a token sealed after the change opens with the old key alone")
	}
	newOnly, err := NewSealer(newKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newOnly.Open(stored); err == nil {
		t.Error("the new key alone opened a token sealed with the old one")
	}
	if _, err := NewSealer(newKey, []byte("short")); err == nil {
		t.Error("a short older key was accepted")
	}
}
