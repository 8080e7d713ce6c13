package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"glimpse/engine"
)

// The failure kinds, for errors.Is. Every error this package returns wraps
// exactly one of them, except the caller's own cancellation, which wraps
// context.Canceled. Classification follows the API's error code, not the
// HTTP status (docs/instagram.md §3.8); the status decides only when the reply has
// no code.
var (
	// ErrReauthorize means the token is invalid or expired (code 190 with any
	// subcode, or 102): the person must connect Instagram again, and polling
	// with this token must stop.
	ErrReauthorize = errors.New("instagram: authorisation needed")
	// ErrRateLimited means the API (codes 4, 17, 32, 613, 341, 368, the
	// business use case codes 80000–80014, HTTP 429) or our own limiter
	// refused the call for now. The error is a *RateLimitError saying for
	// how long.
	ErrRateLimited = errors.New("instagram: rate limited")
	// ErrPermission means a permission is missing (codes 10 and 200–299,
	// e.g. a scope the person did not grant): reconnecting with every scope
	// fixes it, retrying does not.
	ErrPermission = errors.New("instagram: permission missing")
	// ErrNotFound means an invalid parameter (code 100): an unknown object
	// ID, an unsupported field or metric. Retrying cannot help.
	ErrNotFound = errors.New("instagram: not found or invalid parameter")
	// ErrUnavailable means the API failed, timed out or answered outside its
	// contract (codes 1 and 2, transient errors, 5xx, malformed replies);
	// trying later may work.
	ErrUnavailable = errors.New("instagram: unavailable")
	// ErrInvalidRequest means any other refusal (other 4xx, an invalid
	// authorization code): our request was wrong, so retrying cannot help.
	ErrInvalidRequest = errors.New("instagram: invalid request")
	// ErrDenied means the person declined consent on Instagram's screen
	// (?error=access_denied on the redirect, docs/instagram.md §3.2).
	ErrDenied = errors.New("instagram: consent declined")
)

// Error is a failure reply of the API (the Graph envelope or the legacy OAuth
// one, docs/instagram.md §3.2 and §3.8) or a failure to get a reply. Every text field
// has had secrets removed; Message is for logs, not for people (see
// PersonMessage).
type Error struct {
	// Kind is the sentinel the error is classified as.
	Kind error
	// Status is the HTTP status, 0 when no reply came.
	Status int
	// Code and Subcode are error.code and error.error_subcode.
	Code, Subcode int
	// Type is error.type, e.g. OAuthException.
	Type string
	// Message is error.message, or what went wrong on our side.
	Message string
	// UserTitle and UserMessage are error_user_title and error_user_msg,
	// which Meta writes for people; often empty.
	UserTitle, UserMessage string
	// TraceID is error.fbtrace_id, which Meta's support asks for.
	TraceID string
	// Transient is error.is_transient.
	Transient bool

	cause error // e.g. context.DeadlineExceeded for a timeout
}

func (e *Error) Error() string {
	var b strings.Builder
	kind := e.Kind
	if kind == nil {
		kind = ErrUnavailable
	}
	b.WriteString(kind.Error())
	if e.Code != 0 {
		fmt.Fprintf(&b, ": code %d", e.Code)
		if e.Subcode != 0 {
			fmt.Fprintf(&b, "/%d", e.Subcode)
		}
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.TraceID != "" {
		b.WriteString(" [fbtrace_id " + e.TraceID + "]")
	}
	return b.String()
}

// Unwrap makes errors.Is hold for Kind (and for context.DeadlineExceeded on
// a timeout).
func (e *Error) Unwrap() []error {
	if e.cause != nil {
		return []error{e.Kind, e.cause}
	}
	return []error{e.Kind}
}

// RateLimitError is a refusal because of a rate limit, ours or the API's.
type RateLimitError struct {
	// RetryAfter is how long to wait: the largest of the usage headers'
	// estimated_time_to_regain_access and Retry-After, else DefaultBackoff,
	// or our own limiter's schedule.
	RetryAfter time.Duration
	// Err is the API's reply; nil when our own limiter refused.
	Err *Error
}

func (e *RateLimitError) Error() string {
	s := fmt.Sprintf("%v; retry after %s", ErrRateLimited, e.RetryAfter)
	if e.Err != nil {
		s += " (" + e.Err.Error() + ")"
	}
	return s
}

// Unwrap makes errors.Is(err, ErrRateLimited) and errors.As(err, **Error)
// hold.
func (e *RateLimitError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrRateLimited, e.Err}
	}
	return []error{ErrRateLimited}
}

// DefaultBackoff is how long a rate-limited token rests when the reply says
// nothing about when access returns. The platform's windows roll over an hour
// and calls made while throttled prolong the throttling (docs/instagram.md §3.9), so
// this is long rather than short.
const DefaultBackoff = 15 * time.Minute

// maxBackoff caps any wait a reply asks for; the BUC window is 24 h.
const maxBackoff = 24 * time.Hour

// maxMessage caps the length of API text kept in an error.
const maxMessage = 300

// replyError builds the error of a non-2xx reply.
func replyError(status int, header http.Header, body []byte, secrets []string) error {
	e := parseErrorBody(status, body, secrets)
	if !errors.Is(e.Kind, ErrRateLimited) {
		return e
	}
	wait := usageOf(header).retryAfter
	if wait <= 0 {
		wait = DefaultBackoff
	}
	return &RateLimitError{RetryAfter: wait, Err: e}
}

// parseErrorBody reads the Graph error envelope
// {"error":{"message","type","code","error_subcode","fbtrace_id",…}} or the
// legacy {"error_type","code","error_message"} (docs/instagram.md §3.2, §3.8), and
// classifies it. A body that is neither (an HTML 502 page) is classified by
// status alone. It never fails.
func parseErrorBody(status int, body []byte, secrets []string) *Error {
	var env struct {
		Error        json.RawMessage `json:"error"`
		ErrorType    string          `json:"error_type"`
		Code         flexInt         `json:"code"`
		ErrorMessage string          `json:"error_message"`
	}
	// Flexible types throughout: one field of a surprising type must not
	// lose the whole envelope, or a 190 would no longer ask the person to
	// reconnect (found by the fault tests: a numeric fbtrace_id did that).
	var graph struct {
		Message     flexString `json:"message"`
		Type        flexString `json:"type"`
		Code        flexInt    `json:"code"`
		Subcode     flexInt    `json:"error_subcode"`
		UserTitle   flexString `json:"error_user_title"`
		UserMessage flexString `json:"error_user_msg"`
		TraceID     flexString `json:"fbtrace_id"`
		Transient   flexBool   `json:"is_transient"`
	}
	e := &Error{Status: status}
	if json.Unmarshal(body, &env) == nil {
		if len(env.Error) > 0 && env.Error[0] == '{' && json.Unmarshal(env.Error, &graph) == nil {
			e.Code, e.Subcode, e.Type = int(graph.Code), int(graph.Subcode), string(graph.Type)
			e.Message, e.UserTitle, e.UserMessage = string(graph.Message), string(graph.UserTitle), string(graph.UserMessage)
			e.TraceID, e.Transient = string(graph.TraceID), bool(graph.Transient)
		} else if env.ErrorType != "" || env.ErrorMessage != "" {
			e.Code, e.Type, e.Message = int(env.Code), env.ErrorType, env.ErrorMessage
		}
	}
	if e.Message == "" && e.Code == 0 {
		e.Message = "HTTP " + strconv.Itoa(status) + " without an error body"
		if status == 0 {
			e.Message = "no error body"
		}
	}
	e.Message = clean(e.Message, secrets)
	e.Type = clean(e.Type, secrets)
	e.UserTitle = clean(e.UserTitle, secrets)
	e.UserMessage = clean(e.UserMessage, secrets)
	e.TraceID = clean(e.TraceID, secrets)
	e.Kind = classify(status, e.Code, e.Subcode, e.Type, e.Transient)
	return e
}

// reauthorizeSubcodes are the OAuthException subcodes of an unusable token
// (docs/instagram.md §3.8): app removed, checkpoint, password changed, expired,
// unconfirmed user, invalid token.
var reauthorizeSubcodes = map[int]bool{458: true, 459: true, 460: true, 463: true, 464: true, 467: true}

// classify maps an error code (or, without one, the HTTP status) to a
// sentinel, following the table in docs/instagram.md §3.8.
func classify(status, code, subcode int, typ string, transient bool) error {
	switch {
	case code == 190 || code == 102:
		return ErrReauthorize
	case code == 4 || code == 17 || code == 32 || code == 613 || code == 341 || code == 368 ||
		code >= 80000 && code <= 80014:
		return ErrRateLimited
	case code == 10 || code >= 200 && code <= 299:
		return ErrPermission
	case code == 100:
		return ErrNotFound
	case code == 1 || code == 2:
		return ErrUnavailable
	case reauthorizeSubcodes[subcode] && typ == "OAuthException":
		return ErrReauthorize
	case transient:
		return ErrUnavailable
	}
	switch {
	case status == http.StatusUnauthorized:
		return ErrReauthorize
	case status == http.StatusForbidden:
		return ErrPermission
	case status == http.StatusNotFound:
		return ErrNotFound
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status >= 500 || status == 0:
		return ErrUnavailable
	}
	return ErrInvalidRequest
}

// usage is what the usage headers say (docs/instagram.md §3.9).
type usage struct {
	// percent is the highest call_count, total_cputime or total_time seen;
	// the platform throttles at 100.
	percent int
	// retryAfter is the longest estimated_time_to_regain_access (minutes in
	// the headers) or Retry-After (seconds), capped at maxBackoff.
	retryAfter time.Duration
}

// usageOf reads X-App-Usage ({"call_count":28,…}), X-Business-Use-Case-Usage
// ({"<id>":[{"type":"instagram","call_count":…,
// "estimated_time_to_regain_access":<minutes>}]}) and Retry-After. The BUC
// shape is unverified (docs/instagram.md §3.9), so anything unreadable is ignored
// rather than failed on.
func usageOf(h http.Header) usage {
	var u usage
	note := func(r usageReading) {
		u.percent = max(u.percent, int(r.CallCount), int(r.TotalCPUTime), int(r.TotalTime))
		u.retryAfter = max(u.retryAfter, minutes(float64(r.RegainMinutes)))
	}
	if v := h.Get("X-App-Usage"); v != "" {
		var r usageReading
		if json.Unmarshal([]byte(v), &r) == nil {
			note(r)
		}
	}
	if v := h.Get("X-Business-Use-Case-Usage"); v != "" {
		var byID map[string]json.RawMessage
		if json.Unmarshal([]byte(v), &byID) == nil {
			for _, raw := range byID {
				var list []usageReading
				if json.Unmarshal(raw, &list) == nil {
					for _, r := range list {
						note(r)
					}
					continue
				}
				var one usageReading
				if json.Unmarshal(raw, &one) == nil {
					note(one)
				}
			}
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			u.retryAfter = max(u.retryAfter, minutes(n/60))
		}
	}
	return u
}

// usageReading is one entry of a usage header.
type usageReading struct {
	CallCount     flexInt `json:"call_count"`
	TotalCPUTime  flexInt `json:"total_cputime"`
	TotalTime     flexInt `json:"total_time"`
	RegainMinutes flexInt `json:"estimated_time_to_regain_access"`
}

// minutes converts a count of minutes to a duration within [0, maxBackoff].
func minutes(m float64) time.Duration {
	if math.IsNaN(m) || m <= 0 {
		return 0
	}
	if m >= maxBackoff.Minutes() {
		return maxBackoff
	}
	return time.Duration(m * float64(time.Minute))
}

// secretParam finds secrets passed as query or form parameters, should a URL
// ever be quoted back to us.
var secretParam = regexp.MustCompile(`(?i)(access_token|client_secret|code)=[^&\s"'<>]+`)

// tokenLike finds Instagram user tokens (IGAA…, IGQV…) quoted anywhere.
var tokenLike = regexp.MustCompile(`IG[A-Z]{2}[A-Za-z0-9_\-]{16,}`)

// redact removes the given secrets and anything shaped like a token or a
// secret parameter from s.
func redact(s string, secrets []string) string {
	for _, secret := range secrets {
		if len(secret) >= 4 {
			s = strings.ReplaceAll(s, secret, "[redacted]")
		}
	}
	s = secretParam.ReplaceAllString(s, "$1=[redacted]")
	return tokenLike.ReplaceAllString(s, "[redacted]")
}

// clean makes API text fit for an error string: secrets removed, valid
// UTF-8, one line, bounded length.
func clean(s string, secrets []string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxMessage {
		cut := maxMessage
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return redact(s, secrets)
}

// flexInt decodes a JSON number or a numeric string; anything else is 0, so
// a surprising field never fails a whole reply.
type flexInt int64

// UnmarshalJSON implements json.Unmarshaler.
func (n *flexInt) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(b, `"`))
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		*n = flexInt(v)
	} else if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && math.Abs(f) < 1<<62 {
		*n = flexInt(f)
	} else {
		*n = 0
	}
	return nil
}

// flexBool decodes a JSON boolean; anything else is false, for the same
// reason as flexInt.
type flexBool bool

// UnmarshalJSON implements json.Unmarshaler.
func (v *flexBool) UnmarshalJSON(b []byte) error {
	*v = flexBool(string(b) == "true")
	return nil
}

// Messages safe to show a person, one per failure kind.
const (
	MessageReauthorize = "Your Instagram connection has expired. Please connect Instagram again."
	MessageRateLimited = "Instagram is limiting how often we can ask. Please try again later."
	MessagePermission  = "Glimpse is missing a permission on Instagram. Please connect Instagram again and allow everything it asks for."
	MessageNotFound    = "Instagram could not find what we asked for."
	MessageUnavailable = "Instagram is not answering right now. Please try again later."
	MessageDenied      = "Instagram was not connected because access was declined."
	MessageFailed      = "Something went wrong talking to Instagram."
)

// AppError turns an error of this package into the application's error type,
// with a code for the HTTP mapping and a message safe to show a person; the
// original is kept as the logged cause. Nil stays nil.
func AppError(err error) error {
	if err == nil {
		return nil
	}
	code, msg := engine.CodeInternal, MessageFailed
	switch {
	case errors.Is(err, ErrReauthorize):
		code, msg = engine.CodeForbidden, MessageReauthorize
	case errors.Is(err, ErrRateLimited):
		code, msg = engine.CodeRateLimited, MessageRateLimited
	case errors.Is(err, ErrPermission):
		code, msg = engine.CodeForbidden, MessagePermission
	case errors.Is(err, ErrNotFound):
		code, msg = engine.CodeNotFound, MessageNotFound
	case errors.Is(err, ErrDenied):
		code, msg = engine.CodeForbidden, MessageDenied
	case errors.Is(err, ErrUnavailable):
		code, msg = engine.CodeUnavailable, MessageUnavailable
	}
	return engine.Wrap(code, err, msg)
}
