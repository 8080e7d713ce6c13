// Package breach answers "has this email address or password appeared in a
// data breach?" using Have I Been Pwned (HIBP).
//
// A Provider looks up an email address: Client calls the HIBP v3 API with the
// operator's key; LocalProvider reads a small fictional dataset shipped in
// fixtures/ so the app works with no key and no network. Service keeps the
// breach catalogue in MongoDB, caches each person's result and limits how
// often one person may make the app spend its key's quota. PasswordChecker
// looks a password up in Pwned Passwords by k-anonymity: only five hex
// characters of its SHA-1 leave the server.
//
// Contract notes: https://haveibeenpwned.com/API/v3, summarised in
// docs/hibp.md (breach API §1–§5, Pwned Passwords §6).
package breach

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// The failure kinds of a lookup, for errors.Is. Each error a Provider or
// PasswordChecker returns wraps at most one of them.
var (
	// ErrRateLimited means HIBP (or our own limiter, which keeps us under
	// HIBP's limit) refused the call for now; the error is a
	// *RateLimitedError saying for how long.
	ErrRateLimited = errors.New("breach: rate limited")
	// ErrUnavailable means the service failed, timed out or answered
	// something outside its contract; trying later may work.
	ErrUnavailable = errors.New("breach: service unavailable")
	// ErrMisconfigured means HIBP rejected our API key or user agent (401,
	// 403). Retrying cannot help; the operator must fix the configuration.
	ErrMisconfigured = errors.New("breach: misconfigured")
	// ErrInvalidAccount means the address is not something HIBP can search
	// (400, or empty).
	ErrInvalidAccount = errors.New("breach: invalid account")
)

// RateLimitedError is a refusal because of a rate limit. RetryAfter comes from
// HIBP's retry-after header, or from our own limiter's schedule.
type RateLimitedError struct {
	RetryAfter time.Duration
}

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("breach: rate limited; retry after %s", e.RetryAfter)
}

// Unwrap makes errors.Is(err, ErrRateLimited) hold.
func (e *RateLimitedError) Unwrap() error { return ErrRateLimited }

// Provider looks up breaches. The HIBP client and the local sample both
// implement it, so the app picks one at start and nothing else changes.
type Provider interface {
	// BreachedAccount returns the names of the breaches the address appears
	// in. An address found nowhere (HIBP's 404) is an empty slice and a nil
	// error: it has been checked and is clean.
	BreachedAccount(ctx context.Context, email string) ([]string, error)
	// Catalogue returns every breach HIBP knows, with full details.
	Catalogue(ctx context.Context) ([]Breach, error)
	// Sample reports whether the answers are fictional sample data, so the
	// screen can say so.
	Sample() bool
}

// Breach is one breach from HIBP's catalogue, in the "breach model" of the v3
// API. It decodes from HIBP's JSON (see UnmarshalJSON); the stores keep it
// by Name.
type Breach struct {
	// Name is HIBP's stable key (PascalCase). It never changes; Title may.
	Name string `json:"Name"`
	// Title is the display name.
	Title string `json:"Title"`
	// Domain is the breached site's domain; HIBP leaves it empty for
	// aggregated sources such as stealer logs.
	Domain string `json:"Domain"`
	// BreachDate is when the breach happened, as YYYY-MM-DD. It is a date,
	// not an instant, so it is kept as text and never shifted by a time zone.
	// Empty when HIBP's value was not a date.
	BreachDate string `json:"BreachDate"`
	// AddedDate is when HIBP loaded the breach.
	AddedDate time.Time `json:"AddedDate"`
	// PwnCount is how many accounts HIBP loaded.
	PwnCount int64 `json:"PwnCount"`
	// Description is plain text: HIBP sends HTML, which is reduced by
	// PlainText on decoding so nothing downstream can render it as markup.
	Description string `json:"Description"`
	// DataClasses are the kinds of data exposed, e.g. "Email addresses".
	DataClasses []string `json:"DataClasses"`
	// LogoPath is an https URL or a root-relative path; anything else is
	// dropped on decoding.
	LogoPath string `json:"LogoPath"`

	IsVerified   bool `json:"IsVerified"`
	IsFabricated bool `json:"IsFabricated"`
	IsSensitive  bool `json:"IsSensitive"`
	IsRetired    bool `json:"IsRetired"`
	IsSpamList   bool `json:"IsSpamList"`
	IsMalware    bool `json:"IsMalware"`
}

// UnmarshalJSON decodes HIBP's breach model. It reduces Description to plain
// text, keeps only the date of BreachDate and accepts AddedDate with or
// without seconds, since HIBP documents it at minute precision. A date it
// cannot read becomes empty rather than failing the whole catalogue.
func (b *Breach) UnmarshalJSON(data []byte) error {
	type model Breach // without the method, so decoding does not recurse
	var raw struct {
		model
		// These shadow model's fields of the same JSON name.
		BreachDate string `json:"BreachDate"`
		AddedDate  string `json:"AddedDate"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*b = Breach(raw.model)
	b.BreachDate = dateOnly(raw.BreachDate)
	b.AddedDate = parseInstant(raw.AddedDate)
	b.Description = PlainText(b.Description)
	b.LogoPath = safeLogo(b.LogoPath)
	return nil
}

// dateOnly returns the YYYY-MM-DD at the start of s, or "".
func dateOnly(s string) string {
	s = strings.TrimSpace(s)
	if len(s) < len(time.DateOnly) {
		return ""
	}
	d := s[:len(time.DateOnly)]
	if _, err := time.Parse(time.DateOnly, d); err != nil {
		return ""
	}
	return d
}

// instantLayouts are the forms HIBP has used for AddedDate.
var instantLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05", time.DateOnly}

// parseInstant reads an AddedDate in UTC, or returns the zero time.
func parseInstant(s string) time.Time {
	for _, layout := range instantLayouts {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// safeLogo keeps https URLs and root-relative paths. The renderer uses the
// value as an image source, so a javascript: or protocol-relative URL must
// not get through.
func safeLogo(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	switch {
	case err != nil || strings.Contains(s, `\`): // browsers read "/\host" as "//host"
		return ""
	case u.Scheme == "https" && u.Host != "":
		return u.String()
	case u.Scheme == "" && u.Host == "" && strings.HasPrefix(u.Path, "/") && !strings.HasPrefix(u.Path, "//"):
		return u.String()
	default:
		return ""
	}
}

// normaliseEmail is how every lookup and cache key sees an address. HIBP
// trims and ignores case, so two spellings must share one cached result.
func normaliseEmail(email string) string {
	return strings.ToLower(strings.TrimSpace(email))
}
