package breach

import (
	"bufio"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"glimpse/engine"
)

// Defaults of RangeConfig.
const (
	DefaultRangeBaseURL = "https://api.pwnedpasswords.com"
	// DefaultRangeTimeout is short because a person is waiting on a form
	// and a failed lookup lets them through anyway; Supabase uses 5 s too.
	DefaultRangeTimeout = 5 * time.Second
)

// maxRangeBody bounds a range response: a padded range has at most about
// 1,600 lines of 40 bytes.
const maxRangeBody = 1 << 20

// MessagePasswordBreached is shown under the password field when a new
// password is in Pwned Passwords.
const MessagePasswordBreached = "This password has appeared in a data breach. Please choose a different one."

// PasswordChecker tells how often a password appears in known breaches.
type PasswordChecker interface {
	// Breached returns how many times the password appears in the corpus;
	// 0 means not found.
	Breached(ctx context.Context, password string) (count int, err error)
}

// passwordHash splits the uppercase hex SHA-1 of a password into the 5
// characters that may leave the server and the 35 that must not. SHA-1 is
// what the Pwned Passwords corpus is keyed by, not a choice of ours.
func passwordHash(password string) (prefix, suffix string) {
	sum := sha1.Sum([]byte(password))
	h := strings.ToUpper(hex.EncodeToString(sum[:]))
	return h[:5], h[5:]
}

// RangeCount reads a Pwned Passwords range response ("SUFFIX:COUNT" lines,
// CRLF or LF) and returns the count of suffix, matched case-insensitively, or
// 0 when absent. Padding lines (count 0, added on request so a response's
// size says nothing about its prefix) never match. A line that is not in the
// format is an error: the answer cannot be trusted.
func RangeCount(r io.Reader, suffix string) (int, error) {
	sc := bufio.NewScanner(r)
	found := 0
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		hash, countText, ok := strings.Cut(line, ":")
		count, err := strconv.Atoi(countText)
		if !ok || len(hash) != 35 || !isHex(hash) || err != nil || count < 0 {
			return 0, fmt.Errorf("pwned passwords range: line %d is not SUFFIX:COUNT", n)
		}
		if count > 0 && strings.EqualFold(hash, suffix) {
			found = count
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("pwned passwords range: %w", err)
	}
	return found, nil
}

func isHex(s string) bool {
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// RangeConfig configures a RangeClient.
type RangeConfig struct {
	// BaseURL is the API root; DefaultRangeBaseURL when empty.
	BaseURL string
	// UserAgent identifies us; DefaultUserAgent when empty.
	UserAgent string
	// Timeout bounds each lookup; DefaultRangeTimeout when zero or less.
	Timeout time.Duration
	// HTTPClient sends the requests; a client with Timeout when nil.
	HTTPClient *http.Client
}

// RangeClient looks passwords up in the Pwned Passwords API by k-anonymity:
// only the first 5 hex characters of the password's SHA-1 are sent, and the
// response is padded so its size does not narrow the prefix down either.
// It needs no key and has no documented rate limit.
// See https://haveibeenpwned.com/API/v3#SearchingPwnedPasswordsByRange.
type RangeClient struct {
	baseURL   string
	userAgent string
	timeout   time.Duration
	http      *http.Client
}

var _ PasswordChecker = (*RangeClient)(nil)

// NewRangeClient returns a RangeClient with cfg's defaults filled in.
func NewRangeClient(cfg RangeConfig) *RangeClient {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultRangeBaseURL
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultRangeTimeout
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: cfg.Timeout}
	}
	return &RangeClient{
		baseURL: strings.TrimRight(cfg.BaseURL, "/"), userAgent: cfg.UserAgent,
		timeout: cfg.Timeout, http: cfg.HTTPClient,
	}
}

// Breached returns how many times password appears in Pwned Passwords.
func (c *RangeClient) Breached(ctx context.Context, password string) (int, error) {
	prefix, suffix := passwordHash(password)
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.baseURL+"/range/"+prefix, nil)
	if err != nil {
		return 0, fmt.Errorf("pwned passwords: %w: %v", ErrMisconfigured, err)
	}
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Add-Padding", "true")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("pwned passwords: %w: %v", ErrUnavailable, redactURL(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("pwned passwords: %w: answered %d", ErrUnavailable, resp.StatusCode)
	}
	count, err := RangeCount(io.LimitReader(resp.Body, maxRangeBody), suffix)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return count, nil
}

// LocalRangePath is the directory of range files LocalRangeChecker reads.
const LocalRangePath = "pwned-passwords"

// LocalRangeChecker answers from range files in the API's format, one per
// prefix at pwned-passwords/<PREFIX>.txt in an fs.FS. The repository ships a
// small sample of common passwords in fixtures/, so the check works with no
// network; a full offline copy (HIBP's PwnedPasswordsDownloader) would work
// the same way.
type LocalRangeChecker struct {
	fsys fs.FS
}

var _ PasswordChecker = LocalRangeChecker{}

// NewLocalRangeChecker returns a checker over fsys.
func NewLocalRangeChecker(fsys fs.FS) LocalRangeChecker {
	return LocalRangeChecker{fsys: fsys}
}

// Breached returns the password's count from its prefix's file. A prefix with
// no file has no known passwords: 0, not an error, since a sample covers few.
func (c LocalRangeChecker) Breached(ctx context.Context, password string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	prefix, suffix := passwordHash(password)
	f, err := c.fsys.Open(LocalRangePath + "/" + prefix + ".txt")
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("pwned passwords sample: %w", err)
	}
	defer f.Close()
	return RangeCount(f, suffix)
}

// CheckNewPassword refuses a new password found in the breach corpus, with
// the field error the sign-up, change and reset forms show. A failed lookup
// lets the password through (fail open, as Supabase and Kratos do by
// default): an outage of a third-party service must not lock people out of
// setting a password. The failure is logged; the password never is.
func CheckNewPassword(ctx context.Context, checker PasswordChecker, password string, logger *slog.Logger) error {
	count, err := checker.Breached(ctx, password)
	if err != nil {
		logger.WarnContext(ctx, "breached-password check failed; password allowed", slog.Any("err", err))
		return nil
	}
	if count > 0 {
		return engine.FieldErrors(map[string]string{"password": MessagePasswordBreached})
	}
	return nil
}
