package privacy

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

var testSecret = []byte("app-secret")

func TestParseSignedRequest(t *testing.T) {
	valid := SignRequest(SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: 1700000000, UserID: "17841400000000001"}, testSecret)
	sr, err := ParseSignedRequest(valid, testSecret)
	if err != nil || sr.UserID != "17841400000000001" || sr.IssuedAt != 1700000000 {
		t.Fatalf("valid request: %+v, %v", sr, err)
	}
	// Meta's encoder may keep the "=" padding; both forms verify.
	sig, payload, _ := strings.Cut(valid, ".")
	padded := sig + strings.Repeat("=", (4-len(sig)%4)%4) + "." + payload
	if _, err := ParseSignedRequest(padded, testSecret); err != nil {
		t.Errorf("padded signature: %v", err)
	}

	sign := func(payloadJSON string) string {
		p := base64.RawURLEncoding.EncodeToString([]byte(payloadJSON))
		mac := hmac.New(sha256.New, testSecret)
		mac.Write([]byte(p))
		return base64.RawURLEncoding.EncodeToString(mac.Sum(nil)) + "." + p
	}
	for name, raw := range map[string]string{
		"another secret":     SignRequest(SignedRequest{Algorithm: "HMAC-SHA256", UserID: "1"}, []byte("other")),
		"payload changed":    sig + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"algorithm":"HMAC-SHA256","user_id":"2"}`)),
		"another algorithm":  sign(`{"algorithm":"none","user_id":"1"}`),
		"no user":            sign(`{"algorithm":"HMAC-SHA256"}`),
		"not JSON":           sign(`user_id=1`),
		"no dot":             sig,
		"empty":              "",
		"empty signature":    "." + payload,
		"signature not b64":  "!!!." + payload,
		"huge":               strings.Repeat("a", 5000) + "." + payload,
		"user id too long":   sign(`{"algorithm":"HMAC-SHA256","user_id":"` + strings.Repeat("9", 65) + `"}`),
		"unpadded garbage":   "abc.def",
		"signature of other": sig + "." + payload + "x",
	} {
		if _, err := ParseSignedRequest(raw, testSecret); !errors.Is(err, ErrSignedRequest) {
			t.Errorf("%s: got %v, want ErrSignedRequest", name, err)
		}
	}
	if _, err := ParseSignedRequest(valid, nil); !errors.Is(err, ErrSignedRequest) {
		t.Errorf("no app secret configured: got %v, want ErrSignedRequest", err)
	}
}

// fuzzNow is the clock of the fuzz target's VerifySignedRequest.
var fuzzNow = time.Unix(1700000000, 0)

// TestVerifySignedRequest: a well signed request is accepted from
// SignedRequestMaxAge before now to SignedRequestMaxAhead after it, and
// refused as stale outside (issued_at=1 was accepted, #32 item 7); a badly
// signed one is ErrSignedRequest whenever it was issued.
func TestVerifySignedRequest(t *testing.T) {
	now := time.Unix(1700000000, 500e6)
	at := func(issued int64) string {
		return SignRequest(SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: issued, UserID: "1"}, testSecret)
	}
	maxAge, maxAhead := int64(SignedRequestMaxAge/time.Second), int64(SignedRequestMaxAhead/time.Second)
	for _, issued := range []int64{now.Unix(), now.Unix() - maxAge, now.Unix() + maxAhead} {
		if sr, err := VerifySignedRequest(at(issued), testSecret, now); err != nil || sr.IssuedAt != issued {
			t.Errorf("issued_at %d at %d: %+v %v", issued, now.Unix(), sr, err)
		}
	}
	for _, issued := range []int64{0, 1, -1, now.Unix() - maxAge - 1, now.Unix() + maxAhead + 1,
		1<<63 - 1, -1 << 63, now.Unix() + 365*24*3600} {
		if _, err := VerifySignedRequest(at(issued), testSecret, now); !errors.Is(err, ErrSignedRequestStale) {
			t.Errorf("issued_at %d at %d: got %v, want ErrSignedRequestStale", issued, now.Unix(), err)
		}
	}
	if _, err := VerifySignedRequest(SignRequest(SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: now.Unix(), UserID: "1"},
		[]byte("other")), testSecret, now); !errors.Is(err, ErrSignedRequest) {
		t.Errorf("another secret: got %v, want ErrSignedRequest", err)
	}
}

// FuzzParseSignedRequest: no input panics, whatever is accepted was signed
// with the secret and names a user, and VerifySignedRequest accepts it only
// when it was issued within its window of fuzzNow.
func FuzzParseSignedRequest(f *testing.F) {
	f.Add(SignRequest(SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: 1, UserID: "1"}, testSecret))
	f.Add(SignRequest(SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: fuzzNow.Unix(), UserID: "17841400000000001"}, testSecret))
	f.Add(SignRequest(SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: fuzzNow.Unix() - int64(SignedRequestMaxAge/time.Second),
		UserID: "2"}, testSecret))
	f.Add(SignRequest(SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: 1<<63 - 1, UserID: "3"}, testSecret))
	f.Add("a.b")
	f.Add("")
	f.Add("====.====")
	f.Fuzz(func(t *testing.T, raw string) {
		sr, err := ParseSignedRequest(raw, testSecret)
		verified, verr := VerifySignedRequest(raw, testSecret, fuzzNow)
		if err != nil {
			if !errors.Is(verr, ErrSignedRequest) {
				t.Fatalf("verified a request the parser refused: %q: %v", raw, verr)
			}
			return
		}
		inWindow := sr.IssuedAt >= fuzzNow.Add(-SignedRequestMaxAge).Unix() && sr.IssuedAt <= fuzzNow.Add(SignedRequestMaxAhead).Unix()
		switch {
		case inWindow && (verr != nil || verified != sr):
			t.Fatalf("refused a fresh request: %q: %v", raw, verr)
		case !inWindow && !errors.Is(verr, ErrSignedRequestStale):
			t.Fatalf("accepted a stale request: %q: %+v %v", raw, verified, verr)
		}
		if sr.UserID == "" {
			t.Fatalf("accepted a request with no user: %q", raw)
		}
		sig, payload, _ := strings.Cut(raw, ".")
		mac := hmac.New(sha256.New, testSecret)
		mac.Write([]byte(payload))
		got, _ := decodeSegment(sig)
		if !hmac.Equal(got, mac.Sum(nil)) {
			t.Fatalf("accepted a request not signed with the secret: %q", raw)
		}
	})
}
