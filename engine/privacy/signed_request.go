package privacy

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
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

// maxSignedRequest bounds what is decoded: Meta's are a few hundred bytes.
const maxSignedRequest = 4096

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
