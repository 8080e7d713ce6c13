package api

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// LongLivedLifetime is how long a long-lived token lives from its exchange or
// last refresh (docs/instagram.md §3.2, steps 3–4). It is assumed when a reply has no
// expires_in, and to estimate a token's age when IssuedAt is unknown.
const LongLivedLifetime = 60 * 24 * time.Hour

// MinRefreshAge is how old a token must be before the API will refresh it
// (docs/instagram.md §3.2, step 4).
const MinRefreshAge = 24 * time.Hour

// RefreshWhenLeft is how much lifetime may remain before NeedsRefresh says
// to refresh: 53 of 60 days, so a token is refreshed once it is about a week
// old (docs/instagram.md §3.2, step 4). Refreshing early leaves seven weeks
// for a failing job to be noticed before the token dies for good.
const RefreshWhenLeft = LongLivedLifetime - 7*24*time.Hour

// ShortToken is the short-lived (1 h) token the code exchange returns.
type ShortToken struct {
	AccessToken string
	// UserID is the Instagram professional account ID, as a string: the API
	// sends it as a JSON number above 2^53 (docs/instagram.md §3.2).
	UserID string
	// Permissions are the scopes the person granted, which may be fewer than
	// asked for.
	Permissions []string
}

// Token is a long-lived access token.
type Token struct {
	AccessToken string
	// ExpiresAt is when the token stops working; zero when unknown (e.g. a
	// token made with "Generate token" in the App Dashboard).
	ExpiresAt time.Time
	// IssuedAt is when the token was obtained or last refreshed; zero when
	// unknown, and then ExpiresAt − LongLivedLifetime is assumed.
	IssuedAt time.Time
}

// AuthorizeURL returns the consent screen's address to send the person to
// (docs/instagram.md §3.2, step 1). state must be an unguessable value bound to the
// person's session; Instagram echoes it on the redirect, and the caller must
// check it there (CallbackCode does) before exchanging the code, or anyone
// could connect their Instagram account to someone else's Glimpse account
// (login CSRF).
func (c *Client) AuthorizeURL(state string) string {
	q := url.Values{
		"client_id":     {c.appID},
		"redirect_uri":  {c.redirectURI},
		"response_type": {"code"},
		"scope":         {strings.Join(c.scopes, ",")},
		"state":         {state},
	}
	return c.authBase + "/oauth/authorize?" + q.Encode()
}

// CallbackCode reads the redirect's query: it checks state against the value
// sent with AuthorizeURL (in constant time), reports a declined consent as
// ErrDenied, and returns the code with the trailing "#_" Instagram appends
// removed (docs/instagram.md §3.2). A mismatched or missing state is
// ErrInvalidRequest.
func CallbackCode(query url.Values, state string) (string, error) {
	got := query.Get("state")
	if state == "" || subtle.ConstantTimeCompare([]byte(got), []byte(state)) != 1 {
		return "", &Error{Kind: ErrInvalidRequest, Message: "the state parameter does not match"}
	}
	if reason := query.Get("error"); reason != "" {
		if reason == "access_denied" {
			return "", &Error{Kind: ErrDenied, Message: clean(query.Get("error_reason"), nil)}
		}
		return "", &Error{Kind: ErrInvalidRequest, Message: "authorization failed: " + clean(reason, nil)}
	}
	code := strings.TrimSuffix(query.Get("code"), "#_")
	if code == "" {
		return "", &Error{Kind: ErrInvalidRequest, Message: "the redirect has no code"}
	}
	return code, nil
}

// ExchangeCode trades an authorization code for a short-lived token (POST
// /oauth/access_token on TokenBaseURL, docs/instagram.md §3.2 step 2). Codes are
// single-use; any failure means the person must go through AuthorizeURL again.
func (c *Client) ExchangeCode(ctx context.Context, code string) (ShortToken, error) {
	code = strings.TrimSuffix(code, "#_")
	form := url.Values{
		"client_id":     {c.appID},
		"client_secret": {c.appSecret},
		"grant_type":    {"authorization_code"},
		"redirect_uri":  {c.redirectURI},
		"code":          {code},
	}
	// Both documented reply shapes: flat, and wrapped in data[0].
	var reply struct {
		shortReply
		Data []shortReply `json:"data"`
	}
	_, err := c.do(ctx, request{method: http.MethodPost, url: c.tokenBase + "/oauth/access_token",
		form: form, secrets: []string{c.appSecret, code}}, &reply)
	if err != nil {
		return ShortToken{}, wrap("exchange code", err)
	}
	r := reply.shortReply
	if r.AccessToken == "" && len(reply.Data) > 0 {
		r = reply.Data[0]
	}
	if r.AccessToken == "" {
		return ShortToken{}, wrap("exchange code", &Error{Kind: ErrUnavailable, Message: "reply has no access_token"})
	}
	return ShortToken{AccessToken: r.AccessToken, UserID: string(r.UserID), Permissions: r.Permissions.list()}, nil
}

type shortReply struct {
	AccessToken string      `json:"access_token"`
	UserID      flexString  `json:"user_id"`
	Permissions permissions `json:"permissions"`
}

// permissions decodes a comma-separated string or an array: both have been
// seen (docs/instagram.md §3.2, step 2).
type permissions []string

// UnmarshalJSON implements json.Unmarshaler.
func (p *permissions) UnmarshalJSON(b []byte) error {
	var list []string
	if json.Unmarshal(b, &list) == nil {
		*p = list
		return nil
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		for part := range strings.SplitSeq(s, ",") {
			if part = strings.TrimSpace(part); part != "" {
				*p = append(*p, part)
			}
		}
	}
	return nil
}

func (p permissions) list() []string {
	if len(p) == 0 {
		return nil
	}
	return []string(p)
}

// LongLived trades a short-lived token for a long-lived one (60 days; GET
// /access_token?grant_type=ig_exchange_token on APIBaseURL, docs/instagram.md §3.2
// step 3). It carries the app secret, so it runs on the server only.
func (c *Client) LongLived(ctx context.Context, short ShortToken) (Token, error) {
	q := url.Values{
		"grant_type":    {"ig_exchange_token"},
		"client_secret": {c.appSecret},
		"access_token":  {short.AccessToken},
	}
	tok, err := c.tokenCall(ctx, "/access_token?"+q.Encode(), c.appSecret, short.AccessToken)
	return tok, wrap("long-lived token", err)
}

// Refresh extends a long-lived token by another 60 days from now (GET
// /refresh_access_token?grant_type=ig_refresh_token, docs/instagram.md §3.2 step 4).
// The API refuses tokens younger than 24 h or already expired; an expired
// token is ErrReauthorize.
func (c *Client) Refresh(ctx context.Context, tok Token) (Token, error) {
	q := url.Values{
		"grant_type":   {"ig_refresh_token"},
		"access_token": {tok.AccessToken},
	}
	// The refresh is a call made with the token, so it honours the token's
	// rest and a throttled reply rests it, as the Graph calls do: calling
	// while throttled prolongs the throttling (docs/instagram.md §3.9). Found by the
	// fault tests: a rate-limited refresh used to leave the token unrested.
	waitCtx, cancel := context.WithTimeout(ctx, c.timeout)
	err := c.limits.wait(waitCtx, tok.AccessToken)
	cancel()
	if err != nil {
		if ctxErr := context.Cause(ctx); ctxErr != nil {
			return Token{}, wrap("refresh token", fmt.Errorf("instagram: request abandoned: %w", ctxErr))
		}
		return Token{}, wrap("refresh token", err)
	}
	fresh, err := c.tokenCall(ctx, "/refresh_access_token?"+q.Encode(), tok.AccessToken)
	c.limits.observe(tok.AccessToken, nil, err)
	return fresh, wrap("refresh token", err)
}

func (c *Client) tokenCall(ctx context.Context, pathQuery string, secrets ...string) (Token, error) {
	var reply struct {
		AccessToken string  `json:"access_token"`
		ExpiresIn   flexInt `json:"expires_in"`
	}
	now := c.clock.Now()
	_, err := c.do(ctx, request{method: http.MethodGet, url: c.apiBase + pathQuery,
		secrets: append(secrets, c.appSecret)}, &reply)
	if err != nil {
		return Token{}, err
	}
	if reply.AccessToken == "" {
		return Token{}, &Error{Kind: ErrUnavailable, Message: "reply has no access_token"}
	}
	life := LongLivedLifetime
	if reply.ExpiresIn > 0 && reply.ExpiresIn < 10*365*24*3600 {
		life = time.Duration(reply.ExpiresIn) * time.Second
	}
	return Token{AccessToken: reply.AccessToken, ExpiresAt: now.Add(life), IssuedAt: now}, nil
}

// NeedsRefresh reports whether tok should be refreshed at now: it is still
// valid, at least MinRefreshAge old (the API refuses younger tokens), and has
// less than RefreshWhenLeft to live. A token with an unknown expiry is
// refreshed once old enough, which also tells us its expiry. An expired token
// cannot be refreshed (the person must reconnect), so it reports false; see
// Expired.
func NeedsRefresh(tok Token, now time.Time) bool {
	if tok.AccessToken == "" || tok.Expired(now) {
		return false
	}
	issued := tok.IssuedAt
	if issued.IsZero() && !tok.ExpiresAt.IsZero() {
		issued = tok.ExpiresAt.Add(-LongLivedLifetime)
	}
	if !issued.IsZero() && now.Sub(issued) < MinRefreshAge {
		return false
	}
	return tok.ExpiresAt.IsZero() || tok.ExpiresAt.Sub(now) < RefreshWhenLeft
}

// Expired reports whether tok's known expiry has passed at now. A token with
// an unknown expiry is not reported expired; the API says so with
// ErrReauthorize when it is.
func (tok Token) Expired(now time.Time) bool {
	return !tok.ExpiresAt.IsZero() && !now.Before(tok.ExpiresAt)
}

// flexString decodes a JSON string or number (kept digit for digit) as a
// string, for IDs.
type flexString string

// UnmarshalJSON implements json.Unmarshaler.
func (s *flexString) UnmarshalJSON(b []byte) error {
	var str string
	if json.Unmarshal(b, &str) == nil {
		*s = flexString(str)
		return nil
	}
	var n json.Number
	if json.Unmarshal(b, &n) == nil {
		if _, err := strconv.ParseFloat(n.String(), 64); err == nil {
			*s = flexString(n.String())
			return nil
		}
	}
	*s = ""
	return nil
}
