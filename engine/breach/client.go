package breach

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"glimpse/engine"
)

// Defaults of ClientConfig.
const (
	DefaultBaseURL   = "https://haveibeenpwned.com/api/v3"
	DefaultUserAgent = "Glimpse-PasswordSafety/1.0"
	// DefaultRPM is the smallest HIBP subscription (Core 1), so an unknown
	// plan never exceeds its limit.
	DefaultRPM     = 10
	DefaultTimeout = 10 * time.Second
	// defaultRetryAfter is used when a 429 carries no usable retry-after.
	// Mozilla Monitor waits 2 s after a 429 as well.
	defaultRetryAfter = 2 * time.Second
)

// Limits on what is read from a response, so a misbehaving upstream cannot
// exhaust memory. The catalogue held about 900 breaches (≈2 MB) in 2026.
const (
	maxAccountBody   = 4 << 20
	maxCatalogueBody = 64 << 20
	maxErrorBody     = 512
)

// ClientConfig configures a Client. Only APIKey is required for account
// lookups; the catalogue needs no key.
type ClientConfig struct {
	// BaseURL is the API root without a trailing slash; DefaultBaseURL when
	// empty. Tests point it at a local server.
	BaseURL string
	// APIKey is the hibp-api-key. It is sent only to BaseURL, only on calls
	// that need it, and never appears in an error.
	APIKey string
	// UserAgent identifies us to HIBP, which answers 403 without one;
	// DefaultUserAgent when empty.
	UserAgent string
	// RPM is the key's requests per minute, which sizes the client-side
	// limiter; DefaultRPM when zero or less. SubscriptionRPM reads it.
	RPM int
	// Timeout bounds the wait for the limiter and, separately, each request;
	// DefaultTimeout when zero or less.
	Timeout time.Duration
	// HTTPClient sends the requests; a client with Timeout when nil.
	HTTPClient *http.Client
}

// Client is the HIBP v3 API client. It implements Provider. It is safe for
// concurrent use, and one Client should serve the whole process so its
// limiter sees every call made with the key.
type Client struct {
	baseURL   string
	apiKey    string
	userAgent string
	timeout   time.Duration
	http      *http.Client
	limiter   *rate.Limiter

	mu           sync.Mutex
	blockedUntil time.Time // from HIBP's last retry-after
}

var _ Provider = (*Client)(nil)

// NewClient returns a Client with cfg's defaults filled in.
func NewClient(cfg ClientConfig) *Client {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.RPM <= 0 {
		cfg.RPM = DefaultRPM
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: cfg.Timeout}
	}
	return &Client{
		baseURL:   strings.TrimRight(cfg.BaseURL, "/"),
		apiKey:    cfg.APIKey,
		userAgent: cfg.UserAgent,
		timeout:   cfg.Timeout,
		http:      cfg.HTTPClient,
		limiter:   rate.NewLimiter(perMinute(cfg.RPM), 1),
	}
}

// perMinute spaces calls evenly at rpm a minute. A burst of one keeps us
// under HIBP's limit however its window is aligned.
func perMinute(rpm int) rate.Limit {
	return rate.Every(time.Minute / time.Duration(rpm))
}

// SetRPM resizes the limiter, e.g. to the Rpm SubscriptionRPM reported.
func (c *Client) SetRPM(rpm int) {
	if rpm > 0 {
		c.limiter.SetLimit(perMinute(rpm))
	}
}

// Sample reports false: the answers are HIBP's.
func (c *Client) Sample() bool { return false }

// BreachedAccount returns the names of the breaches email appears in. HIBP's
// 404 (not pwned) is an empty slice and no error.
func (c *Client) BreachedAccount(ctx context.Context, email string) ([]string, error) {
	models, err := c.BreachedAccountModels(ctx, email)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(models))
	for _, b := range models {
		names = append(names, b.Name)
	}
	return names, nil
}

// BreachedAccountModels is BreachedAccount with HIBP's full breach models
// (truncateResponse=false), for callers that have no catalogue to join with.
// It includes unverified breaches, as HIBP does by default; Breach carries
// the flags to tell them apart.
func (c *Client) BreachedAccountModels(ctx context.Context, email string) ([]Breach, error) {
	email = normaliseEmail(email)
	if email == "" {
		return nil, fmt.Errorf("%w: empty address", ErrInvalidAccount)
	}
	if c.apiKey == "" {
		return nil, fmt.Errorf("%w: no HIBP API key configured", ErrMisconfigured)
	}
	path := "/breachedaccount/" + url.PathEscape(email) + "?truncateResponse=false"
	models := []Breach{}
	err := c.get(ctx, path, true, maxAccountBody, &models)
	if errors.Is(err, errNotFound) {
		return []Breach{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hibp breached account: %w", err)
	}
	return models, nil
}

// Catalogue returns every breach (GET /breaches). It needs no key and does
// not count against the key's rate limit, so it bypasses the limiter.
func (c *Client) Catalogue(ctx context.Context) ([]Breach, error) {
	var all []Breach
	if err := c.get(ctx, "/breaches", false, maxCatalogueBody, &all); err != nil {
		return nil, fmt.Errorf("hibp catalogue: %w", err)
	}
	return all, nil
}

// SubscriptionRPM returns the requests per minute of the key's subscription
// (GET /subscription/status), so the limiter can follow the plan without a
// redeploy: plans and their limits have changed several times.
func (c *Client) SubscriptionRPM(ctx context.Context) (int, error) {
	if c.apiKey == "" {
		return 0, fmt.Errorf("%w: no HIBP API key configured", ErrMisconfigured)
	}
	var status struct {
		Rpm int `json:"Rpm"`
	}
	if err := c.get(ctx, "/subscription/status", true, maxAccountBody, &status); err != nil {
		return 0, fmt.Errorf("hibp subscription status: %w", err)
	}
	if status.Rpm <= 0 {
		return 0, fmt.Errorf("hibp subscription status: %w: no Rpm in the answer", ErrUnavailable)
	}
	return status.Rpm, nil
}

// errNotFound is HIBP's 404. An account lookup reads it as "not pwned"; on
// any other path it means HIBP is not answering as documented.
var errNotFound = fmt.Errorf("%w: HIBP answered 404", ErrUnavailable)

// get calls path and decodes a 200's JSON body into out. keyed calls carry
// the API key and pass the limiter.
func (c *Client) get(ctx context.Context, path string, keyed bool, limit int64, out any) error {
	if keyed {
		waitCtx, cancel := context.WithTimeout(ctx, c.timeout)
		err := c.wait(waitCtx)
		cancel()
		if err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+path, nil)
	if err != nil {
		return fmt.Errorf("%w: build request: %v", ErrMisconfigured, redactURL(err))
	}
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Accept", "application/json")
	if keyed {
		req.Header.Set("hibp-api-key", c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return c.transportError(ctx, err)
	}
	defer resp.Body.Close()

	switch resp.StatusCode {
	case http.StatusOK:
		if err := json.NewDecoder(io.LimitReader(resp.Body, limit)).Decode(out); err != nil {
			if ctx.Err() != nil {
				return c.transportError(ctx, err)
			}
			return fmt.Errorf("%w: decode answer: %v", ErrUnavailable, err)
		}
		return nil
	case http.StatusNotFound:
		return errNotFound
	case http.StatusBadRequest:
		return fmt.Errorf("%w: HIBP answered 400", ErrInvalidAccount)
	case http.StatusUnauthorized, http.StatusForbidden:
		// 401: key missing or wrong; 403: no user agent, or the plan lacks
		// the feature. The body says which and is safe to log once the key
		// is removed from it.
		return fmt.Errorf("%w: HIBP answered %d (check the API key and user agent): %s",
			ErrMisconfigured, resp.StatusCode, c.reason(resp.Body))
	case http.StatusTooManyRequests:
		wait := retryAfter(resp.Header.Get("Retry-After"))
		c.block(wait)
		return &RateLimitedError{RetryAfter: wait}
	default:
		return fmt.Errorf("%w: HIBP answered %d", ErrUnavailable, resp.StatusCode)
	}
}

// wait takes a token from the limiter, or fails at once when it cannot have
// one before ctx ends (engine.WaitLimit). It also honours HIBP's last
// retry-after, so a 429 is not answered with another request.
func (c *Client) wait(ctx context.Context) error {
	now := time.Now()
	c.mu.Lock()
	blocked := c.blockedUntil.Sub(now)
	c.mu.Unlock()
	if blocked > 0 {
		// Whole seconds rounded up, as HIBP states them.
		return &RateLimitedError{RetryAfter: (blocked + time.Second - 1).Truncate(time.Second)}
	}
	wait, err := engine.WaitLimit(ctx, c.limiter, now)
	if errors.Is(err, engine.ErrPastDeadline) {
		return &RateLimitedError{RetryAfter: wait}
	}
	return err
}

// block holds back every keyed call for d, HIBP's retry-after.
func (c *Client) block(d time.Duration) {
	until := time.Now().Add(d)
	c.mu.Lock()
	defer c.mu.Unlock()
	if until.After(c.blockedUntil) {
		c.blockedUntil = until
	}
}

// transportError classifies a failure to get an answer. The caller's own
// cancellation stays what it is; a timeout or network failure means HIBP is
// unavailable. The URL, which holds the address looked up, is left out.
func (c *Client) transportError(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.DeadlineExceeded) {
		return cause
	}
	return fmt.Errorf("%w: %v", ErrUnavailable, redactURL(err))
}

// reason returns the start of an error body for the log, without the key.
func (c *Client) reason(body io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(body, maxErrorBody))
	s := strings.TrimSpace(string(b))
	if c.apiKey != "" {
		s = strings.ReplaceAll(s, c.apiKey, "[redacted]")
	}
	return strings.ToValidUTF8(s, "")
}

// redactURL drops the request URL from a *url.Error: it holds the email
// address looked up, which does not belong in logs.
func redactURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// retryAfter reads HIBP's retry-after header: whole seconds, rounded up by
// HIBP. Anything else gets defaultRetryAfter.
func retryAfter(header string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(header))
	if err != nil || n <= 0 {
		return defaultRetryAfter
	}
	return time.Duration(min(n, 24*60*60)) * time.Second
}
