package api

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

const fuzzSecret = "IGAAfuzzSecretToken0123456789"

var sentinels = []error{ErrReauthorize, ErrRateLimited, ErrPermission, ErrNotFound, ErrUnavailable, ErrInvalidRequest}

func FuzzParseErrorBody(f *testing.F) {
	files, _ := filepath.Glob("../../../fixtures/instagram/api/error_*")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(400, b)
	}
	f.Add(500, []byte(`{"error":"a string"}`))
	f.Add(400, []byte(`{"error":{"code":"190","error_subcode":"463.0","message":"`+fuzzSecret+`"}}`))
	f.Add(400, []byte(`{"error":{"code":1e300,"message":"access_token=abc&client_secret=def"}}`))
	f.Add(0, []byte{0xff, 0xfe})
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		e := parseErrorBody(status, body, []string{fuzzSecret})
		known := false
		for _, s := range sentinels {
			known = known || e.Kind == s
		}
		if !known {
			t.Fatalf("Kind = %v, not a sentinel", e.Kind)
		}
		text := e.Error()
		if !utf8.ValidString(text) {
			t.Errorf("error text is not UTF-8: %q", text)
		}
		if strings.Contains(text, fuzzSecret) {
			t.Errorf("error text holds the secret: %q", text)
		}
		if len(e.Message) > maxMessage+len("…") {
			t.Errorf("message is %d bytes", len(e.Message))
		}
	})
}

func TestParseErrorBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want Error
	}{
		{"graph envelope", `{"error":{"message":"(#4) Application request limit reached","type":"OAuthException","code":4,"is_transient":true,"fbtrace_id":"X1"}}`,
			Error{Kind: ErrRateLimited, Status: 400, Code: 4, Type: "OAuthException", Message: "(#4) Application request limit reached", TraceID: "X1", Transient: true}},
		{"legacy OAuth shape", `{"error_type":"OAuthException","code":400,"error_message":"Invalid authorization code"}`,
			Error{Kind: ErrInvalidRequest, Status: 400, Code: 400, Type: "OAuthException", Message: "Invalid authorization code"}},
		{"codes as strings", `{"error":{"code":"102","message":"Session"}}`,
			Error{Kind: ErrReauthorize, Status: 400, Code: 102, Message: "Session"}},
		{"a reauthorisation subcode under another code", `{"error":{"code":99,"error_subcode":460,"type":"OAuthException"}}`,
			Error{Kind: ErrReauthorize, Status: 400, Code: 99, Subcode: 460, Type: "OAuthException"}},
		{"permission range", `{"error":{"code":230}}`, Error{Kind: ErrPermission, Status: 400, Code: 230}},
		{"policy block", `{"error":{"code":368}}`, Error{Kind: ErrRateLimited, Status: 400, Code: 368}},
		{"unknown transient", `{"error":{"code":9999,"is_transient":true}}`, Error{Kind: ErrUnavailable, Status: 400, Code: 9999, Transient: true}},
		{"unknown code", `{"error":{"code":9999}}`, Error{Kind: ErrInvalidRequest, Status: 400, Code: 9999}},
		{"not JSON", `<html>`, Error{Kind: ErrInvalidRequest, Status: 400, Message: "HTTP 400 without an error body"}},
		{"secrets in the message", `{"error":{"code":100,"message":"GET /me?access_token=IGAAabcdefghijklmnopqrstuv&client_secret=s3cr3t failed; also IGQVJabcdefghijklmnopqrstu"}}`,
			Error{Kind: ErrNotFound, Status: 400, Code: 100, Message: "GET /me?access_token=[redacted]&client_secret=[redacted] failed; also [redacted]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := parseErrorBody(400, []byte(tt.body), nil)
			if diff := cmp.Diff(tt.want, *got, cmp.Comparer(func(a, b error) bool { return a == b }), cmp.AllowUnexported(Error{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzUsageOf(f *testing.F) {
	f.Add(`{"call_count":28,"total_cputime":25,"total_time":25}`, `{"1":[{"type":"instagram","call_count":100,"estimated_time_to_regain_access":12}]}`, "120")
	f.Add(`{"estimated_time_to_regain_access":1e308}`, `{"1":{"estimated_time_to_regain_access":-5}}`, "NaN")
	f.Add(`[]`, `{"1":"x"}`, "-1")
	f.Add(``, ``, "1e400")
	f.Fuzz(func(t *testing.T, app, buc, retry string) {
		h := http.Header{}
		h.Set("X-App-Usage", app)
		h.Set("X-Business-Use-Case-Usage", buc)
		h.Set("Retry-After", retry)
		u := usageOf(h)
		if u.retryAfter < 0 || u.retryAfter > maxBackoff {
			t.Errorf("retryAfter = %s, outside [0, %s]", u.retryAfter, maxBackoff)
		}
		if u.percent < 0 {
			t.Errorf("percent = %d", u.percent)
		}
	})
}

func TestUsageOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		app, buc, retry string
		wantPercent     int
		wantRetryAfter  time.Duration
	}{
		{"nothing", "", "", "", 0, 0},
		{"app usage", `{"call_count":28,"total_cputime":25,"total_time":31}`, "", "", 31, 0},
		{"BUC, largest wait wins", "", `{"1":[{"call_count":40,"estimated_time_to_regain_access":3},{"total_time":100,"estimated_time_to_regain_access":9}],"2":[{"estimated_time_to_regain_access":4}]}`, "", 100, 9 * time.Minute},
		{"BUC entry as an object", "", `{"1":{"call_count":50,"estimated_time_to_regain_access":2}}`, "", 50, 2 * time.Minute},
		{"Retry-After longer than the estimate", "", `{"1":[{"estimated_time_to_regain_access":1}]}`, "300", 0, 5 * time.Minute},
		{"capped at a day", `{"estimated_time_to_regain_access":100000}`, "", "", 0, maxBackoff},
		{"garbage ignored", `{"call_count":"lots"}`, `not json`, "soon", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for k, v := range map[string]string{"X-App-Usage": tt.app, "X-Business-Use-Case-Usage": tt.buc, "Retry-After": tt.retry} {
				if v != "" {
					h.Set(k, v)
				}
			}
			got := usageOf(h)
			if got.percent != tt.wantPercent || got.retryAfter != tt.wantRetryAfter {
				t.Errorf("usage = %+v, want percent %d, retryAfter %s", got, tt.wantPercent, tt.wantRetryAfter)
			}
		})
	}
}

func TestParseTime(t *testing.T) {
	t.Parallel()
	want := time.Date(2019, 4, 5, 7, 56, 32, 0, time.UTC)
	for _, s := range []string{"2019-04-05T07:56:32+0000", "2019-04-05T09:56:32+0200", "2019-04-05T07:56:32Z", "2019-04-05T07:56:32+00:00"} {
		got, err := parseTime(s)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseTime(%q) = %v, %v", s, got, err)
		}
	}
	if got, err := parseTime(""); err != nil || !got.IsZero() {
		t.Errorf("parseTime(\"\") = %v, %v", got, err)
	}
	if _, err := parseTime("14/03/2025"); err == nil {
		t.Error("parseTime accepted a date it cannot read")
	}
}

func TestFlexString(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{`"17841400000000001"`: "17841400000000001", `17841405793187218`: "17841405793187218",
		`null`: "", `{"a":1}`: "", `true`: ""} {
		var s flexString
		if err := s.UnmarshalJSON([]byte(in)); err != nil || string(s) != want {
			t.Errorf("flexString(%s) = %q, %v; want %q", in, s, err, want)
		}
	}
}

func TestRateLimitErrorUnwrap(t *testing.T) {
	t.Parallel()
	own := &RateLimitError{RetryAfter: time.Minute}
	theirs := &RateLimitError{RetryAfter: time.Minute, Err: &Error{Kind: ErrRateLimited, Code: 4}}
	var e *Error
	if !errors.Is(own, ErrRateLimited) || errors.As(own, &e) {
		t.Errorf("own refusal: Is = %v, As = %v", errors.Is(own, ErrRateLimited), e)
	}
	if !errors.Is(theirs, ErrRateLimited) || !errors.As(theirs, &e) || e.Code != 4 {
		t.Errorf("API refusal: As = %v", e)
	}
}
