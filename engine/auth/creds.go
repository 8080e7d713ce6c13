package auth

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
)

// ErrBadCreds means a creds parameter could not be read.
var ErrBadCreds = errors.New("creds is not an encoded email and password")

// maxCredsLen bounds the work done on a hostile parameter.
const maxCredsLen = 4096

// DecodeCreds reads the creds query parameter: a JSON object with email and
// password, base64-encoded (standard or URL alphabet, padded or not) and
// possibly percent-encoded once more by whoever built the link. Plain JSON is
// accepted too.
func DecodeCreds(raw string) (email, password string, err error) {
	if raw == "" || len(raw) > maxCredsLen {
		return "", "", ErrBadCreds
	}
	if unescaped, err := url.QueryUnescape(raw); err == nil {
		raw = unescaped
	}
	raw = strings.TrimSpace(raw)
	doc := []byte(raw)
	if !strings.HasPrefix(raw, "{") {
		trimmed := strings.TrimRight(raw, "=")
		decoded, err := base64.RawStdEncoding.DecodeString(trimmed)
		if err != nil {
			decoded, err = base64.RawURLEncoding.DecodeString(trimmed)
		}
		if err != nil {
			return "", "", ErrBadCreds
		}
		doc = decoded
	}
	var c struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := json.Unmarshal(doc, &c); err != nil || c.Email == "" || c.Password == "" {
		return "", "", ErrBadCreds
	}
	return c.Email, c.Password, nil
}
