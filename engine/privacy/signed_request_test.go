package privacy

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
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

// FuzzParseSignedRequest: no input panics, and whatever is accepted was
// signed with the secret and names a user.
func FuzzParseSignedRequest(f *testing.F) {
	f.Add(SignRequest(SignedRequest{Algorithm: "HMAC-SHA256", IssuedAt: 1, UserID: "1"}, testSecret))
	f.Add("a.b")
	f.Add("")
	f.Add("====.====")
	f.Fuzz(func(t *testing.T, raw string) {
		sr, err := ParseSignedRequest(raw, testSecret)
		if err != nil {
			return
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
