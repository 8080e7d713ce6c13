package profile

import (
	"context"
	"fmt"
	"strings"
)

// The support desk finds a subscriber by their Instagram username, the one
// name Glimpse keeps of a person. Instagram usernames are at most 30
// letters, digits, periods and underscores, which Instagram treats and
// shows in lower case, so they are stored lower case (Connect) and a lookup is lower-cased the same way: a prefix range on
// one index, case-insensitive without a case-folding index.

// MaxUsername is the longest Instagram username.
const MaxUsername = 30

// NormaliseUsername is a username as stored: without spaces around it or a
// leading "@", in lower case.
func NormaliseUsername(name string) string {
	return strings.ToLower(strings.TrimPrefix(strings.TrimSpace(name), "@"))
}

// UsernamePrefix reads what staff typed as the start of an Instagram
// username ("@Glimpse.D" reads "glimpse.d"); false when it cannot be one
// (a character Instagram does not allow, or too long).
func UsernamePrefix(q string) (string, bool) {
	q = NormaliseUsername(q)
	if q == "" || len(q) > MaxUsername {
		return "", false
	}
	for _, c := range q {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_') {
			return "", false
		}
	}
	return q, true
}

// WithUsernamePrefix returns up to n connected profiles whose username
// starts with what q reads as (UsernamePrefix), in username order; none
// when q cannot start a username.
func (s *Service) WithUsernamePrefix(ctx context.Context, q string, n int) ([]Handle, error) {
	prefix, ok := UsernamePrefix(q)
	if !ok || n < 1 {
		return nil, nil
	}
	out, err := s.profiles.WithUsernamePrefix(ctx, prefix, n)
	if err != nil {
		return nil, fmt.Errorf("profiles from @%s: %w", prefix, err)
	}
	return out, nil
}
