// Package api is the client of the Instagram API with Instagram Login
// (graph.instagram.com, "Business Login for Instagram"), which serves
// Business and Creator accounts only. It covers what Glimpse reads: the OAuth
// flow and token lifetime, the profile, media and comments, paginated, kept
// within the rate limits, with every failure classified by the API's error
// code.
//
// The contract, with its public sources, is summarised in docs/instagram.md §3,
// cited below as "docs/instagram.md §3.n". Meta changes field names without notice, so decoding is
// deliberately lenient (IDs as strings or numbers, both token reply shapes,
// two timestamp layouts) and everything unexpected is ErrUnavailable rather
// than a panic or a silent zero.
//
// Secrets never leave this package in text: the app secret, access tokens and
// authorization codes are removed from every error string (net/url errors
// carry the request URL, and the URL carries the token, so the URL is dropped
// and the rest is scrubbed).
package api

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"glimpse/engine"
)

// Defaults of Config.
const (
	// DefaultAuthBaseURL serves the consent screen (docs/instagram.md §3.2, step 1).
	DefaultAuthBaseURL = "https://www.instagram.com"
	// DefaultAPIBaseURL serves the Graph calls and the long-lived token
	// exchange and refresh (docs/instagram.md §3.2 steps 3–4, §3.3–3.6).
	DefaultAPIBaseURL = "https://graph.instagram.com"
	// DefaultTokenBaseURL serves the code exchange (docs/instagram.md §3.2, step 2).
	DefaultTokenBaseURL = "https://api.instagram.com"
	// DefaultVersion is the Graph API version in data paths. Versions are
	// retired over time, so it is configurable (docs/instagram.md §3.1).
	DefaultVersion = "v23.0"
	// DefaultTimeout bounds each request, and separately the wait for our
	// own rate limiter.
	DefaultTimeout = 10 * time.Second
)

// DefaultScopes are the permissions asked for at consent (docs/instagram.md §3.2):
// basic profile and media, commenters' usernames (required for them since
// 27 Aug 2024, §3.5) and account insights (§3.6).
var DefaultScopes = []string{
	"instagram_business_basic",
	"instagram_business_manage_comments",
	"instagram_business_manage_insights",
}

// maxBody caps what is read from one reply, so a misbehaving upstream cannot
// exhaust memory. A 100-item media page is well under 1 MB.
const maxBody = 8 << 20

// Config configures a Client. AppID, AppSecret and RedirectURI are needed for
// the OAuth calls; the data calls need only a token.
type Config struct {
	// AppID is the Instagram app ID (the client_id).
	AppID string
	// AppSecret is the Instagram app secret. It is sent only to TokenBaseURL
	// and APIBaseURL on the token calls, and never appears in an error.
	AppSecret string
	// RedirectURI must match a URI configured for the app exactly, trailing
	// slash included (docs/instagram.md §3.2).
	RedirectURI string
	// AuthBaseURL is the consent screen's origin; DefaultAuthBaseURL when
	// empty. Tests point all three base URLs at a local fake.
	AuthBaseURL string
	// APIBaseURL is the Graph API origin; DefaultAPIBaseURL when empty.
	APIBaseURL string
	// TokenBaseURL is the code exchange's origin; DefaultTokenBaseURL when
	// empty.
	TokenBaseURL string
	// Version is the Graph API version in data paths; DefaultVersion when
	// empty.
	Version string
	// HTTPClient sends the requests; a client with Timeout when nil.
	HTTPClient *http.Client
	// Timeout bounds each request; DefaultTimeout when zero or less.
	Timeout time.Duration
	// Scopes are asked for at consent; DefaultScopes when empty.
	Scopes []string
	// CallsPerHour sizes the per-token limiter; DefaultCallsPerHour when
	// zero or less.
	CallsPerHour int
	// Clock stamps token expiry and drives the per-token limiter; the system
	// clock when nil.
	Clock engine.Clock
}

// Client calls the Instagram API with Instagram Login. It is safe for
// concurrent use, and one Client should serve the whole process so that its
// per-token limiter sees every call made with a token.
type Client struct {
	appID, appSecret, redirectURI string
	authBase, apiBase, tokenBase  string
	version                       string
	scopes                        []string
	timeout                       time.Duration
	http                          *http.Client
	clock                         engine.Clock
	limits                        *limiter
}

// New returns a Client with cfg's defaults filled in.
func New(cfg Config) *Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: cfg.Timeout}
	}
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = DefaultScopes
	}
	if cfg.CallsPerHour <= 0 {
		cfg.CallsPerHour = DefaultCallsPerHour
	}
	if cfg.Clock == nil {
		cfg.Clock = engine.SystemClock{}
	}
	return &Client{
		appID:       cfg.AppID,
		appSecret:   cfg.AppSecret,
		redirectURI: cfg.RedirectURI,
		authBase:    base(cfg.AuthBaseURL, DefaultAuthBaseURL),
		apiBase:     base(cfg.APIBaseURL, DefaultAPIBaseURL),
		tokenBase:   base(cfg.TokenBaseURL, DefaultTokenBaseURL),
		version:     strings.Trim(cmp.Or(cfg.Version, DefaultVersion), "/"),
		scopes:      slices.Clone(cfg.Scopes),
		timeout:     cfg.Timeout,
		http:        cfg.HTTPClient,
		clock:       cfg.Clock,
		limits:      newLimiter(cfg.CallsPerHour, cfg.Clock),
	}
}

func base(s, fallback string) string { return strings.TrimRight(cmp.Or(s, fallback), "/") }

// request is one call to the API.
type request struct {
	method string
	url    string
	form   url.Values // POST body, form-encoded
	// secrets are scrubbed from any error text the call produces.
	secrets []string
}

// do sends r and decodes a 2xx JSON reply into out. Every other outcome is an
// *Error (or *RateLimitError) wrapping one of the sentinels, or the caller's
// own cancellation. The reply's headers are returned for the usage readings.
func (c *Client) do(ctx context.Context, r request, out any) (http.Header, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	var body io.Reader
	if r.form != nil {
		body = strings.NewReader(r.form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.url, body)
	if err != nil {
		// The error would quote the URL, which holds the token.
		return nil, &Error{Kind: ErrInvalidRequest, Message: "could not build the request"}
	}
	req.Header.Set("Accept", "application/json")
	if r.form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, transportError(parent, ctx, err, r.secrets)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return resp.Header, transportError(parent, ctx, err, r.secrets)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.Header, replyError(resp.StatusCode, resp.Header, data, r.secrets)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // IDs above 2^53 arrive as JSON numbers (docs/instagram.md §3.2)
	if err := dec.Decode(out); err != nil {
		return resp.Header, &Error{Kind: ErrUnavailable, Status: resp.StatusCode,
			Message: "malformed reply: " + redact(err.Error(), r.secrets)}
	}
	return resp.Header, nil
}

// transportError classifies a failure to get a reply. The caller's own
// cancellation stays what it is; a timeout or a network failure means the API
// is unavailable. The *url.Error's URL (which holds the token) is dropped.
func transportError(parent, ctx context.Context, err error, secrets []string) error {
	if cause := context.Cause(parent); cause != nil && !errors.Is(cause, context.DeadlineExceeded) {
		return fmt.Errorf("instagram: request abandoned: %w", cause)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if ctx.Err() != nil || isTimeout(err) {
		return &Error{Kind: ErrUnavailable, Message: "timed out", cause: context.DeadlineExceeded}
	}
	return &Error{Kind: ErrUnavailable, Message: "no reply: " + redact(err.Error(), secrets)}
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
