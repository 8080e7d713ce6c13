package engine

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// NewToken returns a random 256-bit token, URL-safe base64 without padding.
// Used for session tokens, sign-in links and CSRF secrets.
func NewToken() string {
	var b [32]byte
	// crypto/rand.Read never returns an error on supported platforms (Go 1.24+).
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// NewID returns a random 128-bit identifier as 32 hex characters, used as a
// document _id where no natural key exists.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// HashToken returns the hex SHA-256 of a token. Tokens are stored only hashed,
// so a leaked database does not hand out live sessions or links.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
