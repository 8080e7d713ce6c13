package privacy

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// SignedRequest is the payload of Meta's signed_request, the form field its
// deauthorize and data-deletion callbacks post.
type SignedRequest struct {
	Algorithm string `json:"algorithm"`
	IssuedAt  int64  `json:"issued_at"`
	// UserID is the app-scoped id of the Instagram user.
	UserID string `json:"user_id"`
}

// ErrSignedRequest is a signed_request that is malformed, signed with
// another key or by another algorithm.
var ErrSignedRequest = errors.New("privacy: signed_request is malformed or its signature is wrong")

// ErrSignedRequestStale is a well signed request issued too long ago, or
// in the future beyond a clock's drift: a replay of a captured request, or
// a forged one. Meta posts its callbacks as they happen.
var ErrSignedRequestStale = errors.New("privacy: signed_request was issued too long ago or in the future")

// maxSignedRequest bounds what is decoded: Meta's are a few hundred bytes.
const maxSignedRequest = 4096

// SignedRequestMaxAge is how old a signed_request's issued_at may be when
// it arrives, and SignedRequestMaxAhead how far in the future (the two
// clocks' drift): Meta sends a callback when the person acts, so anything
// older is a replay.
const (
	SignedRequestMaxAge   = 5 * time.Minute
	SignedRequestMaxAhead = 5 * time.Minute
)

// VerifySignedRequest is ParseSignedRequest that also refuses a request
// whose issued_at is more than SignedRequestMaxAge before now or
// SignedRequestMaxAhead after it (a missing one is 1970):
// ErrSignedRequestStale.
func VerifySignedRequest(raw string, secret []byte, now time.Time) (SignedRequest, error) {
	sr, err := ParseSignedRequest(raw, secret)
	if err != nil {
		return SignedRequest{}, err
	}
	if !fresh(sr.IssuedAt, now) {
		return SignedRequest{}, ErrSignedRequestStale
	}
	return sr, nil
}

// fresh reports whether issuedAt (Unix seconds) is within the window
// around now. It compares seconds, so no issued_at overflows.
func fresh(issuedAt int64, now time.Time) bool {
	n := now.Unix()
	return issuedAt >= n-int64(SignedRequestMaxAge/time.Second) && issuedAt <= n+int64(SignedRequestMaxAhead/time.Second)
}

// ParseSignedRequest verifies and reads a signed_request,
// "<signature>.<payload>", both base64url with or without padding: the
// signature must be the HMAC-SHA256 of the payload as received, keyed with
// the app secret, and the payload must say HMAC-SHA256 and name a user.
func ParseSignedRequest(raw string, secret []byte) (SignedRequest, error) {
	if len(secret) == 0 || len(raw) > maxSignedRequest {
		return SignedRequest{}, ErrSignedRequest
	}
	sigPart, payloadPart, ok := strings.Cut(raw, ".")
	if !ok || sigPart == "" || payloadPart == "" {
		return SignedRequest{}, ErrSignedRequest
	}
	sig, err := decodeSegment(sigPart)
	if err != nil {
		return SignedRequest{}, ErrSignedRequest
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(payloadPart))
	if !hmac.Equal(sig, mac.Sum(nil)) {
		return SignedRequest{}, ErrSignedRequest
	}
	payload, err := decodeSegment(payloadPart)
	if err != nil {
		return SignedRequest{}, ErrSignedRequest
	}
	var sr SignedRequest
	dec := json.NewDecoder(bytes.NewReader(payload))
	if err := dec.Decode(&sr); err != nil {
		return SignedRequest{}, ErrSignedRequest
	}
	if !strings.EqualFold(sr.Algorithm, "HMAC-SHA256") || sr.UserID == "" || len(sr.UserID) > 64 {
		return SignedRequest{}, ErrSignedRequest
	}
	return sr, nil
}

// decodeSegment reads base64url with or without its "=" padding.
func decodeSegment(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

// SignRequest makes a signed_request as Meta does, for tests and for
// trying a deployment's callbacks by hand.
func SignRequest(sr SignedRequest, secret []byte) string {
	payload, _ := json.Marshal(sr)
	p := base64.RawURLEncoding.EncodeToString(payload)
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(p))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil)) + "." + p
}
